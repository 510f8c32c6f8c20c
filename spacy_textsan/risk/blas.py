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
from collections.abc import Callable
from typing import Any, TypeVar

from threadpoolctl import ThreadpoolController

__all__ = ["one_blas_thread"]

F = TypeVar("F", bound=Callable[..., Any])


@functools.lru_cache(maxsize=1)
def _controller() -> ThreadpoolController:
    """The thread pools of the libraries loaded in this process, found once (at the first call: numpy's and
    scipy's BLAS are loaded by then)."""
    return ThreadpoolController()


def one_blas_thread(function: F) -> F:
    """``function``, run with every BLAS library of the process held to one thread."""

    @functools.wraps(function)
    def held(*args: Any, **kwargs: Any) -> Any:
        with _controller().limit(limits=1, user_api="blas"):
            return function(*args, **kwargs)

    return held  # type: ignore[return-value]
