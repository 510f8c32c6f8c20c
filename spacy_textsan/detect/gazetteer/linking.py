"""Linking a span's text to a knowledge-base entry, in the order of Olstad et al. 2023.

:func:`link_surface` tries, and stops at the first that finds an entry:

1. ``exact``: the normalised span is a label or alias of an entry
   (:meth:`GazetteerKB.lookup`); O(1).
2. ``contained``: the longest KB surface that occurs inside the span as whole
   words ("the Oslo District Court building" -> "Oslo District Court"); ties
   go to the earlier occurrence, then to the entry added first. Surfaces
   shorter than :data:`MIN_CONTAINED_CHARS` are ignored (one- and two-letter
   surfaces would match inside almost anything). O(b²) dictionary lookups for
   b word boundaries in the span (spans are short). When that surface names a
   curated *class* (:func:`~.lexicon.is_class_entry`), the class named
   by the span's head is taken instead (:func:`find_class_head`:
   "Administrative Court Act" is an act, "Disciplinary Court of the Chamber
   of Accountants" a disciplinary court).
3. ``fuzzy``: the KB surface at the smallest character edit distance, which
   must be strictly below ``max_edit_ratio`` × the span's (normalised) length
   (Olstad et al. 2023: 15%); ties go to the surface added first. Spans of up to 6
   characters only link exactly (15% of 6 is below 1). See :class:`FuzzyIndex`
   for the complexity.
4. ``live``: ``client.lookup(surface)`` (a :class:`WikidataClient`) when a
   client is given. A failed lookup never drops the span: the result is
   ``LinkResult(None, "none", error="wikidata lookup failed: <reason>")`` and
   the caller keeps the span as a candidate and reports the error.
5. ``none``.

Entries found live are not added to the KB here; the caller may ``kb.add`` them.

:func:`linked_chain` is the ``span._.kb_chain`` of a linked span: the entry's
chain, led by the class (and the country the span names) when a span
contains a curated class's surface.
"""

import re
import weakref
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from .kb import GazetteerKB, KBEntry, normalize_surface
from .lexicon import is_class_entry
from .wikidata_answers import WikidataError, max_distance

EXACT, CONTAINED, FUZZY, LIVE, NONE = "exact", "contained", "fuzzy", "live", "none"
#: Shortest KB surface (normalised characters) the ``contained`` step links to.
MIN_CONTAINED_CHARS = 3

_WORD = re.compile(r"\w")
_POSTMODIFIER = re.compile(r" (?:of|for) ")


@dataclass
class LinkResult:
    """What :func:`link_surface` found: the entry (None: not linked), the step
    that found it (``exact``, ``contained``, ``fuzzy``, ``live``, ``none``),
    why a live lookup failed (None when it did not), and the normalised KB
    surface or Wikidata label that matched."""

    entry: KBEntry | None
    method: str
    error: str | None = None
    matched: str | None = None


# --------------------------------------------------------------------------- #
# Contained
# --------------------------------------------------------------------------- #


def word_boundaries(text: str) -> tuple[list[int], list[int]]:
    """Offsets where a whole-word substring of ``text`` may start and end:
    never inside a word (between two word characters) nor at a space."""
    starts, ends = [], []
    n = len(text)
    for i in range(n):
        if text[i].isspace():
            continue
        if i == 0 or not (_WORD.match(text[i - 1]) and _WORD.match(text[i])):
            starts.append(i)
        if i == n - 1 or not (_WORD.match(text[i]) and _WORD.match(text[i + 1])):
            ends.append(i + 1)
    return starts, ends


def _of_type(entries: list[KBEntry], tab_type: str | None) -> list[KBEntry]:
    return entries if tab_type is None else [e for e in entries if e.tab_type == tab_type]


def _ends_within(ends: list[int], start: int, min_chars: int, kb: GazetteerKB) -> list[int]:
    """The word ends a KB surface starting at ``start`` could reach: at least ``min_chars`` away and
    no farther than the KB's longest surface (with room for normalisation), so that a long span costs
    lookups linear in its words, not quadratic."""
    lo = bisect_left(ends, start + min_chars)
    hi = bisect_right(ends, start + kb.longest_surface + _NORMALISATION_SLACK)
    return ends[lo:hi]


#: Characters a surface may gain or lose when normalised (``ß`` -> ``ss``, ligatures).
_NORMALISATION_SLACK = 8


