"""Documents routed by language (``textsan sanitize --lang auto``): each
document's language detected (langdetect, seeded: the same answer on every
run), the pipeline of that language loaded once on first use and kept, and a
document whose language has no pipeline here (not supported, or its models
not installed) sanitized by the default pipeline, which its result says.

Each result carries ``language`` (the pipeline that sanitized it), and with
detection ``language_detected`` (langdetect's code, None when it found none)
and ``language_fallback`` (why the default pipeline sanitized it; None when
its own language's did): the report lines of :func:`.results.report_row`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import Any

from spacy.language import Language

from ..languages import LANGUAGES
from ..pipeline import MissingModelError
from .results import DocResult
from .runner import sanitize_texts

logger = logging.getLogger("spacy_textsan")

#: The characters of a document that its language is detected on (its start: detection's time stays bounded).
DETECT_CHARS = 10_000


@lru_cache(maxsize=1)
def _detect() -> Callable[[str], str]:
    """langdetect's ``detect``, seeded (``DetectorFactory.seed = 0``): the same text gets the same answer on every run."""
    from langdetect import DetectorFactory, detect

    DetectorFactory.seed = 0
    return detect


def detect_language(text: str) -> str | None:
    """The language langdetect finds in ``text`` (its code: ``en``, ``fr``,
    ``zh-cn``...), from its first :data:`DETECT_CHARS` characters; None for
    a text it finds no language in (no letters)."""
    from langdetect.lang_detect_exception import LangDetectException

    try:
        return str(_detect()(text[:DETECT_CHARS]))
    except LangDetectException:
        return None


@dataclass(frozen=True)
class Route:
    """Where one document goes: the pipeline's language, what was detected, why it fell back (None: it did not)."""

    language: str
    detected: str | None
    fallback: str | None


class LanguageRouter:
    """The pipelines of a run by language: ``default`` (language
    ``default.lang``) for documents of no other pipeline, the others loaded
    by ``load(code)`` on first use and kept. A language whose ``load``
    raises :class:`~spacy_textsan.pipeline.MissingModelError` is not
    installed: its documents go to the default pipeline, saying so.
    ``detect``: the language of a text (:func:`detect_language`)."""

    def __init__(
        self,
        default: Language,
        load: Callable[[str], Language],
        detect: Callable[[str], str | None] = detect_language,
    ) -> None:
        self.default = default
        self._load = load
        self._detect = detect
        self._pipelines: dict[str, Language] = {str(default.lang): default}
        #: languages that cannot be loaded here, and why (one line)
        self.missing: dict[str, str] = {}

    @property
    def loaded(self) -> dict[str, Language]:
        """The pipelines loaded so far, by language."""
        return dict(self._pipelines)

    def pipeline(self, code: str) -> Language | None:
        """The pipeline of language ``code`` (loaded now if need be); None when
        it is not supported or not installed."""
        if code in self._pipelines:
            return self._pipelines[code]
        if code not in LANGUAGES or code in self.missing:
            return None
        try:
            nlp = self._load(code)
        except MissingModelError as e:
            self.missing[code] = str(e)
            logger.warning("--lang auto: %s; its documents are sanitized as %s", e, self.default.lang)
            return None
        self._pipelines[code] = nlp
        return nlp

    def route(self, text: str) -> Route:
        """The language whose pipeline sanitizes ``text``."""
        detected = self._detect(text)
        default = str(self.default.lang)
        if detected is None:
            return Route(default, None, f"no language detected: sanitized as {default}")
        if detected == default or self.pipeline(detected) is not None:
            return Route(detected, detected, None)
        if detected in self.missing:
            return Route(default, detected, f"{detected} is not installed here: sanitized as {default}")
        return Route(default, detected, f"no pipeline for {detected}: sanitized as {default}")


def sanitize_routed(
    router: LanguageRouter, texts: Iterable[str], *, batch_size: int = 32, n_process: int = 1, **options: Any
) -> Iterator[DocResult]:
    """One result per text, in input order, each sanitized by the pipeline of
    its language (:meth:`LanguageRouter.route`) with
    :func:`~spacy_textsan.run.runner.sanitize_texts` (``options``: its
    ``on_error``, ``timeout_s``, ``keep_docs``), a chunk of texts at a time."""
    it = iter(texts)
    chunk_size = max(1, batch_size) * max(1, n_process)
    while chunk := list(islice(it, chunk_size)):
        routes = [router.route(text) for text in chunk]
        results: list[DocResult | None] = [None] * len(chunk)
        for code in dict.fromkeys(r.language for r in routes):
            positions = [i for i, r in enumerate(routes) if r.language == code]
            nlp = router.pipeline(code) or router.default
            group = sanitize_texts(
                nlp, [chunk[i] for i in positions], batch_size=batch_size, n_process=n_process, **options
            )
            for i, res in zip(positions, group, strict=True):
                res.language, res.language_detected = routes[i].language, routes[i].detected
                res.language_fallback, res.language_routed = routes[i].fallback, True
                results[i] = res
        yield from (res for res in results if res is not None)
