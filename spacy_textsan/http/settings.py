"""How a client talks to one remote service: one settings object for every client.

:class:`HttpSettings` is a config block of its own, ``spacy_textsan.http_settings.v1``
(its fields and their defaults are written here only); the registered clients of
version 2 (``spacy_textsan.searxng_client.v2``, ``spacy_textsan.json_search_client.v2``,
``spacy_textsan.wikidata_client.v2``) take it as their ``http`` setting::

    [components.web_risk.client.http]
    @misc = "spacy_textsan.http_settings.v1"
    timeout_s = 5

The clients of version 1 took some of these fields as flat keys of their own
block; :func:`flat_http_factory` makes such a factory from the version 2 one,
so that old configs keep working without a second copy of either's settings.
The clients accept the fields as keyword arguments too (:func:`settings_for`).
"""

import dataclasses
import inspect
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import spacy

T = TypeVar("T")


@spacy.registry.misc("spacy_textsan.http_settings.v1")
@dataclass(frozen=True)
class HttpSettings:
    """How a client talks to one service (the block ``spacy_textsan.http_settings.v1``).

    timeout_s (float): Per-request (connect and read) timeout.
    max_retries (int): Retries after the first attempt, for retryable failures
        (timeouts, connection errors, truncated bodies, HTTP 429 and 5xx).
    backoff_s (float): The backoff before retry i is ``min(backoff_max_s, backoff_s * 2**i) *
        (1 + jitter * U[0,1))``, U drawn from ``random.Random(seed)``.
    backoff_max_s (float): The longest backoff.
    jitter (float): The backoff's random stretch; ``0`` makes it exact.
    seed (int | None): Seeds the jitter.
    retry_after_max_s (float): The longest ``Retry-After`` (429/503) honoured; longer fails at once.
    min_interval_s (float): Client-side rate limit: least time between the starts of two requests.
    user_agent (str | None): Sent with every request (None: the client's default).
    headers (Mapping | None): Sent with every request (None: none).
    max_response_bytes (int): Larger bodies fail (protects memory and the time budget).
    RAISES (ValueError): A timeout that is not positive, a negative number of retries.
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
    headers: Mapping[str, str] | None = None
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
        if self.headers is not None:  # a copy: the settings do not change with the mapping they were given
            object.__setattr__(self, "headers", dict(self.headers))


def settings_for(kind: str, base: HttpSettings | None = None, **options: Any) -> HttpSettings:
    """``base`` (default: the defaults) with ``options`` (fields of :class:`HttpSettings`)
    replaced; a bad value is a ValueError naming the client ``kind``, an unknown option a TypeError."""
    try:
        return dataclasses.replace(base or HttpSettings(), **options)
    except ValueError as e:
        raise ValueError(f"{kind} client: {e}") from None


def flat_http_factory(
    factory: Callable[..., T], *, kind: str, keys: Sequence[str], base: HttpSettings | None = None
) -> Callable[..., T]:
    """A client factory that takes the :class:`HttpSettings` fields ``keys`` as
    flat keyword arguments, as the clients of version 1 did, and calls
    ``factory`` with them as its ``http``: its signature, which configs are
    checked against, is ``factory``'s without ``http``, then ``keys`` with the
    types of :class:`HttpSettings` and the defaults of ``base``.

    factory (Callable): A version 2 client factory, whose ``http`` setting is one :class:`HttpSettings`.
    kind (str): The client's name in an error ("searxng").
    keys (Sequence[str]): The fields of :class:`HttpSettings` that version 1 took.
    base (HttpSettings | None): The settings those fields replace (None: the defaults).
    RETURNS (Callable): The version 1 factory.
    """
    base = base or HttpSettings()
    signature = inspect.signature(factory)
    hints = typing.get_type_hints(factory)
    field_hints = typing.get_type_hints(HttpSettings)
    params = [
        p.replace(annotation=hints.get(name, p.annotation))
        for name, p in signature.parameters.items()
        if name != "http"
    ]
    clash = sorted({p.name for p in params} & set(keys))
    if clash:
        raise ValueError(f"{kind} client: {clash} are settings of the client and of HttpSettings")
    params += [
        inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=getattr(base, key), annotation=field_hints[key])
        for key in keys
    ]
    flat_signature = signature.replace(parameters=params)

    def flat(*args: Any, **kwargs: Any) -> T:
        values = dict(flat_signature.bind(*args, **kwargs).arguments)
        http = settings_for(kind, base, **{key: values.pop(key) for key in keys if key in values})
        return factory(**values, http=http)

    # what configs are checked against (confection reads the signature and the annotations)
    flat.__signature__ = flat_signature  # type: ignore[attr-defined]
    flat.__annotations__ = {p.name: p.annotation for p in params} | {"return": hints.get("return")}
    flat.__module__, flat.__name__ = factory.__module__, f"{factory.__name__}_flat"
    flat.__qualname__ = flat.__name__
    flat.__doc__ = f"{factory.__name__} with the HTTP settings {', '.join(keys)} as flat keys (version 1 configs)."
    return flat