def find_contained(
    norm: str, kb: GazetteerKB, min_chars: int = MIN_CONTAINED_CHARS, tab_type: str | None = None
) -> tuple[str, KBEntry] | None:
    """The longest KB surface occurring in the normalised span ``norm`` as whole
    words (not the whole span), with its first entry (of ``tab_type`` when
    given); earlier occurrence wins ties."""
    starts, ends = word_boundaries(norm)
    best: tuple[int, int, str, KBEntry] | None = None  # (-length, start, surface, entry)
    for s in starts:
        for e in _ends_within(ends, s, min_chars, kb):
            length = e - s
            if length < min_chars or length >= len(norm):
                continue
            if best is not None and (-length, s) >= best[:2]:
                continue
            entries = _of_type(kb.lookup(norm[s:e]), tab_type)
            if entries:
                best = (-length, s, norm[s:e], entries[0])
    return None if best is None else (best[2], best[3])


def find_class_head(
    norm: str, kb: GazetteerKB, min_chars: int = MIN_CONTAINED_CHARS, tab_type: str | None = None
) -> tuple[str, KBEntry] | None:
    """The class surface (of a class entry of ``tab_type``) that heads the
    normalised span ``norm``, as whole words, not the whole span: English noun
    phrases end with their head, before any ``of``/``for`` phrase. Among the
    class surfaces found, those ending before the first `` of ``/`` for `` that
    is not inside one of them are kept when there are any; then the one ending
    last wins, then the longest. "criminal division of the court of cassation"
    → "court of cassation"; "disciplinary court of the chamber of accountants"
    → "disciplinary court"; "administrative court act" → "act"."""
    starts, ends = word_boundaries(norm)
    found: list[tuple[int, int, KBEntry]] = []
    for s in starts:
        for e in _ends_within(ends, s, min_chars, kb):
            if e - s < min_chars or e - s >= len(norm):
                continue
            entries = [x for x in _of_type(kb.lookup(norm[s:e]), tab_type) if is_class_entry(x)]
            if entries:
                found.append((s, e, entries[0]))
    if not found:
        return None
    for m in _POSTMODIFIER.finditer(norm):
        if not any(s <= m.start() and m.end() <= e for s, e, _ in found):
            before = [f for f in found if f[1] <= m.start()]
            found = before or found
            break
    s, e, entry = max(found, key=lambda f: (f[1], f[1] - f[0], -f[0]))
    return norm[s:e], entry


# --------------------------------------------------------------------------- #
# Fuzzy
# --------------------------------------------------------------------------- #


