"""The four stages of a sanitization pipeline and what a component of each
provides: detect -> risk -> decide -> render.

A spacy-textsan component says its stage by its ``textsan_stage`` class
attribute (:func:`stage_of`) and lives in the package of that stage
(``detect/``, ``risk/``, ``decide/``, ``render/``). What each stage writes on
the Doc is a typing Protocol here (:class:`Detector`, :class:`RiskMeasure`,
:class:`Decider`, :class:`Renderer`); the extensions are declared in
:mod:`spacy_textsan.extensions`.

:func:`check_stage_order` checks that a pipeline runs them in order, and
:class:`StageGuard` is what a decision or render component checks of the
pipeline it runs in: the stage order, and a detector ahead of it.

Light on purpose: every decision and render component imports this module,
so it imports no detector at module level (the rule layer of privacy_ner is
imported by :meth:`StageGuard.prepare` when a pipeline without a detector
needs it).
"""

import warnings
import weakref
from typing import Protocol, runtime_checkable

from spacy.language import Language
from spacy.tokens import Doc

#: What a spacy-textsan component does, by its ``textsan_stage`` class attribute, in
#: pipeline order: propose candidate spans, score them, decide what to mask, write the
#: sanitized text.
STAGES = ("detect", "risk", "decide", "render")


@runtime_checkable
class Detector(Protocol):
    """A detect-stage component (``privacy_ner``, ``wikidata_gazetteer``):
    proposes the candidate spans, written to ``doc.spans[SPANS_KEY]``
    (:data:`~spacy_textsan.extensions.SPANS_KEY`, or the component's
    ``spans_key``) with ``span._.source``, ``span._.identifier_type``,
    ``span._.entity_id`` and, from the gazetteer, ``span._.kb_id`` and
    ``span._.kb_chain``.

    ``textsan_reads``: what it reads of the Doc; ``textsan_proposes``: what it writes."""

    textsan_stage: str
    textsan_reads: tuple[str, ...]
    textsan_proposes: tuple[str, ...]

    def __call__(self, doc: Doc) -> Doc: ...


@runtime_checkable
class RiskMeasure(Protocol):
    """A risk-stage component (``kanon_risk``, ``lm_risk``, ``web_risk``,
    ``supervised_risk``): scores the candidates, ``span._.risk[measure]``
    (and ``span._.info_content``), and records the spans or combinations of
    spans that are risky in ``doc._.risky_sets``; it may add candidates
    (rare phrases).

    ``textsan_reads``: what it reads of the Doc; ``textsan_measures``: what it writes."""

    textsan_stage: str
    textsan_reads: tuple[str, ...]
    textsan_measures: tuple[str, ...]

    def __call__(self, doc: Doc) -> Doc: ...


@runtime_checkable
class Decider(Protocol):
    """A decide-stage component (``mask_optimizer``, ``mask_all``,
    ``reid_risk``, ``residual_risk``): decides what to mask,
    ``span._.masked`` (True, False; None: undecided, rendered as masked)
    with ``span._.reasons``, and reports in ``doc._.decision_info``,
    ``doc._.reid_risk`` or ``doc._.residual_risk``.

    ``textsan_reads``: what it reads of the Doc; ``textsan_decides``: what it writes."""

    textsan_stage: str
    textsan_reads: tuple[str, ...]
    textsan_decides: tuple[str, ...]

    def __call__(self, doc: Doc) -> Doc: ...


@runtime_checkable
class Renderer(Protocol):
    """A render-stage component (``generalizer``): writes the replacement
    of every masked span, ``span._.replacement``, the sanitized text,
    ``doc._.sanitized_text``, and its offsets back to the original,
    ``doc._.offset_map``.

    ``textsan_reads``: what it reads of the Doc; ``textsan_renders``: what it writes."""

    textsan_stage: str
    textsan_reads: tuple[str, ...]
    textsan_renders: tuple[str, ...]

    def __call__(self, doc: Doc) -> Doc: ...


#: The Protocol of each stage.
STAGE_PROTOCOLS: dict[str, type] = {
    "detect": Detector,
    "risk": RiskMeasure,
    "decide": Decider,
    "render": Renderer,
}


def stage_of(component: object) -> str | None:
    """The component's ``textsan_stage`` (None: not a spacy-textsan component)."""
    stage = getattr(component, "textsan_stage", None)
    return stage if stage in STAGES else None


def stages_of(nlp: Language) -> set[str]:
    """The stages the pipeline's components cover."""
    return {s for _, proc in nlp.pipeline if (s := stage_of(proc)) is not None}


class NoDetectorWarning(UserWarning):
    """A decision or render component runs in a pipeline without a spacy-textsan detector."""


