"""Live Wikidata client for ``wikidata_gazetteer`` (for users with internet).

Two Wikidata services are used:

* the Action API's ``wbsearchentities`` (``GET {api_url}?action=wbsearchentities
  &search=...&language=en&type=item&format=json&limit=5``) to find items by
  label or alias;
* the Query Service (``GET {sparql_url}?query=...&format=json`` with
  ``Accept: application/sparql-results+json``) for the relations the
  ontology of Olstad et al. (2023) follows, one query per item that asks for all of them at once::

      SELECT ?prop ?item ?itemLabel WHERE {
        VALUES ?prop { wdt:P31 wdt:P279 wdt:P8225 wdt:P361 wdt:P17 }
        wd:Q585 ?prop ?item .
        SERVICE wikibase:label { bd:serviceParam wikibase:language "en,mul". }
      }

:meth:`WikidataClient.chain` walks up from an item by
:func:`~.wikidata_answers.first_parent` (P31, P279, P8225, P361, smallest QID
first). The walk stops after ``max_chain`` ancestors, at an item with none of
the relations, or when it would revisit an item (a cycle). Parsing, queries
and the TAB type of an item are in :mod:`.wikidata_answers`.

Each endpoint has its own :class:`~spacy_textsan.http.HttpTransport`
(timeouts, retries with exponential backoff on timeouts, connection errors,
429 and 5xx, ``Retry-After`` on 429/503 honoured up to ``retry_after_max_s``
and failing at once beyond it, a client-side rate limit, a response size cap,
a descriptive User-Agent); answers go to a
:class:`~spacy_textsan.http.ResponseCache` (sqlite3).

Cache and offline switch. Successful answers (including "no results") are
cached, parsed, per endpoint and normalised query for ``cache_ttl_s``;
failures are never cached. With ``offline=True`` the client sends no request
at all: a fresh cached answer *is* still served (so a cache filled while
online keeps working offline), and a cache miss raises :class:`WikidataOffline`.

Failures raise a :class:`WikidataError` subclass whose ``reason`` is one short
line (no traceback, no URL query string). After a failure to reach Wikidata,
calls that need the network fail fast for ``cooldown_s`` seconds (cached
answers are still served), so that a pipeline does not wait for the timeout
on every span while Wikidata is down.

Registered for configs, the HTTP settings as a block of their own (none: :data:`DEFAULT_HTTP`)::

    [components.wikidata_gazetteer.client]
    @misc = "spacy_textsan.wikidata_client.v2"
    cache_path = "~/.cache/spacy_textsan/wikidata.sqlite3"

    [components.wikidata_gazetteer.client.http]
    @misc = "spacy_textsan.http_settings.v1"
    min_interval_s = 0.2
    timeout_s = 5

(version 1, ``spacy_textsan.wikidata_client.v1``, took some HTTP settings as flat
keys of the client's block; old configs keep working).
"""

import dataclasses
import json
import os
import re
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

import requests
import spacy

from ...about import __version__
from ...http import (
    HttpError,
    HttpSettings,
    HttpTransport,
    Request,
    ResponseCache,
    ResponseNotJson,
    flat_http_factory,
    settings_for,
)
from .kb import KBEntry
from .wikidata_answers import (
    COUNTRY_PROPERTY,
    Item,
    WikidataError,
    WikidataOffline,
    WikidataResponseError,
    WikidataUnavailable,
    best_match,
    check_qid,
    first_parent,
    infer_tab_type,
    parse_relations,
    parse_search,
    relations_query,
    result_aliases,
)

__all__ = [
    "DEFAULT_API_URL",
    "DEFAULT_SPARQL_URL",
    "DEFAULT_USER_AGENT",
    "SPARQL_ACCEPT",
    "WikidataClient",
    "WikidataError",
    "WikidataOffline",
    "WikidataResponseError",
    "WikidataUnavailable",
    "create_wikidata_client",
    "create_wikidata_client_v2",
]

