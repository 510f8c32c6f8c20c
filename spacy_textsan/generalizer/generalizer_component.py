"""The ``generalizer`` factory: replacement strings and the sanitized text.

Runs after the decision component (``mask_all`` or ``mask_optimizer``). This
version implements the ``mask`` strategy: each masked span becomes
``mask_format`` filled with its label and a number that is the same for all
mentions of one entity ("[PERSON 1]"), or a fixed string such as "***".
Spans without a decision are masked (fail closed) and say so in their reasons.
"""
from typing import Dict, Iterable, Iterator, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..extensions import SPANS_KEY, add_reason, get_candidates
from .render import render

STRATEGIES = ("mask",)


@Language.factory(
    "generalizer",
    requires=["doc.spans"],
    assigns=["doc._.sanitized_text", "doc._.offset_map"],
    default_config={"spans_key": SPANS_KEY, "strategy": "mask", "mask_format": "[{label} {n}]"},
)
def make_generalizer(nlp: Language, name: str, spans_key: str, strategy: str, mask_format: str) -> "Generalizer":
    return Generalizer(name, spans_key=spans_key, strategy=strategy, mask_format=mask_format)


class Generalizer:
    def __init__(self, name: str = "generalizer", *, spans_key: str = SPANS_KEY, strategy: str = "mask",
                 mask_format: str = "[{label} {n}]"):
        if strategy not in STRATEGIES:
            raise ValueError(f"generalizer: strategy must be one of {STRATEGIES}, not {strategy!r}")
        try:
            mask_format.format(label="PERSON", n=1)
        except (KeyError, IndexError, ValueError) as e:
            raise ValueError(f"generalizer: bad mask_format {mask_format!r}: only {{label}} and {{n}} "
                             f"may be used ({e})") from None
        self.name = name
        self.spans_key = spans_key
        self.strategy = strategy
        self.mask_format = mask_format

    def __call__(self, doc: Doc) -> Doc:
        numbers: Dict[Tuple[str, str], int] = {}
        per_label: Dict[str, int] = {}
        replacements = []
        for span in sorted(get_candidates(doc, self.spans_key), key=lambda s: (s.start_char, s.end_char)):
            if span._.masked is None:
                span._.masked = True
                add_reason(span, "undecided: masked (fail closed)")
            if not span._.masked:
                span._.replacement = None
                continue
            key = (span.label_, span._.entity_id or f"@{span.start_char}")
            if key not in numbers:
                per_label[span.label_] = per_label.get(span.label_, 0) + 1
                numbers[key] = per_label[span.label_]
            span._.replacement = self.mask_format.format(label=span.label_, n=numbers[key])
            replacements.append((span.start_char, span.end_char, span._.replacement))
        doc._.sanitized_text, doc._.offset_map = render(doc.text, replacements)
        return doc

    def pipe(self, stream: Iterable[Doc], batch_size: Optional[int] = None) -> Iterator[Doc]:
        for doc in stream:
            yield self(doc)
