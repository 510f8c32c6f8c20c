"""The attacker inside the pipeline, as pure functions: rank the background
records with what a document still shows, and choose what to mask until no
attacker of a family is likely to name the person.

**The attacker family.** Each analyser of :mod:`.reid_family` (stems, surface
words, four-letter prefixes, word pairs) is a search over the background
records, under four weightings (:data:`.reid_scores.WEIGHTINGS`: BM25 with
Lucene's and with Robertson's idf, a tf-idf cosine, BM25+); the risk is the
worst of them (:mod:`.reid_scores`).

**Records that cannot compete change nothing.** The weights come from the
records holding at least one visible feature (their number and mean length),
and an attacker names record ``i`` with probability ``s_i ** (1 / margin)``
over the records scored at least :data:`.reid_scores.CLOSE` of the best: a
record that shares no visible feature, or a crowd of weak matches, is never
named. Adding records that share no visible feature leaves every score and
every probability as it was (``tests/test_reid_risk.py`` checks it).

**Who the person is** (:mod:`.reid_prior`): the defence holds the original
document; a search over all of it, its names and distinctive words weighing
more, gives a prior ``p0``. The **risk** is ``sum_i p0_i * P_attack(i)``; the
document is ``k``-anonymous when the risk is at most ``1 / k``. A data owner
who knows the person's record (``target``) makes ``p0`` certain of it.

**Not measured.** When the record the prior finds best holds none of the
document's own names (or, without names, too few of its distinctive words), and
does not stand out either (its prior score under :data:`STANDS_OUT` times every
other record's), the background does not hold this person: the risk is reported
as not measured (``k = None``, ``why``) and the attack masks nothing
(:func:`.reid_prior.coverage`, :func:`stands_out`). With ``guard``, it is still
masked until no record the attack names from its visible words is named with a
chance above ``1 / k``, whoever the person is (:func:`.reid_whom.guard_worst`).

**Unknown words.** A visible word that no background record holds cannot move
any score, yet an attacker with the web or a language model knows it: when it
is rare in the language (a name-like word under ``unknown_zipf``, any other
under ``unknown_zipf - 1``) it is masked. An English word in an ordinary form,
the register of a ruling and not a person's (``invalidity``, ``annulled``,
``unreservedly``: :func:`.phrases.is_ordinary_form`), is not.

**The decision** (:func:`plan_masks`): while the risk exceeds ``1 / k``, mask
the visible word (every occurrence of its folded form, with the groups it
stands in: a kept candidate is masked whole) whose removal lowers the worst
risk most (per character masked to the power ``cost_power``; ties to the
rarer, then the earlier word), within a ``budget`` of characters; a word most
competing records hold is a candidate only once every rarer word is masked, or
when no rarer word lowers the risk and the common words and the masks so far take
at most :data:`COMMON_MASK_SHARE` of the text, or when masking them all reaches ``1 / k`` (the person
stands out on common words alone: a near copy of their record), while the masks take at most
:data:`COMMON_REACH_SHARE` of it. Masks that do not reach ``1 / k``
are undone (``unreached = "undo"``), kept (``"keep"``), or undone only when
they did not at least halve the worst attacker's chance (``"futile"``: masks
that take a certain match down to one in three protect, those that leave it
near certain buy nothing); the plan says why. Only the records in
play (the ``top_records`` best by the prior and by each analyser, and the
target) are scored in the loop; the view reported (:func:`view_of`) scores
every record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..languages import language_name
from .blas import one_blas_thread
from .phrases import is_ordinary_form
from .reid_family import ANALYSERS
from .reid_prior import coverage, holds_evidence
from .reid_prior import prior as prior_of
from .reid_problem import _Analyser, _Choice, _Problem, top_indices
from .reid_scores import (
    RANK_FLOOR,
    WEIGHTINGS,
    DocWords,
    FamilyBackground,
    Occurrence,
    attack_probabilities,
    risk_of,
    row_risk,
)
from .reid_whom import GUARD_CLOSE, GUARD_ROUNDS, guard_worst

#: a record the prior's search scores this many times above every other stands out: the document is its person's
STANDS_OUT = 2.0
#: when no rarer word lowers the risk, the common words are masked too if they and the masks so far take
#: at most this share of the document's characters
COMMON_MASK_SHARE = 0.1
#: and when the person stands out on them alone, they are masked while the masks take at most this share
COMMON_REACH_SHARE = 0.25
#: the settings of ``unreached``
UNREACHED = ("undo", "keep", "futile")
#: with ``unreached = "futile"``: masks that leave the chance above this share of where it started are undone
FUTILE_SHARE = 0.5

__all__ = [
    "UNREACHED",
    "AttackView",
    "DocWords",
    "FamilyBackground",
    "MaskStep",
    "Occurrence",
    "Plan",
    "attack_probabilities",
    "plan_masks",
    "risk_of",
]


@dataclass
class MaskStep:
    """One decision of the loop: the word chosen, the groups it masks, and why."""

    term: str
    text: str
    groups: list[int]
    df: int
    k_before: int  # the k (1 / risk) before this mask
    reason: str


@dataclass
class AttackView:
    """What the attacker family sees: how many records it cannot tell the person from, and why."""

    k: int | None  # 1 / risk: the records the person hides among (None: not measured)
    target_k: int
    margin: float
    n_background: int
    reached: bool
    top: list[tuple[str, float]]  # best records (id, score) of the worst attacker
    narrowing: list[tuple[str, int]]  # visible words that hold the riskiest record apart (text, df)
    risk: float = 0.0  # the chance that the worst attacker names the person
    target: str | None = None
    target_rank: int | None = None  # 1 = first
    attacker: str = ""  # the worst attacker: analyser/weighting
    measured: bool = True
    why: str = ""  # why the risk is not measured
    by_attacker: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "k": self.k,
            "measured": self.measured,
            "why": self.why,
            "target_k": self.target_k,
            "margin": self.margin,
            "n_background": self.n_background,
            "reached": self.reached,
            "risk": round(self.risk, 6),
            "attacker": self.attacker,
            "by_attacker": {name: round(r, 6) for name, r in self.by_attacker.items()},
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
    excluded: list[str] = field(default_factory=list)  # records left out, as the user asked
    excluded_why: dict[str, str] = field(default_factory=dict)  # and why
    prior: np.ndarray | None = None  # who the person is, over every record
    dense: dict | None = None  # the dense attacker's view (reid_dense), when it ran
    unreachable: str = ""  # why masking words cannot reach 1 / k (nothing was masked)
    risk_before: float | None = None  # the worst attacker's chance before the loop masked anything
    guarded: bool = False  # not measured, masked against whoever the attack names (plan_masks' guard)


@one_blas_thread
def plan_masks(
    background: FamilyBackground,
    doc: DocWords,
    *,
    k: int,
    margin: float,
    exclude: Sequence[str] = (),
    target: str | None = None,
    max_steps: int = 200,
    top_records: int = 64,
    cost_power: float = 0.0,
    top: int = 3,
    budget: int | None = None,
    zipf: Callable[[str], float] | None = None,
    unknown_zipf: float | None = 3.5,
    distinct_zipf: float = 3.0,
    lang: str = "en",
    common_share: float = 0.5,
    analysers: Sequence[str] = ANALYSERS,
    weightings: Sequence[str] = WEIGHTINGS,
    prior_doc: DocWords | None = None,
    unreached: str = "undo",
    guard_unreached: str = "keep",
    background_lang: str | None = None,
    rank_floor: float | None = RANK_FLOOR,
    guard: bool = False,
) -> Plan:
    """Choose the words to mask until every attacker of the family names the person with a chance of at
    most ``1 / k``.

    ``exclude``: record ids left out of the background (the user says they are the document itself).
    ``target``: the person's record id, when known. ``budget``: the most characters the masks may take
    (None: no limit). ``zipf``: a word's frequency in the language (wordfreq's Zipf scale), for the
    unknown words (masked when rarer than ``unknown_zipf``; None: off) and the distinctive words that
    say whether the background covers the document. ``prior_doc``: the original document, when ``doc`` is
    what will be published instead (a rendered text): who the person is comes from it. ``guard``: a
    document that is not measured is still masked until no record the attack names from its visible words
    is named with a chance above ``1 / k`` (:func:`.reid_whom.guard_worst`); it is still reported not measured.
    ``unreached`` / ``guard_unreached``: what happens to masks that do not reach ``1 / k`` in a measured / a
    guarded document (``undo``, ``keep``, ``futile``).
    ``rank_floor``: a record scored at least this share of the best counts at least 1 / its rank
    (:func:`.reid_scores.rank_floor`; None: the attack's chances alone).
    ``weightings``: the term weightings each analyser scores under (some of :data:`.reid_scores.WEIGHTINGS`).
    ``background_lang``: the language the background's records were read in; a document in another
    language (``lang``) is not measured and nothing is masked for it (its words are not the records').
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not 0.0 < margin < 1.0:
        raise ValueError(f"margin must be in (0, 1), got {margin}")
    unknown = sorted(set(analysers) - set(ANALYSERS))
    if unknown or not analysers:
        raise ValueError(f"attackers must be some of {', '.join(ANALYSERS)}, not {', '.join(unknown) or 'none'}")
    if not weightings or set(weightings) - set(WEIGHTINGS):
        raise ValueError(f"weightings must be some of {', '.join(WEIGHTINGS)}, not {', '.join(weightings) or 'none'}")
    for name, value in (("unreached", unreached), ("guard_unreached", guard_unreached)):
        if value not in UNREACHED:
            raise ValueError(f"{name} must be one of {', '.join(UNREACHED)}, not {value!r}")
    n = background.n_records
    excluded = np.zeros(n, dtype=bool)
    for rid in exclude:
        if (p := background.position(rid)) is not None:
            excluded[p] = True
    target_pos = background.position(target) if target is not None else None
    if target_pos is not None and excluded[target_pos]:
        target_pos = None
    plan = Plan(excluded=[background.ids[p] for p in np.flatnonzero(excluded)])
    original = doc if prior_doc is None else prior_doc
    prior, prior_scores = prior_of(background, original, excluded, margin, target_pos, zipf, distinct_zipf)
    plan.prior = prior
    problem = _Problem(background, doc, excluded, analysers, weightings)
    spent = 0

    other_language = background_lang is not None and background_lang != lang
    # unknown words: no record holds them, the language hardly knows them (a name-like word, written with
    # a capital inside a sentence, rarer than unknown_zipf; any other word, rarer than unknown_zipf - 1)
    if unknown_zipf is not None and zipf is not None and not other_language:
        for a, key in enumerate(problem.keys):
            if problem.df[a] or not any(c.isalpha() for c in key) or not problem.allowed(a):
                continue
            z = zipf(key)
            if z >= unknown_zipf or (z >= unknown_zipf - 1.0 and not problem.name_like(a)):
                continue
            if is_ordinary_form(problem.texts[a], lang):
                continue
            cost = problem.cost(a)
            if budget is not None and spent + cost > budget:
                continue
            spent += cost
            plan.steps.append(
                MaskStep(
                    term=key,
                    text=problem.texts[a],
                    groups=problem.mask(a),
                    df=0,
                    k_before=0,
                    reason=f"reid: '{problem.texts[a]}' is in no background record and rare in {lang} (zipf {z:.1f})",
                )
            )

    best = int(np.argmax(prior)) if prior.any() else -1
    measured, why = True, ""
    if other_language:
        measured, why = (
            False,
            (
                f"the background holds {language_name(str(background_lang))} text and this document is "
                f"{language_name(lang)}: its words are not the records'"
            ),
        )
    elif target_pos is None:
        if best < 0 or prior_scores[best] <= 0:
            measured, why = False, "no background record shares a word with this document"
        else:
            measured, why = coverage(background, original, best, excluded, zipf, distinct_zipf)
            if (
                not measured
                and stands_out(prior_scores, best)
                and holds_evidence(background, original, best, excluded, zipf, distinct_zipf)
            ):
                # no name or rare word ties the best record to the text, yet the whole text points at it
                # alone (a person called by common names, or by names the record spells otherwise)
                measured, why = True, ""

    before, left = len(plan.steps), 0.0
    if not measured and guard and not other_language and max_steps > 0:
        # who the person is cannot be told: whoever the attack would name from the visible words is
        # (the records some attacker of the family names from the whole visible text, within GUARD_CLOSE
        # of its best): the loop masks until none of them is named with a chance above 1/k. A record that
        # only comes first once most words are masked (a weak match on one word) is not one of them
        worst = guard_worst(problem, margin, n, excluded, close=GUARD_CLOSE)
        if worst.any():
            prior = plan.prior = worst / worst.sum()
            plan.guarded = True
    rounds = GUARD_ROUNDS if plan.guarded else 1
    while (measured or plan.guarded) and max_steps > 0 and rounds > 0:
        rounds -= 1
        spent = _loop(
            problem,
            prior,
            prior_scores,
            plan,
            k=k,
            margin=margin,
            max_steps=max_steps,
            top_records=top_records,
            cost_power=cost_power,
            budget=budget,
            spent=spent,
            target=target_pos,
            n=n,
            common_share=common_share,
            floor=rank_floor,
            whoever=plan.guarded,
        )
        if not plan.guarded:
            break
        # the loop watched the records in play: a mask may still leave one of the others named above 1/k,
        # and the loop goes on (the watched records stay the same)
        worst = guard_worst(problem, margin, n, excluded)
        # the highest chance any of them is named, after these masks
        left = float(worst[prior > 0].max(initial=0.0))
        if left <= 1.0 / k + 1e-9:
            break
    plan.view = view_of(
        problem, prior, k=k, margin=margin, top=top, target=target, n=n, excluded=excluded, floor=rank_floor
    )
    if plan.guarded:
        plan.view.reached = left <= 1.0 / k + 1e-9
    when = guard_unreached if plan.guarded else unreached
    chance = left if plan.guarded else plan.view.risk  # a guarded plan's: the highest of a watched record
    futile = when == "undo" or (
        when == "futile" and plan.risk_before is not None and chance > FUTILE_SHARE * plan.risk_before
    )
    if futile and len(plan.steps) > before and not plan.view.reached:
        # the words masked one by one did not bring the chance to 1 / k: what singles the person out is
        # held by most records (a near copy, boilerplate), so those masks buy little
        plan.unreachable = (
            f"masking {len(plan.steps) - before} words left the chance at {chance:.2f} > 1/{k}: "
            "what singles the person out is held by most records; nothing masked for it"
        )
        plan.steps = plan.steps[:before]
        problem = _Problem(background, doc, excluded, analysers, weightings)
        for step in plan.steps:
            problem.mask_groups(step.groups)
        plan.view = view_of(
            problem, prior, k=k, margin=margin, top=top, target=target, n=n, excluded=excluded, floor=rank_floor
        )
        if plan.guarded:
            left = float(guard_worst(problem, margin, n, excluded)[prior > 0].max(initial=0.0))  # masks undone
    if not measured:
        if plan.guarded and left <= 1.0 / k + 1e-9:
            why += (
                f"; guarded: {len(plan.steps) - before} words masked so that no record the attack names from "
                f"the visible words is named with a chance above 1/{k}"
            )
        elif plan.guarded:
            why += (
                f"; guarded: {len(plan.steps) - before} words masked, a record is still named with a chance "
                f"of {left:.2f} > 1/{k}"
            )
        plan.view.measured, plan.view.why, plan.view.k = False, why, None
        plan.view.reached = False
    return plan


def stands_out(scores: np.ndarray, best: int) -> bool:
    """Whether record ``best`` scores at least :data:`STANDS_OUT` times every other record."""
    if len(scores) < 2:
        return bool(scores[best] > 0)
    second = float(np.partition(np.delete(scores, best), -1)[-1])
    return bool(scores[best] > 0 and second * STANDS_OUT <= scores[best])


def _loop(
    problem: _Problem,
    prior: np.ndarray,
    prior_scores: np.ndarray,
    plan: Plan,
    *,
    k: int,
    margin: float,
    max_steps: int,
    top_records: int,
    cost_power: float,
    budget: int | None,
    spent: int,
    target: int | None,
    n: int,
    common_share: float,
    floor: float | None = None,
    whoever: bool = False,
) -> int:
    """The greedy masking loop over the records in play; returns the characters spent."""
    play_set = set(top_indices(prior_scores, top_records).tolist())
    for analyser in problem.analysers:
        play_set.update(top_indices(analyser.full_scores("lucene", n), top_records).tolist())
    if target is not None:
        play_set.add(target)
    if whoever:  # the records the guard watches (the most likely first), and only those
        play_set.update(top_indices(prior, 4 * top_records).tolist())
        play_set = {r for r in play_set if prior[r] > 0}
    play_set.difference_update(problem.excluded_at.tolist())  # a record left out is never named
    play = np.array(sorted(play_set), dtype=np.int64)
    prior_play = prior[play]
    for analyser in problem.analysers:
        analyser.set_play(play)
    attackers = [(a, w) for a in problem.analysers for w in problem.weightings]
    limit = 1.0 / k + 1e-9
    # a word that most of the competing records hold (and more than k) narrows nobody down: never
    # masked for the attack (a pair it stands in is broken by masking its other word)
    n_compete = max([a.weights.n_compete for a in problem.analysers if a.name == "word"], default=n)
    common = max(common_share * n_compete, k)
    ctx = _Choice(prior_play, margin, floor, limit, cost_power, budget, whoever=whoever)
    for _ in range(max_steps):
        counts = {a.name: a.counts() for a in problem.analysers}
        currents = [counts[a.name] @ a.C[w] for a, w in attackers]
        risks = [float(r) for r in ctx.chances(np.array(currents))]
        risk = max(risks)
        if plan.risk_before is None:
            plan.risk_before = risk
        if risk <= limit:
            break
        # a word no record holds moves no score (the unknown-word rule judges it)
        held = [a for a in range(len(problem.keys)) if problem.allowed(a) and problem.df[a] > 0]
        rarer = [a for a in held if problem.df[a] <= common]
        # every rarer word is masked and a few records still stand out on common words (a pair such as
        # "engineering at"): the common words too, rather than none; and when no rarer word lowers the
        # risk, the common words too if they and the masks so far are cheap ("chess" in an archive of chess
        # players), not when the person stands out on the text's ordinary words (a near copy, a template)
        chosen = _choose(problem, rarer or held, attackers, currents, risks, spent, ctx) if held else None
        # or when the person stands out on the common words alone (a near copy of their record, against
        # records that hold few of them) and masking them reaches 1 / k, within COMMON_REACH_SHARE
        if chosen is None and len(rarer) < len(held):
            if rarer and problem.cheap_common(held, common, spent, COMMON_MASK_SHARE):
                chosen = _choose(problem, held, attackers, currents, risks, spent, ctx)
            elif problem.reaches_without(held, attackers, ctx):
                within = int(COMMON_REACH_SHARE * len(problem.doc.text))
                capped = replace(ctx, budget=within if ctx.budget is None else min(ctx.budget, within))
                chosen = _choose(problem, held, attackers, currents, risks, spent, capped)
        if chosen is None:
            break
        a, cost = chosen
        spent += cost
        analyser = attackers[int(np.argmax(risks))][0]
        text = problem.texts[a]
        plan.steps.append(
            MaskStep(
                term=problem.keys[a],
                text=text,
                groups=problem.mask(a),
                df=int(problem.df[a]),
                k_before=int(1.0 / risk),
                reason=f"reid ({analyser.name}): '{text}' separates {problem.df[a]} of {n} background records",
            )
        )
    return spent


def _choose(
    problem: _Problem,
    candidates: list[int],
    attackers: list[tuple[_Analyser, str]],
    currents: list[np.ndarray],
    risks: list[float],
    spent: int,
    ctx: _Choice,
) -> tuple[int, int] | None:
    """The candidate to mask next and its cost: the one whose mask lowers the worst attacker's chance
    most per character (``cost_power``), within the budget beyond the ``spent`` characters; None when
    none is affordable or none lowers anything."""
    prior_play, margin, limit = ctx.prior_play, ctx.margin, ctx.limit
    risk = max(risks)
    # ties go to the rarer word, then to the earlier one in the text
    candidates = sorted(candidates, key=lambda a: (problem.df[a], problem.first[a]))
    removed = problem.removed_by(attackers, candidates)
    # every attacker's chance after each candidate's mask, in one call (a row per attacker and candidate)
    afters = ctx.chances(
        np.concatenate([np.maximum(c[None, :] - h, 0.0) for c, h in zip(currents, removed, strict=True)])
    ).reshape(len(attackers), len(candidates))
    costs = np.array([max(1, problem.cost(a)) for a in candidates], dtype=float)
    gain = np.log(risk) - np.log(np.maximum(afters.max(axis=0), 1e-300))
    above = [i for i, r in enumerate(risks) if r > limit]
    if gain.max() <= 1e-12:
        # no single word lowers the worst attacker's chance (two attackers tie at the top, say):
        # what it lowers for the attackers above the limit, added up
        gain = sum(np.log(risks[i]) - np.log(np.maximum(afters[i], 1e-300)) for i in above)
    if np.max(gain) <= 1e-12:
        # nor theirs (no competitor comes close yet): what brings the others closer, all records counted
        # (one call: each attacker's row as it is, then its row after each candidate)
        rows = [currents[i][None, :] for i in above] + [
            np.maximum(currents[i][None, :] - removed[i], 0.0) for i in above
        ]
        chances = ctx.chances(np.concatenate(rows), close=0.0)
        now, later = chances[: len(above)], chances[len(above) :].reshape(len(above), len(candidates))
        gain = (now[:, None] - later).sum(axis=0)
    affordable = np.ones(len(candidates), dtype=bool) if ctx.budget is None else spent + costs <= ctx.budget
    if not affordable.any():
        return None
    gain = np.where(affordable, gain, -np.inf)
    if gain.max() <= 1e-12:
        # no single word lowers the risk: take the one that weighs most in the riskiest record
        worst = int(np.argmax(risks))
        named = attack_probabilities(currents[worst], margin)[0]
        riskiest = int(np.argmax(named if ctx.whoever else named * prior_play))
        weight = np.where(affordable, removed[worst][:, riskiest], 0.0)
        if weight.max() <= 0:
            return None
        choice = int(np.argmax(np.round(weight / costs**ctx.cost_power, 9)))
    else:
        choice = int(np.argmax(np.round(np.where(gain > 0, gain, -np.inf) / costs**ctx.cost_power, 9)))
    return candidates[choice], int(costs[choice])


def view_of(
    problem: _Problem,
    prior: np.ndarray,
    *,
    k: int,
    margin: float,
    top: int,
    target: str | None,
    n: int,
    excluded: np.ndarray,
    floor: float | None = None,
) -> AttackView:
    """The attacker family's view of the problem's visible words, over every record."""
    risk, full, name = -1.0, np.zeros(n), ""
    attack: tuple[np.ndarray, np.ndarray] = (np.zeros(0, dtype=np.int64), np.zeros(0))
    by_attacker: dict[str, float] = {}
    worst_analyser: _Analyser | None = None
    excluded_at, people = np.flatnonzero(excluded), np.flatnonzero(prior > 0)
    for analyser in problem.analysers:
        for weighting in problem.weightings:
            scores = analyser.full_scores(weighting, n)
            scores[excluded_at] = 0.0
            r, at, probs = row_risk(scores, prior, people, margin, floor)
            by_attacker[f"{analyser.name}/{weighting}"] = r
            if r > risk:
                risk, full, attack, worst_analyser = r, scores, (at, probs), analyser
                name = f"{analyser.name}/{weighting}"
    risk = max(risk, 0.0)
    width = n - int(excluded.sum())
    order = [int(r) for r in top_indices(full, top) if full[r] > 0]
    narrowing: list[tuple[str, int]] = []
    at, probs = attack
    named = probs * prior[at]
    riskiest = int(at[int(np.argmax(named))]) if named.any() else -1
    actions = [a for a in range(len(problem.keys)) if problem.live_groups(a)]
    if riskiest >= 0 and worst_analyser is not None and actions:
        # the visible words with the most weight in the riskiest record, under the worst attacker
        weighting = name.split("/")[1]
        in_record = np.zeros(len(worst_analyser.term_ids))
        postings = worst_analyser.weights
        for u, records in enumerate(postings.records):
            i = int(np.searchsorted(records, riskiest))
            if i < len(records) and records[i] == riskiest:
                in_record[u] = postings.weights_at(u, weighting, np.array([i]))[0]
        weight = np.asarray(problem.hidden_counts(worst_analyser, actions) @ in_record).ravel()
        for i in np.argsort(-weight, kind="stable")[:top]:
            if weight[i] > 0:
                a = actions[int(i)]
                narrowing.append((problem.texts[a], int(problem.df[a])))
    k_seen = width if risk <= 0 else min(width, int(np.floor(1.0 / risk + 1e-9)))
    background = problem.background
    target_rank = None
    if target is not None and (pos := background.position(target)) is not None:
        target_rank = 1 + int(np.count_nonzero(full > full[pos]))
    return AttackView(
        k=k_seen,
        target_k=k,
        margin=margin,
        n_background=width,
        reached=bool(risk <= 1.0 / k + 1e-9),
        top=[(background.ids[r], float(full[r])) for r in order],
        narrowing=narrowing,
        risk=risk,
        target=target,
        target_rank=target_rank,
        attacker=name,
        by_attacker=by_attacker,
    )
