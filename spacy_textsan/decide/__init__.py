"""The decide stage: what to mask, with reasons.

* ``mask_optimizer`` (:mod:`.mask_optimizer`, with the pure CP-SAT solver
  :mod:`.cp_sat`) or ``mask_all`` (:mod:`.mask_all`): ``span._.masked`` and
  ``span._.reasons`` from the candidates, their scores and the risky sets;
* ``reid_risk`` (:mod:`.reid_risk`): the re-identification attack on the
  result, masking until it fails (its pure cores stay in ``risk/``:
  ``reid_index``, ``reid_attack``, ``reid_dense``);
* ``residual_risk`` (:mod:`.residual_risk`): what stays visible can still
  tell, over ``risk/``'s term index.
"""

from .cp_sat import MaskingSolution, solve_masking
from .mask_all import MaskAll, make_mask_all
from .mask_optimizer import MaskOptimizer, make_mask_optimizer

__all__ = ["MaskAll", "make_mask_all", "MaskOptimizer", "make_mask_optimizer", "MaskingSolution", "solve_masking"]
