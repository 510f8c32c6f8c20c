"""Web search clients for ``web_risk``: SearXNG and a generic JSON-over-HTTP API.

Every client answers ``search(query, deadline=None) -> list of result URLs``
(the top ``n_results``, in rank order, without duplicates) or raises
:class:`SearchError` with a short reason. What they share lives in
:class:`HttpSearchClient`:

* a timeout per request, and a ``deadline`` (``time.monotonic()`` value) that
  bounds every request, wait and retry of one search, so that ``web_risk`` can
  give each document a total time budget;
* retries with exponential backoff (plus optional jitter from a seeded RNG) on
  connection errors, timeouts, truncated bodies, HTTP 429 and 5xx; a
  ``Retry-After`` header on 429/503 is honoured up to ``retry_after_max_s``
  (a longer one fails at once rather than waiting);
* a client-side rate limit (``min_interval_s`` between requests), a
  descriptive User-Agent and a cap on the response size;
* an optional persistent cache (:class:`SearchCache`, sqlite3) keyed by the
  backend's settings and the normalised query, with a TTL; failures are
  never cached.

API keys (``JsonHttpClient``) are read from an environment variable or a file
named in the config, sent only where the templates put ``{api_key}``, and never
written to error messages, logs (urllib3's debug lines are scrubbed too) or
the cache (whose keys are hashes).

The factories are registered for configs::

    [components.web_risk.client]
    @misc = "spacy_textsan.searxng_client.v1"
    base_url = "http://localhost:8888"
"""

import email.utils
import hashlib
import json
import logging
import os
import random
import sqlite3
import threading
import time
import unicodedata
import urllib.parse
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import requests
import spacy

from ..about import __version__

logger = logging.getLogger(__name__)

DEFAULT_USER_AGENT = (
    f"spacy-textsan/{__version__} (web_risk re-identification check; python-requests/{requests.__version__})"
)
#: HTTP statuses that are retried (with backoff, or after ``Retry-After``).
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: Statuses whose ``Retry-After`` header is honoured.
RETRY_AFTER_STATUSES = frozenset({429, 503})
#: Placeholders that templates of :class:`JsonHttpClient` may use.
PLACEHOLDERS = ("query", "api_key", "page", "page0", "offset", "start", "count")


class SearchError(Exception):
    """A search that produced no trustworthy result. ``reason`` is short and
    never contains an API key."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# --------------------------------------------------------------------------- #
# Pure helpers
# --------------------------------------------------------------------------- #


def normalize_query(query: str) -> str:
    """The cache key form of a query: NFKC, whitespace collapsed, case-folded."""
    return " ".join(unicodedata.normalize("NFKC", query).split()).casefold()


def resolve_path(obj: Any, path: str) -> Any:
    """Follow ``path`` into parsed JSON: dotted (``data.items``, ``web.results.0``)
    or a JSON pointer (``/data/items``); ``""`` is the object itself.
    Raises KeyError / IndexError / TypeError when the path does not exist."""
    if not path:
        return obj
    if path.startswith("/"):
        parts = [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]
    else:
        parts = path.split(".")
    for part in parts:
        if isinstance(obj, dict):
            obj = obj[part]
        elif isinstance(obj, list):
            obj = obj[int(part)] if part.lstrip("-").isdigit() else obj[part]  # type: ignore[index]
        else:
            raise TypeError(f"cannot index {type(obj).__name__} with {part!r}")
    return obj


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


def dedupe(urls: Iterable[str]) -> list[str]:
    """URLs in first-seen order without repeats."""
    seen: set[str] = set()
    out = []
    for url in urls:
        if url not in seen:
            seen.add(url)
            out.append(url)
    return out


def fill_template(template: str, values: dict[str, str], encode: bool = False) -> str:
    """Replace ``{name}`` for each known placeholder (nothing else, so literal
    braces survive); values are URL-encoded when ``encode``."""
    out = template
    for name, value in values.items():
        token = "{" + name + "}"
        if token in out:
            out = out.replace(token, urllib.parse.quote(value, safe="") if encode else value)
    return out


def fill_structure(obj: Any, values: dict[str, str]) -> Any:
    """:func:`fill_template` applied to every string of a JSON-like structure."""
    if isinstance(obj, str):
        return fill_template(obj, values)
    if isinstance(obj, dict):
        return {k: fill_structure(v, values) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [fill_structure(v, values) for v in obj]
    return obj


def uses_placeholder(obj: Any, name: str) -> bool:
    token = "{" + name + "}"
    if isinstance(obj, str):
        return token in obj
    if isinstance(obj, dict):
        return any(uses_placeholder(v, name) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(uses_placeholder(v, name) for v in obj)
    return False


def _hash(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- #
# Secrets never reach the logs
# --------------------------------------------------------------------------- #


class _SecretScrubber(logging.Filter):
    """Replaces registered secrets in log records of the HTTP libraries
    (urllib3 logs request URLs, with their query strings, at DEBUG)."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            try:
                message = record.getMessage()
            except Exception:  # pragma: no cover - a broken record is not ours to fix
                return True
            scrubbed = message
            for secret in self.secrets:
                if secret:
                    scrubbed = scrubbed.replace(secret, "***")
            if scrubbed != message:
                record.msg, record.args = scrubbed, ()
        return True


