"""Live Wikidata client for ``wikidata_gazetteer`` (for users with internet).

Two Wikidata services are used:

* the Action API's ``wbsearchentities`` (``GET {api_url}?action=wbsearchentities
  &search=...&language=en&type=item&format=json&limit=5``) to find items by
  label or alias;
* the Query Service (``GET {sparql_url}?query=...&format=json`` with
  ``Accept: application/sparql-results+json``) for the relations seed 000's
  ontology follows, one query per item that asks for all of them at once::

      SELECT ?prop ?item ?itemLabel WHERE {
        VALUES ?prop { wdt:P31 wdt:P279 wdt:P8225 wdt:P361 wdt:P17 }
        wd:Q585 ?prop ?item .
        SERVICE wikibase:label { bd:serviceParam wikibase:language "en,mul". }
      }

:meth:`WikidataClient.chain` walks up from an item, taking at each step the
first relation that the item has in seed 000's order: instance of (P31),
subclass of (P279), is metaclass for (P8225), part of (P361). When a relation
has several values, the one with the smallest QID number is taken (Wikidata
returns them in no defined order; small numbers are the older, better
established items). The walk stops after ``max_chain`` ancestors, at an item
with none of the relations, or when it would revisit an item (a cycle).

The HTTP machinery (timeouts, retries with exponential backoff on timeouts,
connection errors, 429 and 5xx, ``Retry-After`` on 429/503 honoured up to
``retry_after_max_s`` and failing at once beyond it, a client-side rate limit,
a response size cap, a descriptive User-Agent) and the persistent sqlite3
cache are the ones of :mod:`spacy_textsan.risk.web_search`, reused here.

Cache and offline switch. Successful answers (including "no results") are
cached per endpoint and normalised query for ``cache_ttl_s``; failures are
never cached. With ``offline=True`` the client sends no request at all: a
fresh cached answer *is* still served (so a cache filled while online keeps
working offline), and a cache miss raises :class:`WikidataOffline`.

Failures raise a :class:`WikidataError` subclass whose ``reason`` is one short
line (no traceback, no URL query string). After a failure to reach Wikidata,
calls that need the network fail fast for ``cooldown_s`` seconds (cached
answers are still served), so that a pipeline does not wait for the timeout
on every span while Wikidata is down.

Registered for configs::

    [components.wikidata_gazetteer.client]
    @misc = "spacy_textsan.wikidata_client.v1"
    cache_path = "~/.cache/spacy_textsan/wikidata.sqlite3"
"""

import json
import math
import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import requests
import spacy
from rapidfuzz.distance import Levenshtein

from ..about import __version__
from ..risk.web_search import HttpSearchClient, SearchCache, SearchError
from .kb import KBEntry, normalise_surface

#: Relations of the generalisation chain, in seed 000's order of preference.
CHAIN_PROPERTIES = ("P31", "P279", "P8225", "P361")
#: Country (used by :meth:`WikidataClient.country`).
COUNTRY_PROPERTY = "P17"
ALL_PROPERTIES = CHAIN_PROPERTIES + (COUNTRY_PROPERTY,)

DEFAULT_API_URL = "https://www.wikidata.org/w/api.php"
DEFAULT_SPARQL_URL = "https://query.wikidata.org/sparql"
DEFAULT_USER_AGENT = (
    f"spacy-textsan/{__version__} (text sanitization: Wikidata entity linking; "
    f"contact: <set user_agent to include your e-mail or URL>) python-requests/{requests.__version__}"
)
SPARQL_ACCEPT = "application/sparql-results+json"