DEFAULT_API_URL = "https://www.wikidata.org/w/api.php"
DEFAULT_SPARQL_URL = "https://query.wikidata.org/sparql"
DEFAULT_USER_AGENT = (
    f"spacy-textsan/{__version__} (text sanitization: Wikidata entity linking; "
    f"contact: <set user_agent to include your e-mail or URL>) python-requests/{requests.__version__}"
)
SPARQL_ACCEPT = "application/sparql-results+json"
#: Transport settings of the client unless told otherwise: at most 5 requests a second; the User-Agent
#: is :data:`DEFAULT_USER_AGENT` unless the settings name one (Wikimedia asks for one with a contact).
DEFAULT_HTTP = HttpSettings(min_interval_s=0.2)
#: Seconds a cached answer stays fresh by default (30 days).
DEFAULT_CACHE_TTL_S = 30 * 24 * 3600.0

_LANGUAGE = re.compile(r"^[a-z]{2,3}(-[a-z0-9]{1,8})*$")


class WikidataClient:
    """Entity search, ontology chains and KB entries from live Wikidata.

    api_url, sparql_url: the Action API and the Query Service endpoint.
    language: label/search language (``en``, ``nb``, ``pt-br``...); None: the pipeline's
        (:meth:`follow_language`, English until told), the chains' labels staying English.
    offline: send nothing; serve the cache, raise :class:`WikidataOffline` on a miss.
    max_chain: most ancestors in a chain.
    search_limit: results :meth:`lookup` asks the search for.
    cooldown_s: after a failure to reach Wikidata, fail fast (no request) this long.
    cache_path, cache_ttl_s: sqlite3 cache file (None: no cache) and entry lifetime.
    http: transport settings (default :data:`DEFAULT_HTTP`); ``options`` replace
        single fields of it: ``timeout_s`` (per request), ``max_retries``
        (after the first attempt), ``backoff_s`` (first backoff, doubling per
        retry, capped at ``backoff_max_s``, 10% seeded jitter),
        ``retry_after_max_s``, ``min_interval_s`` (least time between two
        requests to one endpoint), ``user_agent``... (:class:`~spacy_textsan.http.HttpSettings`).
    """

    def __init__(
        self,
        api_url: str = DEFAULT_API_URL,
        sparql_url: str = DEFAULT_SPARQL_URL,
        *,
        language: str | None = None,
        offline: bool = False,
        max_chain: int = 6,
        search_limit: int = 5,
        cooldown_s: float = 30.0,
        cache_path: str | None = None,
        cache_ttl_s: float | None = DEFAULT_CACHE_TTL_S,
        http: HttpSettings | None = None,
        **options: Any,
    ):
        for name, url in (("api_url", api_url), ("sparql_url", sparql_url)):
            if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                raise ValueError(f"wikidata client: {name} must be an http(s) URL, not {url!r}")
        if language is not None and (not isinstance(language, str) or not _LANGUAGE.match(language)):
            raise ValueError(f"wikidata client: language must be a language code like 'en', not {language!r}")
        if max_chain < 0:
            raise ValueError(f"wikidata client: max_chain must be >= 0, not {max_chain}")
        self.api_url = api_url
        self.sparql_url = sparql_url
        #: the language items are searched in (their label and aliases: the KB entry's surfaces)
        self.language = language or "en"
        #: the language of the chains' labels: the one set, else English (what the generalizer translates)
        self.label_language = language or "en"
        #: no language set: :meth:`follow_language` sets the search language
        self.follows_pipeline = language is None
        self.offline = bool(offline)
        self.max_chain = int(max_chain)
        self.search_limit = max(1, int(search_limit))
        self.cooldown_s = max(0.0, float(cooldown_s))
        settings = settings_for("wikidata", http or DEFAULT_HTTP, **options)
        self.http = dataclasses.replace(settings, user_agent=settings.user_agent or DEFAULT_USER_AGENT)
        self._api = HttpTransport(_label("wikidata-api", api_url), self.http)
        self._sparql = HttpTransport(_label("wikidata-sparql", sparql_url), self.http)
        self.cache = ResponseCache(os.path.expanduser(str(cache_path)), cache_ttl_s) if cache_path else None
        self._down: tuple[float, str] | None = None  # (monotonic time, reason) of the last outage

    @property
    def user_agent(self) -> str:
        """Sent with every request."""
        return self._api.user_agent

    def follow_language(self, lang: str) -> None:
        """Search in the pipeline's language ``lang`` (``fr``: ``Norvège`` is found by its French label)
        when no language was set; the chains' labels stay English. Ignored otherwise."""
        if self.follows_pipeline and isinstance(lang, str) and _LANGUAGE.match(lang):
            self.language = lang

    # -- public API ------------------------------------------------------- #
    @property
    def requests_sent(self) -> int:
        """HTTP requests actually sent (not cache hits), for monitoring and tests."""
        return self._api.requests_sent + self._sparql.requests_sent

    def search(self, text: str, limit: int = 5, *, deadline: float | None = None) -> list[dict[str, Any]]:
        """Items whose label or alias matches ``text`` (``wbsearchentities``), in
        Wikidata's rank order: dicts with ``id``, ``label``, ``description``,
        ``match`` (``{"type", "language", "text"}``) and ``aliases``."""
        if not isinstance(text, str) or not text.strip():
            return []
        limit = max(1, min(50, int(limit)))
        params = {
            "action": "wbsearchentities",
            "search": text.strip(),
            "language": self.language,
            "uselang": self.language,
            "type": "item",
            "limit": limit,
            "format": "json",
        }
        key = f"search|{self.language}|{limit}|{text}"
        return self._cached(
            self._api, Request("GET", self.api_url, params=params, deadline=deadline), key, parse_search
        )

    def relations(self, qid: str, *, deadline: float | None = None) -> dict[str, list[Item]]:
        """Direct values of P31, P279, P8225, P361 and P17 of ``qid`` with labels
        (one SPARQL query, cached): ``{"P31": [(qid, label), ...], ...}``."""
        query = relations_query(qid, self.label_language)
        params = {"query": query, "format": "json"}
        headers = {"Accept": SPARQL_ACCEPT}
        key = f"relations|{self.label_language}|{qid}"
        request = Request("GET", self.sparql_url, params=params, headers=headers, deadline=deadline)
        raw = self._cached(self._sparql, request, key, parse_relations)
        return {p: [tuple(v) for v in values] for p, values in raw.items()}  # type: ignore[misc]

    def chain(self, qid: str, *, deadline: float | None = None) -> list[Item]:
        """Ancestors of ``qid``, most specific first, as (QID, label): at each
        step the first relation present in the order P31, P279, P8225, P361;
        at most ``max_chain``, stopping at a cycle."""
        check_qid(qid)
        out: list[Item] = []
        seen, current = {qid}, qid
        while len(out) < self.max_chain:
            parent = first_parent(self.relations(current, deadline=deadline))
            if parent is None or parent[0] in seen:
                break
            out.append(parent)
            seen.add(parent[0])
            current = parent[0]
        return out

    def country(self, qid: str, *, deadline: float | None = None) -> Item | None:
        """The country (P17) of ``qid`` as (QID, label), or None."""
        values = self.relations(qid, deadline=deadline).get(COUNTRY_PROPERTY)
        return tuple(values[0]) if values else None  # type: ignore[return-value]

    def lookup(self, text: str, *, max_edit_ratio: float = 0.15, deadline: float | None = None) -> KBEntry | None:
        """A KB entry for ``text``: search, :func:`best_match` (exact label, then
        exact alias, then edit distance below ``max_edit_ratio``), chain and
        type; None when Wikidata knows no such item. WikidataError on failure."""
        best = best_match(text, self.search(text, self.search_limit, deadline=deadline), max_edit_ratio)
        if best is None:
            return None
        qid = best["id"]
        classes = self.relations(qid, deadline=deadline).get("P31", [])
        chain = self.chain(qid, deadline=deadline)
        tab_type = infer_tab_type([(qid, best["label"]), *classes, *chain])
        return KBEntry(
            id=qid,
            label=best["label"],
            tab_type=tab_type,
            aliases=result_aliases(best),
            chain=[label for _, label in chain],
            source="wikidata",
            description=best.get("description", ""),
        )

    def close(self) -> None:
        self._api.close()
        self._sparql.close()
        if self.cache is not None:
            self.cache.close()

    def __repr__(self) -> str:
        return (
            f"WikidataClient(api_url={self.api_url!r}, sparql_url={self.sparql_url!r}, "
            f"language={self.language!r}, offline={self.offline})"
        )

    # -- machinery -------------------------------------------------------- #
    def _cached(self, transport: HttpTransport, request: Request, key: str, parse: Callable[[Any], Any]) -> Any:
        """The parsed answer from the cache (under the endpoint and ``key``), or
        ``request`` sent through ``transport``, parsed and cached. Only parsed
        (valid) answers are cached."""
        namespace = f"wikidata:{request.url}"
        if self.cache is not None:
            hit = _cached_answer(self.cache.get(namespace, key))
            if hit is not None:
                return hit
        if self.offline:
            raise WikidataOffline(f"{transport.label}: offline and not in the cache")
        self._check_cooldown(transport)
        try:
            data = transport.request_json(request)
        except ResponseNotJson as e:
            raise WikidataResponseError(e.reason) from None
        except HttpError as e:
            self._down = (time.monotonic(), e.reason)
            raise WikidataUnavailable(e.reason) from None
        try:
            parsed = parse(data)
        except WikidataResponseError as e:
            raise WikidataResponseError(f"{transport.label}: {e.reason}") from None
        if self.cache is not None:
            self.cache.set(namespace, key, parsed)
        return parsed

    def _check_cooldown(self, transport: HttpTransport) -> None:
        if self._down is None or self.cooldown_s <= 0:
            return
        since = time.monotonic() - self._down[0]
        if since < self.cooldown_s:
            raise WikidataUnavailable(
                f"{transport.label}: not retried for {self.cooldown_s:g} s after "
                f"a failure {since:.1f} s ago ({self._down[1]})"
            )
        self._down = None


