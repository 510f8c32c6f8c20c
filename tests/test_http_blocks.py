"""The HTTP settings as a config block (``spacy_textsan.http_settings.v1``), the
clients of version 2 that take it, those of version 1 built on them, and the
one :class:`~spacy_textsan.http.Request` that carries a request down to the
transport (servers on 127.0.0.1: tests/web_server.py, tests/wikidata_server.py)."""

import pytest
import spacy
from thinc.api import Config
from web_server import search_server  # noqa: F401  (fixture)
from wikidata_server import wikidata_server  # noqa: F401  (fixture)

from spacy_textsan.detect.gazetteer.wikidata_client import DEFAULT_HTTP, SPARQL_ACCEPT, WikidataClient
from spacy_textsan.http import HttpSettings, HttpTransport, Request
from spacy_textsan.risk.web_search import JsonHttpClient, SearxngClient

HTTP = {"timeout_s": 3, "max_retries": 4, "backoff_s": 0.25, "min_interval_s": 0, "user_agent": "me/1.0"}
#: per client: its v1 block, and the same client as a v2 block with an http_settings.v1 block
CLIENTS = {
    "searxng": (
        {"@misc": "spacy_textsan.searxng_client.v1", "base_url": "http://127.0.0.1:9", "n_results": 7, "jitter": 0.0}
        | {**HTTP, "headers": {"X-Team": "a"}},
        {
            "@misc": "spacy_textsan.searxng_client.v2",
            "base_url": "http://127.0.0.1:9",
            "n_results": 7,
            "http": {"@misc": "spacy_textsan.http_settings.v1", "jitter": 0.0, **HTTP, "headers": {"X-Team": "a"}},
        },
    ),
    "json": (
        {"@misc": "spacy_textsan.json_search_client.v1", "url": "http://127.0.0.1:9/?q={query}", "seed": 5, **HTTP},
        {
            "@misc": "spacy_textsan.json_search_client.v2",
            "url": "http://127.0.0.1:9/?q={query}",
            "http": {"@misc": "spacy_textsan.http_settings.v1", "seed": 5, **HTTP},
        },
    ),
    "wikidata": (
        {"@misc": "spacy_textsan.wikidata_client.v1", "language": "nb", **HTTP},
        {
            "@misc": "spacy_textsan.wikidata_client.v2",
            "language": "nb",
            "http": {"@misc": "spacy_textsan.http_settings.v1", **HTTP},
        },
    ),
}


def resolve(block: dict):
    return spacy.registry.resolve(Config({"client": block}))["client"]


def test_the_settings_block_builds_with_its_defaults():
    assert resolve({"@misc": "spacy_textsan.http_settings.v1"}) == HttpSettings()
    filled = spacy.registry.fill(Config({"http": {"@misc": "spacy_textsan.http_settings.v1"}}))["http"]
    assert {k: v for k, v in filled.items() if not k.startswith("@")} == vars(HttpSettings())
    assert resolve({"@misc": "spacy_textsan.http_settings.v1", "timeout_s": 2, "headers": {"A": "b"}}) == HttpSettings(
        timeout_s=2.0, headers={"A": "b"}
    )


@pytest.mark.parametrize("kind", sorted(CLIENTS))
def test_v1_and_v2_from_config_give_equal_settings(kind):
    v1, v2 = CLIENTS[kind]
    old, new = resolve(v1), resolve(v2)
    assert type(old) is type(new)
    assert old.http == new.http
    assert old.http.timeout_s == 3.0 and old.http.max_retries == 4 and old.http.user_agent == "me/1.0"


@pytest.mark.parametrize("kind", sorted(CLIENTS))
def test_v1_and_v2_defaults_are_equal(kind):
    v1, v2 = CLIENTS[kind]
    required = {k: v for k, v in v1.items() if k in ("@misc", "base_url", "url")}
    old = resolve(required)
    new = resolve({**required, "@misc": v2["@misc"]})
    assert old.http == new.http
    assert (old.http.min_interval_s == DEFAULT_HTTP.min_interval_s) is (kind == "wikidata")


