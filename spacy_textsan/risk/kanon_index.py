"""Background knowledge as an inverted index, and k-anonymity over its postings.

This module implements §3.1–3.2 and Algorithm 1 of seed 002 ("Bootstrapping
Text Anonymization Models with Distant Supervision") without spaCy:

* :class:`InvertedIndex` maps each *term* (a normalised attribute value: a
  name, a city, a birth year, an occupation…) to its *postings*, the ids of
  the records (individuals) the adversary knows to be associated with it, as
  a compressed :class:`pyroaring.BitMap`.
* :func:`risky_terms` lists the terms with fewer than ``k`` postings: each of
  them alone narrows the individual down to fewer than ``k`` candidates.
* :func:`risky_combinations` lists the minimal combinations of 2 to
  ``max_arity`` terms (each fine alone) whose postings intersect in 1 to
  ``k - 1`` records: together they break k-anonymity.
* :func:`terms_to_mask` is Algorithm 1: mask the risky terms, then repeatedly
  find the first combination that breaks k-anonymity among the terms still
  in clear, mask one of its terms (``greedy``: the one with the shortest
  posting list; ``random``: a seeded random one) and restart.

Terms absent from the index have 0 postings, so they are risky alone (fail
closed: nothing is known about how many people share them). When the
document being sanitized is itself one of the records (e.g. the index was
built from the collection being sanitized), a term unique to it has exactly
1 posting. A combination whose postings do not intersect at all (0 records)
is *not* risky: no known individual matches it, which is also how Algorithm 1
treats it (``1 <= |∩ postings| < k``).

Background knowledge loaders (:func:`read_records_jsonl`,
:func:`read_records_csv`, :func:`index_from_records_file`) turn a user's
records into an index; every bad input raises
:class:`spacy_textsan.io.InputError` naming the file and line.
"""

from __future__ import annotations

import functools
import itertools
import json
import random
import re
import unicodedata
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import (
    Any,
    Union,
)

import srsly
from pyroaring import BitMap, FrozenBitMap

from ..io import InputError, read_input
from ..privacy_ner.rules import TITLES

__all__ = [
    "INDEX_VERSION",
    "ARTICLES",
    "SELECTIONS",
    "normalise_term",
    "InvertedIndex",
    "CombinationBudgetExceeded",
    "risky_terms",
    "risky_combinations",
    "terms_to_mask",
    "select_terms",
    "read_records_jsonl",
    "read_records_csv",
    "index_from_records_file",
]

#: Version of the serialized index format (``meta.json`` / ``to_bytes``).
INDEX_VERSION = 1
#: Leading articles dropped by :func:`normalise_term`.
ARTICLES = frozenset({"the", "a", "an"})
#: Term selection strategies of Algorithm 1.
SELECTIONS = ("greedy", "random")

_META_FILE = "meta.json"
_DATA_FILE = "index.msgpack"
_EMPTY = FrozenBitMap()
_WHITESPACE = re.compile(r"\s+")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u00b4": "'"})

PathLike = Union[str, Path]
Terms = Sequence[str]


# --------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------