#: TAB type of an entity from its own QID, its classes and its chain: the first
#: item (most specific first) found here decides; none found: MISC. Keys are
#: QIDs and (case-folded) English labels, so that renamed or unlisted QIDs with
#: a standard label still map. Humans map to MISC because PERSON is no KB type
#: (named persons are ``privacy_ner``'s business); "person" as an *ancestor*
#: (drummer -> ... -> person, mother -> ... -> person) marks a demographic term.
TYPE_CLASSES: tuple[tuple[str, str, str], ...] = (
    ("Q5", "human", "MISC"),
    # LOC
    ("Q486972", "human settlement", "LOC"),
    ("Q515", "city", "LOC"),
    ("Q5119", "capital city", "LOC"),
    ("Q3957", "town", "LOC"),
    ("Q532", "village", "LOC"),
    ("Q6256", "country", "LOC"),
    ("Q3624078", "sovereign state", "LOC"),
    ("Q82794", "region", "LOC"),
    ("Q56061", "administrative territorial entity", "LOC"),
    ("Q2221906", "geographic location", "LOC"),
    ("Q618123", "geographical feature", "LOC"),
    # ORG
    ("Q43229", "organization", "ORG"),
    ("Q4830453", "business", "ORG"),
    ("Q783794", "company", "ORG"),
    ("Q41487", "court", "ORG"),
    ("Q327333", "government agency", "ORG"),
    ("Q3918", "university", "ORG"),
    ("Q2385804", "educational institution", "ORG"),
    ("Q7278", "political party", "ORG"),
    # DEM
    ("Q12737077", "occupation", "DEM"),
    ("Q28640", "profession", "DEM"),
    ("Q41710", "ethnic group", "DEM"),
    ("Q9174", "religion", "DEM"),
    ("Q231002", "nationality", "DEM"),
    ("Q12136", "disease", "DEM"),
    ("Q34770", "language", "DEM"),
    ("Q215627", "person", "DEM"),
)
_TYPE_BY_QID = {qid: t for qid, _, t in TYPE_CLASSES}
_TYPE_BY_LABEL = {label: t for _, label, t in TYPE_CLASSES}

_QID = re.compile(r"^Q[1-9][0-9]*$")
_ENTITY_URI = re.compile(r"/entity/(Q[1-9][0-9]*)$")
_PROP_URI = re.compile(r"/prop/direct/(P[1-9][0-9]*)$")
_LANGUAGE = re.compile(r"^[a-z]{2,3}(-[a-z0-9]{1,8})*$")

Item = tuple[str, str]  # (QID, label)


# --------------------------------------------------------------------------- #
# Errors
# --------------------------------------------------------------------------- #


class WikidataError(Exception):
    """A lookup that produced no trustworthy answer; ``reason`` is one short line."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class WikidataOffline(WikidataError):
    """The client is offline and the answer is not in the cache."""


class WikidataUnavailable(WikidataError):
    """Wikidata could not be reached or kept failing (timeout, connection, 429, 5xx)."""


class WikidataResponseError(WikidataError):
    """Wikidata answered, but not with what was asked for (malformed JSON, HTML, wrong shape, API error)."""


# --------------------------------------------------------------------------- #
# Pure helpers
# --------------------------------------------------------------------------- #


def qid_number(qid: str) -> int:
    """``"Q585"`` -> 585 (for ordering)."""
    return int(qid[1:])


def check_qid(qid: str) -> str:
    """The QID itself, or ValueError when it is not one (it goes into SPARQL)."""
    if not isinstance(qid, str) or not _QID.match(qid):
        raise ValueError(f"not a Wikidata item id: {qid!r}")
    return qid


def relations_query(qid: str, language: str, properties: Sequence[str] = ALL_PROPERTIES) -> str:
    """The SPARQL query for the direct (truthy) values of ``properties`` of ``qid``, with labels."""
    check_qid(qid)
    values = " ".join(f"wdt:{p}" for p in properties)
    languages = ",".join(dict.fromkeys([language, "mul", "en"]))
    return (
        "SELECT ?prop ?item ?itemLabel WHERE {\n"
        f"  VALUES ?prop {{ {values} }}\n"
        f"  wd:{qid} ?prop ?item .\n"
        f'  SERVICE wikibase:label {{ bd:serviceParam wikibase:language "{languages}". }}\n'
        "}"
    )


def parse_search(data: Any) -> list[dict[str, Any]]:
    """Results of a ``wbsearchentities`` answer as ``{"id", "label", "description",
    "match", "aliases"}`` dicts in rank order; WikidataResponseError on an API
    error or a body of the wrong shape."""
    if not isinstance(data, dict):
        raise WikidataResponseError("search answer is not a JSON object")
    if "error" in data:
        error = data["error"]
        code = error.get("code", "unknown") if isinstance(error, dict) else "unknown"
        raise WikidataResponseError(f"search API error ({str(code)[:60]})")
    results = data.get("search")
    if not isinstance(results, list):
        raise WikidataResponseError("search answer has no 'search' list")
    out = []
    for r in results:
        if not isinstance(r, dict) or not isinstance(r.get("id"), str) or not _QID.match(r["id"]):
            continue  # lexemes, properties or junk: not items
        match = r.get("match") if isinstance(r.get("match"), dict) else {}
        label = r.get("label")
        if not isinstance(label, str):
            display = r.get("display", {}).get("label", {}) if isinstance(r.get("display"), dict) else {}
            label = display.get("value") if isinstance(display, dict) else None
        if not isinstance(label, str):
            label = match.get("text") if isinstance(match.get("text"), str) else r["id"]
        aliases = [a for a in r.get("aliases", []) if isinstance(a, str)] if isinstance(r.get("aliases"), list) else []
        description = r.get("description") if isinstance(r.get("description"), str) else ""
        out.append(
            {
                "id": r["id"],
                "label": label,
                "description": description,
                "match": {k: v for k, v in match.items() if isinstance(v, str)},
                "aliases": aliases,
            }
        )
    return out


def parse_relations(data: Any) -> dict[str, list[Item]]:
    """``{property: [(qid, label), ...]}`` from SPARQL JSON results, each list
    ordered by QID number; values that are not items (unknown value, literals)
    are skipped. WikidataResponseError on a body of the wrong shape."""
    try:
        bindings = data["results"]["bindings"]
    except (KeyError, TypeError):
        raise WikidataResponseError("SPARQL answer has no results.bindings") from None
    if not isinstance(bindings, list):
        raise WikidataResponseError("SPARQL results.bindings is not a list")
    out: dict[str, dict[str, str]] = {}
    for b in bindings:
        if not isinstance(b, dict):
            raise WikidataResponseError("SPARQL binding is not an object")
        prop_m = _PROP_URI.search(_binding_value(b, "prop"))
        item_m = _ENTITY_URI.search(_binding_value(b, "item"))
        if not prop_m or not item_m:
            continue
        qid = item_m.group(1)
        label = _binding_value(b, "itemLabel") or qid
        out.setdefault(prop_m.group(1), {}).setdefault(qid, label)
    return {p: sorted(items.items(), key=lambda kv: qid_number(kv[0])) for p, items in out.items()}


def _binding_value(binding: dict[str, Any], name: str) -> str:
    cell = binding.get(name)
    if isinstance(cell, dict) and isinstance(cell.get("value"), str):
        return cell["value"]
    return ""


def first_parent(relations: dict[str, list[Item]]) -> Item | None:
    """The next chain step: the first value of the first relation present, in
    seed 000's order (P31, P279, P8225, P361)."""
    for prop in CHAIN_PROPERTIES:
        values = relations.get(prop)
        if values:
            return tuple(values[0])  # type: ignore[return-value]
    return None


