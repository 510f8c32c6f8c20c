"""``mask_all``: the simplest decision policy, masking every candidate span.

It stands where ``mask_optimizer`` will (same inputs and outputs) and is
swapped for it by config alone. Spans that a previous component already
decided are left alone unless ``overwrite`` is set. In a pipeline without a
detector it adds the rule layer of privacy_ner to ``doc.ents`` first
(``add_rules``, :class:`~spacy_textsan.stages.StageGuard`).
"""

from collections.abc import Callable, Iterable

from spacy.language import Language
from spacy.tokens import Doc

from ..extensions import SPANS_KEY, add_reason, get_candidates
from ..stages import StageGuard


@Language.factory(
    "mask_all",
    requires=["doc.spans"],
    default_config={"spans_key": SPANS_KEY, "keep_identifier_types": [], "overwrite": False, "add_rules": True},
)
def make_mask_all(
    nlp: Language, name: str, spans_key: str, keep_identifier_types: list[str], overwrite: bool, add_rules: bool
) -> "MaskAll":
    return MaskAll(
        name,
        spans_key=spans_key,
        keep_identifier_types=keep_identifier_types,
        overwrite=overwrite,
        nlp=nlp,
        add_rules=add_rules,
    )


class MaskAll:
    """Marks every candidate masked (reason ``policy:mask_all``); spans whose
    identifier type is in ``keep_identifier_types`` (e.g. ["NO_MASK"]) are kept."""

    #: a decision component (see :mod:`spacy_textsan.stages`)
    textsan_stage = "decide"
    #: what it reads and writes (:mod:`spacy_textsan.stages`)
    textsan_reads = ("doc.spans",)
    textsan_decides = ("span._.masked", "span._.reasons")

    def __init__(
        self,
        name: str = "mask_all",
        *,
        spans_key: str = SPANS_KEY,
        keep_identifier_types: Iterable[str] = (),
        overwrite: bool = False,
        nlp: Language | None = None,
        add_rules: bool = True,
    ):
        self.name = name
        self.spans_key = spans_key
        self.keep = set(keep_identifier_types)
        self.overwrite = overwrite
        self.guard = StageGuard(self, nlp, spans_key=spans_key, add_rules=add_rules)

    def initialize(self, get_examples: Callable | None = None, *, nlp: Language | None = None) -> None:
        """``nlp.initialize()``: check the pipeline's stage order."""
        self.guard.initialize(nlp)

    def __call__(self, doc: Doc) -> Doc:
        self.guard.prepare(doc)
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
