"""The attack's scores: BM25 over the records that compete, and the chance that an attacker names each record.

A record's score for an analyser of the family (:mod:`.reid_family`) is BM25 over the document's visible
features, ``sum idf(t) * tf / (tf + k1 * (1 - b + b * len / L))``, with ``idf`` counted over the ``N_c``
records that hold at least one visible feature and ``L`` their mean length: records that share nothing
with the document change no weight. Another attacker's scores are these times a random factor
(``log s + margin * G``, ``G`` Gumbel), so it names record ``i`` with probability ``s_i ** (1 / margin)``
normalised (:func:`attack_probabilities`): a record scored 0 is never named.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .reid_family import TermPostings, Word, family_features
from .reid_kernels import KINDS, competing, finish, record_ranges, repeated_sums, totals

__all__ = [
    "RANK_FLOOR",
    "WEIGHTINGS",
    "DocWords",
    "FamilyBackground",
    "Occurrence",
    "attack_probabilities",
    "rank_floor",
    "risk_of",
    "row_risk",
]

#: The term weightings: BM25 with Lucene's idf (every term counts a little) and with
#: Robertson–Spärck Jones' idf (terms in half the competing records or more count almost nothing), a
#: tf-idf cosine (log tf, short records weigh more), the way most vector-space attackers score, and BM25+
#: (Lv and Zhai, 2011: a bonus per query word a record holds, whatever its length): a long record that
#: holds most of the visible words is not pushed under short ones that hold a few (a background padded
#: with short biographies does not hide a person whose record is long).
WEIGHTINGS = ("lucene", "robertson", "cosine", "plus")
K1, B = 1.5, 0.75
#: BM25+'s delta (1) on this module's scale of the saturated tf (``tf / (tf + norm)``, BM25's without its
#: ``k1 + 1`` factor)
DELTA = 1.0 / (K1 + 1.0)
#: records scored under this share of the best are not close: an attacker never names them
CLOSE = 0.75


class FamilyBackground(Protocol):
    """What the attack needs of a background: record ids and the family's postings."""

    ids: list[str]
    family: dict[str, TermPostings]

    @property
    def n_records(self) -> int: ...

    def position(self, record_id: str) -> int | None: ...


@dataclass(frozen=True)
class Occurrence:
    """One visible word: its key (folded form), its text, and the group masked with it."""

    term: str
    text: str
    group: int


@dataclass
class DocWords:
    """A document as the attack reads it: every word, and per word the group it is masked in
    (``-1``: already masked); ``group_cost[g]``: the characters masking group ``g`` hides;
    ``direct[i]``: word ``i`` is part of a direct identifier; ``maskable[g]``: group ``g`` may be masked."""

    text: str
    words: list[Word]
    group: list[int]
    group_cost: list[int]
    direct: list[bool] = field(default_factory=list)
    maskable: list[bool] | None = None

    def __post_init__(self) -> None:
        self.features = family_features(self.text, self.words)
        if not self.direct:
            self.direct = [False] * len(self.words)

    def occurrences(self) -> list[Occurrence]:
        """The visible words that are no stop words, as :class:`Occurrence` (the dense attack's input)."""
        return [
            Occurrence(w.folded, self.text[w.start : w.end], g)
            for w, g in zip(self.words, self.group, strict=True)
            if g >= 0 and not w.stop
        ]

    def spans(self) -> list[tuple[int, int]]:
        return [(w.start, w.end) for w, g in zip(self.words, self.group, strict=True) if g >= 0 and not w.stop]


# -- scores and probabilities --------------------------------------------------------------------------


def attack_probabilities(scores: np.ndarray, margin: float, close: float = CLOSE) -> np.ndarray:
    """Per row of ``scores`` (records in columns): the chance that an attacker whose log-scores are
    these plus Gumbel noise of scale ``margin`` names each record, ``s ** (1 / margin)`` normalised over
    the records within ``close`` of the best (a record scored under ``close`` times the best is never
    named, however many there are: a crowd of weak matches hides nobody); a row without a positive score
    names nobody (all 0). Logarithms and exponentials are taken only where a record can be named (a row of
    a million records has a few)."""
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    if scores.shape[0] == 1:
        return _row_probabilities(scores[0], margin, close)[None, :]
    top = scores.max(axis=1, keepdims=True)
    positive = (scores > 0) & (scores >= close * top)
    logs = np.full(scores.shape, -np.inf)
    logs[positive] = np.log(scores[positive]) / margin
    best = logs.max(axis=1, keepdims=True)
    z = np.zeros_like(scores)
    z[positive] = np.exp((logs - np.where(np.isfinite(best), best, 0.0))[positive])
    total = z.sum(axis=1, keepdims=True)
    return np.divide(z, total, out=np.zeros_like(z), where=total > 0)


