"""Silver training data: unlabeled documents annotated by a sanitization pipeline.

Papadopoulou et al. (2022a) train their privacy-enhanced NER on silver data
(generic NER + gazetteer) and Papadopoulou et al. (2022b) bootstrap labels by
k-anonymity masking. Here any
pipeline does the labelling (default: zero-shot privacy_ner + gazetteer +
kanon_risk + optimizer, ``spacy_textsan/configs/silver.cfg``): every span it
*masks* becomes a gold entity of the silver Doc (label = TAB type), every
candidate goes to ``doc.spans["textsan_gold"]`` with ``id_`` = its identifier
type (``QUASI`` when masked without one, ``NO_MASK`` when kept), so that the
silver DocBin trains ``privacy_ner`` and ``supervised_risk`` like a converted
TAB file does.

A document whose labelling fails is left out (and counted), never written
with partial labels.
"""

import logging
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from ..extensions import DIRECT, NO_MASK, QUASI, SPANS_KEY, UNKNOWN, get_candidates
from ..io import read_input
from .convert import GOLD_KEY

logger = logging.getLogger("spacy_textsan")

__all__ = ["silver_doc", "annotate_silver"]

SOURCE_KEY = "silver_source"
SILVER_CONFIG = Path(__file__).resolve().parent.parent / "configs" / "silver.cfg"


def silver_doc(doc: Doc, spans_key: str = SPANS_KEY, source: str = "") -> Doc:
    """A training Doc (own vocab-compatible copy) from a processed one: masked
    candidates as entities, all candidates in ``textsan_gold``."""
    out = Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc])
    gold: list[Span] = []
    for span in get_candidates(doc, spans_key):
        masked = span._.masked is not False  # undecided counts as masked (fail closed)
        ident = span._.identifier_type or UNKNOWN
        if masked and ident in (UNKNOWN, NO_MASK):
            ident = QUASI
        if not masked:
            ident = NO_MASK
        gold.append(Span(out, span.start, span.end, label=span.label_, kb_id=span._.entity_id or "", span_id=ident))
    out.spans[GOLD_KEY] = gold
    out.ents = filter_spans([s for s in gold if s.id_ in (DIRECT, QUASI)])
    if source:
        out.user_data[SOURCE_KEY] = source
    return out


def annotate_silver(
    nlp: Language, texts: Iterable[tuple[str, str]], *, spans_key: str = SPANS_KEY, batch_size: int = 8
) -> Iterator[tuple[str, Doc | None, str | None]]:
    """``(source, text)`` pairs → ``(source, silver Doc or None, error or None)``, in order."""
    items = list(texts)
    for start in range(0, len(items), batch_size):
        batch = items[start : start + batch_size]
        docs: list[Doc | Exception]
        try:
            docs = list(nlp.pipe([t for _, t in batch]))
        except Exception:  # one bad document must not sink the batch
            docs = []
            for source, text in batch:
                try:
                    docs.append(nlp(text))
                except Exception as e:  # noqa: BLE001 - reported per document
                    logger.warning("silver: %s failed: %s", source, e)
                    docs.append(e)
        for (source, _), doc in zip(batch, docs, strict=False):
            if isinstance(doc, Exception) or (isinstance(doc, Doc) and doc._.sanitize_errors):
                err = str(doc) if isinstance(doc, Exception) else "; ".join(doc._.sanitize_errors)
                yield source, None, err
            else:
                yield source, silver_doc(doc, spans_key, source), None


def read_texts(
    paths: Sequence[Path], field: str | None, columns: Sequence[str], exclude_ids: Iterable[str] = ()
) -> Iterator[tuple[str, str]]:
    excluded = set(exclude_ids)
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for f in files:
            input_file = read_input(f, columns=columns or None, field=field)
            for record in input_file.records:
                if record.doc_id in excluded:
                    continue
                for name, text in record.texts.items():
                    if text.strip():
                        yield f"{record.doc_id}:{name}", text
