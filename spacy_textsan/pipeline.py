"""Loading the sanitization pipeline: the bundled default, a saved or
installed pipeline, or a config file, with command-line overrides."""

from pathlib import Path

import spacy
from spacy.language import Language
from thinc.api import Config

from .extensions import SPANS_KEY

DEFAULT_CONFIG_PATH = Path(__file__).parent / "configs" / "zero_shot.cfg"
DECISION_FACTORIES = ("mask_all", "mask_optimizer")


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
    pipeline lacks are ignored.
    """
    overrides = dict(overrides or {})
    if name_or_path is None or str(name_or_path).endswith(".cfg"):
        path = DEFAULT_CONFIG_PATH if name_or_path is None else Path(name_or_path)
        if not path.exists():
            raise FileNotFoundError(f"pipeline config {path} does not exist")
        config = Config().from_disk(path, interpolate=False)
        overrides = _applicable(config, overrides)
        config = config.merge(Config(_nest(overrides))) if overrides else config
        return spacy.util.load_model_from_config(config.interpolate(), auto_fill=True, validate=True)
    nlp = spacy.load(name_or_path)
    return complete_pipeline(nlp, overrides)


def complete_pipeline(nlp: Language, overrides: dict[str, object] | None = None) -> Language:
    """Add the spacy-textsan components a foreign pipeline lacks."""
    overrides = overrides or {}
    names = nlp.pipe_names
    factories = {nlp.get_pipe_meta(n).factory for n in names}
    if "privacy_ner" not in factories:
        cfg = {"sources": ["doc.ents"] if "ner" in names else []}
        cfg.update(_component_overrides(overrides, "privacy_ner"))
        nlp.add_pipe("privacy_ner", config=cfg)
    if not factories & set(DECISION_FACTORIES):
        nlp.add_pipe("mask_all", config=_component_overrides(overrides, "mask_all"))
    if "generalizer" not in factories:
        nlp.add_pipe("generalizer", config=_component_overrides(overrides, "generalizer"))
    return nlp


def _component_overrides(overrides: dict[str, object], component: str) -> dict[str, object]:
    prefix = f"components.{component}."
    return {k[len(prefix) :]: v for k, v in overrides.items() if k.startswith(prefix)}


def _applicable(config: Config, overrides: dict[str, object]) -> dict[str, object]:
    components = config.get("components", {})
    return {k: v for k, v in overrides.items() if not k.startswith("components.") or k.split(".")[1] in components}


def _nest(flat: dict[str, object]) -> dict:
    out: dict = {}
    for key, value in flat.items():
        node = out
        *parents, last = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[last] = value
    return out


def spans_key_of(nlp: Language) -> str:
    """The span group the pipeline's generalizer reads."""
    for name in nlp.pipe_names:
        if nlp.get_pipe_meta(name).factory == "generalizer":
            return getattr(nlp.get_pipe(name), "spans_key", SPANS_KEY)
    return SPANS_KEY
