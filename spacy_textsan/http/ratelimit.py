"""A client-side rate limit: at least ``min_interval_s`` between the starts of two requests."""

import threading
import time
from typing import Any

from .errors import HttpError


class RateLimiter:
    """Spaces the requests of one client (thread-safe); pickles without its lock."""

    def __init__(self, min_interval_s: float):
        self.min_interval_s = max(0.0, float(min_interval_s))
        self._lock = threading.Lock()
        self._next = 0.0

    def __getstate__(self) -> dict[str, Any]:
        return {"min_interval_s": self.min_interval_s}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["min_interval_s"])  # type: ignore[misc]

    def wait(self, deadline: float | None, label: str) -> None:
        """Sleep until the next request may start; HttpError when that is past ``deadline``."""
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            if deadline is not None and start >= deadline:
                raise HttpError(f"{label}: time budget exhausted (rate limit)")
            self._next = start + self.min_interval_s
        if start > now:
            time.sleep(start - now)