_SCRUBBER = _SecretScrubber()
for _name in ("urllib3.connectionpool", "urllib3.util.retry", "requests"):
    logging.getLogger(_name).addFilter(_SCRUBBER)


def _register_secret(secret: str) -> None:
    for form in (secret, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)):
        _SCRUBBER.secrets.add(form)


# --------------------------------------------------------------------------- #
# Cache
# --------------------------------------------------------------------------- #


class SearchCache:
    """Persistent search results in an sqlite3 file: one row per (backend,
    normalised query), both stored as SHA-256 hashes, with the URLs (JSON) and
    the time they were fetched. Entries older than ``ttl_s`` are misses
    (``None``: never expire). Cache failures (locked, corrupt file) are logged
    and treated as misses: they never fail a search."""

    def __init__(self, path: str, ttl_s: float | None = 7 * 24 * 3600.0, now: Callable[[], float] = time.time):
        self.path = str(path)
        self.ttl_s = ttl_s
        self.now = now
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid: int | None = None
        self._broken = False

    def __getstate__(self) -> dict[str, Any]:  # connections do not travel to other processes
        state = dict(self.__dict__)
        state.update(_conn=None, _pid=None, _lock=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection | None:
        if self._broken:
            return None
        if self._conn is None or self._pid != os.getpid():
            try:
                directory = os.path.dirname(os.path.abspath(self.path))
                os.makedirs(directory, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=5.0, check_same_thread=False)
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS search_cache ("
                    " backend TEXT NOT NULL, query TEXT NOT NULL, urls TEXT NOT NULL,"
                    " created REAL NOT NULL, PRIMARY KEY (backend, query))"
                )
                conn.commit()
            except (sqlite3.Error, OSError) as e:
                logger.warning("web search cache %s disabled: %s", self.path, type(e).__name__)
                self._broken = True
                return None
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def get(self, backend: str, query: str) -> list[str] | None:
        """The cached URLs for a query, or None (miss or expired)."""
        key = _hash(normalize_query(query))
        with self._lock:
            conn = self._connection()
            if conn is None:
                return None
            try:
                row = conn.execute(
                    "SELECT urls, created FROM search_cache WHERE backend = ? AND query = ?", (backend, key)
                ).fetchone()
            except sqlite3.Error as e:
                logger.warning("web search cache read failed: %s", type(e).__name__)
                return None
        if row is None:
            return None
        urls_json, created = row
        if self.ttl_s is not None and self.now() - created > self.ttl_s:
            return None
        try:
            urls = json.loads(urls_json)
        except ValueError:
            return None
        if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
            return None
        return urls

    def set(self, backend: str, query: str, urls: Sequence[str]) -> None:
        """Store a successful result (replacing an older one)."""
        key = _hash(normalize_query(query))
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            try:
                conn.execute(
                    "INSERT OR REPLACE INTO search_cache (backend, query, urls, created) VALUES (?, ?, ?, ?)",
                    (backend, key, json.dumps(list(urls)), self.now()),
                )
                conn.commit()
            except sqlite3.Error as e:
                logger.warning("web search cache write failed: %s", type(e).__name__)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None


# --------------------------------------------------------------------------- #
# Clients
# --------------------------------------------------------------------------- #


class SearchClient:
    """The interface ``web_risk`` needs: ``search(query)`` returns the result
    URLs (top ``n_results``, rank order) or raises :class:`SearchError`.
    ``deadline`` is a ``time.monotonic()`` value the search must not outlast."""

    #: Short backend name for messages ("searxng", "json").
    kind = "search"

    def search(self, query: str, deadline: float | None = None) -> list[str]:  # pragma: no cover
        raise NotImplementedError


class _RateLimiter:
    """At least ``min_interval_s`` between the starts of two requests (per client)."""

    def __init__(self, min_interval_s: float):
        self.min_interval_s = max(0.0, float(min_interval_s))
        self._lock = threading.Lock()
        self._next = 0.0

    def __getstate__(self) -> dict[str, Any]:
        return {"min_interval_s": self.min_interval_s}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["min_interval_s"])

    def wait(self, deadline: float | None, label: str) -> None:
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            if deadline is not None and start >= deadline:
                raise SearchError(f"{label}: time budget exhausted (rate limit)")
            self._next = start + self.min_interval_s
        if start > now:
            time.sleep(start - now)


