"""Background knowledge as an inverted index (Papadopoulou et al. 2022b, §3.1).

:class:`InvertedIndex` maps each *term* (a normalized attribute value: a
name, a city, a birth year, an occupation…) to its *postings*, the ids of the
records (individuals) the adversary knows to be associated with it, as a
compressed :class:`pyroaring.BitMap`. :func:`normalize_term` is the key
function used when the index is built and when it is queried.

k-anonymity over the postings (Algorithm 1) is in
:mod:`spacy_textsan.risk.kanon_algorithm`; the loaders that build an index
from a user's records file in :mod:`spacy_textsan.risk.kanon_records`.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import srsly
from pyroaring import BitMap, FrozenBitMap

from ..detect.privacy_ner.rules import ARTICLES, TITLES
from ..text_folding import fold, strip_punctuation, translation

__all__ = [
    "INDEX_VERSION",
    "ARTICLES",
    "normalize_term",
    "InvertedIndex",
    "intersection_count",
]

#: Version of the serialized index format (``meta.json`` / ``to_bytes``).
INDEX_VERSION = 1

_META_FILE = "meta.json"
_DATA_FILE = "index.msgpack"
_EMPTY = FrozenBitMap()
#: Typographic apostrophes read as ``'`` (after NFKC, which has already spread U+00B4 into a space and a mark).
_APOSTROPHES = translation({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u00b4": "'"})

PathLike = str | Path


# --------------------------------------------------------------------------
# Normalization
# --------------------------------------------------------------------------


def _drop_leading(text: str) -> str:
    """Drop one leading title ("dr", "mr.") or article ("the") if a word follows."""
    first, sep, rest = text.partition(" ")
    if sep and rest and (first.rstrip(".") in TITLES or first in ARTICLES):
        return rest
    return text


@functools.lru_cache(maxsize=1 << 13)
def normalize_term(text: str, label: str | None = None) -> str:
    """The index key of a term: the same function at build and at query time.

    Steps (:func:`spacy_textsan.text_folding.fold`): Unicode NFKC and case
    folding (NFKC again after it); typographic apostrophes become ``'``; runs
    of whitespace become one space; then, until nothing changes, surrounding
    punctuation and whitespace are stripped and one leading title
    (:data:`spacy_textsan.detect.privacy_ner.rules.TITLES`: mr, mrs, ms, dr, prof,
    judge…, with or without a final period) or article (the, a, an) is
    dropped, as long as a word follows it (``"Dr"`` alone stays ``"dr"``).

    ``"  Mr.  Galip   YALMAN "`` → ``"galip yalman"``, ``"the Ankara Bar."`` →
    ``"ankara bar"``, ``"(1961)"`` → ``"1961"``.

    The function is idempotent (``normalize_term(normalize_term(x)) ==
    normalize_term(x)``). ``label`` (the span's entity type) is accepted for
    future type-specific rules but currently ignored, so that records without
    types and typed spans get the same keys. Spelling variants (``Lisbon`` /
    ``Lisboa``, date formats) are not merged: add them to the records as
    extra terms, as Papadopoulou et al. 2022b (§4.1) do.
    """
    text = fold(text, _APOSTROPHES, renormalize=True)
    while True:
        new = _drop_leading(strip_punctuation(text))
        if new == text:
            return text
        text = new


# --------------------------------------------------------------------------
# Inverted index
# --------------------------------------------------------------------------


class InvertedIndex:
    """Terms → posting bitmaps of record ids (0, 1, 2… in insertion order).

    With ``normalise=True`` (default) every term is passed through
    :func:`normalize_term` when records are added and when the index is
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
        return normalize_term(term) if self.normalise else term

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
        keys: dict[str, str] = {}  # memo of normalize_term for this build
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
        return intersection_count([self.postings(t) for t in terms], self._n_records)

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


def intersection_count(bitmaps: Sequence[BitMap | FrozenBitMap], everyone: int) -> int:
    """|∩ bitmaps|, smallest first, stopping early when empty; ``everyone``
    when there are no bitmaps."""
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