def infer_tab_type(items: Iterable[Item]) -> str:
    """TAB type from (QID, label) pairs, most specific first, by
    :data:`TYPE_CLASSES`; MISC when none is known."""
    for qid, label in items:
        tab_type = _TYPE_BY_QID.get(qid) or _TYPE_BY_LABEL.get(normalise_surface(label or ""))
        if tab_type:
            return tab_type
    return "MISC"


def max_distance(length: int, max_edit_ratio: float) -> int:
    """The largest edit distance *strictly below* ``max_edit_ratio * length``
    (seed 000: "below 15% of the length"); -1 when none is."""
    limit = round(max_edit_ratio * length, 9)  # 0.15 * 100 is 15.000000000000002
    return math.ceil(limit) - 1


def best_match(text: str, results: Sequence[dict[str, Any]], max_edit_ratio: float = 0.15) -> dict[str, Any] | None:
    """The search result ``text`` refers to: the first whose label is ``text``
    as written, else the first with the same normalised (case-folded) label
    ("drummer" prefers the occupation to the family name "Drummer"), else the
    first whose matched text or an alias is exact, else the
    closest label/matched text within ``max_edit_ratio`` (edit distance, rank
    order breaking ties); None when no result is close enough (Wikidata's prefix
    search returns "Oslo" for "Os": that is no link)."""
    key = normalise_surface(text)
    if not key:
        return None
    for r in results:
        if r["label"].strip() == text.strip():
            return r
    for r in results:
        if normalise_surface(r["label"]) == key:
            return r
    for r in results:
        forms = [r.get("match", {}).get("text", ""), *r.get("aliases", [])]
        if any(normalise_surface(f) == key for f in forms if f):
            return r
    limit = max_distance(len(key), max_edit_ratio)
    best, best_d = None, limit + 1
    for r in results:
        for form in (r["label"], r.get("match", {}).get("text", "")):
            if form:
                d = Levenshtein.distance(key, normalise_surface(form), score_cutoff=limit + 1)
                if d < best_d:
                    best, best_d = r, d
    return best if best_d <= limit else None


