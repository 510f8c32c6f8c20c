"""The web_risk component end to end, against a local search server (no network)."""

import logging
import time
from pathlib import Path

import pytest
import spacy
import srsly
from web_server import free_port, search_server  # noqa: F401  (fixture)

from spacy_textsan.extensions import SPANS_KEY
from spacy_textsan.risk.search_client import SearchError
from spacy_textsan.risk.web_risk import (
    WebRisk,
    choose_person,
    find_risky_combinations,
    format_query,
    group_entities,
    normalize_url,
)

CANNED = srsly.read_json(Path(__file__).parent / "fixtures" / "web" / "canned_results.json")["results"]
TEXT = (
    "Galip Yalman, a lawyer in Ankara, met Ayse Demir in Istanbul on 14 March 2009. "
    "Yalman later joined Acme Legal in Ankara; Acme praised him."
)
# (text, occurrence, label, entity_id)
SPANS = [
    ("Galip Yalman", 0, "PERSON", "PERSON-1"),
    ("lawyer", 0, "DEM", None),
    ("Ankara", 0, "LOC", "LOC-1"),
    ("Ayse Demir", 0, "PERSON", "PERSON-2"),
    ("Istanbul", 0, "LOC", "LOC-2"),
    ("14 March 2009", 0, "DATETIME", "DATETIME-1"),
    ("Yalman", 1, "PERSON", "PERSON-1"),
    ("Acme Legal", 0, "ORG", "ORG-1"),
    ("Ankara", 1, "LOC", "LOC-1"),
    ("Acme", 1, "ORG", "ORG-1"),
]
FAST = {"timeout_s": 0.3, "max_retries": 1, "backoff_s": 0.01, "jitter": 0.0, "min_interval_s": 0.0}
SECRET = "sk-TEST-web-risk-SECRET"


def offsets(text, occurrence):
    start = -1
    for _ in range(occurrence + 1):
        start = TEXT.index(text, start + 1)
    return [start, start + len(text)]


def at(text, occurrence=0):
    return offsets(text, occurrence)


def make_doc(nlp, text=TEXT, spans=SPANS):
    doc = nlp.make_doc(text)
    group = []
    for surface, occurrence, label, entity_id in spans:
        start, end = offsets(surface, occurrence)
        span = doc.char_span(start, end, label=label)
        span._.entity_id = entity_id
        group.append(span)
    doc.spans[SPANS_KEY] = group
    return doc


def pipeline(server_url=None, client=None, http=None, **config):
    nlp = spacy.blank("en")
    if server_url is not None:
        config["client"] = {
            "@misc": "spacy_textsan.searxng_client.v2",
            "base_url": server_url,
            "http": {"@misc": "spacy_textsan.http_settings.v1", **FAST, **(http or {})},
            **(client or {}),
        }
    nlp.add_pipe("web_risk", config=config)
    return nlp


def run(nlp):
    return nlp.get_pipe("web_risk")(make_doc(nlp))


def web_scores(doc):
    return {(s.text, s.start_char): (s._.risk or {}).get("web") for s in doc.spans[SPANS_KEY]}


def host(server):
    return "searxng " + server.url.split("//")[1]


def reason(query, n=1):
    return f"web search: {n} result URL{'s' if n != 1 else ''} for {query} shared with the person to protect"


def page_one_queries(server):
    return [r["query"] for r in server.received if r["page"] == 1]


@pytest.fixture
def canned(search_server):
    search_server.results.update(CANNED)
    return search_server


ALL_ALONE = [[at("lawyer")], [at("Ankara")], [at("Istanbul")], [at("14 March 2009")], [at("Acme Legal")]]


# --------------------------------------------------------------------------- pure functions


def test_pure_helpers():
    nlp = spacy.blank("en")
    doc = make_doc(nlp)
    entities = group_entities(doc.spans[SPANS_KEY])
    assert [e.key for e in entities][:3] == ["PERSON-1", f"@{at('lawyer')[0]}:{at('lawyer')[1]}", "LOC-1"]
    org = [e for e in entities if e.key == "ORG-1"][0]
    assert org.surface == "Acme Legal" and org.representative.text == "Acme Legal"
    assert choose_person(doc.spans[SPANS_KEY]).key == "PERSON-1"
    # a tie goes to the first in the text
    tie = make_doc(nlp, spans=[("Galip Yalman", 0, "PERSON", "P-A"), ("Ayse Demir", 0, "PERSON", "P-B")])
    assert choose_person(tie.spans[SPANS_KEY]).key == "P-A"
    assert format_query(["Galip Yalman", "Ankara"]) == '"Galip Yalman" AND "Ankara"'
    assert normalize_url("HTTPS://News.Example/p1/#top") == "https://news.example/p1"