class FuzzyIndex:
    """KB surfaces bucketed by TAB type and length, for edit-distance search.

    A surface within distance d of a span of length n has a length in
    [n - d, n + d], so only those buckets (of the span's type, when given) are
    scanned, each with rapidfuzz's ``process.extractOne`` (C, bit-parallel
    Levenshtein with ``score_cutoff``).

    Each bucket is split again by the character at a few positions, so that a
    search for distance 1 or 2 reads only the surfaces that can be that close:

    * d = 1: the one edit either leaves the first character in place, or it is
      at the start and leaves the last one: ``s[0] == q[0]`` or ``s[-1] == q[-1]``;
    * d = 2: as for d = 1, or one edit at each end with the middle kept, the
      first one a substitution (``s[1] == q[1]``), a deletion (``s[0] == q[1]``)
      or an insertion (``s[1] == q[0]``).

    The result is the one the whole buckets give (see ``tests/test_linking.py``),
    in about a tenth of the time for d = 1; d >= 3 (spans of 21 characters or
    more) reads whole buckets. Building is O(S) over KB positions, without
    building entries.
    """

    #: positions whose character keys the sub-buckets (-1: the last)
    POSITIONS = (0, 1, -1)

    def __init__(self, kb: GazetteerKB):
        self.kb = kb
        self.n_surfaces = 0
        types = kb.entry_types()
        # (type, length) -> (surfaces, their order in the KB, KB position of their first entry of that type)
        buckets: dict[tuple[str, int], tuple[list[str], list[int], list[int]]] = {}
        order = -1
        for order, (surface, ids) in enumerate(kb.surface_ids()):
            if len(ids) == 1:
                pairs: Iterable[tuple[str, int]] = ((types[ids[0]], ids[0]),)
            else:
                first: dict[str, int] = {}
                for i in ids:
                    first.setdefault(types[i], i)
                pairs = first.items()
            n = len(surface)
            for tab_type, i in pairs:
                bucket = buckets.get((tab_type, n))
                if bucket is None:
                    bucket = buckets[(tab_type, n)] = ([], [], [])
                bucket[0].append(surface)
                bucket[1].append(order)
                bucket[2].append(i)
        self.n_surfaces = order + 1
        self._buckets = buckets
        # (type, length, position, character) -> (surfaces, their index in the (type, length) bucket)
        keyed: dict[tuple[str, int, int, str], tuple[list[str], list[int]]] = {}
        for (tab_type, n), (surfaces, _, _) in buckets.items():
            for k, surface in enumerate(surfaces):
                for pos in self.POSITIONS:
                    if pos < n:
                        sub = keyed.get((tab_type, n, pos, surface[pos]))
                        if sub is None:
                            sub = keyed[(tab_type, n, pos, surface[pos])] = ([], [])
                        sub[0].append(surface)
                        sub[1].append(k)
        self._keyed = keyed
        self._types = sorted({t for t, _ in buckets})

    @staticmethod
    def keys(norm: str, max_dist: int) -> list[tuple[int, str]] | None:
        """The (position, character) sub-buckets that hold every surface within
        ``max_dist`` of ``norm`` (see the class doc); None: whole buckets."""
        if max_dist == 1 and len(norm) >= 2:
            return [(0, norm[0]), (-1, norm[-1])]
        if max_dist == 2 and len(norm) >= 3:
            return [(0, norm[0]), (-1, norm[-1]), (1, norm[1]), (0, norm[1]), (1, norm[0])]
        return None

    def best(self, norm: str, max_dist: int, tab_type: str | None = None) -> tuple[str, KBEntry, int] | None:
        """(surface, entry, distance) closest to ``norm`` within ``max_dist``
        (inclusive) among the surfaces with an entry of ``tab_type`` (any type
        when None); ties go to the surface added to the KB first."""
        if max_dist < 1:
            return None
        found: tuple[int, int, str, int] | None = None  # (distance, order, surface, KB position)
        n = len(norm)
        keys = self.keys(norm, max_dist)
        for t in [tab_type] if tab_type is not None else self._types:
            for length in range(max(1, n - max_dist), n + max_dist + 1):
                bucket = self._buckets.get((t, length))
                if not bucket:
                    continue
                if keys is None:
                    parts: list[tuple[list[str], list[int] | None]] = [(bucket[0], None)]
                else:
                    parts = [sub for pos, char in keys if (sub := self._keyed.get((t, length, pos, char))) is not None]
                for surfaces, index in parts:
                    cutoff = max_dist if found is None else found[0]
                    hit = process.extractOne(norm, surfaces, scorer=Levenshtein.distance, score_cutoff=cutoff)
                    if hit is None:
                        continue
                    surface, dist, idx = hit
                    k = idx if index is None else index[idx]
                    key = (int(dist), bucket[1][k], surface, bucket[2][k])
                    if found is None or key < found:
                        found = key
        if found is None:
            return None
        return found[2], self.kb._entry(found[3]), found[0]


_INDEXES: "weakref.WeakKeyDictionary[GazetteerKB, tuple[int, FuzzyIndex]]" = weakref.WeakKeyDictionary()


def fuzzy_index(kb: GazetteerKB) -> FuzzyIndex:
    """The :class:`FuzzyIndex` of ``kb``, built once and rebuilt when surfaces were added."""
    size = _surface_count(kb)
    cached = _INDEXES.get(kb)
    if cached is None or cached[0] != size:
        cached = (size, FuzzyIndex(kb))
        _INDEXES[kb] = cached
    return cached[1]


def _surface_count(kb: GazetteerKB) -> int:
    by_surface = getattr(kb, "_index", None)  # same package: cheap change detection (the index lookups read)
    return len(by_surface) if by_surface is not None else sum(1 for _ in kb.surfaces())


# --------------------------------------------------------------------------- #
# The linking order
# --------------------------------------------------------------------------- #


