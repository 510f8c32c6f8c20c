"""The guard of a document whose person the background does not measure (:func:`.reid_attack.plan_masks`).

When the prior's best record does not hold the person (:func:`.reid_prior.coverage`), who the person is
cannot be told: the background may not hold them, or holds them under words the document does not share
(namesakes of a large background ranked first). :func:`guard_worst` weighs each record by its highest
chance of being named by an attacker of the family, so that masking to ``1 / k`` leaves no record singled
out, whoever the person is.
"""

from __future__ import annotations

import numpy as np

from .reid_problem import _Problem
from .reid_scores import CLOSE, attack_probabilities

__all__ = ["GUARD_CLOSE", "GUARD_ROUNDS", "guard_worst"]

#: the guard's rounds: after each, the loop goes on while one of the records it watches is named above 1/k
GUARD_ROUNDS = 4
#: the records the guard watches: those some attacker scores at least this share of its best on the whole
#: visible text (wider than an attacker's own :data:`.reid_scores.CLOSE`: the person's record ranked
#: behind namesakes comes first once their words are masked)
GUARD_CLOSE = 0.5


def guard_worst(problem: _Problem, margin: float, n: int, excluded: np.ndarray, close: float = CLOSE) -> np.ndarray:
    """Per record, its highest chance of being named by an attacker of the family on the problem's
    visible words (among the records within ``close`` of each attacker's best). Normalised, the prior of a
    document whose person the background may not hold; at most ``1 / k`` everywhere, no record is singled
    out by the text, whoever the person is."""
    worst = np.zeros(n)
    for analyser in problem.analysers:
        for weighting in problem.weightings:
            scores = analyser.full_scores(weighting, n)
            scores[excluded] = 0.0
            worst = np.maximum(worst, attack_probabilities(scores[None, :], margin, close)[0])
    return worst