def test_algorithm_on_a_dict_backend():
    def search(query):
        return {normalize_url(u) for u in CANNED.get(query, [])}

    result = find_risky_combinations(
        ["lawyer", "Ankara", "Istanbul", "14 March 2009", "Acme Legal"], "Galip Yalman", search, max_arity=2
    )
    assert [(c.combo, c.risky, c.shared) for c in result.combos] == [
        ((0,), False, 0),
        ((1,), True, 1),
        ((2,), False, 0),
        ((3,), True, 1),
        ((4,), False, 0),
        ((0, 2), True, 1),
        ((0, 4), False, 0),
        ((2, 4), True, 1),
    ]
    assert len(result.person_urls) == 7


# --------------------------------------------------------------------------- end to end


def test_risky_sets_scores_and_queries(canned):
    nlp = pipeline(canned.url)
    doc = run(nlp)
    assert doc._.risky_sets == [
        {"measure": "web", "spans": [at("Ankara")], "reason": reason('"Ankara"')},
        {"measure": "web", "spans": [at("14 March 2009")], "reason": reason('"14 March 2009"')},
        {"measure": "web", "spans": [at("lawyer"), at("Istanbul")], "reason": reason('"lawyer" AND "Istanbul"')},
        {
            "measure": "web",
            "spans": [at("Istanbul"), at("Acme Legal")],
            "reason": reason('"Istanbul" AND "Acme Legal"'),
        },
    ]
    assert doc._.sanitize_errors is None
    scores = web_scores(doc)
    assert scores[("Galip Yalman", 0)] is None and scores[("Ayse Demir", at("Ayse Demir")[0])] is None
    assert scores[("lawyer", at("lawyer")[0])] == pytest.approx(1 / 7)
    assert scores[("Ankara", at("Ankara")[0])] == scores[("Ankara", at("Ankara", 1)[0])] == 1.0
    assert scores[("Istanbul", at("Istanbul")[0])] == 0.0
    assert scores[("14 March 2009", at("14 March 2009")[0])] == 1.0
    assert scores[("Acme Legal", at("Acme Legal")[0])] == scores[("Acme", at("Acme", 1)[0])] == pytest.approx(2 / 7)
    queries = page_one_queries(canned)
    # the person, 5 entities and 3 pairs (pairs with Ankara or the date are pruned), each also with the person
    assert len(queries) == len(set(queries)) == 1 + 2 * 5 + 2 * 3
    assert queries[0] == '"Galip Yalman"'
    assert '"lawyer" AND "Ankara"' not in queries


def test_without_pruning_every_pair_is_searched(canned):
    doc = run(pipeline(canned.url, prune_supersets=False))
    assert len(page_one_queries(canned)) == 1 + 2 * (5 + 10)
    # the server knows no page for pairs with Ankara or the date: same sets as with pruning
    assert [s["spans"] for s in doc._.risky_sets] == [
        [at("Ankara")],
        [at("14 March 2009")],
        [at("lawyer"), at("Istanbul")],
        [at("Istanbul"), at("Acme Legal")],
    ]


def test_fixed_person_and_labels(canned):
    doc = run(pipeline(canned.url, person="Galip Yalman", labels=["LOC"]))
    assert doc._.risky_sets == [{"measure": "web", "spans": [at("Ankara")], "reason": reason('"Ankara"')}]
    assert page_one_queries(canned) == [
        '"Galip Yalman"',
        '"Ankara"',
        '"Galip Yalman" AND "Ankara"',
        '"Istanbul"',
        '"Galip Yalman" AND "Istanbul"',
    ]