class HttpSearchClient(SearchClient):
    """Shared HTTP machinery; subclasses implement :meth:`_fetch` with :meth:`_request_json`.

    timeout_s: per-request (connect and read) timeout.
    max_retries: retries after the first attempt, for retryable failures.
    backoff_s, backoff_max_s, jitter, seed: backoff before retry i is
        ``min(backoff_max_s, backoff_s * 2**i) * (1 + jitter * U[0,1))``, U from
        ``random.Random(seed)``; ``jitter=0`` makes it exact.
    retry_after_max_s: the longest ``Retry-After`` honoured; longer fails at once.
    min_interval_s: client-side rate limit between requests.
    max_response_bytes: larger bodies fail (protects memory and the time budget).
    cache_path, cache_ttl_s: the sqlite3 cache (None: no cache).
    """

    kind = "http"

    def __init__(
        self,
        *,
        n_results: int = 50,
        timeout_s: float = 10.0,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        backoff_max_s: float = 8.0,
        jitter: float = 0.1,
        seed: int | None = 0,
        retry_after_max_s: float = 30.0,
        min_interval_s: float = 1.0,
        user_agent: str | None = None,
        headers: dict[str, str] | None = None,
        max_response_bytes: int = 5_000_000,
        cache_path: str | None = None,
        cache_ttl_s: float | None = 7 * 24 * 3600.0,
    ):
        if n_results < 1:
            raise ValueError(f"{self.kind} client: n_results must be at least 1, not {n_results}")
        if timeout_s <= 0:
            raise ValueError(f"{self.kind} client: timeout_s must be positive, not {timeout_s}")
        if max_retries < 0:
            raise ValueError(f"{self.kind} client: max_retries must be >= 0, not {max_retries}")
        self.n_results = int(n_results)
        self.timeout_s = float(timeout_s)
        self.max_retries = int(max_retries)
        self.backoff_s = float(backoff_s)
        self.backoff_max_s = float(backoff_max_s)
        self.jitter = float(jitter)
        self.seed = seed
        self.retry_after_max_s = float(retry_after_max_s)
        self.max_response_bytes = int(max_response_bytes)
        self.user_agent = user_agent or DEFAULT_USER_AGENT
        self.headers = dict(headers or {})
        self._rng = random.Random(seed)
        self._rate = _RateLimiter(min_interval_s)
        self.cache = SearchCache(cache_path, cache_ttl_s) if cache_path else None
        self._session: requests.Session | None = None
        self._session_pid: int | None = None
        #: Requests actually sent (not cache hits), for monitoring and tests.
        self.requests_sent = 0

    # -- identity ---------------------------------------------------------- #
    @property
    def label(self) -> str:
        """Backend name and host for messages (no path, query or key)."""
        return f"{self.kind} {urllib.parse.urlsplit(self._endpoint()).netloc}"

    def _endpoint(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

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

    def close(self) -> None:
        if self._session is not None and self._session_pid == os.getpid():
            self._session.close()
        self._session = None
        if self.cache is not None:
            self.cache.close()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_session=None, _session_pid=None)
        return state

    # -- HTTP --------------------------------------------------------------- #
    def _get_session(self) -> requests.Session:
        if self._session is None or self._session_pid != os.getpid():
            session = requests.Session()
            session.headers["User-Agent"] = self.user_agent
            session.headers["Accept"] = "application/json"
            self._session, self._session_pid = session, os.getpid()
        return self._session

    def _remaining(self, deadline: float | None) -> float | None:
        return None if deadline is None else deadline - time.monotonic()

    def _sleep(self, seconds: float, deadline: float | None, why: str) -> None:
        remaining = self._remaining(deadline)
        if remaining is not None and seconds >= remaining:
            raise SearchError(f"{self.label}: time budget exhausted ({why})")
        if seconds > 0:
            time.sleep(seconds)

    def _request_json(
        self,
        method: str,
        url: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        json_body: Any = None,
        deadline: float | None = None,
    ) -> Any:
        """One logical request with retries; the parsed JSON body or SearchError."""
        last = "no attempt"
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            remaining = self._remaining(deadline)
            if remaining is not None and remaining <= 0:
                raise SearchError(f"{self.label}: time budget exhausted")
            self._rate.wait(deadline, self.label)
            timeout = self.timeout_s
            remaining = self._remaining(deadline)
            if remaining is not None:
                if remaining <= 0:
                    raise SearchError(f"{self.label}: time budget exhausted")
                timeout = min(timeout, remaining)
            wait: float | None = None
            try:
                status, retry_after, body = self._send(method, url, params, headers, json_body, timeout, deadline)
            except requests.exceptions.Timeout:
                last = f"timeout after {timeout:.3g} s"
            except _TruncatedBody:
                last = "connection closed before the body was complete"
            except _TooLarge:
                raise SearchError(f"{self.label}: response larger than {self.max_response_bytes} bytes") from None
            except requests.exceptions.ConnectionError as e:
                last = f"connection failed ({_connection_reason(e)})"
            except requests.exceptions.RequestException as e:
                raise SearchError(f"{self.label}: request failed ({type(e).__name__})") from None
            else:
                if 200 <= status < 300:
                    return self._parse_json(body)
                last = f"HTTP {status}"
                if status not in RETRY_STATUSES:
                    raise SearchError(f"{self.label}: {last}")
                if status in RETRY_AFTER_STATUSES and retry_after is not None:
                    if retry_after > self.retry_after_max_s:
                        raise SearchError(
                            f"{self.label}: {last}, Retry-After {retry_after:g} s exceeds "
                            f"the cap of {self.retry_after_max_s:g} s"
                        )
                    wait = retry_after
            if attempt + 1 < attempts:
                if wait is None:
                    wait = backoff_delay(attempt, self.backoff_s, self.backoff_max_s, self.jitter, self._rng)
                logger.debug("%s: %s; retry %d/%d in %.2f s", self.label, last, attempt + 1, self.max_retries, wait)
                self._sleep(wait, deadline, last)
        raise SearchError(f"{self.label}: {last} ({attempts} attempt{'s' if attempts > 1 else ''})")

    def _send(
        self,
        method: str,
        url: str,
        params: dict[str, Any] | None,
        headers: dict[str, str] | None,
        json_body: Any,
        timeout: float,
        deadline: float | None,
    ):
        all_headers = dict(self.headers)
        all_headers.update(headers or {})
        self.requests_sent += 1
        with self._get_session().request(
            method,
            url,
            params=params,
            headers=all_headers,
            json=json_body,
            timeout=timeout,
            stream=True,
            allow_redirects=True,
        ) as resp:
            retry_after = parse_retry_after(resp.headers.get("Retry-After"))
            if not 200 <= resp.status_code < 300:
                return resp.status_code, retry_after, b""
            chunks, size = [], 0
            try:
                for chunk in resp.iter_content(chunk_size=65536):
                    size += len(chunk)
                    if size > self.max_response_bytes:
                        raise _TooLarge()
                    chunks.append(chunk)
                    remaining = self._remaining(deadline)
                    if remaining is not None and remaining <= 0:
                        raise requests.exceptions.Timeout()
            except (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError):
                raise _TruncatedBody() from None
            return resp.status_code, retry_after, b"".join(chunks)

    def _parse_json(self, body: bytes) -> Any:
        if not body.strip():
            raise SearchError(f"{self.label}: empty response body")
        try:
            return json.loads(body.decode("utf-8-sig"))
        except UnicodeDecodeError:
            raise SearchError(f"{self.label}: response is not UTF-8 text") from None
        except ValueError as e:
            head = body.lstrip()[:1]
            what = "HTML, not JSON" if head == b"<" else f"invalid JSON ({e.msg})"
            raise SearchError(f"{self.label}: response is {what}") from None


