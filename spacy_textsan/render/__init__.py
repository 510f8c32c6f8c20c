"""The render stage: the ``generalizer`` component (:mod:`.generalizer`)
writes the replacement of every masked span and the sanitized text.

Its parts: :mod:`.operators` (mask, generalize, pseudonym, hash: registered
by name), :mod:`.options`, :mod:`.surrogates`, :mod:`.mask_format`,
:mod:`.leaks` (the leak sweep), :mod:`.render` (sanitized text and offset
map), :mod:`.keys` and :mod:`.mapping` (the reversible mode).
"""

from .generalizer import Generalizer, make_generalizer
from .operators import STRATEGIES, Operator, register_operator
from .render import render, to_original

__all__ = ["Generalizer", "make_generalizer", "render", "to_original", "STRATEGIES", "Operator", "register_operator"]
