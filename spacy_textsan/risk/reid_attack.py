"""The attacker inside the pipeline, as pure functions: rank the background
records with what a document still shows, and choose what to mask until the
attacker's best guess is unlikely to be the person.

The attacker is a BM25 search (:class:`~.reid_index.BackgroundSearch`) whose
query is every visible word of the document, each as often as it is visible.
A record's score is the sum, over the visible terms it holds, of the term's
BM25 score in it, so the part each term plays in ranking each record is exact
and masking a term lowers every score by its own posting.

**Probabilistic k-anonymity over the attacker's scores.** Another attacker
does not score exactly as this one (other tokens, stemming, weights, a dense
model): its scores are modelled as these plus Gumbel noise of scale
``margin`` times the best score, so it names record ``i`` with probability
``softmax(s / (margin * max s))_i``. Two term weightings are tried
(:data:`WEIGHTINGS`) and the worse counts.

Who the person is, the defence does not know; but it has the original
document, names included. The same search with the document's direct
identifiers (``prior_terms``: the words of its masked names and codes) gives
a posterior ``p0`` over the records (the same softmax); when no record holds
them, ``p0`` is flat and nobody is singled out. The **risk** is the chance that
the attacker's pick is the person, ``sum_i p0_i * P_attack(i)``; the document
is ``k``-anonymous when the risk is at most ``1 / k``: the attacker cannot
tell the person from ``k = 1 / risk`` records. A data owner who knows the
person's record (``target``) gets the stricter check: ``p0`` is certain of it.

**The decision** (:func:`plan_masks`): while the risk exceeds ``1 / k``, mask
the visible term whose removal lowers the risk most (per character masked to
the power ``cost_power``; ties to the rarer, then the earlier term), and rank
again, within a ``budget`` of characters. Terms are grouped by *groups* of
occurrences masked together (a kept candidate entity is masked whole, with
all its mentions), so masking one term can hide others. Only the records in
play (the ``top_records`` best by the prior and by the visible text, and the
target) are re-scored in the loop; leaving the others out only overstates
the risk, and the view reported (:func:`view_of`) scores every record.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from .reid_index import BackgroundSearch

#: The term weightings of the attackers the risk is the worst of: BM25 with Lucene's idf (every
#: term counts a little) and with Robertson–Spärck Jones' idf (terms in half the records or more
#: count almost nothing, so rare terms weigh more).
WEIGHTINGS = ("lucene", "robertson")

__all__ = ["AttackView", "MaskStep", "Occurrence", "Plan", "attack_probabilities", "risk_of", "plan_masks", "view_of"]


@dataclass(frozen=True)
class Occurrence:
    """One visible word: its index term, its text, and the group masked with it."""

    term: str
    text: str
    group: int


@dataclass
class MaskStep:
    """One decision of the loop: the term chosen, the groups it masks, and why."""

    term: str
    text: str
    groups: list[int]
    df: int
    k_before: int  # the k (1 / risk) before this mask
    reason: str


@dataclass
class AttackView:
    """What the attacker sees: how many records it cannot tell the person from, and why."""

    k: int  # 1 / risk: the records the person hides among
    target_k: int
    margin: float
    n_background: int
    reached: bool
    top: list[tuple[str, float]]  # best records (id, score)
    narrowing: list[tuple[str, int]]  # visible words that hold the riskiest record apart (text, df)
    risk: float = 0.0  # the chance that the attacker names the person
    target: str | None = None
    target_rank: int | None = None  # 1 = first

    def as_dict(self) -> dict:
        return {
            "k": self.k,
            "target_k": self.target_k,
            "margin": self.margin,
            "n_background": self.n_background,
            "reached": self.reached,
            "risk": round(self.risk, 6),
            "top": [[rid, round(score, 4)] for rid, score in self.top],
            "narrowing": [[text, df] for text, df in self.narrowing],
            "target": self.target,
            "target_rank": self.target_rank,
        }


@dataclass
class Plan:
    """The masking decisions and the attacker's view after them."""

    steps: list[MaskStep] = field(default_factory=list)
    view: AttackView | None = None
    excluded: list[str] = field(default_factory=list)  # records taken for the document itself
    prior: np.ndarray | None = None  # who the person is, over every record
    dense: dict | None = None  # the dense attacker's view (reid_dense), when it ran