class _TruncatedBody(Exception):
    pass


class _TooLarge(Exception):
    pass


def _connection_reason(error: Exception) -> str:
    """A short description of a connection error without the URL (which may hold a key)."""
    text = repr(error)
    for needle, reason in (
        ("Read timed out", "read timeout"),
        ("refused", "connection refused"),
        ("RemoteDisconnected", "closed without a response"),
        ("ConnectionResetError", "connection reset"),
        ("Name or service not known", "unknown host"),
        ("NameResolutionError", "unknown host"),
        ("nodename nor servname", "unknown host"),
        ("SSLError", "TLS error"),
    ):
        if needle in text:
            return reason
    return type(error).__name__


class SearxngClient(HttpSearchClient):
    """A SearXNG instance's JSON API: ``GET {base_url}/search?q=...&format=json&pageno=N``,
    URLs in ``results[].url``. Pages are fetched until ``n_results`` URLs, an
    empty page, a page with nothing new, or ``max_pages``. A first page with no
    results while engines were unresponsive is an error (SearXNG answers 200
    when all its engines failed; "no results" would then fail open).
    ``params`` adds query parameters (``language``, ``engines``, ``safesearch``…);
    the JSON format must be enabled in the instance's ``settings.yml``."""

    kind = "searxng"

    def __init__(self, base_url: str, *, max_pages: int = 10, params: dict[str, Any] | None = None, **http: Any):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"searxng client: base_url must be an http(s) URL, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.max_pages = max(1, int(max_pages))
        self.params = dict(params or {})
        super().__init__(**http)

    def _endpoint(self) -> str:
        return self.base_url + "/search"

    def cache_namespace(self) -> str:
        return "searxng:" + _hash(
            self.base_url, json.dumps(self.params, sort_keys=True, default=str), str(self.n_results)
        )

    def _fetch(self, query: str, deadline: float | None) -> list[str]:
        urls: list[str] = []
        for page in range(1, self.max_pages + 1):
            params = dict(self.params)
            params.update(q=query, format="json", pageno=page)
            data = self._request_json("GET", self._endpoint(), params=params, deadline=deadline)
            page_urls = self._page_urls(data, page)
            new = [u for u in dedupe(page_urls) if u not in urls]
            urls.extend(new)
            if not new or len(urls) >= self.n_results:
                break
        return urls[: self.n_results]

    def _page_urls(self, data: Any, page: int) -> list[str]:
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise SearchError(f"{self.label}: unexpected response shape (no results list)")
        urls = []
        for item in data["results"]:
            url = item.get("url") if isinstance(item, dict) else None
            if not isinstance(url, str) or not url:
                raise SearchError(f"{self.label}: unexpected response shape (result without url)")
            urls.append(url)
        if not urls and page == 1 and data.get("unresponsive_engines"):
            names = sorted(
                {str(e[0]) if isinstance(e, (list, tuple)) and e else str(e) for e in data["unresponsive_engines"]}
            )
            raise SearchError(f"{self.label}: no results and unresponsive engines ({', '.join(names[:5])})")
        return urls