# --------------------------------------------------------------------------- #
# Transport: web_search's HTTP machinery, one instance per endpoint
# --------------------------------------------------------------------------- #


class _Malformed(SearchError):
    """The body was not JSON (raised from the transport's parser, never retried)."""


class _Transport(HttpSearchClient):
    """One Wikidata endpoint, driven through ``_request_json`` only (its
    ``search`` interface and cache are not used)."""

    def __init__(self, url: str, kind: str, **http: Any):
        self.url = url
        self.kind = kind
        super().__init__(**http)

    def _endpoint(self) -> str:
        return self.url

    def cache_namespace(self) -> str:  # pragma: no cover - the client caches itself
        return f"{self.kind}:{self.url}"

    def _parse_json(self, body: bytes) -> Any:
        try:
            return super()._parse_json(body)
        except SearchError as e:
            raise _Malformed(e.reason) from None


# --------------------------------------------------------------------------- #
# Client
# --------------------------------------------------------------------------- #


class WikidataClient:
    """Entity search, ontology chains and KB entries from live Wikidata.

    api_url, sparql_url: the Action API and the Query Service endpoint.
    language: label/search language (``en``, ``nb``, ``pt-br``...).
    timeout_s: per-request timeout; max_retries: retries after the first
        attempt (timeouts, connection errors, 429, 5xx); backoff_s: first
        backoff, doubling per retry (capped at 8 s, 10% seeded jitter).
    retry_after_max_s: longest ``Retry-After`` (429/503) waited; longer fails at once.
    min_interval_s: least time between two requests to one endpoint.
    cache_path, cache_ttl_s: sqlite3 cache file (None: no cache) and entry lifetime.
    user_agent: sent with every request (Wikimedia's policy asks for a contact).
    offline: send nothing; serve the cache, raise :class:`WikidataOffline` on a miss.
    max_chain: most ancestors in a chain.
    search_limit: results :meth:`lookup` asks the search for.
    cooldown_s: after a failure to reach Wikidata, fail fast (no request) this long.
    """

    def __init__(
        self,
        api_url: str = DEFAULT_API_URL,
        sparql_url: str = DEFAULT_SPARQL_URL,
        *,
        language: str = "en",
        timeout_s: float = 10.0,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        retry_after_max_s: float = 30.0,
        min_interval_s: float = 0.2,
        cache_path: str | None = None,
        cache_ttl_s: float | None = 30 * 24 * 3600.0,
        user_agent: str | None = None,
        offline: bool = False,
        max_chain: int = 6,
        search_limit: int = 5,
        cooldown_s: float = 30.0,
    ):
        for name, url in (("api_url", api_url), ("sparql_url", sparql_url)):
            if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                raise ValueError(f"wikidata client: {name} must be an http(s) URL, not {url!r}")
        if not isinstance(language, str) or not _LANGUAGE.match(language):
            raise ValueError(f"wikidata client: language must be a language code like 'en', not {language!r}")
        if max_chain < 0:
            raise ValueError(f"wikidata client: max_chain must be >= 0, not {max_chain}")
        self.api_url = api_url
        self.sparql_url = sparql_url
        self.language = language
        self.offline = bool(offline)
        self.max_chain = int(max_chain)
        self.search_limit = max(1, int(search_limit))
        self.cooldown_s = max(0.0, float(cooldown_s))
        self.user_agent = user_agent or DEFAULT_USER_AGENT
        http = dict(
            timeout_s=timeout_s,
            max_retries=max_retries,
            backoff_s=backoff_s,
            backoff_max_s=8.0,
            jitter=0.1,
            seed=0,
            retry_after_max_s=retry_after_max_s,
            min_interval_s=min_interval_s,
            user_agent=self.user_agent,
            cache_path=None,
        )
        self._api = _Transport(api_url, "wikidata-api", **http)
        self._sparql = _Transport(sparql_url, "wikidata-sparql", **http)
        self.cache = SearchCache(_expand(cache_path), cache_ttl_s) if cache_path else None
        self._down: tuple[float, str] | None = None  # (monotonic time, reason) of the last outage

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
            self._api,
            key,
            lambda d: self._api._request_json("GET", self.api_url, params=params, deadline=d),
            parse_search,
            deadline,
        )

    def relations(self, qid: str, *, deadline: float | None = None) -> dict[str, list[Item]]:
        """Direct values of P31, P279, P8225, P361 and P17 of ``qid`` with labels
        (one SPARQL query, cached): ``{"P31": [(qid, label), ...], ...}``."""
        query = relations_query(qid, self.language)
        params = {"query": query, "format": "json"}
        headers = {"Accept": SPARQL_ACCEPT}
        key = f"relations|{self.language}|{qid}"
        raw = self._cached(
            self._sparql,
            key,
            lambda d: self._sparql._request_json("GET", self.sparql_url, params=params, headers=headers, deadline=d),
            parse_relations,
            deadline,
        )
        return {p: [tuple(v) for v in values] for p, values in raw.items()}  # type: ignore[misc]

    def chain(self, qid: str, *, deadline: float | None = None) -> list[Item]:
        """Ancestors of ``qid``, most specific first, as (QID, label): at each
        step the first relation present in the order P31, P279, P8225, P361;
        at most ``max_chain``, stopping at a cycle."""
        check_qid(qid)
        seen, out, current = {qid}, [], qid
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
            aliases=_aliases(best),
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
    def _cached(
        self,
        transport: _Transport,
        key: str,
        fetch: Callable[[float | None], Any],
        parse: Callable[[Any], Any],
        deadline: float | None,
    ) -> Any:
        """The parsed answer from the cache, or fetched, parsed and cached.
        Only parsed (valid) answers are cached."""
        namespace = f"wikidata:{transport.url}"
        if self.cache is not None:
            hit = self.cache.get(namespace, key)
            if hit:
                try:
                    return json.loads(hit[0])
                except ValueError:
                    pass  # unreadable entry: fetch again
        if self.offline:
            raise WikidataOffline(f"{transport.label}: offline and not in the cache")
        self._check_cooldown(transport)
        try:
            data = fetch(deadline)
        except _Malformed as e:
            raise WikidataResponseError(e.reason) from None
        except SearchError as e:
            self._down = (time.monotonic(), e.reason)
            raise WikidataUnavailable(e.reason) from None
        try:
            parsed = parse(data)
        except WikidataResponseError as e:
            raise WikidataResponseError(f"{transport.label}: {e.reason}") from None
        if self.cache is not None:
            self.cache.set(namespace, key, [json.dumps(parsed)])
        return parsed

    def _check_cooldown(self, transport: _Transport) -> None:
        if self._down is None or self.cooldown_s <= 0:
            return
        since = time.monotonic() - self._down[0]
        if since < self.cooldown_s:
            raise WikidataUnavailable(
                f"{transport.label}: not retried for {self.cooldown_s:g} s after "
                f"a failure {since:.1f} s ago ({self._down[1]})"
            )
        self._down = None


