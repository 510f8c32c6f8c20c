"""Search clients against a local server (tests/web_server.py); no network."""

import logging
import pickle
import random
import time

import pytest
import spacy
from web_server import free_port, search_server  # noqa: F401  (fixture)

from spacy_textsan.http import backoff_delay, normalize_query, parse_retry_after
from spacy_textsan.risk.search_client import DEFAULT_USER_AGENT, SearchCache, SearchError
from spacy_textsan.risk.search_templates import fill_template, resolve_path
from spacy_textsan.risk.web_search import JsonHttpClient, SearxngClient

FAST = dict(timeout_s=0.3, max_retries=0, backoff_s=0.01, jitter=0.0, min_interval_s=0.0)
SECRET = "sk-TEST-abc123/+=SECRET"


def searx(server, **kw):
    return SearxngClient(server.url, **{**FAST, **kw})


def urls(prefix, n):
    return [f"https://{prefix}.example/{i}" for i in range(n)]


# --------------------------------------------------------------------------- pure helpers


def test_resolve_path_dotted_and_pointer():
    data = {"web": {"results": [{"url": "u0"}, {"url": "u1"}]}, "a/b": {"~x": 1}}
    assert resolve_path(data, "web.results.1.url") == "u1"
    assert resolve_path(data, "/web/results/0/url") == "u0"
    assert resolve_path(data, "/a~1b/~0x") == 1
    assert resolve_path(data, "") is data
    with pytest.raises(KeyError):
        resolve_path(data, "items")
    with pytest.raises(TypeError):
        resolve_path(data, "web.results.0.url.x")


def test_parse_retry_after():
    assert parse_retry_after("1") == 1.0
    assert parse_retry_after(" 2.5 ") == 2.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == pytest.approx(10.0)


def test_backoff_is_exponential_capped_and_seeded():
    assert [backoff_delay(i, 0.5, 3.0, 0.0, None) for i in range(4)] == [0.5, 1.0, 2.0, 3.0]
    a = [backoff_delay(i, 0.5, 8.0, 0.5, random.Random(7)) for i in range(3)]
    b = [backoff_delay(i, 0.5, 8.0, 0.5, random.Random(7)) for i in range(3)]
    assert a == b and all(0.5 * 2**i <= d <= 0.75 * 2**i for i, d in enumerate(a))


def test_normalize_query_and_fill_template():
    assert normalize_query("  ANKARA\n  Lawyer ") == "ankara lawyer"
    assert (
        fill_template("x?q={query}&k={other}", {"query": '"a" & b'}, encode=True) == "x?q=%22a%22%20%26%20b&k={other}"
    )


# --------------------------------------------------------------------------- SearXNG


def test_searxng_pages_until_n_results(search_server):
    search_server.results["Ankara"] = urls("a", 25)
    client = searx(search_server, n_results=22)
    assert client.search("Ankara") == urls("a", 25)[:22]
    got = search_server.received
    assert [r["page"] for r in got] == [1, 2, 3]
    assert all(r["path"] == "/search" and r["params"]["format"] == "json" and r["params"]["q"] == "Ankara" for r in got)
    assert got[0]["headers"]["User-Agent"] == DEFAULT_USER_AGENT
    assert DEFAULT_USER_AGENT.startswith("spacy-textsan/")


def test_searxng_stops_at_first_page_or_empty_page(search_server):
    search_server.results["q"] = urls("a", 25)
    assert searx(search_server, n_results=10).search("q") == urls("a", 10)
    assert search_server.count == 1
    assert searx(search_server, n_results=50).search("q") == urls("a", 25)
    assert search_server.count == 1 + 4  # pages 1-3, then the empty page 4


def test_searxng_dedupes_and_honours_max_pages_and_params(search_server):
    search_server.results["q"] = ["https://x.example/1", "https://x.example/1"] + urls("b", 30)
    client = searx(search_server, n_results=50, max_pages=2, params={"language": "en"})
    out = client.search("q")
    assert out == ["https://x.example/1"] + urls("b", 18)
    assert search_server.count == 2
    assert search_server.received[0]["params"]["language"] == "en"