class JsonHttpClient(HttpSearchClient):
    """A template for any search API that answers JSON.

    url: the endpoint; may contain placeholders, URL-encoded when filled.
    method: "GET" or "POST".
    params, headers, json_body: templates (strings inside are filled as-is,
        ``requests`` encodes the params); ``json_body`` is sent on POST.
    Placeholders: ``{query}``, ``{api_key}``, ``{page}`` (1-based),
        ``{page0}``, ``{offset}`` (0-based index of the page's first result),
        ``{start}`` (= offset + 1), ``{count}`` (= page_size).
    results_path: where the list of results is (``items``, ``web.results``,
        ``/data/hits``); url_field: the URL inside each result (``link``, or
        ``""`` when the list holds URL strings).
    api_key_env / api_key_file: where the key is read from (at the first
        search; a missing key is a SearchError naming the variable or file,
        never the value).
    page_size, max_pages: paging, only when a template uses a page placeholder.
    allow_missing_results: a JSON object without ``results_path`` means "no
        results" (Google's Custom Search omits ``items`` then); off by default,
        so that an unexpected answer fails instead of passing as "nothing found".

    Example (Brave)::

        url = "https://api.search.brave.com/res/v1/web/search"
        params = {"q": "{query}", "count": "20", "offset": "{page0}"}
        headers = {"X-Subscription-Token": "{api_key}"}
        results_path = "web.results"
        url_field = "url"
    """

    kind = "json"

    def __init__(
        self,
        url: str,
        *,
        method: str = "GET",
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        json_body: Any = None,
        results_path: str = "items",
        url_field: str = "link",
        api_key_env: str | None = None,
        api_key_file: str | None = None,
        page_size: int = 10,
        max_pages: int = 5,
        allow_missing_results: bool = False,
        **http: Any,
    ):
        method = method.upper()
        if method not in ("GET", "POST"):
            raise ValueError(f"json search client: method must be GET or POST, not {method!r}")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError("json search client: url must be an http(s) URL template")
        templates = (url, params, headers, json_body)
        if not any(uses_placeholder(t, "query") for t in templates):
            raise ValueError("json search client: no template contains the {query} placeholder")
        if any(uses_placeholder(t, "api_key") for t in templates) and not (api_key_env or api_key_file):
            raise ValueError(
                "json search client: a template uses {api_key} but neither api_key_env nor api_key_file is set"
            )
        if api_key_env and api_key_file:
            raise ValueError("json search client: set api_key_env or api_key_file, not both")
        if page_size < 1:
            raise ValueError(f"json search client: page_size must be at least 1, not {page_size}")
        self.url = url
        self.method = method
        self.params = dict(params or {})
        self.json_body = json_body
        self.results_path = results_path
        self.url_field = url_field
        self.api_key_env = api_key_env
        self.api_key_file = api_key_file
        self.page_size = int(page_size)
        self.allow_missing_results = bool(allow_missing_results)
        paged = any(uses_placeholder(t, p) for t in templates for p in ("page", "page0", "offset", "start"))
        self.max_pages = max(1, int(max_pages)) if paged else 1
        self._api_key: str | None = None
        self._template_headers = dict(headers or {})
        super().__init__(**http)

    def __repr__(self) -> str:  # the key never shows, even in a debugger
        return f"JsonHttpClient(url={self.url!r}, method={self.method!r})"

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_api_key"] = None  # re-read in the new process
        return state

    def _endpoint(self) -> str:
        return self.url

    def cache_namespace(self) -> str:
        return "json:" + _hash(
            self.method,
            self.url,
            json.dumps(self.params, sort_keys=True, default=str),
            json.dumps(self.json_body, sort_keys=True, default=str),
            self.results_path,
            self.url_field,
            str(self.page_size),
            str(self.n_results),
        )

    def _key(self) -> str:
        if self._api_key is not None:
            return self._api_key
        if self.api_key_env:
            key = os.environ.get(self.api_key_env, "").strip()
            if not key:
                raise SearchError(f"{self.label}: API key environment variable {self.api_key_env} is not set")
        elif self.api_key_file:
            try:
                with open(self.api_key_file, encoding="utf-8") as f:
                    key = f.read().strip()
            except OSError as e:
                raise SearchError(
                    f"{self.label}: API key file {self.api_key_file} unreadable ({type(e).__name__})"
                ) from None
            if not key:
                raise SearchError(f"{self.label}: API key file {self.api_key_file} is empty")
        else:
            key = ""
        if key:
            _register_secret(key)
        self._api_key = key
        return key

    def _fetch(self, query: str, deadline: float | None) -> list[str]:
        key = self._key()
        urls: list[str] = []
        for page in range(1, self.max_pages + 1):
            offset = (page - 1) * self.page_size
            values = {
                "query": query,
                "api_key": key,
                "page": str(page),
                "page0": str(page - 1),
                "offset": str(offset),
                "start": str(offset + 1),
                "count": str(self.page_size),
            }
            data = self._request_json(
                self.method,
                fill_template(self.url, values, encode=True),
                params=fill_structure(self.params, values) or None,
                headers=fill_structure(self._template_headers, values),
                json_body=fill_structure(self.json_body, values) if self.method == "POST" else None,
                deadline=deadline,
            )
            page_urls = self._page_urls(data)
            new = [u for u in dedupe(page_urls) if u not in urls]
            urls.extend(new)
            if not new or len(urls) >= self.n_results or len(page_urls) < self.page_size:
                break
        return urls[: self.n_results]

    def _page_urls(self, data: Any) -> list[str]:
        try:
            items = resolve_path(data, self.results_path)
        except (KeyError, IndexError, TypeError, ValueError):
            if self.allow_missing_results and isinstance(data, dict) and "error" not in data:
                return []
            raise SearchError(f"{self.label}: unexpected response shape (no {self.results_path!r})") from None
        if not isinstance(items, list):
            raise SearchError(f"{self.label}: unexpected response shape ({self.results_path!r} is not a list)")
        urls = []
        for item in items:
            try:
                url = resolve_path(item, self.url_field)
            except (KeyError, IndexError, TypeError, ValueError):
                url = None
            if not isinstance(url, str) or not url:
                raise SearchError(
                    f"{self.label}: unexpected response shape (result without {self.url_field or 'URL'!r})"
                )
            urls.append(url)
        return urls


