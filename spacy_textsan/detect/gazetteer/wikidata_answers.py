"""Wikidata's answers, read: errors, SPARQL queries, parsing, chains, TAB types, best match.

Pure functions behind :class:`~.wikidata_client.WikidataClient` (which sends
the requests) and :mod:`.linking` (which needs :class:`WikidataError` and
:func:`max_distance` without a network client).

The ontology of Olstad et al. (2023): :func:`first_parent` takes, at each step of a chain, the
first relation that an item has in the order instance of (P31), subclass of
(P279), is metaclass for (P8225), part of (P361); when a relation has several
values, the one with the smallest QID number (Wikidata returns them in no
defined order; small numbers are the older, better established items).
"""

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from rapidfuzz.distance import Levenshtein

from .kb import normalize_surface

#: Relations of the generalisation chain, in the order of preference of Olstad et al. 2023.
CHAIN_PROPERTIES = ("P31", "P279", "P8225", "P361")
#: Country (used by :meth:`WikidataClient.country`).
COUNTRY_PROPERTY = "P17"
ALL_PROPERTIES = CHAIN_PROPERTIES + (COUNTRY_PROPERTY,)

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
        match: dict[str, Any] = r["match"] if isinstance(r.get("match"), dict) else {}
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
    the order of Olstad et al. 2023 (P31, P279, P8225, P361)."""
    for prop in CHAIN_PROPERTIES:
        values = relations.get(prop)
        if values:
            return tuple(values[0])  # type: ignore[return-value]
    return None


def infer_tab_type(items: Iterable[Item]) -> str:
    """TAB type from (QID, label) pairs, most specific first, by
    :data:`TYPE_CLASSES`; MISC when none is known."""
    for qid, label in items:
        tab_type = _TYPE_BY_QID.get(qid) or _TYPE_BY_LABEL.get(normalize_surface(label or ""))
        if tab_type:
            return tab_type
    return "MISC"


def max_distance(length: int, max_edit_ratio: float) -> int:
    """The largest edit distance *strictly below* ``max_edit_ratio * length``
    (Olstad et al. 2023: "below 15% of the length"); -1 when none is."""
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
    key = normalize_surface(text)
    if not key:
        return None
    for r in results:
        if r["label"].strip() == text.strip():
            return r
    for r in results:
        if normalize_surface(r["label"]) == key:
            return r
    for r in results:
        forms = [r.get("match", {}).get("text", ""), *r.get("aliases", [])]
        if any(normalize_surface(f) == key for f in forms if f):
            return r
    limit = max_distance(len(key), max_edit_ratio)
    best, best_d = None, limit + 1
    for r in results:
        for form in (r["label"], r.get("match", {}).get("text", "")):
            if form:
                d = Levenshtein.distance(key, normalize_surface(form), score_cutoff=limit + 1)
                if d < best_d:
                    best, best_d = r, d
    return best if best_d <= limit else None


def result_aliases(result: dict[str, Any]) -> list[str]:
    """Surface forms of a search result besides its label: the matched text, then its aliases."""
    seen = {normalize_surface(result["label"])}
    out = []
    for form in [result.get("match", {}).get("text", ""), *result.get("aliases", [])]:
        if form and normalize_surface(form) not in seen:
            seen.add(normalize_surface(form))
            out.append(form)
    return out
