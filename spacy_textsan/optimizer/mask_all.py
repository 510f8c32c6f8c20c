"""``mask_all``: the simplest decision policy, masking every candidate span.

It stands where ``mask_optimizer`` will (same inputs and outputs) and is
swapped for it by config alone. Spans that a previous component already
decided are left alone unless ``overwrite`` is set.
"""

from collections.abc import Iterable, Iterator

from spacy.language import Language
from spacy.tokens import Doc

from ..extensions import SPANS_KEY, add_reason, get_candidates


@Language.factory(
    "mask_all",
    requires=["doc.spans"],
    default_config={"spans_key": SPANS_KEY, "keep_identifier_types": [], "overwrite": False},
)
def make_mask_all(
    nlp: Language, name: str, spans_key: str, keep_identifier_types: list[str], overwrite: bool
) -> "MaskAll":
    return MaskAll(name, spans_key=spans_key, keep_identifier_types=keep_identifier_types, overwrite=overwrite)


class MaskAll:
    """Marks every candidate masked (reason ``policy:mask_all``); spans whose
    identifier type is in ``keep_identifier_types`` (e.g. ["NO_MASK"]) are kept."""

    #: a decision component (see :mod:`spacy_textsan.pipeline`)
    textsan_stage = "decide"

    def __init__(
        self,
        name: str = "mask_all",
        *,
        spans_key: str = SPANS_KEY,
        keep_identifier_types: Iterable[str] = (),
        overwrite: bool = False,
    ):
        self.name = name
        self.spans_key = spans_key
        self.keep = set(keep_identifier_types)
        self.overwrite = overwrite

    def __call__(self, doc: Doc) -> Doc:
        for span in get_candidates(doc, self.spans_key):
            if span._.masked is not None and not self.overwrite:
                continue
            if span._.identifier_type in self.keep:
                span._.masked = False
                add_reason(span, f"policy:mask_all kept {span._.identifier_type}")
            else:
                span._.masked = True
                add_reason(span, "policy:mask_all")
        return doc

    def pipe(self, stream: Iterable[Doc], batch_size: int | None = None) -> Iterator[Doc]:
        for doc in stream:
            yield self(doc)