# --------------------------------------------------------------------------- #
# Registered factories
# --------------------------------------------------------------------------- #


@spacy.registry.misc("spacy_textsan.searxng_client.v1")
def create_searxng_client(
    base_url: str,
    n_results: int = 50,
    max_pages: int = 10,
    params: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    timeout_s: float = 10.0,
    max_retries: int = 2,
    backoff_s: float = 0.5,
    backoff_max_s: float = 8.0,
    jitter: float = 0.1,
    seed: int | None = 0,
    retry_after_max_s: float = 30.0,
    min_interval_s: float = 1.0,
    user_agent: str | None = None,
    cache_path: str | None = None,
    cache_ttl_s: float | None = 604800.0,
) -> SearxngClient:
    """A :class:`SearxngClient` for ``[components.web_risk.client]``."""
    return SearxngClient(
        base_url,
        max_pages=max_pages,
        params=params,
        headers=headers,
        n_results=n_results,
        timeout_s=timeout_s,
        max_retries=max_retries,
        backoff_s=backoff_s,
        backoff_max_s=backoff_max_s,
        jitter=jitter,
        seed=seed,
        retry_after_max_s=retry_after_max_s,
        min_interval_s=min_interval_s,
        user_agent=user_agent,
        cache_path=cache_path,
        cache_ttl_s=cache_ttl_s,
    )


