"""The background: what an attacker may know, as one object that every risk measure takes.

A background is a folder written by ``textsan background build``: the
records' texts and their BM25 postings (:mod:`.reid_index`, the search of
``reid_risk``), the term index of the k-anonymity measures
(:mod:`.kanon_index`, ``kanon_risk`` and ``residual_risk``) and, built with
``--dense``, the passages' embeddings (:mod:`.reid_dense`). The package ships
one per language it has documents for (:data:`SHIPPED_BACKGROUNDS`): English
(``risk/data/background``), the ECHR judgments of TAB's train split and the
texts of its dev split, and French and Spanish (``background_fr``,
``background_es``), the same court's judgments translated (96 each; texts
only, no annotation). A user's own archive is the better background ("who else
in our records matches this?").

The registered block ``spacy_textsan.background.v1`` is the single setting
``background`` of ``kanon_risk``, ``reid_risk`` and ``residual_risk``::

    [components.reid_risk.background]
    @misc = "spacy_textsan.background.v1"
    path = ${paths.background}

``path = null`` is the shipped background of the block's ``lang`` (the pipeline's,
``lang = ${nlp.lang}`` in the French and Spanish default configs; English when
the block names none, or when none is shipped for the language: German), and
``shipped = false`` none. Each part is read on first use
and once per process and folder while its files are unchanged (the postings
and embeddings memory-mapped), so the three components of a pipeline share
one copy. A folder of ``textsan kanon build`` (a term index only) serves the
k-anonymity measures; a background folder built with ``--no-terms`` takes its
term counts from the shipped background.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

import spacy

from .kanon_index import InvertedIndex
from .reid_dense import DENSE_DIR, DenseBackground
from .reid_index import BackgroundIndex, is_background_dir, load_background, read_manifest

__all__ = [
    "SHIPPED_BACKGROUND",
    "SHIPPED_BACKGROUNDS",
    "Background",
    "create_background",
    "load_index",
    "shipped_background",
]

_DATA = Path(__file__).parent / "data"
#: The English background shipped with the package (TAB's ECHR judgments).
SHIPPED_BACKGROUND = _DATA / "background"
#: The backgrounds shipped with the package, by the language their records are read in.
SHIPPED_BACKGROUNDS = {"en": SHIPPED_BACKGROUND, "fr": _DATA / "background_fr", "es": _DATA / "background_es"}
logger = logging.getLogger("spacy_textsan")


def shipped_background(lang: str | None = "en") -> Path:
    """The shipped background of language ``lang``; the English one when none is shipped for it."""
    path = SHIPPED_BACKGROUNDS.get(lang or "en")
    return path if path is not None and is_background_dir(path) else SHIPPED_BACKGROUND


def _language(path: Path) -> str:
    """The language background folder ``path`` was read in (its manifest's; English when it says none)."""
    try:
        return read_manifest(path).get("analyser", {}).get("stopwords") or "en"
    except (ValueError, AttributeError):
        return "en"


def _stamp(path: Path) -> float:
    """The newest modification time of ``path``'s files (0.0: none)."""
    if not path.exists():
        return 0.0
    times = [p.stat().st_mtime for p in sorted(path.iterdir())] if path.is_dir() else [path.stat().st_mtime]
    return max(times, default=0.0)


@lru_cache(maxsize=8)
def _load_terms(path: str, stamp: float) -> InvertedIndex:
    return InvertedIndex.from_disk(path)


@lru_cache(maxsize=8)
def _load_dense(path: str, stamp: float) -> DenseBackground | None:
    return DenseBackground.load(path)


def load_index(path: str | Path) -> InvertedIndex:
    """The term index saved at ``path`` (loaded once per process while its files are unchanged)."""
    path = Path(path)
    return _load_terms(str(path.resolve()), _stamp(path))


class Background:
    """A background folder and its three parts, each loaded on first use.

    path (str | Path | None): The folder; ``None`` is the shipped background of ``lang``.
    lang (str | None): With no ``path``, the language of the shipped background (English by default, and
        when the package ships none for it).
    """

    def __init__(self, path: str | Path | None = None, lang: str | None = None) -> None:
        self.path = Path(path) if path else shipped_background(lang)

    @property
    def shipped(self) -> bool:
        """Whether this is a background shipped with the package."""
        return any(self.path.resolve() == p.resolve() for p in SHIPPED_BACKGROUNDS.values())

    def __repr__(self) -> str:
        return f"Background({str(self.path)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Background) and self.path.resolve() == other.path.resolve()

    def __hash__(self) -> int:
        return hash(self.path.resolve())

    def terms(self) -> InvertedIndex:
        """The term index of the k-anonymity measures.

        RAISES (OSError, ValueError): the folder holds no index that can be read.
        """
        if is_background_dir(self.path) and not (self.path / "meta.json").is_file():
            # a background folder built with --no-terms: its records serve the search only
            shipped = shipped_background(_language(self.path))
            logger.info("%s holds no term index: kanon measures use the shipped background %s", self.path, shipped)
            return load_index(shipped)
        return load_index(self.path)

    def search(self) -> BackgroundIndex:
        """The records and the attackers' postings (``reid_risk``).

        RAISES (LookupError): the folder is not a background folder;
            (OSError, ValueError): it cannot be read.
        """
        if not is_background_dir(self.path):
            raise LookupError(
                f"{self.path} is not a background folder (no background.json): build one with "
                "textsan background build DIR --docs FILE"
            )
        return load_background(self.path)

    def dense(self) -> DenseBackground | None:
        """The passages' embeddings (None: the folder was built without ``--dense``)."""
        return _load_dense(str(self.path.resolve()), _stamp(self.path / DENSE_DIR))


@spacy.registry.misc("spacy_textsan.background.v1")
def create_background(path: str | None = None, shipped: bool = True, lang: str | None = None) -> Background | None:
    """The background folder ``path``; without one, the background shipped with
    the package for ``lang`` (``${nlp.lang}``: the pipeline's language; English
    when it is left out or none is shipped for it), or none when ``shipped =
    false`` (the component then fails closed until ``initialize`` gives it one)."""
    if not path and not shipped:
        return None
    return Background(path, lang)
