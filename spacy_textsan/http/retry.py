"""When and how long to retry a request: tenacity, with the transport's rules.

* retried: what an attempt raises as :class:`Retryable` (timeouts, connection
  errors, truncated bodies, HTTP 429 and 5xx); anything else ends the request;
* at most ``max_retries`` retries; then :class:`~.errors.HttpError` with the
  last reason and the number of attempts;
* the wait: the server's ``Retry-After`` when it sent one (429/503), else
  exponential backoff with seeded jitter (:func:`backoff_delay`);
* a wait that would end past the request's ``deadline`` fails at once
  ("time budget exhausted") instead of sleeping.
"""

import email.utils
import logging
import random
import time
from typing import cast

import tenacity

from .errors import HttpError
from .settings import HttpSettings

logger = logging.getLogger(__name__)

#: HTTP statuses that are retried (with backoff, or after ``Retry-After``).
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: Statuses whose ``Retry-After`` header is honoured.
RETRY_AFTER_STATUSES = frozenset({429, 503})


class Retryable(Exception):
    """One attempt failed in a way worth another: ``reason`` for messages,
    ``retry_after`` the wait the server asked for (None: back off)."""

    def __init__(self, reason: str, retry_after: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP
    date); None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


def backoff_delay(attempt: int, base_s: float, max_s: float, jitter: float, rng: random.Random | None) -> float:
    """Exponential backoff before retry number ``attempt`` (0-based):
    ``min(max_s, base_s * 2**attempt)``, stretched by up to ``jitter`` (a
    fraction) drawn from ``rng``."""
    delay = min(max_s, base_s * (2**attempt))
    if jitter > 0 and rng is not None:
        delay *= 1.0 + jitter * rng.random()
    return delay


def _failure(state: tenacity.RetryCallState) -> Retryable:
    """The :class:`Retryable` the last attempt raised (tenacity asks only after one)."""
    return cast(Retryable, cast(tenacity.Future, state.outcome).exception())


def retry_policy(settings: HttpSettings, rng: random.Random, label: str, deadline: float | None) -> tenacity.Retrying:
    """The retry loop of one request to the service named ``label``; ``rng``
    draws the jitter (one per client, so that a seed makes the waits repeatable)."""
    attempts = settings.max_retries + 1

    def wait(state: tenacity.RetryCallState) -> float:
        if state.attempt_number >= attempts:
            return 0.0  # tenacity asks before it stops: no retry follows, draw no jitter
        failure = _failure(state)
        if failure.retry_after is not None:
            return failure.retry_after
        return backoff_delay(state.attempt_number - 1, settings.backoff_s, settings.backoff_max_s, settings.jitter, rng)

    def before_sleep(state: tenacity.RetryCallState) -> None:
        reason, seconds = _failure(state).reason, cast(tenacity.RetryAction, state.next_action).sleep
        logger.debug(
            "%s: %s; retry %d/%d in %.2f s", label, reason, state.attempt_number, settings.max_retries, seconds
        )
        if deadline is not None and seconds >= deadline - time.monotonic():
            raise HttpError(f"{label}: time budget exhausted ({reason})")

    def give_up(state: tenacity.RetryCallState) -> None:
        raise HttpError(f"{label}: {_failure(state).reason} ({attempts} attempt{'s' if attempts > 1 else ''})")

    return tenacity.Retrying(
        stop=tenacity.stop_after_attempt(attempts),
        retry=tenacity.retry_if_exception_type(Retryable),
        wait=wait,
        before_sleep=before_sleep,
        retry_error_callback=give_up,
    )
