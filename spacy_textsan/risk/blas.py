"""One BLAS thread for the attack's products.

The attack's matrix products are small (the masks it weighs times the records in play, a few hundred by a
few hundred). OpenBLAS runs each on every core and its threads then spin, waiting for the next: beside
the NER's process on a two-core machine they took the core the NER needed, and in one process they
spent a third of the pipeline's CPU time for nothing (40 TAB judgments: 9.2 s of CPU with the pool, 6.0 s
with one thread). :func:`one_blas_thread` runs a function with the BLAS libraries loaded in the process
held to one thread (threadpoolctl), and gives them back their setting after it.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from threadpoolctl import ThreadpoolController

__all__ = ["one_blas_thread"]

F = TypeVar("F", bound=Callable[..., Any])


#: the controller of the libraries loaded when :data:`sys.modules` had this many modules
_found: tuple[int, ThreadpoolController] | None = None


def _controller() -> ThreadpoolController:
    """The thread pools of the libraries loaded in this process, found again whenever a module was imported
    since (a BLAS library comes with an extension module: scipy's own with ``scipy.linalg``, which may be
    imported after the first call). Finding them takes about 1.5 ms; counting the modules, nothing."""
    global _found
    modules = len(sys.modules)
    if _found is None or _found[0] != modules:
        _found = (modules, ThreadpoolController())
    return _found[1]


def one_blas_thread(function: F) -> F:
    """``function``, run with every BLAS library of the process held to one thread."""

    @functools.wraps(function)
    def held(*args: Any, **kwargs: Any) -> Any:
        with _controller().limit(limits=1, user_api="blas"):
            return function(*args, **kwargs)

    return held  # type: ignore[return-value]
