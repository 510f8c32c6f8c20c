"""Web search clients for ``web_risk``: SearXNG and a generic JSON-over-HTTP API.

Both are :class:`~.search_client.HttpSearchClient`\\ s: ``search(query,
deadline=None)`` returns the top ``n_results`` result URLs or raises
:class:`~.search_client.SearchError`; the transport
(:class:`~spacy_textsan.http.HttpTransport`) brings the timeouts, retries
with backoff and ``Retry-After``, the rate limit, the size cap and the cache.

API keys (``JsonHttpClient``) are read from an environment variable or a file
named in the config, sent only where the templates put ``{api_key}``, and never
written to error messages, logs (urllib3's debug lines are scrubbed too,
:func:`~spacy_textsan.http.register_secret`) or the cache (whose keys are hashes).

The factories are registered for configs, the HTTP settings as a block of their own::

    [components.web_risk.client]
    @misc = "spacy_textsan.searxng_client.v2"
    base_url = "http://localhost:8888"

    [components.web_risk.client.http]
    @misc = "spacy_textsan.http_settings.v1"
    timeout_s = 5

(version 1, ``spacy_textsan.searxng_client.v1`` and ``spacy_textsan.json_search_client.v1``,
took the HTTP settings as flat keys of the client's block; old configs keep working).
"""

import json
import os
from typing import Any

import spacy

from ..http import HttpSettings, Request, flat_http_factory, hash_key, register_secret
from .search_client import DEFAULT_CACHE_TTL_S, HttpSearchClient, SearchError, dedupe
from .search_templates import fill_structure, fill_template, resolve_path, uses_placeholder


class SearxngClient(HttpSearchClient):
    """A SearXNG instance's JSON API: ``GET {base_url}/search?q=...&format=json&pageno=N``,
    URLs in ``results[].url``. Pages are fetched until ``n_results`` URLs, an
    empty page, a page with nothing new, or ``max_pages``. A first page with no
    results while engines were unresponsive is an error (SearXNG answers 200
    when all its engines failed; "no results" would then fail open).
    ``params`` adds query parameters (``language``, ``engines``, ``safesearch``…);
    the JSON format must be enabled in the instance's ``settings.yml``.
    Other keyword arguments: see :class:`~.search_client.HttpSearchClient`."""

    kind = "searxng"

    def __init__(self, base_url: str, *, max_pages: int = 10, params: dict[str, Any] | None = None, **http: Any):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"searxng client: base_url must be an http(s) URL, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.max_pages = max(1, int(max_pages))
        self.params = dict(params or {})
        super().__init__(self._endpoint(), **http)

    def _endpoint(self) -> str:
        return self.base_url + "/search"

    def cache_namespace(self) -> str:
        return "searxng:" + hash_key(
            self.base_url, json.dumps(self.params, sort_keys=True, default=str), str(self.n_results)
        )

    def _fetch(self, query: str, deadline: float | None) -> list[str]:
        urls: list[str] = []
        for page in range(1, self.max_pages + 1):
            params = dict(self.params)
            params.update(q=query, format="json", pageno=page)
            data = self._request_json(Request("GET", self._endpoint(), params=params, deadline=deadline))
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
    Other keyword arguments: see :class:`~.search_client.HttpSearchClient`.

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
        super().__init__(url, **http)

    def __repr__(self) -> str:  # the key never shows, even in a debugger
        return f"JsonHttpClient(url={self.url!r}, method={self.method!r})"

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_api_key"] = None  # re-read in the new process
        return state

    def cache_namespace(self) -> str:
        return "json:" + hash_key(
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
            register_secret(key)
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
            request = Request(
                self.method,
                fill_template(self.url, values, encode=True),
                params=fill_structure(self.params, values) or None,
                headers=fill_structure(self._template_headers, values),
                json_body=fill_structure(self.json_body, values) if self.method == "POST" else None,
                deadline=deadline,
            )
            data = self._request_json(request)
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
# Registered factories: the config keys of [components.web_risk.client]
# --------------------------------------------------------------------------- #


@spacy.registry.misc("spacy_textsan.searxng_client.v2")
def create_searxng_client_v2(
    base_url: str,
    n_results: int = 50,
    max_pages: int = 10,
    params: dict[str, Any] | None = None,
    http: HttpSettings | None = None,
    cache_path: str | None = None,
    cache_ttl_s: float | None = DEFAULT_CACHE_TTL_S,
) -> SearxngClient:
    """A :class:`SearxngClient` for ``[components.web_risk.client]``; ``http``:
    a ``spacy_textsan.http_settings.v1`` block (None: its defaults)."""
    return SearxngClient(
        base_url,
        max_pages=max_pages,
        params=params,
        n_results=n_results,
        cache_path=cache_path,
        cache_ttl_s=cache_ttl_s,
        http=http,
    )


@spacy.registry.misc("spacy_textsan.json_search_client.v2")
def create_json_search_client_v2(
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
    http: HttpSettings | None = None,
    cache_path: str | None = None,
    cache_ttl_s: float | None = DEFAULT_CACHE_TTL_S,
) -> JsonHttpClient:
    """A :class:`JsonHttpClient` for ``[components.web_risk.client]`` (``headers``
    is a template, filled per request); ``http``: a ``spacy_textsan.http_settings.v1``
    block (None: its defaults; its ``headers`` go with every request as they are)."""
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
        cache_path=cache_path,
        cache_ttl_s=cache_ttl_s,
        http=http,
    )


#: The HTTP settings that the version 1 clients take as flat keys (SearXNG's ``headers``
#: go with every request; the JSON client's ``headers`` are its template, not these).
_V1_HTTP_KEYS = (
    "timeout_s",
    "max_retries",
    "backoff_s",
    "backoff_max_s",
    "jitter",
    "seed",
    "retry_after_max_s",
    "min_interval_s",
    "user_agent",
)

#: Version 1: the HTTP settings as flat keys of the client's block (old configs).
create_searxng_client = spacy.registry.misc("spacy_textsan.searxng_client.v1")(
    flat_http_factory(create_searxng_client_v2, kind=SearxngClient.kind, keys=(*_V1_HTTP_KEYS, "headers"))
)
create_json_search_client = spacy.registry.misc("spacy_textsan.json_search_client.v1")(
    flat_http_factory(create_json_search_client_v2, kind=JsonHttpClient.kind, keys=_V1_HTTP_KEYS)
)
