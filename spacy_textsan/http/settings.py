"""How a client talks to one remote service: one settings object for every client.

The registered client factories (``spacy_textsan.searxng_client.v1``,
``spacy_textsan.json_search_client.v1``, ``spacy_textsan.wikidata_client.v1``)
take these settings as flat config keys and build one :class:`HttpSettings`;
the clients accept them as keyword arguments too (:func:`settings_for`).
"""

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class HttpSettings:
    """timeout_s: per-request (connect and read) timeout.
    max_retries: retries after the first attempt, for retryable failures
        (timeouts, connection errors, truncated bodies, HTTP 429 and 5xx).
    backoff_s, backoff_max_s, jitter, seed: backoff before retry i is
        ``min(backoff_max_s, backoff_s * 2**i) * (1 + jitter * U[0,1))``, U from
        ``random.Random(seed)``; ``jitter=0`` makes it exact.
    retry_after_max_s: the longest ``Retry-After`` (429/503) honoured; longer fails at once.
    min_interval_s: client-side rate limit: least time between the starts of two requests.
    user_agent: sent with every request (None: the client's default).
    headers: sent with every request.
    max_response_bytes: larger bodies fail (protects memory and the time budget).
    """

    timeout_s: float = 10.0
    max_retries: int = 2
    backoff_s: float = 0.5
    backoff_max_s: float = 8.0
    jitter: float = 0.1
    seed: int | None = 0
    retry_after_max_s: float = 30.0
    min_interval_s: float = 1.0
    user_agent: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    max_response_bytes: int = 5_000_000

    def __post_init__(self) -> None:
        if self.timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, not {self.timeout_s}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, not {self.max_retries}")
        # config values may come as int or str-like numbers: store the types the transport computes with
        for name, kind in (
            ("timeout_s", float),
            ("max_retries", int),
            ("backoff_s", float),
            ("backoff_max_s", float),
            ("jitter", float),
            ("retry_after_max_s", float),
            ("min_interval_s", float),
            ("max_response_bytes", int),
        ):
            object.__setattr__(self, name, kind(getattr(self, name)))
        object.__setattr__(self, "min_interval_s", max(0.0, self.min_interval_s))
        object.__setattr__(self, "headers", dict(self.headers or {}))


def settings_for(kind: str, base: HttpSettings | None = None, **options: Any) -> HttpSettings:
    """``base`` (default: the defaults) with ``options`` (fields of :class:`HttpSettings`)
    replaced; a bad value is a ValueError naming the client ``kind``, an unknown option a TypeError."""
    try:
        return dataclasses.replace(base or HttpSettings(), **options)
    except ValueError as e:
        raise ValueError(f"{kind} client: {e}") from None
