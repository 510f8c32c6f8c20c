"""The state of the attack's decision loop (:mod:`.reid_attack`): per analyser of the family, the visible
features, the groups each stands on and their weights over the records in play; per action (a folded
word), the groups masking it hides."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import sparse

from .reid_family import ANALYSERS, Feature, TermPostings
from .reid_kernels import nth_largest
from .reid_scores import CLOSE, WEIGHTINGS, DocWords, FamilyBackground, _weights, attack_probabilities, risk_of

__all__ = ["top_indices"]


#: a document with more features than this keeps its matrices sparse (:class:`_Analyser`)
SPARSE_FEATURES = 500


class _Analyser:
    """One analyser's visible features over the records in play: which groups each stands on, its term,
    and the term's weight in each record in play under each weighting."""

    def __init__(
        self,
        name: str,
        postings: TermPostings,
        features: Sequence[Feature],
        word_group: Sequence[int],
        n_groups: int,
        excluded: np.ndarray,
        weightings: Sequence[str] = WEIGHTINGS,
    ):
        self.name = name
        self.weightings = tuple(weightings)
        terms: dict[int, int] = {}
        feat_term: list[int] = []
        feat_groups: list[list[int]] = []
        term_id = postings.term_id
        for f in features:
            on = f.words
            if len(on) == 1:  # a word
                groups = [word_group[on[0]]]
            elif len(on) == 2:  # a pair: its words' groups, ascending, once each
                g, h = word_group[on[0]], word_group[on[1]]
                groups = [g] if g == h else [g, h] if g < h else [h, g]
            else:
                groups = sorted({word_group[w] for w in on})
            if groups[0] < 0:
                continue  # a word of it is masked already
            tid = term_id(f.term)
            if tid is None:
                continue
            feat_term.append(terms.setdefault(tid, len(terms)))
            feat_groups.append(groups)
        self.term_ids = list(terms)
        self.weights = _weights(postings, self.term_ids, excluded)
        n_feat = len(feat_term)
        self.F2T = sparse.csr_matrix(
            (np.ones(n_feat), (np.arange(n_feat), feat_term)), shape=(n_feat, len(self.term_ids))
        )
        rows = [g for groups in feat_groups for g in groups]
        cols = [i for i, groups in enumerate(feat_groups) for _ in groups]
        self.G2F = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_groups, n_feat))
        self.T2F = self.F2T.T.tocsr()
        #: the same as dense arrays: a short document has a few hundred features, and the loop multiplies
        #: them at every step (dense products of this size cost less than sparse ones' overhead); a longer
        #: one (more than SPARSE_FEATURES) stays sparse, and so do the hidden counts per candidate: dense,
        #: each step's product grows with candidates x features x terms (25,000 characters of TAB dev:
        #: reid_risk's loop 28 s at 2,000 features dense, 12 s at 500)
        self.F2T_dense = None if n_feat > SPARSE_FEATURES else self.F2T.toarray()
        self.alive = np.ones(n_feat)
        self.C: dict[str, np.ndarray] = {}
        #: per weighting, per action (rows: every action of the problem), what masking it would take from
        #: each record in play (:meth:`_Problem.removed_by`); ``fresh``: the rows still true since a mask
        self.removed: dict[str, np.ndarray] = {}
        self.fresh = np.zeros(0, dtype=bool)

    def counts(self) -> np.ndarray:
        return self.T2F @ self.alive

    def full_scores(self, weighting: str, n_records: int) -> np.ndarray:
        return self.weights.scores(self.counts(), weighting, n_records)

    def set_play(self, play: np.ndarray) -> None:
        """The weight matrices over the records in ``play`` (ascending positions): each term's postings
        searched for the few records in play, not every posting looked at."""
        weights = self.weights
        terms, columns, at = [], [], []
        for u, records in enumerate(weights.records):
            i = np.searchsorted(records, play)
            inside = np.flatnonzero(records[np.minimum(i, len(records) - 1)] == play) if len(records) else i[:0]
            terms.append(np.full(len(inside), u))
            columns.append(inside)
            at.append(weights.starts[u] + i[inside])
        term, column, position = (np.concatenate(x) if x else np.zeros(0, dtype=np.int64) for x in (terms, columns, at))
        self.C = {}
        self.removed = {}
        for weighting in self.weightings:
            matrix = np.zeros((len(self.term_ids), len(play)))
            matrix[term, column] = weights.weights_flat(position, term, weighting)
            self.C[weighting] = matrix

    def hidden_counts(self, A2F: np.ndarray | sparse.csr_matrix) -> np.ndarray | sparse.csr_matrix:
        """Per action (row of ``A2F``, the features it stands in: :meth:`touched`): the visible
        occurrences of each term it would hide (sparse when the analyser's matrices are)."""
        if self.F2T_dense is None:  # sparse, as touched() made it
            return sparse.csr_matrix(A2F).multiply(self.alive[None, :]).tocsr() @ self.F2T
        return (A2F * self.alive[None, :]) @ self.F2T_dense

    def hidden_by_all(self, A2F: np.ndarray | sparse.csr_matrix) -> np.ndarray:
        """The visible occurrences of each term that masking every action of ``A2F`` together would hide
        (a feature two of them stand on hidden once)."""
        if A2F.shape[0] == 0:
            return np.zeros(len(self.term_ids))
        if self.F2T_dense is None:  # sparse, as touched() made it
            return self.T2F @ (A2F.max(axis=0).toarray().ravel() * self.alive)
        return (A2F.max(axis=0) * self.alive) @ self.F2T_dense

    def touched(self, A2G: sparse.csr_matrix) -> np.ndarray | sparse.csr_matrix:
        """Per action (row of ``A2G``, its groups): the features that stand on any of its groups (1 each)."""
        if self.F2T_dense is None:
            hit = (A2G @ self.G2F).tocsr()
            hit.data[:] = 1.0
            return hit
        return ((A2G @ self.G2F).toarray() > 0).astype(float)

    def mask(self, groups: Sequence[int]) -> np.ndarray:
        """The features standing on any of ``groups`` are no longer visible; returns those that were."""
        indptr, indices = self.G2F.indptr, self.G2F.indices
        on = np.unique(np.concatenate([indices[indptr[g] : indptr[g + 1]] for g in groups] or [indices[:0]]))
        dead = on[self.alive[on] > 0]
        self.alive[dead] = 0.0
        return dead