class _Problem:
    """The loop's state: terms, how often each is still visible, their postings on the records in
    play, and the groups of occurrences masked together.

    A term weighs as often as it is visible (a query that repeats a word repeats its score, as BM25
    implementations sum the clauses of a query), so ``C[t, j]`` is the BM25 score of term ``t`` in
    record ``records[j]`` once, and a record's score is ``count @ C``.
    """

    def __init__(
        self,
        index: BackgroundSearch,
        occurrences: Sequence[Occurrence],
        group_cost: Sequence[int],
        prior_terms: Sequence[str] | None,
        exclude: set[int],
        target: int | None,
        top_records: int,
        margin: float,
    ):
        self.index = index
        terms: dict[str, int] = {}
        self.term_key: list[str] = []
        self.term_text: list[str] = []
        self.term_tid: list[int | None] = []
        term_groups: list[set[int]] = []
        #: group -> {term: occurrences of the term in the group}
        self.group_terms: dict[int, Counter[int]] = {}
        for occ in occurrences:
            t = terms.get(occ.term)
            if t is None:
                t = terms[occ.term] = len(terms)
                self.term_key.append(occ.term)
                self.term_text.append(occ.text)
                self.term_tid.append(index.term_id(occ.term))
                term_groups.append(set())
            term_groups[t].add(occ.group)
            self.group_terms.setdefault(occ.group, Counter())[t] += 1
        self.term_groups = [sorted(g) for g in term_groups]
        self.df = np.array([index.df(tid) if tid is not None else 0 for tid in self.term_tid], dtype=np.int64)
        self.group_cost = list(group_cost)
        self.masked_groups: set[int] = set()
        self.count = np.zeros(len(terms))
        for counts in self.group_terms.values():
            for t, n in counts.items():
                self.count[t] += n
        self.exclude = sorted(exclude)
        self.target = None if target in exclude else target
        # every record's score with what is visible, and with the original text (the prior)
        self.postings = {t: index.postings(tid) for t, tid in enumerate(self.term_tid) if tid is not None}
        visible = np.zeros(index.n_records)
        for t, (records, scores) in self.postings.items():
            visible[records] += self.count[t] * scores
        if prior_terms is None:
            original = visible.copy()
        else:
            original = np.zeros(index.n_records)
            for term, n in Counter(prior_terms).items():
                if (tid := index.term_id(term)) is not None:
                    records, scores = index.postings(tid)
                    original[records] += n * scores
        visible[self.exclude] = -np.inf
        original[self.exclude] = -np.inf
        self.original = original
        n_play = max(1, top_records)
        play = set(top_indices(original, n_play).tolist())
        play.update(top_indices(visible, n_play).tolist())
        if self.target is not None:
            play.add(self.target)
        play.difference_update(self.exclude)
        self.records = np.array(sorted(play), dtype=np.int64)
        self.prior = prior(original, margin, self.target)[self.records]
        self.C = np.zeros((len(terms), len(self.records)))
        for t, (records, scores) in self.postings.items():
            j = np.searchsorted(self.records, records)
            inside = (j < len(self.records)) & (self.records[np.minimum(j, len(self.records) - 1)] == records)
            self.C[t, j[inside]] = scores[inside]
        # groups x terms (occurrences) and terms x groups (membership), so that what masking each of many
        # terms hides is one sparse product per step, not a loop over terms and their groups
        self._group_row = {g: i for i, g in enumerate(self.group_terms)}
        entries = [(self._group_row[g], u, n) for g, counts in self.group_terms.items() for u, n in counts.items()]
        rows, cols, vals = zip(*entries, strict=True) if entries else ((), (), ())
        shape = (len(self._group_row), len(terms))
        self._G = sparse.csr_matrix((np.array(vals, dtype=float), (rows, cols)), shape=shape)
        member = [(t, self._group_row[g]) for t, groups in enumerate(self.term_groups) for g in groups]
        t_idx, g_idx = zip(*member, strict=True) if member else ((), ())
        self._T2G = sparse.csr_matrix((np.ones(len(member)), (t_idx, g_idx)), shape=(len(terms), shape[0]))
        self._live = np.ones(shape[0])

    @property
    def visible(self) -> np.ndarray:
        return self.count > 0

    def reweight(self, weighting: str) -> np.ndarray:
        """Per term: its weight for an attacker with ``weighting`` (:data:`WEIGHTINGS`) over its BM25 weight."""
        ratio = np.ones(len(self.term_tid))
        if weighting == "robertson":
            n, df = self.index.n_records, self.df.astype(float)
            known = np.array([tid is not None for tid in self.term_tid], dtype=bool)
            lucene = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
            robertson = np.maximum(0.1, np.log((n - df + 0.5) / (df + 0.5)))
            ratio[known] = robertson[known] / lucene[known]
        return ratio

    def weighted(self, weighting: str) -> np.ndarray:
        """``C`` as an attacker with another term weighting scores it."""
        return self.C * self.reweight(weighting)[:, None]

    def hidden_by(self, t: int) -> np.ndarray:
        """How many visible occurrences of each term masking every group of term ``t`` hides."""
        out = np.zeros(len(self.count))
        for g in self.term_groups[t]:
            if g not in self.masked_groups:
                for u, n in self.group_terms[g].items():
                    out[u] += n
        return out

    def group_scores(self, C: np.ndarray) -> np.ndarray:
        """Per group: the scores (columns of ``C``, a weighted :attr:`C`) its occurrences carry."""
        return np.asarray(self._G @ C)

    def hidden_scores(self, candidates: np.ndarray, group_scores: np.ndarray) -> np.ndarray:
        """Per candidate term: the scores that masking its groups not yet masked takes away
        (``hidden_by(t) @ C`` for each, with ``group_scores`` from :meth:`group_scores`)."""
        live = self._T2G[candidates].multiply(self._live[None, :]).tocsr()
        return np.asarray(live @ group_scores)

    def cost(self, t: int) -> int:
        return sum(self.group_cost[g] for g in self.term_groups[t] if g not in self.masked_groups)

    def mask(self, t: int) -> list[int]:
        new = [g for g in self.term_groups[t] if g not in self.masked_groups]
        self.count -= self.hidden_by(t)
        self.masked_groups.update(new)
        self._live[[self._group_row[g] for g in new]] = 0.0
        return new