def _row_probabilities(scores: np.ndarray, margin: float, close: float) -> np.ndarray:
    """:func:`attack_probabilities` of one row (a whole background): the work is done on the few records
    within ``close`` of the best, not on every record."""
    out = np.zeros(scores.shape[0])
    top = scores.max() if scores.shape[0] else 0.0
    if not top > 0:
        return out
    at = np.flatnonzero(scores >= close * top) if close > 0 else np.flatnonzero(scores > 0)
    out[at] = _chances(scores[at], margin)
    return out


def _chances(near: np.ndarray, margin: float) -> np.ndarray:
    """The chance that the attacker names each of the records scored ``near`` (positive, the records it
    may name): ``s ** (1 / margin)`` normalised, in logarithms."""
    logs = np.log(near) / margin
    z = np.exp(logs - logs.max())
    return z / z.sum()


def _row_floor(
    row: np.ndarray, prior: np.ndarray, people: np.ndarray, ratio: float, top: float, near: np.ndarray | None = None
) -> float:
    """:func:`rank_floor` of one row over a whole background (its best ``top``; ``people``: where
    ``prior`` is positive): only the records at least ``ratio`` times the best can rank above a near record,
    so ranks are counted among those (their scores ``near``, when the caller has them)."""
    bar = ratio * top
    ranked = row[row >= bar] if near is None else near[near >= bar]
    own = row[people]
    close = (own > 0) & (own >= bar)
    if not close.any():
        return 0.0
    if close.sum() > 8:
        # many people near the best: one sort of the near records, a bisection each
        ranked = np.sort(ranked)
        rank = 1 + ranked.shape[0] - np.searchsorted(ranked, own[close], side="right")
    else:
        rank = 1 + np.array([np.count_nonzero(ranked > o) for o in own[close]], dtype=np.int64)
    return float((prior[people[close]] / rank).max())


def risk_of(
    scores: np.ndarray, prior: np.ndarray, margin: float, close: float = CLOSE, floor: float | None = None
) -> np.ndarray:
    """Per row of ``scores``: the chance that the attacker names the person (``prior`` over the columns);
    with ``floor``, at least :func:`rank_floor`'s."""
    risk = attack_probabilities(scores, margin, close) @ prior
    if floor is None:
        return risk
    return np.maximum(risk, rank_floor(scores, prior, floor))


def row_risk(
    scores: np.ndarray, prior: np.ndarray, people: np.ndarray, margin: float, floor: float | None, close: float = CLOSE
) -> tuple[float, np.ndarray, np.ndarray]:
    """``(risk, at, probs)`` of one row of scores over a whole background: :func:`risk_of`'s chance that
    the attacker names the person (``prior``; ``people``: where it is positive), the records the attacker
    may name and their chances (the rest are 0). Two passes over the row (its best, the records near it);
    the rest is done on those."""
    empty = np.zeros(0, dtype=np.int64)
    top = float(scores.max()) if scores.shape[0] else 0.0
    if not top > 0:
        return 0.0, empty, np.zeros(0)
    lowest = close if floor is None else min(close, floor)
    near = np.flatnonzero(scores >= lowest * top)
    near_scores = scores[near]
    at = near[near_scores >= close * top]
    probs = _chances(scores[at], margin)
    risk = float(probs @ prior[at])
    if floor is not None and people.shape[0]:
        risk = max(risk, _row_floor(scores, prior, people, floor, top, near_scores))
    return risk, at, probs


#: a record scored at least this share of the best is one that an attacker weighing or reading words a
#: little otherwise may rank first: its chance is at least 1 / its rank (reid_risk's ``rank_floor``)
RANK_FLOOR = 0.6


def rank_floor(scores: np.ndarray, prior: np.ndarray, ratio: float) -> np.ndarray:
    """Per row of ``scores``: ``max_i prior_i / rank_i`` over the records scored at least ``ratio`` times
    the best (``rank_i``: 1 + the records scored higher). Attackers differ in tokens, stems and weights:
    the record second to a close first is the first of some of them, who names it; the person is that
    record with probability ``prior_i``."""
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    out = np.zeros(scores.shape[0])
    people = np.flatnonzero(prior > 0)
    if not len(people):
        return out
    top = scores.max(axis=1)
    if scores.shape[0] == 1:
        out[0] = _row_floor(scores[0], prior, people, ratio, float(top[0]))
        return out
    for j in people:
        own = scores[:, j]
        near = (own > 0) & (own >= ratio * top)
        if near.any():
            rank = 1 + np.count_nonzero(scores[near] > own[near, None], axis=1)
            out[near] = np.maximum(out[near], prior[j] / rank)
    return out