@pytest.mark.parametrize(
    "mode,detail",
    [
        ("500", "HTTP 500 (2 attempts)"),
        ("hang", "timeout after 0.3 s (2 attempts)"),
        ("close", "connection failed (closed without a response) (2 attempts)"),
        ("html", "response is HTML, not JSON"),
        ("truncated", "response is invalid JSON (Unterminated string starting at)"),
        ("wrong_shape", "unexpected response shape (no results list)"),
        ("not_listening", "connection failed (connection refused) (2 attempts)"),
    ],
)
def test_person_search_failure_fails_closed(search_server, mode, detail):
    if mode == "not_listening":
        url = f"http://127.0.0.1:{free_port()}"
        label = "searxng " + url.split("//")[1]
    else:
        search_server.always = mode
        url, label = search_server.url, host(search_server)
    nlp = pipeline(url)
    start = time.monotonic()
    doc = run(nlp)
    elapsed = time.monotonic() - start
    assert elapsed < 1.5  # at most 2 timeouts of 0.3 s
    expected = f"web search failed: {label}: {detail}, counted as risky"
    assert [s["spans"] for s in doc._.risky_sets] == ALL_ALONE
    assert {s["reason"] for s in doc._.risky_sets} == {expected}
    assert doc._.sanitize_errors == [
        f"web_risk: web search for the person to protect failed ({label}: "
        f"{detail}); all 5 candidate entities counted as risky"
    ]
    assert all(span._.risk == {"web": 1.0} for span in doc.spans[SPANS_KEY] if span.label_ != "PERSON")


def test_one_failing_combination_counts_as_risky(canned):
    canned.fail_queries['"lawyer" AND "Acme Legal"'] = "500"
    doc = run(pipeline(canned.url))
    failed = f"web search failed: {host(canned)}: HTTP 500 (2 attempts), counted as risky"
    # without person + lawyer + Acme Legal, p7 is not among the person's URLs: Istanbul + Acme Legal is safe
    assert doc._.risky_sets == [
        {"measure": "web", "spans": [at("Ankara")], "reason": reason('"Ankara"')},
        {"measure": "web", "spans": [at("14 March 2009")], "reason": reason('"14 March 2009"')},
        {"measure": "web", "spans": [at("lawyer"), at("Istanbul")], "reason": reason('"lawyer" AND "Istanbul"')},
        {"measure": "web", "spans": [at("lawyer"), at("Acme Legal")], "reason": failed},
    ]
    assert doc._.sanitize_errors == [
        f"web_risk: web search failed for 1 of 8 combinations ({host(canned)}: HTTP 500 (2 attempts)); counted as risky"
    ]
    assert web_scores(doc)[("lawyer", at("lawyer")[0])] == pytest.approx(1 / 6)


def test_query_budget(canned):
    doc = run(pipeline(canned.url, max_queries=5))
    exhausted = "web search failed: query budget of 5 per document exhausted, counted as risky"
    assert doc._.risky_sets == [
        {"measure": "web", "spans": [at("Ankara")], "reason": reason('"Ankara"')},
        {"measure": "web", "spans": [at("Istanbul")], "reason": exhausted},
        {"measure": "web", "spans": [at("14 March 2009")], "reason": exhausted},
        {"measure": "web", "spans": [at("Acme Legal")], "reason": exhausted},
    ]
    assert doc._.sanitize_errors == [
        "web_risk: web search failed for 3 of 5 combinations "
        "(query budget of 5 per document exhausted); counted as risky"
    ]
    assert len(page_one_queries(canned)) == 5


def test_time_budget_bounds_a_hanging_search(canned):
    canned.fail_queries['"Istanbul"'] = "hang"
    nlp = pipeline(canned.url, http={"timeout_s": 5.0, "max_retries": 3}, time_budget_s=0.5)
    start = time.monotonic()
    doc = run(nlp)
    assert time.monotonic() - start < 1.0
    sets = doc._.risky_sets
    assert [s["spans"] for s in sets] == [[at("Ankara")], [at("Istanbul")], [at("14 March 2009")], [at("Acme Legal")]]
    assert sets[1]["reason"].startswith(f"web search failed: {host(canned)}: ")
    assert "time budget" in sets[1]["reason"] or "timeout" in sets[1]["reason"]
    assert (
        sets[2]["reason"]
        == sets[3]["reason"]
        == "web search failed: time budget of 0.5 s per document exhausted, counted as risky"
    )
    assert doc._.sanitize_errors[-1] == (
        "web_risk: web search failed for 2 of 5 combinations (time budget "
        "of 0.5 s per document exhausted); counted as risky"
    )