@spacy.registry.misc("spacy_textsan.json_search_client.v1")
def create_json_search_client(
    url: str,
    method: str = "GET",
    params: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    json_body: Any = None,
    results_path: str = "items",
    url_field: str = "link",
    api_key_env: str | None = None,
    api_key_file: str | None = None,
    n_results: int = 50,
    page_size: int = 10,
    max_pages: int = 5,
    allow_missing_results: bool = False,
    timeout_s: float = 10.0,
    max_retries: int = 2,
    backoff_s: float = 0.5,
    backoff_max_s: float = 8.0,
    jitter: float = 0.1,
    seed: int | None = 0,
    retry_after_max_s: float = 30.0,
    min_interval_s: float = 1.0,
    user_agent: str | None = None,
    cache_path: str | None = None,
    cache_ttl_s: float | None = 604800.0,
) -> JsonHttpClient:
    """A :class:`JsonHttpClient` for ``[components.web_risk.client]``."""
    return JsonHttpClient(
        url,
        method=method,
        params=params,
        headers=headers,
        json_body=json_body,
        results_path=results_path,
        url_field=url_field,
        api_key_env=api_key_env,
        api_key_file=api_key_file,
        page_size=page_size,
        max_pages=max_pages,
        allow_missing_results=allow_missing_results,
        n_results=n_results,
        timeout_s=timeout_s,
        max_retries=max_retries,
        backoff_s=backoff_s,
        backoff_max_s=backoff_max_s,
        jitter=jitter,
        seed=seed,
        retry_after_max_s=retry_after_max_s,
        min_interval_s=min_interval_s,
        user_agent=user_agent,
        cache_path=cache_path,
        cache_ttl_s=cache_ttl_s,
    )
