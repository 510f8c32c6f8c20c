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
from .reid_words import WORD_CACHE  # noqa: F401  (one reading of words for the whole attack)

__all__ = ["WEIGHTINGS", "DocWords", "FamilyBackground", "Occurrence", "attack_probabilities", "risk_of"]

#: The term weightings: BM25 with Lucene's idf (every term counts a little) and with
#: Robertson–Spärck Jones' idf (terms in half the competing records or more count almost nothing).
WEIGHTINGS = ("lucene", "robertson")
K1, B = 1.5, 0.75


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


def attack_probabilities(scores: np.ndarray, margin: float) -> np.ndarray:
    """Per row of ``scores`` (records in columns): the chance that an attacker whose log-scores are
    these plus Gumbel noise of scale ``margin`` names each record, ``s ** (1 / margin)`` normalised. A
    record scored 0 is never named; a row without a positive score names nobody (all 0)."""
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    positive = scores > 0
    logs = np.where(positive, np.log(np.where(positive, scores, 1.0)) / margin, -np.inf)
    best = logs.max(axis=1, keepdims=True)
    z = np.where(positive, np.exp(logs - np.where(np.isfinite(best), best, 0.0)), 0.0)
    total = z.sum(axis=1, keepdims=True)
    return np.divide(z, total, out=np.zeros_like(z), where=total > 0)


def risk_of(scores: np.ndarray, prior: np.ndarray, margin: float) -> np.ndarray:
    """Per row of ``scores``: the chance that the attacker names the person (``prior`` over the columns)."""
    return attack_probabilities(scores, margin) @ prior


@dataclass
class _Weights:
    """One analyser's BM25 parts for a set of terms over the records that compete."""

    terms: list[int]  # term ids in the postings
    postings: list[tuple[np.ndarray, np.ndarray]]  # per term: records, tf part
    df: np.ndarray
    n_compete: int

    def idf(self, weighting: str) -> np.ndarray:
        n, df = float(self.n_compete), self.df.astype(float)
        if weighting == "robertson":
            return np.maximum(0.1, np.log((n - df + 0.5) / (df + 0.5)))
        return np.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def scores(self, counts: np.ndarray, weighting: str, n_records: int) -> np.ndarray:
        """Every record's score for ``counts[u]`` occurrences of each term."""
        out = np.zeros(n_records)
        for (records, part), w in zip(self.postings, counts * self.idf(weighting), strict=True):
            if w:
                out[records] += w * part
        return out


def _weights(postings: TermPostings, term_ids: Sequence[int], excluded: np.ndarray) -> _Weights:
    """The BM25 parts of ``term_ids`` over the records that hold any of them (``excluded`` left out):
    ``idf`` from how many of those records hold each term, the length norm from their mean length."""
    raw = []
    compete = np.zeros(postings.n_records, dtype=bool)
    for tid in term_ids:
        records, tf = postings.postings(tid)
        keep = ~excluded[records]
        records, tf = records[keep], tf[keep]
        compete[records] = True
        raw.append((records, tf))
    n_compete = int(compete.sum())
    lengths = np.asarray(postings.lengths)
    mean = float(lengths[compete].mean()) if n_compete else 1.0
    parts = []
    for records, tf in raw:
        norm = K1 * ((1 - B) + B * lengths[records] / max(mean, 1.0))
        parts.append((records, tf / (tf + norm)))
    df = np.array([len(r) for r, _ in raw], dtype=np.int64)
    return _Weights(list(term_ids), parts, df, n_compete)