def test_v1_keeps_its_keys_and_no_others():
    filled = spacy.registry.fill(Config({"c": {"@misc": "spacy_textsan.wikidata_client.v1"}}))["c"]
    http_keys = {"timeout_s", "max_retries", "backoff_s", "retry_after_max_s", "min_interval_s", "user_agent"}
    assert http_keys <= set(filled) and "http" not in filled and "jitter" not in filled
    assert filled["min_interval_s"] == 0.2 and filled["user_agent"] is None
    with pytest.raises(ValueError, match="unexpected argument: 'max_response_bytes'"):
        resolve({"@misc": "spacy_textsan.searxng_client.v1", "base_url": "http://x", "max_response_bytes": 3})
    with pytest.raises(ValueError, match="searxng client: timeout_s must be positive"):
        resolve({"@misc": "spacy_textsan.searxng_client.v1", "base_url": "http://x", "timeout_s": 0})


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Request]]:
    """Every Request that reaches a transport's HTTP exchange, with the transport's label."""
    seen: list[tuple[str, Request]] = []
    exchange = HttpTransport._send

    def spy(self, request, timeout):
        seen.append((self.label, request))
        return exchange(self, request, timeout)

    monkeypatch.setattr(HttpTransport, "_send", spy)
    return seen


def test_the_request_reaches_the_transport(search_server, sent):  # noqa: F811
    search_server.results["Ada Lee"] = ["https://a.example/1"]
    http = HttpSettings(timeout_s=2, max_retries=0, min_interval_s=0, headers={"X-Team": "a"})
    client = SearxngClient(search_server.url, params={"language": "en"}, n_results=1, http=http)
    assert client.search("Ada Lee", deadline=1e12) == ["https://a.example/1"]
    [(label, request)] = sent
    assert label == client.label
    assert request == Request(
        "GET",
        search_server.url + "/search",
        params={"language": "en", "q": "Ada Lee", "format": "json", "pageno": 1},
        deadline=1e12,
    )
    [received] = search_server.received
    assert received["params"] == {"language": "en", "q": "Ada Lee", "format": "json", "pageno": "1"}
    assert received["headers"]["X-Team"] == "a"


def test_a_post_request_carries_its_body_and_headers(search_server, sent):  # noqa: F811
    search_server.results["Ada"] = ["https://b.example/1"]
    client = JsonHttpClient(
        search_server.url + "/v1/find",
        method="POST",
        headers={"X-Q": "{query}"},
        json_body={"query": "{query}", "page": "{page}"},
        results_path="data.items",
        http=HttpSettings(timeout_s=2, max_retries=0, min_interval_s=0),
    )
    assert client.search("Ada") == ["https://b.example/1"]
    request = sent[0][1]
    assert (request.method, request.headers, request.json_body) == (
        "POST",
        {"X-Q": "Ada"},
        {"query": "Ada", "page": "1"},
    )
    assert request.deadline is None
    assert search_server.received[0]["body"] == {"query": "Ada", "page": "1"}


def test_wikidata_requests_reach_their_transports(wikidata_server, sent):  # noqa: F811
    client = WikidataClient(
        wikidata_server.api_url, wikidata_server.sparql_url, http=HttpSettings(max_retries=0, min_interval_s=0)
    )
    client.relations("Q585", deadline=1e12)
    [(label, request)] = sent
    assert label.startswith("wikidata-sparql ") and request.url == wikidata_server.sparql_url
    assert request.headers == {"Accept": SPARQL_ACCEPT} and request.deadline == 1e12
    assert request.params is not None and "wd:Q585" in request.params["query"]


def test_a_request_shows_only_its_method_and_host():
    request = Request(
        "POST",
        "https://user:pw@search.example.org/api/KEY-123?token=KEY-456",
        params={"q": "Galip Yalman"},
        headers={"Authorization": "Bearer KEY-789"},
        json_body={"query": "Galip Yalman Ankara"},
    )
    assert repr(request) == str(request) == "Request(POST search.example.org)"
