"""What the sparse attackers (bm25_plain, pairs, chargram) share: a records x features matrix, scored in batches.

An attacker of this kind turns the background records into a sparse matrix ``W`` (records x features) once;
a query becomes a sparse vector ``q`` over the same features and every record's score is ``W @ q``, one
sparse product for a batch of queries (no Python loop over records). Subclasses say how records and
queries become vectors (:meth:`SparseAttacker.record_matrix`, :meth:`SparseAttacker.query_matrix`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

try:  # as a module of the benchmarks/attackers folder (sys.path holds benchmarks/)
    from attackers.common import Outcome, outcome, ranking
except ImportError:  # pragma: no cover - imported as a package from elsewhere
    from .common import Outcome, outcome, ranking

#: queries scored per sparse product (a dense block of records x BATCH floats)
BATCH = 64


class SparseAttacker:
    """A background ``W`` (records x features); scores = ``W @ q``."""

    name = "sparse"

    def __init__(self, ids: Sequence[str], texts: Sequence[str]):
        if len(ids) != len(texts):
            raise ValueError("ids and texts differ in length")
        self.ids = list(ids)
        self.matrix = self.record_matrix(list(texts)).tocsr()

    def record_matrix(self, texts: list[str]):  # pragma: no cover - abstract
        raise NotImplementedError

    def query_matrix(self, texts: list[str]):  # pragma: no cover - abstract
        raise NotImplementedError

    def score_matrix(self, texts: Sequence[str]) -> np.ndarray:
        """``len(texts)`` x records scores (an empty query scores 0 everywhere: nothing to go on)."""
        out = np.zeros((len(texts), len(self.ids)))
        for start in range(0, len(texts), BATCH):
            q = self.query_matrix(list(texts[start : start + BATCH])).tocsr()
            out[start : start + q.shape[0]] = (self.matrix @ q.T).toarray().T
        return out

    def scores(self, text: str) -> np.ndarray:
        """One score per background record."""
        return self.score_matrix([text])[0]

    def rank(self, texts: Sequence[str]) -> list[list[str]]:
        """Each text's ranking of the background ids, best first."""
        return [ranking(s, self.ids) for s in self.score_matrix(texts)]

    def top1(self, texts: Sequence[str], true_ids: Sequence[str]) -> list[Outcome]:
        """Each text's :class:`Outcome` for its true id."""
        scores = self.score_matrix(texts)
        return [outcome(s, self.ids, i) for s, i in zip(scores, true_ids, strict=True)]
