"""The background knowledge of the k-anonymity measures.

The package ships a background index (``risk/data/background``): one record
per document of TAB's train split and of the 127 texts of its dev split
(ECHR judgments, MIT; texts only, no annotation), whose terms are the
normalised candidates of the default detectors and the cued phrases of
:mod:`.phrases`. ``make background`` rebuilds it
(``textsan kanon build spacy_textsan/risk/data/background --docs ...``).
A user's own archive is the better background ("who else in our records
matches this?"): ``textsan kanon build`` indexes it and
``--set paths.background=DIR`` uses it.

Indexes are loaded once per process and path (:func:`load_index`), so
``kanon_risk`` and ``residual_risk`` share one copy.
"""

import logging
from functools import lru_cache
from pathlib import Path

from .kanon_index import InvertedIndex
from .reid_index import is_background_dir

__all__ = ["SHIPPED_BACKGROUND", "load_index", "resolve_index"]

SHIPPED_BACKGROUND = Path(__file__).parent / "data" / "background"
logger = logging.getLogger("spacy_textsan")


def _search_only(path: str | Path) -> bool:
    """A background folder (:func:`~.reid_index.is_background_dir`) without kanon's term index (``meta.json``)."""
    return is_background_dir(path) and not (Path(path) / "meta.json").is_file()


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> InvertedIndex:
    return InvertedIndex.from_disk(path)


def load_index(path: str | Path) -> InvertedIndex:
    """The index saved at ``path`` (loaded once per process while the files are unchanged)."""
    path = Path(path)
    meta = [p.stat().st_mtime for p in sorted(path.iterdir())] if path.is_dir() else [path.stat().st_mtime]
    return _load(str(path.resolve()), max(meta, default=0.0))


def resolve_index(
    index_path: str | Path | None, background: bool
) -> tuple[InvertedIndex | None, str | None, str | None]:
    """``(index, path, error)`` of a component's configuration: the index at
    ``index_path``, else the shipped background when ``background``; a path
    that cannot be loaded gives ``(None, path, error)`` (the component fails
    closed), no path at all ``(None, None, None)``."""
    if not index_path and background:
        index_path = SHIPPED_BACKGROUND
    if not index_path:
        return None, None, None
    if _search_only(index_path):
        # a background folder of ``textsan background build --no-terms``: its records serve the
        # re-identification search (reid_risk); the term counts come from the shipped background
        logger.info("%s holds no term index: kanon measures use the shipped background", index_path)
        index_path = SHIPPED_BACKGROUND
    try:
        return load_index(index_path), str(index_path), None
    except (OSError, ValueError) as error:
        return None, str(index_path), f"cannot load index_path: {error}"