def top_indices(values: np.ndarray, n: int) -> np.ndarray:
    """The positions of the ``n`` largest ``values``, best first (ties: the lower position first), in
    time linear in the length (a partition, then a sort of the ``n``)."""
    n = min(n, values.shape[0])
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    if n < values.shape[0]:
        threshold = np.partition(values, values.shape[0] - n)[values.shape[0] - n]
        candidates = np.flatnonzero(values >= threshold)
    else:
        candidates = np.arange(values.shape[0])
    return candidates[np.argsort(-values[candidates], kind="stable")][:n]


def attack_probabilities(scores: np.ndarray, margin: float, width: int | None = None) -> np.ndarray:
    """Per row of ``scores`` (records in columns, ``-inf`` for none): the chance that an attacker whose
    scores are these plus Gumbel noise of scale ``margin`` times the best names each record; a row
    without a positive score: every one of ``width`` records (default: the columns) alike."""
    scores = np.atleast_2d(scores)
    best = scores.max(axis=1, keepdims=True)
    scale = np.where(best > 0, margin * best, 1.0)
    z = np.exp(np.where(np.isfinite(scores), (scores - best) / np.maximum(scale, 1e-12), -np.inf))
    out = z / z.sum(axis=1, keepdims=True)
    flat = (best <= 0).ravel()
    if flat.any():
        out[flat] = np.where(np.isfinite(scores[flat]), 1.0 / (width or scores.shape[1]), 0.0)
    return out


def prior(original: np.ndarray, margin: float, target: int | None) -> np.ndarray:
    """Who the person is, as the original text tells it (or certainly ``target``)."""
    if target is not None:
        out = np.zeros(original.shape[0])
        out[target] = 1.0
        return out
    return attack_probabilities(original[None, :], margin)[0]


def risk_of(scores: np.ndarray, prior_play: np.ndarray, margin: float, width: int) -> np.ndarray:
    """Per row of ``scores``: the chance that the attacker names the person."""
    return attack_probabilities(scores, margin, width) @ prior_play


