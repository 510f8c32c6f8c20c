"""Loading the sanitization pipeline: the bundled default, a saved or
installed pipeline, or a config file, with command-line overrides; and what a
decision or render component checks of the pipeline it runs in
(:class:`StageGuard`): the stage order, and a detector ahead of it."""

import warnings
import weakref
from pathlib import Path

import spacy
from spacy.language import Language
from spacy.tokens import Doc

from .extensions import SPANS_KEY
from .privacy_ner import DOC_ENTS
from .privacy_ner.host_rules import add_rule_layer

DEFAULT_CONFIG_PATH = Path(__file__).parent / "configs" / "zero_shot.cfg"
#: The longest text a loaded pipeline accepts. spaCy's default (1,000,000
#: characters) would make a longer document fail and be redacted whole; here the
#: source NER runs in pieces of at most 20,000 characters cut at paragraph and
#: sentence breaks, so only the tokenizer and the rule layers see the whole text.
MAX_DOCUMENT_CHARS = 20_000_000
#: What a spacy-textsan component does, by its ``textsan_stage`` class attribute, in
#: pipeline order: propose candidate spans, score them, decide what to mask, write the
#: sanitized text.
STAGES = ("detect", "risk", "decide", "render")


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
      (:func:`~.privacy_ner.host_rules.add_rule_layer`) is added to the
      host's entities first. A group that is there already (set by hand, by a
      risk measure or by another package) is read as it is.

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
            add_rule_layer(doc, self.spans_key)


def no_detector_message(name: str, add_rules: bool) -> str:
    """The :class:`NoDetectorWarning` of component ``name``."""
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


def load_pipeline(name_or_path: str | None = None, overrides: dict[str, object] | None = None) -> Language:
    """The pipeline to sanitize with.

    ``None`` gives the bundled zero-shot pipeline. A ``.cfg`` file is built
    from its config. Any other value is loaded with ``spacy.load`` (installed
    package or directory). A pipeline without spacy-textsan components is
    completed: its ``ner`` becomes the candidate source (``doc.ents``), every
    candidate is masked and the generalizer renders the text.
    ``overrides`` are config overrides such as
    ``{"components.privacy_ner.patterns": [...]}`` or
    ``{"paths.kanon_index": "..."}``; overrides of components that the
    pipeline lacks are ignored. Components out of stage order are an error
    here (:func:`check_stage_order`), before any text is read.
    """
    overrides = dict(overrides or {})
    if name_or_path is None or str(name_or_path).endswith(".cfg"):
        path = DEFAULT_CONFIG_PATH if name_or_path is None else Path(name_or_path)
        if not path.exists():
            raise FileNotFoundError(f"pipeline config {path} does not exist")
        components = spacy.util.load_config(path, interpolate=False).get("components", {})
        config = spacy.util.load_config(path, overrides=_applicable(components, overrides), interpolate=False)
        nlp = spacy.util.load_model_from_config(config.interpolate(), auto_fill=True, validate=True)
    else:
        nlp = complete_pipeline(spacy.load(name_or_path), overrides)
    nlp.max_length = max(nlp.max_length, MAX_DOCUMENT_CHARS)
    check_stage_order(nlp)
    return nlp


def complete_pipeline(nlp: Language, overrides: dict[str, object] | None = None) -> Language:
    """Add the spacy-textsan stages a foreign pipeline lacks: a detector
    (privacy_ner, reading the pipeline's ``ner``), a decision (mask_all) and
    the generalizer, each before the first component of a later stage (at
    the end when there is none)."""
    overrides = overrides or {}
    stages = stages_of(nlp)
    if "detect" not in stages:
        cfg: dict[str, object] = {"sources": [DOC_ENTS] if "ner" in nlp.pipe_names else []}
        cfg.update(_component_overrides(overrides, "privacy_ner"))
        nlp.add_pipe("privacy_ner", config=cfg, before=_first_after(nlp, "detect"))
    if "decide" not in stages:
        nlp.add_pipe("mask_all", config=_component_overrides(overrides, "mask_all"), before=_first_after(nlp, "decide"))
    if "render" not in stages:
        nlp.add_pipe("generalizer", config=_component_overrides(overrides, "generalizer"))
    return nlp


def _first_after(nlp: Language, stage: str) -> str | None:
    """The first component of a stage later than ``stage`` (None: there is none)."""
    later = STAGES[STAGES.index(stage) + 1 :]
    return next((name for name, proc in nlp.pipeline if stage_of(proc) in later), None)


def _component_overrides(overrides: dict[str, object], component: str) -> dict[str, object]:
    prefix = f"components.{component}."
    return {k[len(prefix) :]: v for k, v in overrides.items() if k.startswith(prefix)}


def _applicable(components: dict, overrides: dict[str, object]) -> dict[str, object]:
    """The overrides of sections the config has (those of absent components are ignored)."""
    return {k: v for k, v in overrides.items() if not k.startswith("components.") or k.split(".")[1] in components}


def spans_key_of(nlp: Language) -> str:
    """The span group the pipeline's generalizer reads."""
    for _, proc in nlp.components:  # disabled ones too
        if stage_of(proc) == "render":
            return getattr(proc, "spans_key", SPANS_KEY)
    return SPANS_KEY
