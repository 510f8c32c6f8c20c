"""The time a request has (:class:`Deadline`) and the threads that do its own
work off the event loop (:class:`WorkPool`).

A request's time starts when its handler does and lasts the service's
``--timeout``, for the pipeline and for the rest of its work together. The
work of a handler that takes time in proportion to its input (the patterns of
``/analyze``, ``/anonymize``, reading a report back) runs in a thread of
:class:`WorkPool` and looks at its deadline as it goes (:meth:`Deadline.check`):
past it, the service answers 504 at once and the work stops at its next look,
so the event loop (``/health`` among the rest) never waits for it.
"""

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class Expired(TimeoutError):
    """The request's time ran out: its work stops (the service answers 504)."""


class Deadline:
    """The end of a request's time (``seconds`` from now)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._at = time.monotonic() + seconds
        self._cancelled = False

    @property
    def left(self) -> float:
        """Seconds left (0 once it is past or cancelled)."""
        return 0.0 if self._cancelled else max(0.0, self._at - time.monotonic())

    def cancel(self) -> None:
        """The request was answered (504): its work stops at its next :meth:`check`."""
        self._cancelled = True

    def check(self) -> None:
        """:class:`Expired` once the time is past or the request cancelled."""
        if self._cancelled or time.monotonic() >= self._at:
            raise Expired(f"past the request timeout of {self.seconds:g}s")


class WorkPool:
    """A few threads for the work of requests (the pipeline has a thread of its own)."""

    def __init__(self, threads: int = 2) -> None:
        self.threads = threads
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        #: works running now
        self.running = 0

    async def run(self, fn: Callable[[Deadline], T], deadline: Deadline) -> T:
        """``fn(deadline)`` in a thread; :class:`Expired` when the deadline
        passes first (``fn`` stops at its next look at the deadline)."""
        deadline.check()
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.threads, thread_name_prefix="textsan-work")
        future = self._executor.submit(self._counted, fn, deadline)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), deadline.left)
        except TimeoutError:  # Expired is one too: raised by fn itself
            deadline.cancel()
            future.cancel()
            raise Expired(f"past the request timeout of {deadline.seconds:g}s") from None
        except asyncio.CancelledError:  # the client went away: so does its work
            deadline.cancel()
            future.cancel()
            raise

    def _counted(self, fn: Callable[[Deadline], T], deadline: Deadline) -> T:
        with self._lock:
            self.running += 1
        try:
            deadline.check()
            return fn(deadline)
        finally:
            with self._lock:
                self.running -= 1

    def close(self) -> None:
        """Cancel the work waiting; the threads end with the work at hand."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
