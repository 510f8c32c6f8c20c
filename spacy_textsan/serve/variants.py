"""A request's own strategy without loading the pipeline again: a variant of
the loaded pipeline that shares every component (and the vocab, and the
tokenizer) but its generalizer, made from the generalizer's config with the
request's ``strategy`` and ``mask_format``."""

import threading
from collections import OrderedDict

from spacy.language import Language

from ..render.operators import strategy_settings
from ..stages import stage_of

#: Variants kept at most (the least recently used goes first).
MAX_VARIANTS = 16


def render_component(nlp: Language) -> str | None:
    """The name of the pipeline's render-stage component (None: it has none)."""
    names = [name for name, proc in nlp.pipeline if stage_of(proc) == "render"]
    return names[-1] if names else None


def pipeline_variant(nlp: Language, overrides: dict[str, object]) -> Language:
    """``nlp`` with its generalizer made again with ``overrides`` (settings of
    the generalizer factory): the other components are the same objects
    (``add_pipe(source=...)``), so nothing is loaded twice. Raises
    ``ValueError`` when the pipeline renders with something else than the
    generalizer, or when the generalizer refuses the settings (an unknown
    strategy, the hash strategy without a key)."""
    name = render_component(nlp)
    factory = nlp.get_pipe_meta(name).factory if name else None
    if name is None or factory != "generalizer":
        raise ValueError("a strategy or mask_format of its own needs a pipeline that renders with the generalizer")
    config = {k: v for k, v in nlp.config.interpolate()["components"][name].items() if k != "factory"}
    config.update(overrides)
    variant = type(nlp)(vocab=nlp.vocab, max_length=nlp.max_length, batch_size=nlp.batch_size)
    variant.tokenizer = nlp.tokenizer
    for pipe_name in nlp.pipe_names:
        if pipe_name == name:
            variant.add_pipe(factory, name=pipe_name, config=config)
        else:
            variant.add_pipe(pipe_name, source=nlp)
    return variant


class Variants:
    """The pipeline and its variants by settings, made on first use and kept
    (:data:`MAX_VARIANTS` at most, least recently used dropped first)."""

    def __init__(self, nlp: Language, max_variants: int = MAX_VARIANTS) -> None:
        self.nlp = nlp
        self.max_variants = max_variants
        self._made: OrderedDict[tuple, Language] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def overrides(strategy: str | None, mask_format: str | None) -> dict[str, object]:
        """The generalizer settings of a request (``ValueError``: bad strategy)."""
        out = strategy_settings(strategy)
        if mask_format is not None:
            out["mask_format"] = mask_format
        return out

    def get(self, overrides: dict[str, object]) -> Language:
        """The pipeline for these generalizer settings (``nlp`` itself for none)."""
        if not overrides:
            return self.nlp
        key = tuple(sorted((k, repr(v)) for k, v in overrides.items()))
        with self._lock:
            found = self._made.get(key)
            if found is not None:
                self._made.move_to_end(key)
                return found
        variant = pipeline_variant(self.nlp, overrides)
        with self._lock:
            self._made[key] = variant
            while len(self._made) > self.max_variants:
                self._made.popitem(last=False)
        return variant