def link_surface(
    surface: str, kb: GazetteerKB, client=None, max_edit_ratio: float = 0.15, tab_type: str | None = None
) -> LinkResult:
    """Link ``surface`` to an entry: exact -> contained -> fuzzy -> live
    (``client.lookup``, when a client is given) -> none. A failed live lookup
    gives ``LinkResult(None, "none", error="wikidata lookup failed: ...")``.
    With ``tab_type`` the KB steps only link to entries of that TAB type (an
    ORG span is not linked to the nationality its name contains); the live
    step, whose type is inferred from Wikidata's classes, is not filtered."""
    norm = normalize_surface(surface or "")
    if not norm:
        return LinkResult(None, NONE)
    entries = _of_type(kb.lookup(norm), tab_type)
    if entries:
        return LinkResult(entries[0], EXACT, matched=norm)
    contained = find_contained(norm, kb, tab_type=tab_type)
    if contained is not None:
        if is_class_entry(contained[1]):
            contained = find_class_head(norm, kb, tab_type=tab_type) or contained
        return LinkResult(contained[1], CONTAINED, matched=contained[0])
    near = fuzzy_index(kb).best(norm, max_distance(len(norm), max_edit_ratio), tab_type)
    if near is not None:
        return LinkResult(near[1], FUZZY, matched=near[0])
    if client is None:
        return LinkResult(None, NONE)
    try:
        entry = client.lookup(surface.strip())
    except WikidataError as e:
        return LinkResult(None, NONE, error=f"wikidata lookup failed: {e.reason}")
    if entry is None:
        return LinkResult(None, NONE)
    return LinkResult(entry, LIVE, matched=normalize_surface(entry.label))


# --------------------------------------------------------------------------- #
# The chain of a linked span
# --------------------------------------------------------------------------- #


_PLACE_IN_CHAIN = re.compile(r"^(?:city|nationality) (?:in|of) (.+)$")


def _country_of(entry: KBEntry) -> str | None:
    """The country a LOC/DEM entry names: a country itself (``geo:country:``),
    else the country of ``city in X`` / ``nationality of X`` in its chain."""
    if entry.tab_type not in ("LOC", "DEM"):
        return None
    if entry.id.startswith("geo:country:"):
        return entry.label
    for item in entry.chain:
        m = _PLACE_IN_CHAIN.match(item)
        if m:
            return m.group(1)
    return None


def country_named(text: str, kb: GazetteerKB) -> str | None:
    """The country of the longest capitalised KB place (country, city,
    nationality; see :func:`_country_of`) named in ``text`` as whole words by
    its own name (not an alias), earlier first on ties; a name whose places lie
    in several countries ("Bayonne") names none. None if there is none."""
    starts, ends = word_boundaries(text)
    best: tuple[int, str] | None = None
    for s in starts:
        if not text[s].isupper():
            continue
        for e in _ends_within(ends, s, 1, kb):
            if best is not None and e - s <= best[0]:
                continue
            norm = normalize_surface(text[s:e])
            if not kb.is_cased(norm):
                continue
            # by a place's own name only: alternative names mislead ("Frankfurt" is an alias of
            # Frankfort, Kentucky); a name of places in several countries ("Bayonne") names none
            countries = {c for c in map(_country_of, kb.lookup(norm)) if c}
            if len(countries) == 1 and all(
                normalize_surface(x.label) == norm for x in kb.lookup(norm) if _country_of(x)
            ):
                best = (e - s, countries.pop())
    return None if best is None else best[1]


#: Classes under these roots are located in a country ("court in Turkey"); laws,
#: treaties or benefits are not ("Brussels I Regulation" is no Belgian law).
LOCATED_ROOTS = ("organization",)
_THE = re.compile(
    r"^(?:United |Republic |Democratic |Czech |Central African |Dominican )|"
    r"(?:Islands|Netherlands|Philippines|Bahamas|Maldives|Gambia|Emirates)$"
)


def _in_country(country: str) -> str:
    return f"in the {country}" if _THE.search(country) else f"in {country}"


def linked_chain(entry: KBEntry, method: str, text: str = "", kb: GazetteerKB | None = None) -> list[str]:
    """``span._.kb_chain`` of a span ``text`` linked to ``entry`` by ``method``:
    the entry's chain; for a class entry reached by the ``contained`` step, the
    class label first, and for an organisation class (root in
    :data:`LOCATED_ROOTS`) before it ``"<label> in <country>"`` when ``kb``
    knows a place that ``text`` names (:func:`country_named`)."""
    chain = list(entry.chain)
    if method != CONTAINED or not is_class_entry(entry):
        return chain
    chain.insert(0, entry.label)
    if kb is not None and text and chain[-1] in LOCATED_ROOTS:
        country = country_named(text, kb)
        if country:
            chain.insert(0, f"{entry.label} {_in_country(country)}")
    return chain
