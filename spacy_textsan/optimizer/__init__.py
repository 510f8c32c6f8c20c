from .cp_sat import MaskingSolution, solve_masking
from .mask_all import MaskAll, make_mask_all
from .mask_optimizer import MaskOptimizer, make_mask_optimizer

__all__ = ["MaskAll", "make_mask_all", "MaskOptimizer", "make_mask_optimizer", "MaskingSolution", "solve_masking"]
