"""The attack's scores: BM25 over the records that compete, and the chance that an attacker names each record.

A record's score for an analyser of the family (:mod:`.reid_family`) is BM25 over the document's visible
features, ``sum idf(t) * tf / (tf + k1 * (1 - b + b * len / L))``, with ``idf`` counted over the ``N_c``
records that hold at least one visible feature and ``L`` their mean length: records that share nothing
with the document change no weight. Another attacker's scores are these times a random factor
(``log s + margin * G``, ``G`` Gumbel), so it names record ``i`` with probability ``s_i ** (1 / margin)``
normalised (:func:`attack_probabilities`): a record scored 0 is never named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from .reid_family import TermPostings, Word, family_features

__all__ = [
    "RANK_FLOOR",
    "WEIGHTINGS",
    "DocWords",
    "FamilyBackground",
    "Occurrence",
    "attack_probabilities",
    "rank_floor",
    "risk_of",
]

#: The term weightings: BM25 with Lucene's idf (every term counts a little) and with
#: Robertson–Spärck Jones' idf (terms in half the competing records or more count almost nothing), and a
#: tf-idf cosine (log tf, short records weigh more), the way most vector-space attackers score.
WEIGHTINGS = ("lucene", "robertson", "cosine")
K1, B = 1.5, 0.75
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
    logs = np.log(scores[at]) / margin
    z = np.exp(logs - logs.max())
    out[at] = z / z.sum()
    return out


def risk_of(
    scores: np.ndarray, prior: np.ndarray, margin: float, close: float = CLOSE, floor: float | None = None
) -> np.ndarray:
    """Per row of ``scores``: the chance that the attacker names the person (``prior`` over the columns);
    with ``floor``, at least :func:`rank_floor`'s."""
    risk = attack_probabilities(scores, margin, close) @ prior
    if floor is None:
        return risk
    return np.maximum(risk, rank_floor(scores, prior, floor))


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
        # one row (a whole background): only the records at least ``ratio`` times the best can rank above
        # a near record, so ranks are counted among those
        row, floor = scores[0], ratio * top[0]
        near_scores = row[row >= floor]
        best = 0.0
        for j in people:
            own = row[j]
            if own > 0 and own >= floor:
                best = max(best, prior[j] / (1 + np.count_nonzero(near_scores > own)))
        out[0] = best
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
    single occurrence times the sum of ``count * idf`` over the terms it holds once, plus its other
    postings' weights: one pass over the postings with a number per term, no weight per posting (at a
    million records a document's common words hold millions of postings)."""

    terms: list[int]  # term ids in the postings
    records: list[np.ndarray]  # per term: the records that hold it (the competing ones), ascending
    tf: list[np.ndarray]  # and how often
    lengths: np.ndarray  # every record's length (records left out too)
    df: np.ndarray
    n_compete: int
    mean_length: float

    def __post_init__(self) -> None:
        self._per_record: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._idf: dict[str, np.ndarray] = {}
        self._once: list[np.ndarray] = []  # per term: the records that hold it once
        self._more: list[np.ndarray] = []  # and the positions (in records[u]) of those that hold it more
        for records, tf in zip(self.records, self.tf, strict=True):
            more = np.flatnonzero(tf != 1)
            self._more.append(more)
            self._once.append(np.delete(records, more) if len(more) else records)
        self._more_parts: dict[str, list[np.ndarray]] = {}
        self._total: dict[str, tuple[tuple[bytes, int], np.ndarray]] = {}

    def idf(self, weighting: str) -> np.ndarray:
        """Every term's idf under ``weighting`` (computed once per weighting)."""
        if weighting not in self._idf:
            n, df = float(self.n_compete), self.df.astype(float)
            if weighting == "robertson":
                self._idf[weighting] = np.maximum(0.1, np.log((n - df + 0.5) / (df + 0.5)))
            else:
                self._idf[weighting] = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
        return self._idf[weighting]

    def _record_norms(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """Per record: its length's part of a posting's weight (BM25's saturation, or the cosine's square
        root of the relative length) and the part of a posting of tf 1 in it."""
        if kind not in self._per_record:
            length = self.lengths / self.mean_length
            if kind == "cosine":
                norm = np.sqrt(np.maximum(length, 1e-3))
                self._per_record[kind] = norm, 1.0 / norm
            else:
                norm = K1 * ((1 - B) + B * length)
                self._per_record[kind] = norm, 1.0 / (1.0 + norm)
        return self._per_record[kind]

    def _part_at(self, u: int, kind: str, at: np.ndarray) -> np.ndarray:
        """:meth:`part` of term ``u`` at positions ``at`` of its postings."""
        norm, once = self._record_norms(kind)
        records, tf = self.records[u][at], self.tf[u][at]
        if kind == "cosine":
            return (1.0 + np.log(tf)) / norm[records]
        return np.where(tf == 1, once[records], tf / (tf + norm[records]))

    def part(self, u: int, weighting: str) -> np.ndarray:
        """Term ``u``'s weight in each record that holds it, before its idf: BM25's saturated tf (the same
        for ``lucene`` and ``robertson``), or for ``cosine`` the log tf over the square root of the
        record's relative length (a short record that holds the word weighs more, as in a tf-idf cosine)."""
        return self._part_at(u, _kind(weighting), np.arange(len(self.records[u])))

    def weights_at(self, u: int, weighting: str, at: np.ndarray) -> np.ndarray:
        """Term ``u``'s weight in the records at positions ``at`` of its postings."""
        return self.idf(weighting)[u] * self._part_at(u, _kind(weighting), at)

    def scores(self, counts: np.ndarray, weighting: str, n_records: int) -> np.ndarray:
        """Every record's score for ``counts[u]`` occurrences of each term."""
        kind = _kind(weighting)
        per_term = np.asarray(counts, dtype=float) * self.idf(weighting)
        _, once = self._record_norms(kind)
        if kind not in self._more_parts:
            self._more_parts[kind] = [self._part_at(u, kind, more) for u, more in enumerate(self._more)]
        # cosine's idf is lucene's: the same sum for both (the last one of each idf is kept)
        family, key = ("robertson" if weighting == "robertson" else "lucene"), (per_term.tobytes(), n_records)
        if family in self._total and self._total[family][0] == key:
            total = self._total[family][1]
        else:
            total = np.zeros(n_records)
            for records, w in zip(self._once, per_term, strict=True):
                if w:
                    total[records] += w
            self._total[family] = (key, total)
        out = total * once
        for u, (more, part) in enumerate(zip(self._more, self._more_parts[kind], strict=True)):
            if per_term[u] and len(more):
                out[self.records[u][more]] += per_term[u] * part
        return out


def _kind(weighting: str) -> str:
    """The part of a posting's weight a weighting uses: the cosine's or BM25's (lucene and robertson)."""
    return "cosine" if weighting == "cosine" else "bm25"


def _weights(postings: TermPostings, term_ids: Sequence[int], excluded: np.ndarray) -> _Weights:
    """The postings of ``term_ids`` over the records that hold any of them (``excluded`` left out):
    ``idf`` counts those records, the length norm is their mean length."""
    records_of, tf_of = [], []
    compete = np.zeros(postings.n_records, dtype=bool)
    any_excluded = bool(excluded.any())
    for tid in term_ids:
        records, tf = postings.postings(tid)
        if any_excluded:
            keep = ~excluded[records]
            records, tf = records[keep], tf[keep]
        records_of.append(records)
        tf_of.append(tf)
        compete[records] = True
    n_compete = int(np.count_nonzero(compete))
    lengths = np.asarray(postings.lengths)
    mean = max(float(lengths[compete].mean()), 1.0) if n_compete else 1.0
    df = np.array([len(r) for r in records_of], dtype=np.int64)
    return _Weights(list(term_ids), records_of, tf_of, lengths, df, n_compete, mean)
