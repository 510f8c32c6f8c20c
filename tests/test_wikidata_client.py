"""WikidataClient against a local stand-in for Wikidata (tests/wikidata_server.py); no network."""

import time

import pytest
import spacy
from wikidata_server import MODES, wikidata_server  # noqa: F401  (fixture)

from spacy_textsan.detect.gazetteer.kb import KBEntry
from spacy_textsan.detect.gazetteer.wikidata_answers import (
    WikidataError,
    WikidataOffline,
    WikidataResponseError,
    WikidataUnavailable,
    best_match,
    first_parent,
    infer_tab_type,
    max_distance,
    parse_relations,
    parse_search,
    relations_query,
)
from spacy_textsan.detect.gazetteer.wikidata_client import DEFAULT_USER_AGENT, SPARQL_ACCEPT, WikidataClient

FAST = dict(timeout_s=0.3, max_retries=0, backoff_s=0.01, min_interval_s=0.0, cooldown_s=0.0)
OSLO_CHAIN = [
    ("Q5119", "capital city"),
    ("Q515", "city"),
    ("Q486972", "human settlement"),
    ("Q618123", "geographical feature"),
    ("Q2221906", "geographic location"),
]


def client(server, **kw):
    return WikidataClient(server.api_url, server.sparql_url, **{**FAST, **kw})


# --------------------------------------------------------------------------- pure helpers


def test_relations_query_names_item_and_properties():
    q = relations_query("Q585", "nb")
    assert "wd:Q585 ?prop ?item" in q
    assert "VALUES ?prop { wdt:P31 wdt:P279 wdt:P8225 wdt:P361 wdt:P17 }" in q
    assert '"nb,mul,en"' in q
    with pytest.raises(ValueError):
        relations_query("Q1 } DELETE {", "en")


def test_first_parent_follows_seed_order():
    rel = {"P361": [("Q4", "d")], "P8225": [("Q3", "c")], "P279": [("Q2", "b")]}
    assert first_parent(rel) == ("Q2", "b")
    assert first_parent({"P361": [("Q4", "d")], "P8225": [("Q3", "c")]}) == ("Q3", "c")
    assert first_parent({"P17": [("Q20", "Norway")]}) is None


def test_parse_relations_sorts_by_qid_and_skips_non_items():
    data = {
        "results": {
            "bindings": [
                {
                    "prop": {"value": "http://www.wikidata.org/prop/direct/P31"},
                    "item": {"value": "http://www.wikidata.org/entity/Q1549591"},
                    "itemLabel": {"value": "big city"},
                },
                {
                    "prop": {"value": "http://www.wikidata.org/prop/direct/P31"},
                    "item": {"value": "http://www.wikidata.org/entity/Q5119"},
                    "itemLabel": {"value": "capital city"},
                },
                {
                    "prop": {"value": "http://www.wikidata.org/prop/direct/P31"},
                    "item": {"value": "http://www.wikidata.org/.well-known/genid/abc"},
                },
            ]
        }
    }
    assert parse_relations(data) == {"P31": [("Q5119", "capital city"), ("Q1549591", "big city")]}
    with pytest.raises(WikidataResponseError):
        parse_relations({"results": []})


def test_parse_search_errors_and_filters():
    assert parse_search({"search": [{"id": "P166", "label": "x"}, {"id": "Q1", "label": "universe"}]})[0]["id"] == "Q1"
    for bad in ([], {"search": {"id": "Q1"}}, {"error": {"code": "maxlag"}}):
        with pytest.raises(WikidataResponseError):
            parse_search(bad)


def test_infer_tab_type_mapping():
    assert infer_tab_type([("Q9", "x"), ("Q515", "city")]) == "LOC"
    assert infer_tab_type([("Q9", "x"), ("Q99", "Court")]) == "ORG"  # by label when the QID is unknown
    assert infer_tab_type([("Q9", "x"), ("Q5", "human"), ("Q215627", "person")]) == "MISC"
    assert infer_tab_type([("Q9", "x"), ("Q215627", "person")]) == "DEM"
    assert infer_tab_type([("Q9", "x")]) == "MISC"


def test_best_match_order():
    results = [
        {"id": "Q1", "label": "Drummer", "match": {"text": "Drummer"}},
        {"id": "Q2", "label": "drummer", "match": {"text": "drummer"}},
        {"id": "Q3", "label": "Norwegian University", "match": {"text": "NTNU"}},
    ]
    assert best_match("drummer", results)["id"] == "Q2"
    assert best_match("DRUMMER", results)["id"] == "Q1"
    assert best_match("ntnu", results)["id"] == "Q3"
    assert best_match("Norwegian Universitx", results)["id"] == "Q3"  # distance 1 < 0.15 * 20
    assert best_match("Drum", results) is None  # a prefix is no match
    assert max_distance(20, 0.15) == 2 and max_distance(100, 0.15) == 14 and max_distance(6, 0.15) == 0