def plan_masks(
    index: BackgroundSearch,
    occurrences: Sequence[Occurrence],
    group_cost: Sequence[int],
    *,
    k: int,
    margin: float,
    prior_terms: Sequence[str] | None = None,
    maskable: Sequence[bool] | None = None,
    exclude: Sequence[str] = (),
    target: str | None = None,
    max_steps: int = 200,
    top_records: int = 64,
    cost_power: float = 0.0,
    top: int = 3,
    budget: int | None = None,
) -> Plan:
    """Choose the terms to mask until the attacker names the person with a chance of at most ``1 / k``.

    ``occurrences``: the visible words; ``group_cost[g]``: the characters that
    masking group ``g`` hides; ``maskable[g]``: whether group ``g`` may be
    masked (default: all). ``prior_terms``: the terms of the whole original
    document (default: the visible ones), which say who the person likely is.
    ``exclude``: record ids that are the document itself (never counted).
    ``target``: the person's record id, when known. ``budget``: the most
    characters the masks may take (None: no limit); a term that would pass it
    is not masked.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not 0.0 < margin < 1.0:
        raise ValueError(f"margin must be in (0, 1), got {margin}")
    excluded = {p for rid in exclude if (p := index.position(rid)) is not None}
    target_pos = index.position(target) if target is not None else None
    problem = _Problem(index, occurrences, group_cost, prior_terms, excluded, target_pos, top_records, margin)
    width = index.n_records - len(excluded)
    allowed = np.array(
        [
            bool(groups) and (maskable is None or all(maskable[g] for g in groups)) and t in problem.postings
            for t, groups in enumerate(problem.term_groups)
        ],
        dtype=bool,
    )
    plan = Plan(excluded=[index.ids[p] for p in sorted(excluded)])
    limit = np.log(1.0 / k)
    matrices = [problem.weighted(w) for w in WEIGHTINGS]
    per_group = [problem.group_scores(C) for C in matrices]
    spent = 0
    for _ in range(max_steps):
        currents = [problem.count @ C for C in matrices]
        risks = [float(risk_of(c[None, :], problem.prior, margin, width)[0]) for c in currents]
        risk = max(risks)
        if np.log(max(risk, 1e-300)) <= limit + 1e-9:
            break
        candidates = np.flatnonzero(problem.visible & allowed & problem.C.any(axis=1))
        if candidates.size == 0:
            break
        # ties go to the rarer term, then to the earlier one in the text
        candidates = candidates[np.argsort(problem.df[candidates], kind="stable")]
        hidden = [problem.hidden_scores(candidates, g) for g in per_group]
        after = np.max(
            [risk_of(c[None, :] - h, problem.prior, margin, width) for c, h in zip(currents, hidden, strict=True)],
            axis=0,
        )
        worst = int(np.argmax(risks))
        current, removed = currents[worst], hidden[worst]
        gain = np.log(risk) - np.log(np.maximum(after, 1e-300))
        costs = np.array([max(1, problem.cost(int(t))) for t in candidates], dtype=float)
        if budget is not None:
            affordable = spent + costs <= budget
            if not affordable.any():
                break
            gain = np.where(affordable, gain, -np.inf)
        if gain.max() <= 1e-12:
            # no single term lowers the risk: take the one that weighs most in the riskiest record
            riskiest = int(np.argmax(attack_probabilities(current, margin, width)[0] * problem.prior))
            weight = removed[:, riskiest] if budget is None else np.where(affordable, removed[:, riskiest], 0.0)
            if weight.max() <= 0:
                break
            choice = int(np.argmax(np.round(weight / costs**cost_power, 9)))
        else:
            choice = int(np.argmax(np.round(np.where(gain > 0, gain, -np.inf) / costs**cost_power, 9)))
        t = int(candidates[choice])
        spent += int(costs[choice])
        groups = problem.mask(t)
        tid = problem.term_tid[t]
        df = index.df(tid) if tid is not None else 0
        text = problem.term_text[t]
        plan.steps.append(
            MaskStep(
                term=problem.term_key[t],
                text=text,
                groups=groups,
                df=df,
                k_before=int(1.0 / risk),
                reason=f"reid: '{text}' separates {df} of {index.n_records} background records",
            )
        )
    plan.view = view_of(problem, k=k, margin=margin, top=top, target=target)
    plan.prior = prior(problem.original, margin, problem.target)
    return plan


def view_of(problem: _Problem, *, k: int, margin: float, top: int, target: str | None) -> AttackView:
    """The attacker's view of the problem's visible terms, over every record."""
    index = problem.index
    width = index.n_records - len(problem.exclude)
    person = prior(problem.original, margin, problem.target)
    risk, full, attack = -1.0, np.zeros(index.n_records), np.zeros(index.n_records)
    for weighting in WEIGHTINGS:
        ratio = problem.reweight(weighting)
        scores_w = np.zeros(index.n_records)
        for t, (records, scores) in problem.postings.items():
            scores_w[records] += problem.count[t] * ratio[t] * scores
        scores_w[problem.exclude] = -np.inf
        attack_w = attack_probabilities(scores_w[None, :], margin, width)[0]
        if float(attack_w @ person) > risk:
            risk, full, attack = float(attack_w @ person), scores_w, attack_w
    order = [int(r) for r in top_indices(full, top) if np.isfinite(full[r])]
    narrowing: list[tuple[str, int]] = []
    riskiest = int(np.argmax(attack * person))
    if full[riskiest] > 0:
        weights = np.array(
            [
                problem.count[t] * float(scores[records == riskiest].sum())
                for t, (records, scores) in problem.postings.items()
            ]
        )
        keys = list(problem.postings)
        for i in np.argsort(-weights, kind="stable")[:top]:
            if weights[i] > 0:
                t = keys[int(i)]
                narrowing.append((problem.term_text[t], index.df(problem.term_tid[t] or 0)))
    k_seen = width if risk <= 0 else min(width, int(np.floor(1.0 / risk + 1e-9)))
    target_rank = None
    if target is not None and (pos := index.position(target)) is not None and np.isfinite(full[pos]):
        target_rank = 1 + int(np.count_nonzero(full > full[pos]))
    return AttackView(
        k=k_seen,
        target_k=k,
        margin=margin,
        n_background=width,
        reached=bool(risk <= 1.0 / k + 1e-9),
        top=[(index.ids[r], float(full[r])) for r in order],
        narrowing=narrowing,
        risk=risk,
        target=target,
        target_rank=target_rank,
    )