def _aliases(result: dict[str, Any]) -> list[str]:
    """Surface forms of a search result besides its label: the matched text, then its aliases."""
    seen = {normalise_surface(result["label"])}
    out = []
    for form in [result.get("match", {}).get("text", ""), *result.get("aliases", [])]:
        if form and normalise_surface(form) not in seen:
            seen.add(normalise_surface(form))
            out.append(form)
    return out


def _expand(path: str | None) -> str | None:
    return os.path.expanduser(str(path)) if path else None


@spacy.registry.misc("spacy_textsan.wikidata_client.v1")
def create_wikidata_client(
    api_url: str = DEFAULT_API_URL,
    sparql_url: str = DEFAULT_SPARQL_URL,
    language: str = "en",
    timeout_s: float = 10.0,
    max_retries: int = 2,
    backoff_s: float = 0.5,
    retry_after_max_s: float = 30.0,
    min_interval_s: float = 0.2,
    cache_path: str | None = None,
    cache_ttl_s: float | None = 30 * 24 * 3600.0,
    user_agent: str | None = None,
    offline: bool = False,
    max_chain: int = 6,
    search_limit: int = 5,
    cooldown_s: float = 30.0,
) -> WikidataClient:
    """A configured :class:`WikidataClient` (see its docstring for the settings)."""
    return WikidataClient(
        api_url,
        sparql_url,
        language=language,
        timeout_s=timeout_s,
        max_retries=max_retries,
        backoff_s=backoff_s,
        retry_after_max_s=retry_after_max_s,
        min_interval_s=min_interval_s,
        cache_path=cache_path,
        cache_ttl_s=cache_ttl_s,
        user_agent=user_agent,
        offline=offline,
        max_chain=max_chain,
        search_limit=search_limit,
        cooldown_s=cooldown_s,
    )