# --------------------------------------------------------------------------- live answers


def test_search(wikidata_server):
    results = client(wikidata_server).search("Oslo", limit=1)
    assert results == [
        {
            "id": "Q585",
            "label": "Oslo",
            "description": "capital and most populous city of Norway",
            "match": {"type": "label", "language": "en", "text": "Oslo"},
            "aliases": [],
        }
    ]
    params = wikidata_server.received[0]["params"]
    assert wikidata_server.received[0]["path"] == "/w/api.php"
    assert {k: params[k] for k in ("action", "search", "language", "type", "format", "limit")} == {
        "action": "wbsearchentities",
        "search": "Oslo",
        "language": "en",
        "type": "item",
        "format": "json",
        "limit": "1",
    }
    assert client(wikidata_server).search("no such thing") == []


def test_chain_follows_p31_p279_p8225_p361_and_stops_at_cycle(wikidata_server):
    c = client(wikidata_server)
    # Oslo -P31-> capital city (smallest QID of two) -P279 (beats P361)-> city -P279-> human settlement
    # -P8225 (beats P361)-> geographical feature -P361-> geographic location -P279-> (visited: stop)
    assert c.chain("Q585") == OSLO_CHAIN
    request = wikidata_server.received[0]
    assert request["path"] == "/sparql" and request["params"]["format"] == "json"
    assert request["headers"]["Accept"] == SPARQL_ACCEPT
    assert "wd:Q585 ?prop ?item" in request["params"]["query"]
    assert c.chain("Q9200001") == [("Q9200002", "tail"), ("Q9200003", "serpent")]  # back to the start: stop


def test_chain_max_length_and_country(wikidata_server):
    assert client(wikidata_server, max_chain=2).chain("Q585") == OSLO_CHAIN[:2]
    c = client(wikidata_server)
    assert [label for _, label in c.chain("Q386854")] == [
        "percussionist",
        "instrumentalist",
        "musician",
        "artist",
        "creator",
        "person",
    ]  # Olstad et al. 2023's example
    assert c.country("Q585") == ("Q20", "Norway")
    assert c.country("Q515") is None
    with pytest.raises(ValueError):
        c.chain("Oslo")


def test_lookup_builds_kb_entry(wikidata_server):
    c = client(wikidata_server)
    assert c.lookup("Oslo") == KBEntry(
        id="Q585",
        label="Oslo",
        tab_type="LOC",
        aliases=[],
        chain=[label for _, label in OSLO_CHAIN],
        source="wikidata",
        description="capital and most populous city of Norway",
    )
    ntnu = c.lookup("NTNU")
    assert (ntnu.id, ntnu.tab_type, ntnu.aliases) == ("Q11977", "ORG", ["NTNU"])
    assert ntnu.chain == ["university", "educational institution", "organization"]
    assert c.lookup("Supreme Court of Norway").tab_type == "ORG"
    assert (c.lookup("drummer").id, c.lookup("drummer").tab_type) == ("Q386854", "DEM")
    assert c.lookup("Nobel Prize").tab_type == "MISC"
    assert c.lookup("Os") is None  # prefix search result is not a link
    assert c.lookup("Atlantis xyz") is None  # no result


# --------------------------------------------------------------------------- cache and offline


def test_cache_hits_survive_a_new_client(wikidata_server, tmp_path):
    path = str(tmp_path / "wd.sqlite3")
    first = client(wikidata_server, cache_path=path)
    entry = first.lookup("Oslo")
    sent = wikidata_server.count
    assert sent == first.requests_sent == 1 + len(OSLO_CHAIN) + 1  # search + one query per item
    assert first.lookup("oslo ") == entry and wikidata_server.count == sent
    first.close()
    second = client(wikidata_server, cache_path=path)
    assert second.lookup("Oslo") == entry
    assert second.requests_sent == 0 and wikidata_server.count == sent


def test_failures_are_not_cached(wikidata_server, tmp_path):
    c = client(wikidata_server, cache_path=str(tmp_path / "wd.sqlite3"))
    wikidata_server.always = "500"
    with pytest.raises(WikidataUnavailable):
        c.search("Oslo")
    wikidata_server.always = None
    assert c.search("Oslo")[0]["id"] == "Q585"
    assert wikidata_server.count == 2


