from .generalizer_component import Generalizer, make_generalizer
from .render import render, to_original

__all__ = ["Generalizer", "make_generalizer", "render", "to_original"]
