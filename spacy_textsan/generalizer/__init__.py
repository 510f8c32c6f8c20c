from .generalizer import Generalizer, make_generalizer
from .operators import STRATEGIES, Operator, register_operator
from .render import render, to_original

__all__ = ["Generalizer", "make_generalizer", "render", "to_original", "STRATEGIES", "Operator", "register_operator"]