def test_cache_ttl(wikidata_server, tmp_path):
    c = client(wikidata_server, cache_path=str(tmp_path / "wd.sqlite3"), cache_ttl_s=0.0)
    c.search("Oslo")
    time.sleep(0.01)
    c.search("Oslo")
    assert wikidata_server.count == 2


def test_offline_sends_nothing_but_serves_the_cache(wikidata_server, tmp_path):
    path = str(tmp_path / "wd.sqlite3")
    with pytest.raises(WikidataOffline):
        client(wikidata_server, offline=True, cache_path=path).lookup("Oslo")
    with pytest.raises(WikidataOffline):
        client(wikidata_server, offline=True).chain("Q585")
    assert wikidata_server.count == 0
    entry = client(wikidata_server, cache_path=path).lookup("Oslo")
    sent = wikidata_server.count
    assert client(wikidata_server, offline=True, cache_path=path).lookup("Oslo") == entry
    assert wikidata_server.count == sent


# --------------------------------------------------------------------------- failures


@pytest.mark.parametrize("mode", MODES)
def test_each_failure_mode_raises_within_the_budget(wikidata_server, mode):
    wikidata_server.always = mode
    c = client(wikidata_server, max_retries=1, backoff_s=0.05)
    start = time.monotonic()
    with pytest.raises(WikidataError) as info:
        c.lookup("Oslo")
    elapsed = time.monotonic() - start
    assert elapsed < 2 * 0.3 + 0.05 + 0.5, f"{mode}: {elapsed:.2f} s"
    reason = info.value.reason
    assert "\n" not in reason and "Traceback" not in reason and len(reason) < 200
    retryable = mode in ("hang", "429", "500", "503")
    assert isinstance(info.value, WikidataUnavailable if retryable else WikidataResponseError)
    assert wikidata_server.count == (2 if retryable else 1)


def test_failure_in_sparql_step_fails_the_lookup(wikidata_server):
    wikidata_server.script = [None, "truncated"]  # search fine, first SPARQL query truncated
    with pytest.raises(WikidataResponseError, match="wikidata-sparql"):
        client(wikidata_server).lookup("Oslo")


def test_retries_then_success(wikidata_server):
    wikidata_server.script = ["500", "503", None]
    c = client(wikidata_server, max_retries=2)
    assert c.search("Oslo")[0]["id"] == "Q585"
    assert wikidata_server.count == 3


def test_retry_after_is_honoured(wikidata_server):
    wikidata_server.script = ["429"]
    wikidata_server.retry_after = "1"
    c = client(wikidata_server, max_retries=1)
    assert c.search("Oslo")[0]["id"] == "Q585"
    times = [r["time"] for r in wikidata_server.received]
    assert len(times) == 2 and times[1] - times[0] >= 0.95


def test_retry_after_over_the_cap_fails_at_once(wikidata_server):
    wikidata_server.always = "429"
    wikidata_server.retry_after = "120"
    start = time.monotonic()
    with pytest.raises(WikidataUnavailable, match="Retry-After"):
        client(wikidata_server, max_retries=2, retry_after_max_s=5).search("Oslo")
    assert time.monotonic() - start < 0.5 and wikidata_server.count == 1


def test_cooldown_fails_fast_after_an_outage(wikidata_server):
    c = client(wikidata_server, cooldown_s=60.0)
    wikidata_server.always = "500"
    with pytest.raises(WikidataUnavailable):
        c.lookup("Oslo")
    wikidata_server.always = None
    with pytest.raises(WikidataUnavailable, match="not retried"):
        c.lookup("Oslo")
    assert wikidata_server.count == 1


# --------------------------------------------------------------------------- identity and config


def test_user_agent_is_sent(wikidata_server):
    client(wikidata_server).lookup("Oslo")
    agents = {r["user_agent"] for r in wikidata_server.received}
    assert agents == {DEFAULT_USER_AGENT}
    assert DEFAULT_USER_AGENT.startswith("spacy-textsan/") and "contact" in DEFAULT_USER_AGENT
    client(wikidata_server, user_agent="my-app/1.0 (me@example.org)").search("Oslo")
    assert wikidata_server.received[-1]["user_agent"] == "my-app/1.0 (me@example.org)"


def test_registered_factory(wikidata_server):
    create = spacy.registry.misc.get("spacy_textsan.wikidata_client.v2")
    c = create(
        api_url=wikidata_server.api_url, sparql_url=wikidata_server.sparql_url, language="nb", offline=True, max_chain=3
    )
    assert isinstance(c, WikidataClient)
    assert (c.language, c.offline, c.max_chain) == ("nb", True, 3)
    with pytest.raises(ValueError):
        create(api_url="ftp://example.org")
