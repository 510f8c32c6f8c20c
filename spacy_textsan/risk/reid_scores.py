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
from scipy import sparse

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
    single occurrence times the sum of ``count * idf`` over the terms it holds, plus, for the terms it
    holds more often, what their own weight adds to that: one pass over the postings with a number per
    term, no weight per posting (at a million records a document's common words hold millions of
    postings)."""

    terms: list[int]  # term ids in the postings
    flat: np.ndarray  # every posting's record (the competing ones), term after term, each term's ascending
    flat_tf: np.ndarray  # and how often the record holds the term (as stored: 16-bit)
    df: np.ndarray  # per term: its postings in ``flat``
    lengths: np.ndarray  # every record's length (records left out too)
    n_compete: int
    mean_length: float

    def __post_init__(self) -> None:
        self._per_record: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._idf: dict[str, np.ndarray] = {}
        starts = np.r_[0, np.cumsum(self.df)]
        #: per term: the records that hold it, ascending, and how often (views into ``flat``)
        self.records: list[np.ndarray] = np.split(self.flat, starts[1:-1]) if len(self.df) else []
        self.tf: list[np.ndarray] = np.split(self.flat_tf, starts[1:-1]) if len(self.df) else []
        # every posting as if its record held the term once, a records x terms matrix of ones over
        # ``flat`` itself (no copy); the postings held more often (their positions in ``flat``, and where
        # each term's start) are corrected by their own part (:meth:`scores`)
        self._ones = sparse.csc_matrix(
            (_ones(len(self.flat)), self.flat, starts), shape=(len(self.lengths), len(self.df))
        )
        self._more_at = np.flatnonzero(self.flat_tf != 1)
        self._more_starts = np.searchsorted(self._more_at, starts)
        self._more_matrix: dict[str, sparse.csc_matrix] = {}
        self._more_product: dict[str, tuple[tuple, np.ndarray]] = {}
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
                self._per_record[kind] = norm, 1.0 / (1.0 + norm) + (DELTA if kind == "plus" else 0.0)
        return self._per_record[kind]

    def _part(self, kind: str, records: np.ndarray, tf: np.ndarray) -> np.ndarray:
        """The part of a posting's weight before its idf, for postings of ``records`` held ``tf`` times."""
        norm = self._record_norms(kind)[0][records]
        tf = np.asarray(tf, dtype=np.float64)
        # BM25's tf / (tf + norm) at tf = 1 is 1 / (1 + norm): the part of a posting held once
        if kind == "cosine":
            return (1.0 + np.log(tf)) / norm
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
        """Every record's score for ``counts[u]`` occurrences of each term."""
        kind = _kind(weighting)
        per_term = np.asarray(counts, dtype=float) * self.idf(weighting)
        _, once = self._record_norms(kind)
        # cosine's and plus' idf is lucene's: the same sum for all three (the last one of each idf is kept)
        family, key = ("robertson" if weighting == "robertson" else "lucene"), (per_term.tobytes(), n_records)
        if family in self._total and self._total[family][0] == key:
            total = self._total[family][1]
        else:
            # one pass over the postings
            total = self._ones @ per_term
            self._total[family] = (key, total)
        out = total * once
        # a posting held more often weighs its own part, not a posting held once's; BM25+'s delta is in
        # both, so its correction is BM25's (one matrix, and for Lucene's idf one product, for both)
        more = "bm25" if kind == "plus" else kind
        more_key = (family, *key)
        if more in self._more_product and self._more_product[more][0] == more_key:
            out += self._more_product[more][1]
            return out
        if more not in self._more_matrix:
            records = self.flat[self._more_at]
            part = self._part(more, records, self.flat_tf[self._more_at])
            held_once = self._record_norms(more)[1][records]
            self._more_matrix[more] = sparse.csc_matrix(
                (part - held_once, records, self._more_starts), shape=(len(self.lengths), len(self.df))
            )
        product = self._more_matrix[more] @ per_term
        self._more_product[more] = (more_key, product)
        out += product
        return out


_ONES = np.ones(0)


def _ones(n: int) -> np.ndarray:
    """``n`` ones, read-only, a view of one array kept between calls (a million records' postings need
    tens of millions of them, the same for every document)."""
    global _ONES
    ones = _ONES
    if len(ones) < n:
        ones = np.ones(n)
        ones.flags.writeable = False
        _ONES = ones
    return ones[:n]


def _kind(weighting: str) -> str:
    """The part of a posting's weight a weighting uses: the cosine's, BM25+'s or BM25's (lucene and
    robertson)."""
    return weighting if weighting in ("cosine", "plus") else "bm25"


def _weights(postings: TermPostings, term_ids: Sequence[int], excluded: np.ndarray) -> _Weights:
    """The postings of ``term_ids`` over the records that hold any of them (``excluded`` left out):
    ``idf`` counts those records, the length norm is their mean length. The postings are read in one
    pass into one array (a million records: tens of millions of postings)."""
    ids = np.asarray(term_ids, dtype=np.int64)
    lo, hi = postings.indptr[ids], postings.indptr[ids + 1]
    df = (hi - lo).astype(np.int64)
    if len(ids):
        flat = np.concatenate([postings.records[a:b] for a, b in zip(lo, hi, strict=True)])
        flat_tf = np.concatenate([postings.tf[a:b] for a, b in zip(lo, hi, strict=True)])
    else:
        flat, flat_tf = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.uint16)
    if excluded.any():
        keep = ~excluded[flat]
        if not keep.all():
            df = np.diff(np.r_[0, np.cumsum(keep)][np.r_[0, np.cumsum(df)]])
            flat, flat_tf = flat[keep], flat_tf[keep]
    compete = np.zeros(postings.n_records, dtype=bool)
    compete[flat] = True
    n_compete = int(np.count_nonzero(compete))
    lengths = np.asarray(postings.lengths)
    mean = max(float(lengths[compete].mean()), 1.0) if n_compete else 1.0
    return _Weights(list(term_ids), flat, flat_tf, df, lengths, n_compete, mean)