def test_no_client_fails_closed_and_warns_once(caplog):
    caplog.set_level(logging.WARNING)
    nlp = pipeline()
    assert nlp.config["components"]["web_risk"]["client"] is None
    docs = list(map(nlp.get_pipe("web_risk"), [make_doc(nlp), make_doc(nlp)]))
    for doc in docs:
        assert [s["spans"] for s in doc._.risky_sets] == ALL_ALONE
        assert {s["reason"] for s in doc._.risky_sets} == {"no web search backend configured, counted as risky"}
        assert doc._.sanitize_errors == [
            "web_risk: no web search backend configured; all 5 candidate entities counted as risky"
        ]
    warnings = [r for r in caplog.records if "no web search backend configured" in r.getMessage()]
    assert len(warnings) == 1


def test_no_person_no_search_and_the_report_says_so(canned):
    nlp = pipeline(canned.url)
    doc = make_doc(nlp, spans=[s for s in SPANS if s[2] != "PERSON"])
    doc = nlp.get_pipe("web_risk")(doc)
    assert doc._.risky_sets is None
    assert doc._.sanitize_errors == ["web_risk: no person to protect found; web risk not assessed"]
    assert canned.count == 0
    # the spans stay unassessed, so mask_optimizer's default masks them (fail closed)
    doc = nlp.add_pipe("mask_optimizer", config={"direct_labels": []})(doc)
    assert all(s._.masked for s in doc.spans["textsan"])


def test_same_output_with_cache_and_no_requests_on_rerun(canned, tmp_path):
    cache = {"cache_path": str(tmp_path / "web.sqlite")}
    first = pipeline(canned.url, client=cache)
    docs = list(map(first.get_pipe("web_risk"), [make_doc(first) for _ in range(2)]))
    sent = canned.count
    assert docs[0]._.risky_sets == docs[1]._.risky_sets
    assert sent == 17 + 13  # 17 queries; 13 of them have results, so an (empty) second page is asked
    second = pipeline(canned.url, client=cache)
    again = second.get_pipe("web_risk")(make_doc(second))
    assert again._.risky_sets == docs[0]._.risky_sets
    assert web_scores(again) == web_scores(docs[0])
    assert canned.count == sent


def test_a_crashing_client_never_crashes_the_pipeline():
    class Broken:
        def search(self, query):
            if query == '"Galip Yalman"':
                return ["https://a.example/"]
            raise RuntimeError(f"boom with {SECRET}")

    nlp = spacy.blank("en")
    component = WebRisk(client=Broken())
    doc = component(make_doc(nlp))
    assert {s["reason"] for s in doc._.risky_sets} == {
        "web search failed: client error (RuntimeError), counted as risky"
    }
    assert doc._.sanitize_errors == [
        "web_risk: web search failed for 5 of 5 combinations (client error (RuntimeError)); counted as risky"
    ]

    class NotAList:
        def search(self, query):
            return "https://a.example/"

    doc = WebRisk(client=NotAList())(make_doc(nlp))
    assert "client returned something other than a list of URLs" in doc._.sanitize_errors[0]


def test_api_key_never_in_reasons_errors_or_logs(search_server, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("TEXTSAN_WEB_KEY", SECRET)
    search_server.always = "503"
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "web_risk",
        config={
            "client": {
                "@misc": "spacy_textsan.json_search_client.v2",
                "url": search_server.url + "/v1/find?query={query}&k={api_key}",
                "headers": {"X-Api-Key": "{api_key}"},
                "api_key_env": "TEXTSAN_WEB_KEY",
                "results_path": "data.items",
                "http": {"@misc": "spacy_textsan.http_settings.v1", **FAST},
            }
        },
    )
    doc = run(nlp)
    assert search_server.received[0]["headers"]["X-Api-Key"] == SECRET
    assert search_server.received[0]["params"]["k"] == SECRET
    assert doc._.sanitize_errors and all(SECRET not in e for e in doc._.sanitize_errors)
    assert all(SECRET not in s["reason"] for s in doc._.risky_sets)
    assert "HTTP 503 (2 attempts)" in doc._.sanitize_errors[0]
    assert not [r for r in caplog.records if SECRET in r.getMessage()]


def test_config_validation():
    with pytest.raises(ValueError, match="max_arity"):
        WebRisk(max_arity=0)
    with pytest.raises(ValueError, match="client must have a search"):
        WebRisk(client=object())
    with pytest.raises(SearchError):
        raise SearchError("x")