def _label(kind: str, url: str) -> str:
    """``"wikidata-api www.wikidata.org"``: the endpoint in error reasons (host only)."""
    return f"{kind} {urllib.parse.urlsplit(url).netloc}"


def _cached_answer(value: Any) -> Any:
    """A parsed answer read from the cache. Files written before the cache held
    JSON values keep each answer as JSON text in a one-element list: decoded
    here; an unreadable one is a miss (None)."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        try:
            return json.loads(value[0])
        except ValueError:
            return None
    return value


@spacy.registry.misc("spacy_textsan.wikidata_client.v2")
def create_wikidata_client_v2(
    api_url: str = DEFAULT_API_URL,
    sparql_url: str = DEFAULT_SPARQL_URL,
    language: str | None = None,
    http: HttpSettings | None = None,
    cache_path: str | None = None,
    cache_ttl_s: float | None = DEFAULT_CACHE_TTL_S,
    offline: bool = False,
    max_chain: int = 6,
    search_limit: int = 5,
    cooldown_s: float = 30.0,
) -> WikidataClient:
    """A configured :class:`WikidataClient` (see its docstring for the settings); ``http``:
    a ``spacy_textsan.http_settings.v1`` block (None: :data:`DEFAULT_HTTP`); ``language`` None:
    the pipeline's (set by ``wikidata_gazetteer``), chains in English."""
    return WikidataClient(
        api_url,
        sparql_url,
        language=language,
        offline=offline,
        max_chain=max_chain,
        search_limit=search_limit,
        cooldown_s=cooldown_s,
        cache_path=cache_path,
        cache_ttl_s=cache_ttl_s,
        http=http,
    )


#: Version 1: some HTTP settings as flat keys of the client's block (old configs), over :data:`DEFAULT_HTTP`.
create_wikidata_client = spacy.registry.misc("spacy_textsan.wikidata_client.v1")(
    flat_http_factory(
        create_wikidata_client_v2,
        kind="wikidata",
        keys=("timeout_s", "max_retries", "backoff_s", "retry_after_max_s", "min_interval_s", "user_agent"),
        base=DEFAULT_HTTP,
    )
)