def test_searxng_all_engines_unresponsive_is_an_error(search_server):
    search_server.always = "unresponsive"
    with pytest.raises(SearchError, match=r"no results and unresponsive engines \(google\)"):
        searx(search_server).search("q")


def test_searxng_empty_result_is_not_an_error(search_server):
    assert searx(search_server).search("nothing") == []


# --------------------------------------------------------------------------- generic JSON client


def test_json_client_url_template_headers_and_env_key(search_server, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("TEXTSAN_TEST_KEY", SECRET)
    query = '"Galip Yalman" AND "a&b"'
    search_server.results[query] = urls("g", 15)
    client = JsonHttpClient(
        search_server.url + "/v1/find?query={query}&page={page}",
        headers={"Authorization": "Bearer {api_key}", "X-Client": "textsan"},
        api_key_env="TEXTSAN_TEST_KEY",
        results_path="data.items",
        url_field="link",
        n_results=15,
        page_size=10,
        **FAST,
    )
    assert client.search(query) == urls("g", 15)
    got = search_server.received
    assert [(r["query"], r["page"]) for r in got] == [(query, 1), (query, 2)]
    assert got[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert got[0]["headers"]["X-Client"] == "textsan"
    assert SECRET not in repr(client)
    assert not [r for r in caplog.records if SECRET in r.getMessage()]


def test_api_key_in_url_never_logged_nor_in_errors(search_server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    key_file = tmp_path / "key.txt"
    key_file.write_text(SECRET + "\n")
    client = JsonHttpClient(
        search_server.url + "/v1/find",
        params={"query": "{query}", "key": "{api_key}"},
        api_key_file=str(key_file),
        results_path="/data/items",
        **{**FAST, "max_retries": 1},
    )
    search_server.results["x"] = ["https://ok.example/"]
    assert client.search("x") == ["https://ok.example/"]
    assert search_server.received[0]["params"]["key"] == SECRET
    search_server.always = "500"
    with pytest.raises(SearchError) as err:
        client.search("y")
    search_server.always = "hang"
    with pytest.raises(SearchError) as err2:
        client.search("z")
    for message in (str(err.value), str(err2.value), err.value.reason):
        assert SECRET not in message
    assert err.value.__context__ is None and err2.value.__context__ is None  # no chained requests error
    assert caplog.records, "urllib3 debug lines were expected"
    leaked = [
        r.getMessage()
        for r in caplog.records
        if SECRET in r.getMessage() or "sk-TEST-abc123%2F%2B%3DSECRET" in r.getMessage()
    ]
    assert leaked == []


def test_json_client_post_body(search_server):
    search_server.results["Ankara"] = urls("p", 3)
    client = JsonHttpClient(
        search_server.url + "/v1/find",
        method="POST",
        json_body={"query": "{query}", "page": 1, "opts": {"lang": "en"}},
        results_path="data.items",
        **FAST,
    )
    assert client.search("Ankara") == urls("p", 3)
    assert search_server.received[0]["body"] == {"query": "Ankara", "page": 1, "opts": {"lang": "en"}}


def test_json_client_config_errors_and_missing_key(search_server, monkeypatch):
    monkeypatch.delenv("TEXTSAN_MISSING_KEY", raising=False)
    with pytest.raises(ValueError, match="query"):
        JsonHttpClient(search_server.url + "/v1/find")
    with pytest.raises(ValueError, match="api_key_env"):
        JsonHttpClient(search_server.url + "/v1/find?q={query}&k={api_key}")
    with pytest.raises(ValueError, match="GET or POST"):
        JsonHttpClient(search_server.url + "/v1/find?q={query}", method="PUT")
    client = JsonHttpClient(
        search_server.url + "/v1/find?q={query}&k={api_key}", api_key_env="TEXTSAN_MISSING_KEY", **FAST
    )
    with pytest.raises(SearchError, match="TEXTSAN_MISSING_KEY is not set"):
        client.search("x")
    assert search_server.count == 0


def test_json_client_missing_results_list(search_server):
    client = JsonHttpClient(search_server.url + "/v1/find?query={query}", results_path="items", **FAST)
    with pytest.raises(SearchError, match="unexpected response shape"):
        client.search("x")  # the server answers {"data": {...}}: no "items"
    lenient = JsonHttpClient(
        search_server.url + "/v1/find?query={query}", results_path="items", allow_missing_results=True, **FAST
    )
    assert lenient.search("x") == []


# --------------------------------------------------------------------------- failures and retries


def test_retries_then_success(search_server):
    search_server.results["q"] = urls("r", 2)
    search_server.script = ["500", "503", "close", "short_body"]
    client = searx(search_server, max_retries=4)
    assert client.search("q") == urls("r", 2)
    assert search_server.count == 5 + 1  # 4 failures, the page, the empty page 2


def test_retries_exhausted(search_server):
    search_server.always = "500"
    with pytest.raises(SearchError) as err:
        searx(search_server, max_retries=2).search("q")
    assert err.value.reason == f"searxng 127.0.0.1:{search_server.url.rsplit(':', 1)[1]}: HTTP 500 (3 attempts)"
    assert search_server.count == 3


def test_client_errors_are_not_retried(search_server):
    search_server.always = "401"
    with pytest.raises(SearchError, match=r": HTTP 401$"):
        searx(search_server, max_retries=3).search("q")
    assert search_server.count == 1


def test_retry_after_is_honoured(search_server):
    search_server.results["q"] = urls("r", 1)
    search_server.script = ["429"]
    search_server.retry_after = "1"
    start = time.monotonic()
    assert searx(search_server, max_retries=1).search("q") == urls("r", 1)
    elapsed = time.monotonic() - start
    first, second = search_server.received[:2]
    assert 0.95 <= second["time"] - first["time"] < 1.5
    assert elapsed < 2.0


def test_retry_after_beyond_cap_fails_at_once(search_server):
    search_server.always = "503"
    search_server.retry_after = "120"
    start = time.monotonic()
    with pytest.raises(SearchError, match=r"HTTP 503, Retry-After 120 s exceeds the cap of 30 s"):
        searx(search_server, max_retries=3).search("q")
    assert search_server.count == 1 and time.monotonic() - start < 0.5


def test_hang_times_out(search_server):
    search_server.always = "hang"
    start = time.monotonic()
    with pytest.raises(SearchError, match=r"timeout after 0.3 s \(2 attempts\)$"):
        searx(search_server, max_retries=1).search("q")
    assert 0.55 < time.monotonic() - start < 1.5


def test_deadline_bounds_a_search(search_server):
    search_server.always = "hang"
    client = searx(search_server, timeout_s=5.0, max_retries=5)
    start = time.monotonic()
    with pytest.raises(SearchError, match="time budget exhausted|timeout"):
        client.search("q", deadline=time.monotonic() + 0.3)
    assert time.monotonic() - start < 0.8


def test_connection_closed_without_response(search_server):
    search_server.always = "close"
    with pytest.raises(SearchError, match=r"connection failed \(closed without a response\) \(1 attempt\)"):
        searx(search_server).search("q")


def test_nothing_listening():
    client = SearxngClient(f"http://127.0.0.1:{free_port()}", **{**FAST, "max_retries": 1})
    start = time.monotonic()
    with pytest.raises(SearchError, match=r"connection failed \(connection refused\) \(2 attempts\)"):
        client.search("q")
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize(
    "mode,message",
    [
        ("truncated", r"response is invalid JSON \("),
        ("wrong_shape", r"unexpected response shape \(no results list\)"),
        ("no_url", r"unexpected response shape \(result without url\)"),
        ("html", r"response is HTML, not JSON"),
    ],
)
def test_malformed_bodies_fail_without_retry(search_server, mode, message):
    search_server.always = mode
    with pytest.raises(SearchError, match=message):
        searx(search_server, max_retries=2).search("q")
    assert search_server.count == 1


def test_truncated_transfer_is_retried_then_fails(search_server):
    search_server.always = "short_body"
    with pytest.raises(SearchError, match=r"connection closed before the body was complete \(2 attempts\)"):
        searx(search_server, max_retries=1).search("q")
    assert search_server.count == 2


def test_response_size_cap(search_server):
    search_server.results["q"] = urls("big", 10)
    with pytest.raises(SearchError, match="larger than 100 bytes"):
        searx(search_server, max_response_bytes=100).search("q")


# --------------------------------------------------------------------------- rate limit, cache


def test_rate_limit_spaces_requests(search_server):
    client = searx(search_server, min_interval_s=0.15)
    for q in ("a", "b", "c"):
        client.search(q)
    times = [r["time"] for r in search_server.received]
    assert all(b - a >= 0.14 for a, b in zip(times, times[1:], strict=False))


def test_cache_hits_avoid_requests_and_survive_a_new_client(search_server, tmp_path):
    path = str(tmp_path / "cache" / "search.sqlite")
    search_server.results["Ankara"] = urls("c", 3)
    assert searx(search_server, cache_path=path).search("Ankara") == urls("c", 3)
    assert search_server.count == 2  # the page, then the empty page 2
    fresh = searx(search_server, cache_path=path)
    assert fresh.search("  ankara ") == urls("c", 3)
    assert search_server.count == 2 and fresh.requests_sent == 0
    # other settings, other namespace
    searx(search_server, cache_path=path, n_results=2).search("Ankara")
    assert search_server.count == 3


def test_failures_are_not_cached(search_server, tmp_path):
    path = str(tmp_path / "c.sqlite")
    client = searx(search_server, cache_path=path)
    search_server.script = ["500"]
    with pytest.raises(SearchError):
        client.search("q")
    search_server.results["q"] = urls("ok", 1)
    assert client.search("q") == urls("ok", 1)
    assert client.search("q") == urls("ok", 1)
    assert search_server.count == 1 + 2


def test_cache_ttl_and_hashed_keys(tmp_path):
    now = [1000.0]
    cache = SearchCache(str(tmp_path / "c.sqlite"), ttl_s=60, now=lambda: now[0])
    cache.set("ns", "Galip Yalman", ["https://a.example/"])
    assert cache.get("ns", "galip  yalman") == ["https://a.example/"]
    assert cache.get("other", "Galip Yalman") is None
    now[0] += 61
    assert cache.get("ns", "Galip Yalman") is None
    cache.close()
    assert b"Galip" not in (tmp_path / "c.sqlite").read_bytes()


def test_broken_cache_file_is_a_miss_not_a_failure(search_server, tmp_path):
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    search_server.results["q"] = urls("b", 1)
    client = searx(search_server, cache_path=str(path))
    assert client.search("q") == urls("b", 1)
    assert client.search("q") == urls("b", 1)
    assert search_server.count == 2 * 2


# --------------------------------------------------------------------------- registry, pickling


def test_registered_factories(search_server, monkeypatch):
    monkeypatch.setenv("K", "v")
    resolved = spacy.registry.resolve(
        {
            "a": {"@misc": "spacy_textsan.searxng_client.v2", "base_url": search_server.url, "n_results": 5},
            "b": {
                "@misc": "spacy_textsan.json_search_client.v2",
                "url": search_server.url + "/v1/find",
                "params": {"query": "{query}", "key": "{api_key}"},
                "api_key_env": "K",
                "results_path": "data.items",
            },
        }
    )
    assert isinstance(resolved["a"], SearxngClient) and resolved["a"].n_results == 5
    assert isinstance(resolved["b"], JsonHttpClient) and resolved["b"].results_path == "data.items"


def test_client_pickles_for_multiprocessing(search_server, tmp_path):
    search_server.results["q"] = urls("p", 2)
    client = searx(search_server, cache_path=str(tmp_path / "c.sqlite"))
    client.search("q")
    clone = pickle.loads(pickle.dumps(client))
    assert clone.search("q") == urls("p", 2)
    assert search_server.count == 2
