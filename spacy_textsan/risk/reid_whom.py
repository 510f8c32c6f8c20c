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
from .reid_scores import attack_probabilities

__all__ = ["GUARD_ROUNDS", "guard_worst"]

#: the guard's rounds: after each, the records a mask singled out join the prior
GUARD_ROUNDS = 4


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
