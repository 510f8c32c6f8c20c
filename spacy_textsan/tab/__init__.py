"""The Text Anonymization Benchmark (TAB): reading, writing and scoring.

* :mod:`.reader`: read and validate TAB JSON files, turn them into spaCy Docs.
* :mod:`.writer`: write masked spans / TAB-format predictions.
* :mod:`.metrics`: TAB's evaluation metrics, matching its official script.
"""

from .metrics import (
    SKIP_REGEX,
    GoldDoc,
    GoldEntity,
    build_entities,
    entity_recall,
    evaluate,
    is_mention_masked,
    masked_offsets_set,
    mention_recall,
    per_type_recall,
    precision,
    prepare_gold,
    split_by_tokens,
    token_recall,
)
from .reader import (
    DOC_ID_KEY,
    GOLD_SPANS_PREFIX,
    TAB_IDENTIFIER_TYPES,
    GoldMention,
    TabDocument,
    TabFormatError,
    create_tab_reader,
    parse_tab,
    read_tab,
    tab_doc_to_doc,
    tab_to_docs,
)
from .writer import masked_spans_json, predictions_to_tab, write_masked_spans

__all__ = [
    "DOC_ID_KEY",
    "GOLD_SPANS_PREFIX",
    "SKIP_REGEX",
    "TAB_IDENTIFIER_TYPES",
    "GoldDoc",
    "GoldEntity",
    "GoldMention",
    "TabDocument",
    "TabFormatError",
    "build_entities",
    "create_tab_reader",
    "entity_recall",
    "evaluate",
    "is_mention_masked",
    "masked_spans_json",
    "masked_offsets_set",
    "mention_recall",
    "parse_tab",
    "per_type_recall",
    "precision",
    "predictions_to_tab",
    "prepare_gold",
    "read_tab",
    "split_by_tokens",
    "tab_doc_to_doc",
    "tab_to_docs",
    "token_recall",
    "write_masked_spans",
]
