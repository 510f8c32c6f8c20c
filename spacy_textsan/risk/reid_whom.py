"""Who the person is when the prior's best record cannot say (:func:`.reid_attack.plan_masks`).

A large background holds namesakes: records that share the person's common names and nothing else of the
document, which the prior may rank above the person's own record. :func:`passed_over` tries the next
records for one that :func:`.reid_prior.coverage` accepts. When none does, the background may not hold the
person at all; :func:`guard_worst` then weighs each record by its highest chance of being named by an
attacker of the family, so that masking to ``1 / k`` leaves no record singled out, whoever the person is.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .reid_prior import coverage
from .reid_problem import _Problem, top_indices
from .reid_scores import DocWords, FamilyBackground, attack_probabilities

__all__ = ["GUARD_ROUNDS", "PRIOR_ALTERNATES", "guard_worst", "passed_over"]

#: when the prior's best record is not the person's, the next this many are tried (namesakes in a large background)
PRIOR_ALTERNATES = 5
#: the guard's rounds: after each, the records a mask singled out join the prior
GUARD_ROUNDS = 4


def passed_over(
    background: FamilyBackground,
    doc: DocWords,
    scores: np.ndarray,
    excluded: np.ndarray,
    zipf: Callable[[str], float] | None,
    distinct_zipf: float,
) -> tuple[list[int], int | None]:
    """``(passed, alternate)``: when the prior's best record does not hold the person
    (:func:`.reid_prior.coverage`), the first of the next :data:`PRIOR_ALTERNATES` records by prior score
    that does, and the records scored above it (``alternate`` None and ``passed`` empty when none does)."""
    order = top_indices(scores, PRIOR_ALTERNATES + 1)
    for i in range(1, len(order)):
        candidate = int(order[i])
        if scores[candidate] <= 0:
            break
        if coverage(background, doc, candidate, excluded, zipf, distinct_zipf)[0]:
            return [int(p) for p in order[:i]], candidate
    return [], None


def guard_worst(problem: _Problem, margin: float, n: int, excluded: np.ndarray) -> np.ndarray:
    """Per record, its highest chance of being named by an attacker of the family on the problem's
    visible words. Normalised, the prior of a document whose person the background may not hold; at most
    ``1 / k`` everywhere, no record is singled out by the text, whoever the person is."""
    worst = np.zeros(n)
    for analyser in problem.analysers:
        for weighting in problem.weightings:
            scores = analyser.full_scores(weighting, n)
            scores[excluded] = 0.0
            worst = np.maximum(worst, attack_probabilities(scores[None, :], margin)[0])
    return worst
