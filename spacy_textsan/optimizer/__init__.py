from .mask_all import MaskAll, make_mask_all

__all__ = ["MaskAll", "make_mask_all"]