def check_stage_order(nlp: Language) -> None:
    """Raise ``ValueError`` if the pipeline's spacy-textsan components (by
    :func:`stage_of`) do not run in the order of :data:`STAGES`: a generalizer
    before the decision, a decision before the detector, a risk measure after
    the decision would each read what is not there yet."""
    rank = {stage: i for i, stage in enumerate(STAGES)}
    latest: tuple[str, str] | None = None  # (name, stage) of the latest stage met so far
    for name, proc in nlp.pipeline:
        stage = stage_of(proc)
        if stage is None:
            continue
        if latest is not None and rank[stage] < rank[latest[1]]:
            listing = ", ".join(f"{n} ({s})" if (s := stage_of(p)) else n for n, p in nlp.pipeline)
            first, fix = latest[0], f'nlp.add_pipe("{nlp.get_pipe_meta(name).factory}", before="{latest[0]}")'
            raise ValueError(
                f"spacy-textsan: '{first}' ({latest[1]}) runs before '{name}' ({stage}) in the pipeline "
                f"[{listing}], but spacy-textsan's stages run in the order {', '.join(STAGES)}. Add '{name}' "
                f"before '{first}': {fix} (in a config: list it before '{first}' in [nlp] pipeline)"
            )
        if latest is None or rank[stage] > rank[latest[1]]:
            latest = (name, stage)


#: The pipelines already warned about (:class:`NoDetectorWarning`, once per pipeline).
_WARNED: "weakref.WeakSet[Language]" = weakref.WeakSet()


class StageGuard:
    """What a decision or render component (``mask_all``, ``mask_optimizer``,
    ``generalizer``) checks of the pipeline ``nlp`` it was made for, before it
    reads a doc's candidates.

    * :meth:`check`, at ``nlp.initialize()`` and on the first doc (again if
      the pipeline changed): the stage order (:func:`check_stage_order`);
    * :meth:`prepare`, on every doc: in a pipeline without a detect-stage
      component, a doc without the candidate span group would be read through
      ``doc.ents`` alone. A :class:`NoDetectorWarning` says so, once per
      pipeline, and with ``add_rules`` the rule layer of privacy_ner
      (:func:`~spacy_textsan.detect.privacy_ner.host_rules.add_rule_layer`) is
      added to the host's entities first. A group that is there already (set
      by hand, by a risk measure or by another package) is read as it is.

    A component made without a pipeline (``MaskAll()``) checks nothing.
    """

    def __init__(self, component: object, nlp: Language | None, *, spans_key: str, add_rules: bool):
        self.component = component
        self.nlp = nlp
        self.spans_key = spans_key
        self.add_rules = add_rules
        self._checked: tuple[int, ...] | None = None  # the pipeline last found in order
        self._name = ""  # the component's name in it
        self._has_detector = True

    def initialize(self, nlp: Language | None) -> None:
        """``nlp.initialize()``: the same checks as on the first doc."""
        if nlp is not None:
            self.nlp = nlp
        self.check()

    def check(self) -> None:
        """Raise ``ValueError`` for a wrong stage order; note whether a detector runs."""
        if self.nlp is None:
            return
        pipeline = self.nlp.pipeline
        signature = tuple(id(proc) for _, proc in pipeline)
        if signature == self._checked:
            return
        names = [name for name, proc in pipeline if proc is self.component]
        if not names:  # disabled, or moved to another pipeline: nothing to check here
            return
        check_stage_order(self.nlp)
        self._name = names[0]
        self._has_detector = any(stage_of(proc) == "detect" for _, proc in pipeline)
        self._checked = signature

    def prepare(self, doc: Doc) -> None:
        """Before the component reads the candidates of ``doc``: :meth:`check`,
        then the warning and the rule layer of a pipeline without a detector."""
        self.check()
        if self.nlp is None or self._checked is None or self._has_detector or self.spans_key in doc.spans:
            return
        if self.nlp not in _WARNED:
            _WARNED.add(self.nlp)
            warnings.warn(no_detector_message(self._name, self.add_rules), NoDetectorWarning, stacklevel=4)
        if self.add_rules:
            from .detect.privacy_ner.host_rules import add_rule_layer  # the detectors, only when needed

            add_rule_layer(doc, self.spans_key)


def no_detector_message(name: str, add_rules: bool) -> str:
    """The :class:`NoDetectorWarning` of component ``name``."""
    from .detect.privacy_ner import DOC_ENTS  # the detectors, only when needed

    fix = (
        f"Add privacy_ner before it for its full detection (names, places, identifiers): "
        f'nlp.add_pipe("privacy_ner", before="{name}", config={{"sources": ["{DOC_ENTS}"]}})'
    )
    if add_rules:
        return (
            f"spacy-textsan: '{name}' runs in a pipeline without privacy_ner (no detect-stage component): its "
            "candidates are the pipeline's entities (doc.ents) and the rule layer of privacy_ner (phone numbers, "
            f"e-mail addresses, URLs, IP addresses, codes, standard numbers), added to them. {fix}, or set "
            "add_rules = false to read doc.ents alone."
        )
    return (
        f"spacy-textsan: '{name}' runs in a pipeline without privacy_ner (no detect-stage component) and with "
        "add_rules = false: its candidates are the pipeline's entities (doc.ents) alone, and phone numbers, "
        f"e-mail addresses and codes that the NER does not tag stay in clear. {fix}."
    )