@dataclass
class _Weights:
    """One analyser's postings of a set of terms over the records that compete, and their weights under
    each weighting of :data:`WEIGHTINGS`.

    A posting's weight is its term's idf times a part that depends on the record's length and, unless the
    term occurs once in it (most postings), on its tf. So a record's score is its length's weight of a
    single occurrence times the sum of ``count * idf`` over the terms it holds, plus, for the terms it
    holds more often, what their own weight adds to that: one pass over the postings with a number per
    term (:func:`.reid_kernels.totals`), no weight per posting (at a million records a document's common
    words hold millions of postings). The postings are read where they lie: term ``u``'s are
    ``flat[starts[u]:ends[u]]``, the background's own arrays; a record left out (``excluded_at``) is not
    counted in ``df``, ``n_compete`` and the mean length, and scores 0."""

    terms: list[int]  # term ids in the postings
    flat: np.ndarray  # the postings' records, each term's ascending
    flat_tf: np.ndarray  # and how often the record holds the term (as stored: 16-bit)
    starts: np.ndarray  # per term: where its postings start in ``flat``
    ends: np.ndarray  # and end
    df: np.ndarray  # per term: the records that compete among its postings (``excluded_at`` not counted)
    repeated: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # the postings held more than once:
    # their records, tf, and per term where they start and end (:meth:`.reid_family.TermPostings.repeated`)
    lengths: np.ndarray  # every record's length (records left out too)
    n_compete: int
    mean_length: float
    excluded_at: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # records left out

    def __post_init__(self) -> None:
        self._idf: dict[str, np.ndarray] = {}
        #: per term: the records that hold it, ascending, and how often (views into ``flat``; the records
        #: left out among them)
        self.records: list[np.ndarray] = [self.flat[a:b] for a, b in zip(self.starts, self.ends, strict=True)]
        self.tf: list[np.ndarray] = [self.flat_tf[a:b] for a, b in zip(self.starts, self.ends, strict=True)]
        self._key: dict[str, bytes] = {}  # per idf: the counts times idf that ``_sums`` were taken for
        self._sums: dict[tuple[str, str], np.ndarray] = {}  # (idf, "total" or the part) -> per record
        # the sums' arrays go back to the pool with these weights (the next document's reuse them)
        weakref.finalize(self, _BUFFERS.give_all, self._sums)

    def idf(self, weighting: str) -> np.ndarray:
        """Every term's idf under ``weighting`` (computed once per weighting)."""
        if weighting not in self._idf:
            n, df = float(self.n_compete), self.df.astype(float)
            if weighting == "robertson":
                self._idf[weighting] = np.maximum(0.1, np.log((n - df + 0.5) / (df + 0.5)))
            else:
                self._idf[weighting] = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
        return self._idf[weighting]

    def _part(self, kind: str, records: np.ndarray, tf: np.ndarray) -> np.ndarray:
        """The part of a posting's weight before its idf, for postings of ``records`` held ``tf`` times:
        BM25's ``tf / (tf + norm)`` (its length norm ``norm = k1 * (1 - b + b * length / mean)``; BM25+
        adds :data:`DELTA`), or the cosine's ``(1 + log tf) / sqrt(length / mean)``."""
        length = self.lengths[records] / self.mean_length
        tf = np.asarray(tf, dtype=np.float64)
        if kind == "cosine":
            return (1.0 + np.log(tf)) / np.sqrt(np.maximum(length, 1e-3))
        norm = K1 * ((1 - B) + B * length)
        return tf / (tf + norm) + (DELTA if kind == "plus" else 0.0)

    def _part_at(self, u: int, kind: str, at: np.ndarray) -> np.ndarray:
        """:meth:`part` of term ``u`` at positions ``at`` of its postings."""
        return self._part(kind, self.records[u][at], self.tf[u][at])

    def part(self, u: int, weighting: str) -> np.ndarray:
        """Term ``u``'s weight in each record that holds it, before its idf: BM25's saturated tf (the same
        for ``lucene`` and ``robertson``; ``plus`` adds :data:`DELTA`), or for ``cosine`` the log tf over
        the square root of the record's relative length (a short record that holds the word weighs more, as
        in a tf-idf cosine)."""
        return self._part_at(u, _kind(weighting), np.arange(len(self.records[u])))

    def weights_flat(self, at: np.ndarray, term: np.ndarray, weighting: str) -> np.ndarray:
        """The weights of the postings at positions ``at`` of ``flat`` (of terms ``term``): as
        :meth:`weights_at`, many terms at once."""
        return self.idf(weighting)[term] * self._part(_kind(weighting), self.flat[at], self.flat_tf[at])

    def weights_at(self, u: int, weighting: str, at: np.ndarray) -> np.ndarray:
        """Term ``u``'s weight in the records at positions ``at`` of its postings."""
        return self.idf(weighting)[u] * self._part_at(u, _kind(weighting), at)

    def scores(self, counts: np.ndarray, weighting: str, n_records: int) -> np.ndarray:
        """Every record's score for ``counts[u]`` occurrences of each term: one pass over the postings
        (:func:`.reid_kernels.totals`, the same for ``lucene``, ``cosine`` and ``plus``, which share an
        idf) and one over the postings held more than once (:func:`.reid_kernels.repeated_sums`, BM25's
        for ``lucene``, ``robertson`` and ``plus``, whose delta is in a single occurrence's part too)."""
        kind = _kind(weighting)
        per_term = np.asarray(counts, dtype=float) * self.idf(weighting)
        family = "robertson" if weighting == "robertson" else "lucene"
        key = per_term.tobytes()
        if self._key.get(family) != key:
            # a new count vector of this idf: the sums of the last one are dropped
            self._key[family] = key
            for name in [name for name in self._sums if name[0] == family]:
                _BUFFERS.give(self._sums.pop(name))
            total = self._sums[family, "total"] = _BUFFERS.take(n_records)
            totals(self.flat, self.starts, self.ends, per_term, total, record_ranges(n_records))
            total[self.excluded_at] = 0.0  # a record left out holds nothing
        more = "cosine" if kind == "cosine" else "bm25"
        if (family, more) not in self._sums:
            extra = self._sums[family, more] = _BUFFERS.take(n_records)
            repeated_sums(
                *self.repeated,
                per_term,
                self.lengths,
                self.mean_length,
                K1,
                B,
                more == "cosine",
                extra,
                record_ranges(n_records),
            )
            extra[self.excluded_at] = 0.0
        total, extra = self._sums[family, "total"], self._sums[family, more]
        return finish(total, extra, self.lengths, self.mean_length, K1, B, DELTA, KINDS[kind])


