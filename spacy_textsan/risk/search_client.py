"""What every web search client of ``web_risk`` shares.

Every client answers ``search(query, deadline=None) -> list of result URLs``
(the top ``n_results``, in rank order, without duplicates) or raises
:class:`SearchError` with a short reason. :class:`HttpSearchClient` sends its
requests through :class:`~spacy_textsan.http.HttpTransport` (timeouts, a
``deadline`` bounding every request, wait and retry of one search, retries
with backoff and ``Retry-After``, a rate limit, a size cap) and keeps results
in an optional persistent cache (:class:`SearchCache`) keyed by the
backend's settings and the normalised query, with a TTL; failures are never
cached.
"""

import dataclasses
import urllib.parse
from collections.abc import Iterable, Sequence
from typing import Any

import requests

from ..about import __version__
from ..http import HttpError, HttpSettings, HttpTransport, Request, ResponseCache, settings_for

DEFAULT_USER_AGENT = (
    f"spacy-textsan/{__version__} (web_risk re-identification check; python-requests/{requests.__version__})"
)
#: Seconds a cached search result stays fresh by default (a week).
DEFAULT_CACHE_TTL_S = 7 * 24 * 3600.0


class SearchError(Exception):
    """A search that produced no trustworthy result. ``reason`` is short and
    never contains an API key."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def dedupe(urls: Iterable[str]) -> list[str]:
    """URLs in first-seen order without repeats."""
    seen: set[str] = set()
    out = []
    for url in urls:
        if url not in seen:
            seen.add(url)
            out.append(url)
    return out


class SearchCache(ResponseCache):
    """The search results in a :class:`~spacy_textsan.http.ResponseCache`:
    one URL list per (backend, normalised query); anything else read back is a miss."""

    def get(self, backend: str, query: str) -> list[str] | None:
        """The cached URLs for a query, or None (miss or expired)."""
        urls = super().get(backend, query)
        if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
            return None
        return urls

    def set(self, backend: str, query: str, urls: Sequence[str]) -> None:
        """Store a successful result (replacing an older one)."""
        super().set(backend, query, list(urls))


class SearchClient:
    """The interface ``web_risk`` needs: ``search(query)`` returns the result
    URLs (top ``n_results``, rank order) or raises :class:`SearchError`.
    ``deadline`` is a ``time.monotonic()`` value the search must not outlast."""

    #: Short backend name for messages ("searxng", "json").
    kind = "search"

    def search(self, query: str, deadline: float | None = None) -> list[str]:  # pragma: no cover
        raise NotImplementedError


class HttpSearchClient(SearchClient):
    """A search API over HTTP; subclasses implement :meth:`_fetch` with :meth:`_request_json`.

    endpoint: the URL that names the service in messages (its host only).
    n_results: how many result URLs a search returns at most.
    cache_path, cache_ttl_s: the sqlite3 cache (None: no cache).
    http: the transport settings (:class:`~spacy_textsan.http.HttpSettings`);
        ``options`` replace single fields of it (``timeout_s=0.3``).
    """

    kind = "http"

    def __init__(
        self,
        endpoint: str,
        *,
        n_results: int = 50,
        cache_path: str | None = None,
        cache_ttl_s: float | None = DEFAULT_CACHE_TTL_S,
        http: HttpSettings | None = None,
        **options: Any,
    ):
        if n_results < 1:
            raise ValueError(f"{self.kind} client: n_results must be at least 1, not {n_results}")
        self.n_results = int(n_results)
        settings = settings_for(self.kind, http, **options)
        self.http = dataclasses.replace(settings, user_agent=settings.user_agent or DEFAULT_USER_AGENT)
        self.transport = HttpTransport(f"{self.kind} {urllib.parse.urlsplit(endpoint).netloc}", self.http)
        self.cache = SearchCache(cache_path, cache_ttl_s) if cache_path else None

    # -- identity ---------------------------------------------------------- #
    @property
    def label(self) -> str:
        """Backend name and host for messages (no path, query or key)."""
        return self.transport.label

    @property
    def requests_sent(self) -> int:
        """Requests actually sent (not cache hits), for monitoring and tests."""
        return self.transport.requests_sent

    def cache_namespace(self) -> str:
        """Hash of every setting that changes results (never the API key value)."""
        raise NotImplementedError  # pragma: no cover

    # -- the interface ----------------------------------------------------- #
    def search(self, query: str, deadline: float | None = None) -> list[str]:
        """The top ``n_results`` result URLs for ``query`` (from the cache when fresh)."""
        if not isinstance(query, str) or not query.strip():
            raise SearchError(f"{self.label}: empty query")
        namespace = self.cache_namespace()
        if self.cache is not None:
            cached = self.cache.get(namespace, query)
            if cached is not None:
                return cached[: self.n_results]
        urls = dedupe(self._fetch(query, deadline))[: self.n_results]
        if self.cache is not None:
            self.cache.set(namespace, query, urls)
        return urls

    def _fetch(self, query: str, deadline: float | None) -> list[str]:  # pragma: no cover
        raise NotImplementedError

    def _request_json(self, request: Request) -> Any:
        """One logical request through the transport: the parsed JSON body, or
        SearchError (raised outside the handler, so that it chains nothing that
        could show a URL)."""
        try:
            return self.transport.request_json(request)
        except HttpError as e:
            reason = e.reason
        raise SearchError(reason)

    def close(self) -> None:
        self.transport.close()
        if self.cache is not None:
            self.cache.close()