def _is_punct(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


def _strip_punct(text: str) -> str:
    start, end = 0, len(text)
    while start < end and (_is_punct(text[start]) or text[start].isspace()):
        start += 1
    while end > start and (_is_punct(text[end - 1]) or text[end - 1].isspace()):
        end -= 1
    return text[start:end]


def _drop_leading(text: str) -> str:
    """Drop one leading title ("dr", "mr.") or article ("the") if a word follows."""
    first, sep, rest = text.partition(" ")
    if sep and rest and (first.rstrip(".") in TITLES or first in ARTICLES):
        return rest
    return text


@functools.lru_cache(maxsize=1 << 16)
def normalise_term(text: str, label: str | None = None) -> str:
    """The index key of a term: the same function at build and at query time.

    Steps: Unicode NFKC and case folding; typographic apostrophes become
    ``'``; runs of whitespace become one space; then, until nothing changes,
    surrounding punctuation and whitespace are stripped and one leading title
    (:data:`spacy_textsan.privacy_ner.rules.TITLES`: mr, mrs, ms, dr, prof,
    judge…, with or without a final period) or article (the, a, an) is
    dropped, as long as a word follows it (``"Dr"`` alone stays ``"dr"``).

    ``"  Mr.  Galip   YALMAN "`` → ``"galip yalman"``, ``"the Ankara Bar."`` →
    ``"ankara bar"``, ``"(1961)"`` → ``"1961"``.

    The function is idempotent (``normalise_term(normalise_term(x)) ==
    normalise_term(x)``). ``label`` (the span's entity type) is accepted for
    future type-specific rules but currently ignored, so that records without
    types and typed spans get the same keys. Spelling variants (``Lisbon`` /
    ``Lisboa``, date formats) are not merged: add them to the records as
    extra terms, as seed 002 §4.1 does.
    """
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    text = _WHITESPACE.sub(" ", text.translate(_APOSTROPHES))
    while True:
        new = _drop_leading(_strip_punct(text))
        if new == text:
            return text
        text = new


# --------------------------------------------------------------------------
# Inverted index
# --------------------------------------------------------------------------


class InvertedIndex:
    """Terms → posting bitmaps of record ids (0, 1, 2… in insertion order).

    With ``normalise=True`` (default) every term is passed through
    :func:`normalise_term` when records are added and when the index is
    queried, so ``count("Ankara") == count("ankara")``. With ``normalise=False``
    terms are exact keys (for callers that normalise themselves).

    Postings are mutable :class:`pyroaring.BitMap` while the index is built;
    :meth:`freeze` (called by :meth:`from_records` and the loaders) run-length
    optimises them and turns them into immutable
    :class:`pyroaring.FrozenBitMap`, which is also what :meth:`postings`
    returns for unknown terms. Adding a record to a frozen index thaws only the
    bitmaps it touches.
    """

    def __init__(self, normalise: bool = True) -> None:
        self.normalise = normalise
        self._postings: dict[str, BitMap | FrozenBitMap] = {}
        self._n_records = 0

    # -- building ---------------------------------------------------------

    def key(self, term: str) -> str:
        """The index key of ``term`` (normalised if the index normalises)."""
        return normalise_term(term) if self.normalise else term

    def add_record(self, terms: Iterable[str]) -> int:
        """Add one record (individual) with its terms; return its id.

        Empty keys (a term that normalises to ``""``) are left out; a record
        without terms still gets an id and counts in :attr:`n_records`.
        """
        record_id = self._n_records
        self._n_records += 1
        for term in terms:
            key = self.key(term)
            if not key:
                continue
            bitmap = self._postings.get(key)
            if bitmap is None:
                bitmap = self._postings[key] = BitMap()
            elif isinstance(bitmap, FrozenBitMap):
                bitmap = self._postings[key] = BitMap(bitmap)
            bitmap.add(record_id)
        return record_id

    @classmethod
    def from_records(cls, records: Iterable[Iterable[str]], normalise: bool = True) -> InvertedIndex:
        """Build a frozen index with one record per item of ``records`` (each
        an iterable of terms), record ids in order.

        Faster than repeated :meth:`add_record`: ids are collected in compact
        arrays and turned into bitmaps once.
        """
        index = cls(normalise=normalise)
        ids: dict[str, array] = {}
        keys: dict[str, str] = {}  # memo of normalise_term for this build
        record_id = -1
        for record_id, terms in enumerate(records):
            for term in terms:
                key = keys.get(term)
                if key is None:
                    key = keys[term] = index.key(term)
                if not key:
                    continue
                bucket = ids.get(key)
                if bucket is None:
                    bucket = ids[key] = array("I")
                if not bucket or bucket[-1] != record_id:  # a term twice in one record
                    bucket.append(record_id)
        index._n_records = record_id + 1
        postings = index._postings
        while ids:
            key, bucket = ids.popitem()
            bitmap = BitMap(bucket)
            bitmap.run_optimize()
            postings[key] = FrozenBitMap(bitmap)
        return index

    def freeze(self) -> InvertedIndex:
        """Run-length optimise every bitmap and make it immutable; returns self."""
        for key, bitmap in self._postings.items():
            if not isinstance(bitmap, FrozenBitMap):
                bitmap.run_optimize()
                bitmap.shrink_to_fit()
                self._postings[key] = FrozenBitMap(bitmap)
        return self

    # -- queries ----------------------------------------------------------

    @property
    def n_records(self) -> int:
        """Number of records (individuals) added."""
        return self._n_records

    def __len__(self) -> int:
        """Number of distinct terms."""
        return len(self._postings)

    def __contains__(self, term: str) -> bool:
        return self.key(term) in self._postings

    def terms(self) -> Iterator[str]:
        """The index keys, in no particular order."""
        return iter(self._postings)

    def postings(self, term: str) -> BitMap | FrozenBitMap:
        """The record ids of ``term`` (an empty bitmap if unknown). Do not
        mutate the result: it is the index's own bitmap."""
        return self._postings.get(self.key(term), _EMPTY)

    def count(self, term: str) -> int:
        """Number of records associated with ``term`` (0 if unknown)."""
        return len(self.postings(term))

    def intersection_count(self, terms: Iterable[str]) -> int:
        """Number of records associated with every term of ``terms``.

        Intersects from the shortest posting list up and stops as soon as the
        intersection is empty. No terms: :attr:`n_records` (everyone).
        """
        return _intersection_count([self.postings(t) for t in terms], self._n_records)

    # -- serialization ----------------------------------------------------

    def _meta(self) -> dict[str, Any]:
        return {
            "version": INDEX_VERSION,
            "n_records": self._n_records,
            "n_terms": len(self._postings),
            "normalise": self.normalise,
        }

    def _payload(self) -> dict[str, Any]:
        terms = sorted(self._postings)
        return {"terms": terms, "postings": [self._postings[t].serialize() for t in terms]}

    def _load_payload(self, meta: dict[str, Any], payload: dict[str, Any], where: str) -> InvertedIndex:
        version = meta.get("version")
        if version != INDEX_VERSION:
            raise ValueError(
                f"{where}: unsupported k-anonymity index version {version!r} "
                f"(this spacy-textsan reads version {INDEX_VERSION})"
            )
        terms, blobs = payload.get("terms"), payload.get("postings")
        if not isinstance(terms, list) or not isinstance(blobs, list) or len(terms) != len(blobs):
            raise ValueError(f"{where}: corrupt k-anonymity index (terms and postings do not match)")
        if meta.get("n_terms", len(terms)) != len(terms):
            raise ValueError(
                f"{where}: corrupt k-anonymity index: meta says {meta.get('n_terms')} terms, "
                f"the data holds {len(terms)}"
            )
        self.normalise = bool(meta.get("normalise", True))
        self._n_records = int(meta["n_records"])
        self._postings = {t: FrozenBitMap.deserialize(b) for t, b in zip(terms, blobs, strict=False)}
        return self

    def to_bytes(self) -> bytes:
        """Serialize (msgpack: meta, sorted term table, serialized bitmaps)."""
        return srsly.msgpack_dumps({"meta": self._meta(), **self._payload()})

    @classmethod
    def from_bytes(cls, data: bytes) -> InvertedIndex:
        """The index serialized by :meth:`to_bytes` (frozen)."""
        try:
            msg = srsly.msgpack_loads(data)
        except Exception as error:  # msgpack raises several unrelated types
            raise ValueError(f"bytes: not a k-anonymity index ({error})") from None
        if not isinstance(msg, dict) or not isinstance(msg.get("meta"), dict):
            raise ValueError("bytes: not a k-anonymity index")
        return cls()._load_payload(msg["meta"], msg, "bytes")

    def to_disk(self, path: PathLike) -> None:
        """Write a directory: ``meta.json`` (version, n_records, n_terms,
        normalise) and ``index.msgpack`` (term table and bitmaps)."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_msgpack(path / _DATA_FILE, self._payload())
        srsly.write_json(path / _META_FILE, self._meta())

    @classmethod
    def from_disk(cls, path: PathLike) -> InvertedIndex:
        """The index written by :meth:`to_disk` (frozen)."""
        path = Path(path)
        if not (path / _META_FILE).exists() or not (path / _DATA_FILE).exists():
            raise ValueError(
                f"{path}: not a k-anonymity index directory (needs {_META_FILE} and {_DATA_FILE}; "
                "build one with `textsan kanon build`)"
            )
        try:
            meta = srsly.read_json(path / _META_FILE)
            payload = srsly.read_msgpack(path / _DATA_FILE)
        except Exception as error:
            raise ValueError(f"{path}: cannot read the k-anonymity index ({error})") from None
        if not isinstance(meta, dict) or not isinstance(payload, dict):
            raise ValueError(f"{path}: corrupt k-anonymity index")
        return cls()._load_payload(meta, payload, str(path))

    def __repr__(self) -> str:
        return f"InvertedIndex(n_records={self._n_records}, n_terms={len(self)})"


def _intersection_count(bitmaps: Sequence[BitMap | FrozenBitMap], everyone: int) -> int:
    """|∩ bitmaps|, smallest first, stopping early when empty."""
    if not bitmaps:
        return everyone
    if len(bitmaps) == 1:
        return len(bitmaps[0])
    ordered = sorted(bitmaps, key=len)
    if not ordered[0]:
        return 0
    if len(ordered) == 2:
        return ordered[0].intersection_cardinality(ordered[1])
    acc = ordered[0] & ordered[1]
    for bitmap in ordered[2:-1]:
        if not acc:
            return 0
        acc &= bitmap
    return acc.intersection_cardinality(ordered[-1]) if acc else 0


# --------------------------------------------------------------------------
# k-anonymity over the postings (seed 002, Algorithm 1)
# --------------------------------------------------------------------------


class CombinationBudgetExceeded(RuntimeError):
    """:func:`terms_to_mask` evaluated ``max_combinations`` intersections
    without finishing. ``partial`` holds the terms selected so far; a caller
    must treat every remaining term as risky (fail closed); ``chosen`` the
    same with their evidence, as :func:`select_terms` returns it."""

    def __init__(self, max_combinations: int, chosen: list[tuple[str, tuple[str, ...] | None, int]]) -> None:
        super().__init__(f"combination budget of {max_combinations} intersections exhausted")
        self.max_combinations = max_combinations
        self.chosen = chosen
        self.partial = [term for term, _, _ in chosen]


def _unique(terms: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(terms))


def risky_terms(terms: Iterable[str], index: InvertedIndex, k: int) -> list[str]:
    """Terms with fewer than ``k`` postings (unknown terms have 0), in input
    order, without duplicates."""
    return [t for t in _unique(terms) if index.count(t) < k]


def risky_combinations(
    terms: Iterable[str],
    index: InvertedIndex,
    k: int,
    max_arity: int = 2,
    max_combinations: int = 100_000,
) -> tuple[list[tuple[str, ...]], bool]:
    """Minimal combinations of 2..``max_arity`` terms that break k-anonymity.

    Only terms that are not risky alone are combined (a risky term is masked
    anyway). A combination is risky when its terms' postings intersect in 1
    to ``k - 1`` records. Only minimal ones are returned: a combination that
    contains a risky combination, or one whose postings do not intersect
    (0 records; no superset can match anyone either), is not evaluated.

    Order is deterministic: by arity, then :func:`itertools.combinations`
    order of the (deduplicated) input; each tuple keeps input order.

    Returns ``(combinations, complete)``: ``complete`` is False when
    ``max_combinations`` intersections were evaluated before the enumeration
    ended; the list then holds what was found so far and the caller must fail
    closed.
    """
    terms = _unique(terms)
    bitmaps = [index.postings(t) for t in terms]
    safe = [i for i, b in enumerate(bitmaps) if len(b) >= k]
    found: list[tuple[str, ...]] = []
    pruned: set[frozenset[int]] = set()  # risky or empty combinations (by term position)
    evaluated = 0
    for arity in range(2, max_arity + 1):
        for combo in itertools.combinations(safe, arity):
            if arity > 2 and _has_pruned_subset(combo, pruned):
                continue
            if evaluated >= max_combinations:
                return found, False
            evaluated += 1
            count = _intersection_count([bitmaps[i] for i in combo], index.n_records)
            if count < k:
                pruned.add(frozenset(combo))
                if count >= 1:
                    found.append(tuple(terms[i] for i in combo))
    return found, True


def _has_pruned_subset(combo: tuple[int, ...], pruned: set[frozenset[int]]) -> bool:
    if not pruned:
        return False
    for size in range(2, len(combo)):
        for sub in itertools.combinations(combo, size):
            if frozenset(sub) in pruned:
                return True
    return False


def _greedy_select(combo: Sequence[str], index: InvertedIndex, rng: random.Random) -> str:
    """The term with the shortest posting list; ties: the smallest term."""
    return min(combo, key=lambda t: (index.count(t), t))


def _random_select(combo: Sequence[str], index: InvertedIndex, rng: random.Random) -> str:
    return rng.choice(list(combo))


_SELECTORS: dict[str, Callable[[Sequence[str], InvertedIndex, random.Random], str]] = {
    "greedy": _greedy_select,
    "random": _random_select,
}


def select_terms(
    terms: Iterable[str],
    index: InvertedIndex,
    k: int,
    max_arity: int = 2,
    selection: str = "greedy",
    seed: int = 0,
    max_combinations: int | None = None,
) -> list[tuple[str, tuple[str, ...] | None, int]]:
    """Algorithm 1 with its evidence: ``[(term, combination, count), ...]``
    in selection order. ``combination`` is None for a term risky alone
    (``count`` its postings), else the combination it was selected from
    (``count`` the size of the combination's intersection).

    See :func:`terms_to_mask`. Raises :class:`CombinationBudgetExceeded` when
    ``max_combinations`` (None: unlimited) intersections were evaluated.
    """
    if selection not in _SELECTORS:
        raise ValueError(f"selection must be one of {SELECTIONS}, got {selection!r}")
    select = _SELECTORS[selection]
    rng = random.Random(seed)
    terms = _unique(terms)
    bitmaps = {t: index.postings(t) for t in terms}
    chosen: list[tuple[str, tuple[str, ...] | None, int]] = []
    masked: set[str] = set()
    # lines 11-14: terms associated with < k individuals
    for term in terms:
        if len(bitmaps[term]) < k:
            chosen.append((term, None, len(bitmaps[term])))
            masked.add(term)
    cache: dict[tuple[str, ...], int] = {}  # restarts re-check the same tuples
    evaluated = 0
    while len(masked) < len(terms):
        remaining = [t for t in terms if t not in masked]
        breach = None
        for arity in range(2, max_arity + 1):
            for combo in itertools.combinations(remaining, arity):
                count = cache.get(combo)
                if count is None:
                    if max_combinations is not None and evaluated >= max_combinations:
                        raise CombinationBudgetExceeded(max_combinations, list(chosen))
                    evaluated += 1
                    count = cache[combo] = _intersection_count([bitmaps[t] for t in combo], index.n_records)
                if 1 <= count < k:
                    breach = (combo, count)
                    break
            if breach:
                break
        if breach is None:  # every combination satisfies k-anonymity
            break
        term = select(breach[0], index, rng)
        chosen.append((term, breach[0], breach[1]))
        masked.add(term)
    return chosen


def terms_to_mask(
    terms: Iterable[str],
    index: InvertedIndex,
    k: int,
    max_arity: int = 2,
    selection: str = "greedy",
    seed: int = 0,
    max_combinations: int | None = None,
) -> list[str]:
    """Algorithm 1 of seed 002: the terms to mask so that every combination
    of up to ``max_arity`` terms left in clear matches 0 or at least ``k``
    records.

    1. Every term with fewer than ``k`` postings is masked.
    2. Combinations of the terms still in clear are enumerated, pairs first,
       then triples… (input order, deduplicated); at the first one whose
       postings intersect in 1 to ``k - 1`` records, one of its terms is
       selected — ``"greedy"``: the shortest posting list (ties: the smallest
       term); ``"random"``: ``random.Random(seed).choice`` — masked, and the
       enumeration restarts.
    3. It stops when no combination breaks k-anonymity or every term is masked.

    Returns the selected terms in selection order. Raises
    :class:`CombinationBudgetExceeded` after ``max_combinations`` (None:
    unlimited) distinct intersections.
    """
    return [t for t, _, _ in select_terms(terms, index, k, max_arity, selection, seed, max_combinations)]


# --------------------------------------------------------------------------
# Background knowledge loaders
# --------------------------------------------------------------------------


def _record_terms(path: Path, line: int, name: str, value: Any, sep: str | None) -> list[str]:
    """The terms of one field value: a string, a number or a list of them."""
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in values:
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            kind = (
                "an object"
                if isinstance(item, dict)
                else "a list"
                if isinstance(item, list)
                else "a boolean"
                if isinstance(item, bool)
                else type(item).__name__
            )
            raise InputError(path, line, f"field {name!r} holds {kind}; expected a string, a number or a list of them")
        text = str(item)
        out.extend(text.split(sep) if sep else [text])
    return [t for t in out if t.strip()]


def _decode(path: Path, encoding: str | None) -> str:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(path, None, f"cannot read file: {error.strerror or error}") from None
    name = encoding or "utf-8-sig"
    try:
        return data.decode(name)
    except LookupError:
        raise InputError(path, None, f"unknown encoding {name!r}") from None
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(path, line, f"cannot decode as {name}; pass the file's encoding") from None


def read_records_jsonl(
    path: PathLike,
    fields: Sequence[str],
    encoding: str | None = None,
    multi_value_sep: str | None = None,
) -> Iterator[list[str]]:
    """Records from a JSONL file: each non-blank line is a JSON object (one
    person); the terms are the values of ``fields`` — strings, numbers
    (``1961``) or lists of them; a missing or null field gives no term.
    ``multi_value_sep`` (e.g. ``"|"``) also splits string values.

    Raises :class:`InputError` (``file:line: reason``) for invalid JSON, a
    line that is not an object, a value of another type, or when no record
    has any of ``fields`` (a misspelt field would give an empty index).
    """
    path = Path(path)
    fields = list(dict.fromkeys(fields))
    if not fields:
        raise InputError(path, None, "no fields selected: pass --field NAME (repeatable)")
    text = _decode(path, encoding)
    seen = False
    for line, source in enumerate(text.split("\n"), start=1):
        if not source.strip():
            continue
        try:
            obj = json.loads(source)
        except json.JSONDecodeError as error:
            raise InputError(path, line, f"invalid JSON: {error.msg} (column {error.colno})") from None
        if not isinstance(obj, dict):
            raise InputError(path, line, "expected a JSON object (one record per line)")
        terms: list[str] = []
        for name in fields:
            if name in obj:
                seen = True
                terms.extend(_record_terms(path, line, name, obj[name], multi_value_sep))
        yield terms
    if not seen:
        raise InputError(path, None, f"no record has any of the fields {', '.join(map(repr, fields))}")


def read_records_csv(
    path: PathLike,
    columns: Sequence[str],
    encoding: str | None = None,
    delimiter: str | None = None,
    multi_value_sep: str | None = None,
    fmt: str | None = None,
) -> Iterator[list[str]]:
    """Records from a CSV/TSV file with a header row: each row is one person,
    the non-empty cells of ``columns`` are its terms. Reads through
    :func:`spacy_textsan.io.read_input`, so delimiter sniffing, encodings and
    ``file:line`` errors (short rows, bad quoting, unknown columns) are the
    same as for ``textsan sanitize``."""
    input_file = read_input(path, fmt=fmt, columns=list(columns) or None, encoding=encoding, delimiter=delimiter)
    for record in input_file.records:
        terms: list[str] = []
        for value in record.texts.values():
            parts = value.split(multi_value_sep) if multi_value_sep else [value]
            terms.extend(p for p in parts if p.strip())
        yield terms


def index_from_records_file(
    path: PathLike,
    fields: Sequence[str],
    fmt: str | None = None,
    encoding: str | None = None,
    delimiter: str | None = None,
    multi_value_sep: str | None = None,
) -> InvertedIndex:
    """An index with one record per person of a JSONL or CSV/TSV file
    (``fields`` = JSONL fields or CSV columns). The format comes from ``fmt``
    (``jsonl``, ``csv``, ``tsv``) or the extension."""
    path = Path(path)
    kind = fmt or {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv"}.get(path.suffix.lower())
    if kind == "jsonl":
        records = read_records_jsonl(path, fields, encoding=encoding, multi_value_sep=multi_value_sep)
    elif kind in ("csv", "tsv"):
        records = read_records_csv(
            path, fields, encoding=encoding, delimiter=delimiter, multi_value_sep=multi_value_sep, fmt=kind
        )
    else:
        raise InputError(
            path,
            None,
            "records must be JSONL (.jsonl) or CSV/TSV (.csv, .tsv); pass the format explicitly for other extensions",
        )
    return InvertedIndex.from_records(records)