@dataclass
class _Choice:
    """What every step of the decision loop (:func:`.reid_attack._loop`) weighs its candidates with."""

    prior_play: np.ndarray
    margin: float
    floor: float | None
    limit: float
    cost_power: float
    budget: int | None
    #: a guarded document's loop (:mod:`.reid_whom`): the person may be any record the guard watches (the
    #: prior's), so a row's risk is the highest chance of any of them, not the prior's expectation (which a
    #: flat prior spreads thin: a record named at 0.5 weighs 0.03 among 16 others)
    whoever: bool = False

    def chances(self, scores: np.ndarray, close: float | None = None) -> np.ndarray:
        """Per row of ``scores`` (the records in play in columns): the chance the attacker names the person
        (``prior_play``, with the rank floor), or, ``whoever``, the highest chance any record of the prior is
        named."""
        if self.whoever:
            probs = attack_probabilities(scores, self.margin, CLOSE if close is None else close)
            return probs[:, self.prior_play > 0].max(axis=1, initial=0.0)
        if close is None:
            return risk_of(scores, self.prior_play, self.margin, floor=self.floor)
        return risk_of(scores, self.prior_play, self.margin, close)


class _Problem:
    """The document's actions (a folded word: every group it stands in) and the analysers' state."""

    def __init__(
        self,
        background: FamilyBackground,
        doc: DocWords,
        excluded: np.ndarray,
        analysers: Sequence[str] = ANALYSERS,
        weightings: Sequence[str] = WEIGHTINGS,
    ):
        self.background = background
        self.doc = doc
        self.weightings = tuple(weightings)
        n_groups = len(doc.group_cost)
        self.analysers = [
            _Analyser(name, background.family[name], doc.features[name], doc.group, n_groups, excluded, weightings)
            for name in analysers
            if name in background.family
        ]
        action_of: dict[str, int] = {}
        self.keys: list[str] = []
        self.texts: list[str] = []
        self.groups: list[set[int]] = []
        self.first: list[int] = []
        for i, (word, g) in enumerate(zip(doc.words, doc.group, strict=True)):
            if g < 0 or word.stop:
                continue
            a = action_of.get(word.folded)
            if a is None:
                a = action_of[word.folded] = len(self.keys)
                self.keys.append(word.folded)
                self.texts.append(doc.text[word.start : word.end])
                self.groups.append(set())
                self.first.append(i)
            self.groups[a].add(g)
        self.masked_groups: set[int] = set()
        self._touched: dict[str, np.ndarray] = {}
        word_postings = background.family.get("word")
        excluded_at = self.excluded_at = np.flatnonzero(excluded)
        self.df = np.array(
            [_df(word_postings, key, excluded_at) if word_postings is not None else 0 for key in self.keys],
            dtype=np.int64,
        )

    def name_like(self, a: int) -> bool:
        """Whether some occurrence of word ``a`` is written with a capital inside a sentence (``the Eels``)."""
        doc = self.doc
        for i, word in enumerate(doc.words):
            if word.folded != self.keys[a] or doc.group[i] < 0 or not doc.text[word.start].isupper():
                continue
            before = doc.text[: word.start].rstrip()
            if before and before[-1] not in '.!?:;"“\n':
                return True
        return False

    def live_groups(self, a: int) -> list[int]:
        return sorted(self.groups[a] - self.masked_groups)

    def cost(self, a: int) -> int:
        return sum(self.doc.group_cost[g] for g in self.live_groups(a))

    def allowed(self, a: int) -> bool:
        maskable = self.doc.maskable
        return bool(self.live_groups(a)) and (maskable is None or all(maskable[g] for g in self.groups[a]))

    def hidden_counts(self, analyser: _Analyser, actions: Sequence[int]) -> np.ndarray | sparse.csr_matrix:
        """Per action of ``actions``: the visible occurrences of each of ``analyser``'s terms masking it
        would hide. An action's features are found once (a feature on a group masked since is no longer
        alive, so all of an action's groups can stand for its live ones)."""
        return analyser.hidden_counts(self._touched_of(analyser)[list(actions)])

    def _touched_of(self, analyser: _Analyser) -> np.ndarray:
        """Per action, the features of ``analyser`` that stand on its groups (found once per analyser)."""
        if analyser.name not in self._touched:
            self._touched[analyser.name] = analyser.touched(self._action_groups)
        return self._touched[analyser.name]

    def cheap_common(self, held: list[int], common: float, spent: int, share: float) -> bool:
        """Whether the common words of ``held`` (df above ``common``) and the ``spent`` characters take at
        most ``share`` of the text together."""
        cost = spent + sum(self.cost(a) for a in held if self.df[a] > common)
        return cost <= share * len(self.doc.text)

    def reaches_without(self, actions: list[int], attackers: list[tuple[_Analyser, str]], ctx: _Choice) -> bool:
        """Whether masking every word of ``actions`` (within ``ctx.budget``) brings every attacker's chance
        of naming the person (``ctx.prior_play`` over the records in play) to ``ctx.limit``."""
        if ctx.budget is not None and sum(self.cost(a) for a in actions) > ctx.budget:
            return False
        counts = {a.name: self.counts_without(a, actions) for a in self.analysers}
        after = np.array([counts[a.name] @ a.C[w] for a, w in attackers])
        return bool(ctx.chances(after).max() <= ctx.limit)

    def counts_without(self, analyser: _Analyser, actions: Sequence[int]) -> np.ndarray:
        """``analyser``'s visible occurrences of each term if every action of ``actions`` were masked too
        (a feature two of them stand on hidden once)."""
        return analyser.counts() - analyser.hidden_by_all(self._touched_of(analyser)[list(actions)])

    @cached_property
    def _action_groups(self) -> sparse.csr_matrix:
        """Per action, every group it stands in (1 each), the same for every analyser."""
        rows = [a for a in range(len(self.keys)) for _ in self.groups[a]]
        cols = [g for a in range(len(self.keys)) for g in sorted(self.groups[a])]
        return sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(self.keys), len(self.doc.group_cost)))

    def mask(self, a: int) -> list[int]:
        new = self.live_groups(a)
        self.mask_groups(new)
        return new

    def mask_groups(self, groups: Sequence[int]) -> None:
        for analyser in self.analysers:
            dead = analyser.mask(groups)
            if analyser.removed and len(dead):
                # an action's row changes only if one of its features died (its own, or a pair it makes
                # with the masked word): those rows are found again, the others kept
                touched = self._touched_of(analyser)[:, dead]
                stale = np.flatnonzero(np.asarray(touched.sum(axis=1)).ravel() > 0)
                analyser.fresh[stale] = False
        self.masked_groups.update(groups)

    def removed_by(self, attackers: Sequence[tuple[_Analyser, str]], actions: Sequence[int]) -> list[np.ndarray]:
        """Per attacker (an analyser and a weighting): per action of ``actions``, the weight masking it
        would take from each record in play (its hidden counts times the weights). Kept between the steps of
        a loop: only the rows a mask since has changed are found again."""
        rows = np.asarray(actions, dtype=np.int64)
        for analyser in self.analysers:
            if not analyser.removed:
                analyser.removed = {w: np.zeros((len(self.keys), analyser.C[w].shape[1])) for w in analyser.C}
                analyser.fresh = np.zeros(len(self.keys), dtype=bool)
            todo = rows[~analyser.fresh[rows]]
            if len(todo):
                hidden = self.hidden_counts(analyser, todo.tolist())
                for w, matrix in analyser.removed.items():
                    matrix[todo] = hidden @ analyser.C[w]
                analyser.fresh[todo] = True
        return [a.removed[w][rows] for a, w in attackers]


def _df(postings: TermPostings, term: str, excluded_at: np.ndarray) -> int:
    """How many records hold ``term``, the records at ``excluded_at`` (ascending) left out."""
    tid = postings.term_id(term)
    if tid is None:
        return 0
    df = postings.df(tid)
    if len(excluded_at) and df:
        records = np.asarray(postings.records[postings.indptr[tid] : postings.indptr[tid + 1]])
        j = np.minimum(np.searchsorted(records, excluded_at), df - 1)
        df -= int(np.count_nonzero(records[j] == excluded_at))
    return df


def top_indices(values: np.ndarray, n: int) -> np.ndarray:
    """The positions of the ``n`` largest ``values``, best first (ties: the lower position first), in
    time linear in the length (a partition, then a sort of the ``n``)."""
    n = min(n, values.shape[0])
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    if n < values.shape[0]:
        candidates = np.flatnonzero(values >= nth_largest(np.asarray(values, dtype=np.float64), n))
    else:
        candidates = np.arange(values.shape[0])
    return candidates[np.argsort(-values[candidates], kind="stable")][:n]