class _Buffers:
    """Arrays of a background's length kept between documents for the sums of :meth:`_Weights.scores`:
    at a million records each is 8 MB, and a fresh one costs a page fault per 4 kB it is written to (a
    document needs a few dozen)."""

    def __init__(self, most: int = 16):
        self.most = most
        self._free: dict[int, list[np.ndarray]] = {}

    def take(self, n: int) -> np.ndarray:
        """An array of ``n`` floats, its values undefined (the passes write every one)."""
        free = self._free.get(n)
        try:
            return free.pop() if free else np.empty(n)
        except IndexError:  # another thread took the last one
            return np.empty(n)

    def give(self, array: np.ndarray) -> None:
        free = self._free.setdefault(array.shape[0], [])
        if len(free) < self.most:
            free.append(array)

    def give_all(self, sums: dict) -> None:
        for array in sums.values():
            self.give(array)
        sums.clear()


_BUFFERS = _Buffers()


def _kind(weighting: str) -> str:
    """The part of a posting's weight a weighting uses: the cosine's, BM25+'s or BM25's (lucene and
    robertson)."""
    return weighting if weighting in ("cosine", "plus") else "bm25"


def _weights(postings: TermPostings, term_ids: Sequence[int], excluded: np.ndarray) -> _Weights:
    """The postings of ``term_ids`` over the records that hold any of them (``excluded`` left out):
    ``idf`` counts those records, the length norm is their mean length. The postings stay where they are
    (memory-mapped) and are read in one pass (:func:`.reid_kernels.competing`); only when records are left
    out are the terms' postings copied without them."""
    ids = np.asarray(term_ids, dtype=np.int64)
    starts, ends = postings.indptr[ids], postings.indptr[ids + 1]
    records, tf = np.asarray(postings.records), np.asarray(postings.tf)
    lengths = np.asarray(postings.lengths)
    n_compete, total_length, df = competing(
        records, starts, ends, lengths, np.ascontiguousarray(excluded, dtype=bool), record_ranges(len(lengths))
    )
    ends = np.asarray(ends, dtype=np.int64)
    indptr, more, more_tf = postings.repeated()
    held = (more, more_tf, indptr[ids], indptr[ids + 1])
    mean = max(total_length / n_compete, 1.0) if n_compete else 1.0
    return _Weights(
        list(term_ids), records, tf, starts, ends, df, held, lengths, n_compete, mean, np.flatnonzero(excluded)
    )
