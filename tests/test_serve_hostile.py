"""``textsan serve`` under hostile input (issue 25): patterns that backtrack,
work past the request timeout, text that is not valid Unicode, bodies nested
too deep, wrongly typed reports, bad mask formats, unsupported languages.
The service never freezes and never answers 500 for client input: each refusal
has its exact status and a one-line message naming the field, and nothing of
the original text comes back in an error or goes to a log."""

import copy
import hashlib
import json
import logging
import random
import re
import statistics
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from test_serve_api import RULES, TEXT, _free_port, _Server

from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.render.operators import get_operator, span_operator_names, strategy_names
from spacy_textsan.serve.anonymizer import AnonymizeRequest, RecognizerResultIn, anonymize
from spacy_textsan.serve.app import create_app
from spacy_textsan.serve.parsing import MAX_JSON_DEPTH, json_depth
from spacy_textsan.serve.patterns import Utf8Text, compile_pattern, deny_list_matches, deny_list_pattern, matches
from spacy_textsan.serve.review import without_originals
from spacy_textsan.serve.settings import ServeSettings
from spacy_textsan.serve.work import Deadline, Expired

SECRET = "Zebulon Quayle"  # an original that must never come back in an error or go to a log
SURROGATE = "\ud800"


@pytest.fixture(scope="module")
def rules():
    return load_pipeline(RULES)


@pytest.fixture(scope="module")
def c(rules):
    with TestClient(create_app(rules, ServeSettings(pipeline="rules_only"))) as client:
        yield client


def raw(client, path: str, body: str):
    """POST a body exactly as written (``\\ud800`` stays a JSON escape)."""
    return client.post(path, content=body.encode(), headers={"Content-Type": "application/json"})


def one_line(answer) -> str:
    body = answer.json()
    (message,) = body.values()
    assert isinstance(message, str) and "\n" not in message and "Traceback" not in message
    assert SECRET not in message and "Zebulon" not in message
    return message


# -- patterns: RE2, linear time ----------------------------------------------------------------------


def analyze(client, text: str, **fields):
    return client.post("/analyze", json={"text": text, "language": "en", **fields})


def recognizer(*regexes: str, **fields) -> dict:
    patterns = [{"name": f"p{i}", "regex": r, "score": 0.9} for i, r in enumerate(regexes)]
    return {"name": "mine", "supported_entity": "MINE", "patterns": patterns, **fields}


def test_a_catastrophic_pattern_answers_at_once(c):
    text = "a" * 40 + "!"
    start = time.monotonic()
    r = analyze(c, text, ad_hoc_recognizers=[recognizer("(a+)+$")], entities=["MINE"])
    assert (r.status_code, r.json()) == (200, [])
    assert time.monotonic() - start < 30  # Python's re would take hours
    r = analyze(c, text, ad_hoc_recognizers=[recognizer("(a+)+!")], entities=["MINE"])
    assert [(x["start"], x["end"]) for x in r.json()] == [(0, 41)]


@pytest.mark.parametrize(
    ("regex", "reason"),
    [
        (r"(a)\1", "invalid escape sequence"),
        ("(?=a)b", "invalid perl operator"),
        ("(?<!a)b", "invalid perl operator"),
        ("(", "missing )"),
    ],
)
def test_patterns_re2_cannot_compile_are_refused_naming_the_field(c, regex, reason):
    r = analyze(c, f"{SECRET} a", ad_hoc_recognizers=[recognizer("x", regex)])
    assert r.status_code == 422
    assert one_line(r) == (
        f"body.ad_hoc_recognizers.0.patterns.1.regex: RE2 cannot compile this pattern ({reason}); "
        "RE2 has no backreferences or lookarounds"
    )
    r = analyze(c, SECRET, allow_list=["ok", regex], allow_list_match="regex")
    assert r.status_code == 422
    assert one_line(r).startswith("body.allow_list.1: RE2 cannot compile this pattern (")


def test_regex_flags_are_those_re2_has(c):
    text = "Call ABC-12\nabc-34 now"
    rec = recognizer(r"^abc-\d+")
    got = analyze(c, text, ad_hoc_recognizers=[rec], entities=["MINE"]).json()  # Presidio's default flags
    assert [text[x["start"] : x["end"]] for x in got] == ["abc-34"]
    got = analyze(c, text, ad_hoc_recognizers=[rec], entities=["MINE"], regex_flags=re.MULTILINE).json()
    assert [text[x["start"] : x["end"]] for x in got] == ["abc-34"]
    got = analyze(c, text, ad_hoc_recognizers=[recognizer(r"abc-\d+")], entities=["MINE"], regex_flags=0).json()
    assert [text[x["start"] : x["end"]] for x in got] == ["abc-34"]
    r = analyze(c, text, ad_hoc_recognizers=[rec], regex_flags=re.VERBOSE | re.IGNORECASE)
    assert r.status_code == 422
    assert one_line(r) == (
        "body.regex_flags: a flag RE2 does not have: give a sum of re.IGNORECASE (2), "
        "re.MULTILINE (8), re.DOTALL (16) and re.UNICODE (32)"
    )


def test_deny_lists_match_whole_words_as_presidio_does(c):
    text = "Mail Mail éMail mail_x Ma! ma"
    rec = {"name": "deny", "supported_entity": "DENY", "deny_list": ["Ma", "Mail"]}
    got = analyze(c, text, ad_hoc_recognizers=[rec], entities=["DENY"]).json()
    assert [text[x["start"] : x["end"]] for x in got] == ["Mail", "Mail", "Ma", "ma"]


def _python_deny_list(text: str, terms: list[str], flags: int) -> list[tuple[int, int]]:
    """Presidio's deny-list pattern with Python's re (lookarounds): the reference."""
    pattern = re.compile(rf"(?:^|(?<=\W))({'|'.join(re.escape(t) for t in terms)})(?:(?=\W)|$)", flags)
    return [m.span(1) for m in pattern.finditer(text)]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    text=st.text(alphabet="aAbé_1 -.\n", max_size=30),
    terms=st.lists(st.text(alphabet="aAbé_1 -", min_size=1, max_size=4), min_size=1, max_size=4),
    flags=st.sampled_from([0, re.IGNORECASE, re.IGNORECASE | re.MULTILINE | re.DOTALL]),
)
def test_deny_list_matches_are_those_of_pythons_lookarounds(text, terms, flags):
    pattern = deny_list_pattern(terms, flags)
    assert list(deny_list_matches(pattern, Utf8Text(text), Deadline(60))) == _python_deny_list(text, terms, flags)


def test_matches_give_character_offsets_past_multibyte_characters():
    text = "é😀 ab 😀ab"
    found = list(matches(compile_pattern("ab"), Utf8Text(text), Deadline(60)))
    assert found == [m.span() for m in re.finditer("ab", text)] == [(3, 5), (7, 9)]


# -- a request past its time: 504, and the service keeps answering -------------------------------------


def test_work_past_the_timeout_is_504_while_health_answers(rules):
    """An /analyze whose patterns would take RE2 some 15 s (linear, but a
    thousand scans of a long program): 504 within the timeout (plus slack),
    /health answering within 100 ms all along, and the work stopped at its
    next look at the deadline (the work thread is free again at once)."""
    timeout = 2.0
    settings = ServeSettings(port=_free_port(), timeout_s=timeout, pipeline="rules_only")
    app = create_app(rules, settings)
    rng = random.Random(7)
    text = "".join(rng.choice("ab ") for _ in range(6000))
    body = {
        "text": text,
        "language": "en",
        "ad_hoc_recognizers": [recognizer(*["[ab ]*a[ab ]{500}x"] * 50, name=f"r{i}") for i in range(20)],
    }
    latencies: list[float] = []
    done = threading.Event()
    with _Server(app, settings) as server, httpx.Client(base_url=server.url, timeout=60) as health:
        assert health.get("/health").status_code == 200

        def poll() -> None:
            while not done.is_set():
                start = time.perf_counter()
                assert health.get("/health").status_code == 200
                latencies.append(time.perf_counter() - start)
                time.sleep(0.02)

        poller = threading.Thread(target=poll)
        poller.start()
        try:
            start = time.monotonic()
            r = httpx.post(f"{server.url}/analyze", json=body, timeout=120)
            elapsed = time.monotonic() - start
        finally:
            done.set()
            poller.join(30)
        assert (r.status_code, r.json()) == (
            504,
            {"error": "not answered within the request timeout of 2s; nothing is returned"},
        )
        assert elapsed < timeout + 3.0
        stop_by = time.monotonic() + 5
        while app.state.work.running and time.monotonic() < stop_by:
            time.sleep(0.01)
        assert app.state.work.running == 0  # stopped, not left running for the rest of its 15 s
        assert health.get("/metrics").json()["timeouts"] == 1
    assert len(latencies) >= 10
    assert max(latencies) < 0.1, (statistics.median(latencies), max(latencies))


# -- text that is not valid Unicode ---------------------------------------------------------------------

SURROGATE_BODIES = [
    ("/sanitize", '{"text": "Zebulon Quayle \\ud800"}', 422, "body.text: not valid Unicode: a lone surrogate at character 15"),
    ("/api/sanitize", '{"texts": ["ok", "Zebulon \\udc00 Quayle"]}', 422, "body.texts: item 1: not valid Unicode: a lone surrogate at character 8"),
    ("/sanitize", '{"text": "ok", "mask_format": "[\\ud800]"}', 422, None),
    ("/api/render", '{"text": "Zebulon Quayle \\ud800", "spans": []}', 422, "body.text: not valid Unicode: a lone surrogate at character 15"),
    ("/api/render", '{"text": "Zebulon Quayle", "spans": [{"start": 0, "end": 7, "label": "P\\ud800"}]}', 422, "body.spans.0.label: not valid Unicode: a lone surrogate at character 1"),
    ("/api/export", '{"text": "Zebulon Quayle \\ud800", "spans": []}', 422, "body.text: not valid Unicode: a lone surrogate at character 15"),
    ("/api/export", '{"text": "Zebulon Quayle", "spans": [], "doc_id": "\\udfff"}', 422, "body.doc_id: not valid Unicode: a lone surrogate at character 0"),
    ("/api/report", '{"report_jsonl": "{\\"file\\": \\"Zebulon\\ud800\\"}"}', 422, "body.report_jsonl: not valid Unicode: a lone surrogate at character 17"),
    ("/api/report", '{"report_jsonl": "{}", "sanitized": {"a\\ud800": "Zebulon"}}', 422, "body.sanitized: a key is not valid Unicode (a lone surrogate)"),
    ("/api/report", '{"report_jsonl": "{}", "sanitized": {"a.txt": "Zebulon \\ud800"}}', 422, "body.sanitized: the value of key 0: not valid Unicode: a lone surrogate at character 8"),
    ("/analyze", '{"text": "Zebulon Quayle \\ud800", "language": "en"}', 422, "body.text: not valid Unicode: a lone surrogate at character 15"),
    ("/analyze", '{"text": ["ok", "Zebulon \\ud800"], "language": "en"}', 422, "body.text: item 1: not valid Unicode: a lone surrogate at character 8"),
    ("/analyze", '{"text": "Zebulon", "language": "en", "allow_list": ["\\ud800"]}', 422, "body.allow_list: item 0: not valid Unicode: a lone surrogate at character 0"),
    ("/analyze", '{"text": "Zebulon", "language": "en", "ad_hoc_recognizers": [{"supported_entity": "X", "patterns": [{"regex": "\\ud800"}]}]}', 422, "body.ad_hoc_recognizers.0.patterns.0.regex: not valid Unicode: a lone surrogate at character 0"),
    ("/anonymize", '{"text": "Zebulon Quayle \\ud800", "analyzer_results": []}', 422, "body.text: not valid Unicode: a lone surrogate at character 15"),
    ("/anonymize", '{"text": "Zebulon Quayle", "analyzer_results": [{"start": 0, "end": 7, "entity_type": "P"}], "anonymizers": {"P": {"type": "replace", "new_value": "\\ud800"}}}', 422, "body.anonymizers.<key>.replace.new_value: not valid Unicode: a lone surrogate at character 0"),
    ("/anonymize", '{"text": "Zebulon Quayle", "analyzer_results": [{"start": 0, "end": 7, "entity_type": "P\\ud800"}]}', 422, "body.analyzer_results.0.entity_type: not valid Unicode: a lone surrogate at character 1"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "body", "status", "message"), SURROGATE_BODIES)
def test_lone_surrogates_are_refused_naming_the_field(c, path, body, status, message):
    r = raw(c, path, body)
    assert r.status_code == status
    key = "error" if path in ("/analyze", "/anonymize") else "detail"
    assert list(r.json()) == [key]
    got = one_line(r)
    if message is not None:
        assert got == message
    assert "Quayle" not in r.text


# -- bodies nested too deep --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/sanitize", "/api/render", "/api/export", "/api/report", "/analyze", "/anonymize"])
def test_deep_bodies_are_refused_before_they_are_parsed(c, path):
    deep = "[" * 100_000 + "]" * 100_000
    r = raw(c, path, f'{{"text": "{SECRET}", "x": {deep}}}')
    presidio = path in ("/analyze", "/anonymize")
    assert r.status_code == (400 if presidio else 422)
    expected = "JSON nested 100001 levels deep; at most 64 are accepted"
    assert one_line(r) == (f"Invalid request json: {expected}" if presidio else expected)


def test_json_depth_counts_brackets_outside_strings():
    assert json_depth(b'"x"') == 0
    assert json_depth(b'{"a": [1, {"b": []}]}') == 4
    assert json_depth(b'{"a": "[[[[{{{{", "b": "\\"[[[", "c": "\\\\"}') == 1
    assert json_depth(b"[" * 65 + b"]" * 65) == 65
    body = json.dumps({"report_jsonl": "[" * 1000, "x": [[[]]]}).encode()
    assert json_depth(body) == 4 <= MAX_JSON_DEPTH


# -- reports read back: types and ranges ---------------------------------------------------------------------


def span(start=0, end=7, text="Zebulon", **fields) -> dict:
    return {"start": start, "end": end, "text": text, "label": "PERSON", "masked": True, "replacement": "[P]", **fields}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"spans": 5}', "spans: Input should be a valid array"),
        ('{"spans": [5, "x"]}', "spans.0: Input should be an object (and 1 more)"),
        ('{"spans": [{"start": 0}]}', "spans.0.end: Field required (and 2 more)"),
        (json.dumps({"spans": [span(end=10**23)]}), "spans.0: start and end are not the range of the span's text"),
        ('{"spans": [{"start": 0, "end": 1e23, "text": "Zebulon", "label": "P"}]}', "spans.0.end: Input should be a valid integer"),
        (json.dumps({"spans": [span(start=7, end=3)]}), "spans.0: start and end are not the range of the span's text"),
        (json.dumps({"spans": [span(start=-1, end=6)]}), "spans.0.start: Input should be greater than or equal to 0"),
        (json.dumps({"spans": [span(end=9)]}), "spans.0: start and end are not the range of the span's text"),
        ('{"spans": [{"start": NaN, "end": 7, "text": "Zebulon", "label": "P"}]}', "spans.0.start: Input should be a valid integer"),
        ('{"spans": [{"start": 0, "end": 7, "text": "Zebulon", "label": "P", "risk": {"lm": Infinity}}]}', "spans.0.risk.<key>: Input should be a finite number"),
        ('{"spans": [{"start": 0, "end": 7, "text": "Zebulon", "label": "P", "info_content": NaN}]}', "spans.0.info_content: Input should be a finite number"),
        ('{"status": "weird"}', "status: Input should be 'ok', 'degraded', 'fallback', 'failed' or 'skipped'"),
        ('{"line": "1"}', "line: Input should be a valid integer"),
        ("[1]", "Input should be an object"),
        ("[" * 300 + "]" * 300, "not JSON (recursion limit exceeded at line 1 column 202)"),
        ('{"file": "Zebulon \\ud800"}', "not JSON (unexpected end of hex escape at line 1 column 25)"),
    ],
)  # fmt: skip
def test_report_lines_must_be_report_rows(c, line, message):
    report = json.dumps({"file": "a.txt", "spans": [span()]}) + "\n" + line + "\n"
    r = c.post("/api/report", json={"report_jsonl": report, "sanitized": {"a.txt": "[P] Quayle"}})
    assert r.status_code == 422
    assert one_line(r) == f"body.report_jsonl: report line 2: {message}"
    assert "Quayle" not in r.text


def test_a_report_answers_its_validated_spans_only(c):
    row = {"file": "a.txt", "doc_id": 7, "spans": [span(junk="x" * 50, risk={"lm": 1.5})], "junk": [1, {"a": "b"}]}
    r = c.post("/api/report", json={"report_jsonl": json.dumps(row), "sanitized": {"a.txt": "[P] Quayle"}})
    assert r.status_code == 200
    (doc,) = r.json()["documents"]
    assert doc == {
        "file": "a.txt",
        "doc_id": "7",
        "field": "",
        "text": "Zebulon Quayle",
        "spans": [{**span(), "risk": {"lm": 1.5}}],
        "status": "ok",
    }


def test_numbers_of_a_body_must_be_finite(c):
    r = raw(c, "/analyze", '{"text": "x", "language": "en", "score_threshold": NaN}')
    assert (r.status_code, one_line(r)) == (422, "body.score_threshold: Input should be a finite number")
    body = '{"text": "Zebulon", "analyzer_results": [{"start": 0, "end": 7, "entity_type": "P", "score": Infinity}]}'
    r = raw(c, "/anonymize", body)
    assert (r.status_code, one_line(r)) == (422, "body.analyzer_results.0.score: Input should be a finite number")
    r = c.post("/api/render", json={"text": SECRET, "spans": [{"start": 0, "end": 10**23, "label": "P"}]})
    assert (r.status_code, one_line(r)) == (
        422,
        "body.spans: span 0 is not a non-empty range of the text (14 characters)",
    )


def test_wrong_types_are_refused_not_coerced(c):
    r = c.post("/sanitize", json={"text": SECRET, "include_originals": 0})
    assert (r.status_code, one_line(r)) == (422, "body.include_originals: Input should be a valid boolean")
    r = c.post("/api/render", json={"text": SECRET, "spans": [{"start": "0", "end": 7, "label": "P"}]})
    assert (r.status_code, one_line(r)) == (422, "body.spans.0.start: Input should be a valid integer")
    r = c.post("/sanitize", json={"text": SECRET, "texts": None})
    assert (r.status_code, one_line(r)) == (422, "'texts' is null: give it or leave it out")
    r = c.post("/sanitize", json={"text": SECRET, "colour": "red"})
    assert (r.status_code, one_line(r)) == (422, "body.<unknown field>: Extra inputs are not permitted")


# -- mask formats ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "reason"),
    [
        ("{label.__class__}", "a field other than {label} and {n}: only {label} and {n} may be used"),
        ("{n:>1000000}", "a field with a conversion or format spec: write {label} and {n} alone"),
        ("John", "a word that is not upper-case would read as an original: use upper-case words such as [REDACTED] or the fields {label} and {n}"),
        ("[ID 4711]", "digits and @ outside the fields would read as an identifier"),
        ("JOHN SMITH", "no field and no mark such as [ ] < > * #: it would read as an original"),
        ("{label", "not a format: a { or } without its pair"),
        ("[\n]", "control or unprintable characters"),
        (" ", "empty"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("path", ["/sanitize", "/api/render", "/api/export"])
def test_bad_mask_formats_are_refused_naming_the_field(c, path, fmt, reason):
    body = {"text": SECRET, "mask_format": fmt} | ({} if path == "/sanitize" else {"spans": []})
    r = c.post(path, json=body)
    assert r.status_code == 422
    assert one_line(r) == f"body.mask_format: {reason}"  # the format is not quoted


# -- languages ---------------------------------------------------------------------------------------------


def test_a_language_is_refused_the_same_way_everywhere(c):
    message = "not supported: the pipeline's language is 'en'"  # the language asked for is not quoted
    assert (analyze(c, SECRET).status_code, analyze(c, SECRET, language="fr").json()) == (
        200,
        {"error": f"body.language: {message}"},
    )
    for path in ("/supportedentities", "/recognizers"):
        r = c.get(path, params={"language": "fr"})
        assert (r.status_code, r.json()) == (422, {"error": f"query.language: {message}"})
        assert c.get(path, params={"language": "en"}).status_code == 200
        assert c.get(path).status_code == 200
    r = c.post("/sanitize", json={"text": SECRET, "language": "fr"})
    assert (r.status_code, r.json()) == (422, {"detail": f"body.language: {message}"})
    schema = c.get("/openapi.json").json()
    params = schema["paths"]["/supportedentities"]["get"]["parameters"]
    assert params[0]["schema"]["anyOf"][0]["enum"] == ["en"]
    assert schema["components"]["schemas"]["AnalyzeRequest"]["properties"]["language"]["enum"] == ["en"]


# -- answers without originals ------------------------------------------------------------------------------


def test_answers_without_original_strings_on_request(c):
    originals = ["Ada", "Lee", "May", "2010", "ada@lee.no"]
    full = c.post("/sanitize", json={"text": TEXT}).json()["results"][0]
    assert full["text"] == TEXT and full["spans"][0]["text"] == "Mr Ada Lee"
    bare = c.post("/sanitize", json={"text": TEXT, "include_originals": False}).json()["results"][0]
    assert bare["text"] is None and bare["sanitized"] == full["sanitized"]
    assert [(s["start"], s["end"], s["label"], s["replacement"], s["text"]) for s in bare["spans"]] == [
        (s["start"], s["end"], s["label"], s["replacement"], None) for s in full["spans"]
    ]
    assert bare["spans"][0]["reasons"] == ["policy"]
    assert not any(o in json.dumps(bare) for o in originals)
    spans = [{k: s[k] for k in ("start", "end", "label")} for s in full["spans"]]
    rendered = c.post("/api/render", json={"text": TEXT, "spans": spans, "include_originals": False}).json()
    assert rendered["text"] is None and not any(o in json.dumps(rendered) for o in originals)
    assert c.post("/api/render", json={"text": TEXT, "spans": spans}).json()["text"] == TEXT
    found = analyze(c, TEXT).json()
    anonymized = c.post("/anonymize", json={"text": TEXT, "analyzer_results": found}).json()
    assert not any(o in json.dumps(found) + json.dumps(anonymized) for o in originals)


def test_without_originals_drops_every_string_that_may_quote_the_text():
    result = {
        "text": "Oslo taxi",
        "sanitized": "[LOC 1] taxi",
        "status": "degraded",
        "spans": [
            {
                "start": 0,
                "end": 4,
                "text": "Oslo",
                "label": "LOC",
                "kb_id": "Q585",
                "kb_chain": ["city in Norway"],
                "masked": True,
                "replacement": "[LOC 1]",
                "reasons": ["kanon: 'Oslo' appears in 2 < 5 records", "'Oslo' alone", "kb:exact:Oslo"],
                "risk": {"kanon": 0.5},
            }
        ],
        "residual_risk": {"k": 3, "min_k": 5, "reached": False, "visible": ["Oslo"], "masked_for_min_k": ["Oslo"]},
        "errors": ["RuntimeError: failed on Oslo"],
        "offset_map": [[0, 7, 0, 4], [7, 12, 4, 9]],
    }
    bare = without_originals(result)
    assert not any(s in json.dumps(bare) for s in ("Oslo", "Q585", "Norway"))
    assert bare["spans"][0]["reasons"] == ["kanon", "kb"]
    assert bare["residual_risk"] == {"k": 3, "min_k": 5, "reached": False}
    assert bare["errors"] == ["RuntimeError"]
    assert (bare["sanitized"], bare["offset_map"], bare["spans"][0]["risk"]) == (
        "[LOC 1] taxi",
        result["offset_map"],
        {"kanon": 0.5},
    )


# -- nothing of the text in errors or logs ---------------------------------------------------------------------


def test_no_original_in_errors_or_logs_and_no_500(c, caplog):
    caplog.set_level(logging.DEBUG)
    bodies = [
        ("/sanitize", {"text": SECRET, "on_error": "never"}),
        ("/sanitize", {"text": SECRET * 100, "strategy": "nope"}),
        ("/api/render", {"text": SECRET, "spans": [{"start": 3, "end": 99, "label": "PERSON"}]}),
        ("/api/report", {"report_jsonl": json.dumps({"spans": [span(text=SECRET, end=14)]}) + "\n" + SECRET}),
        ("/analyze", {"text": SECRET, "language": "en", "ad_hoc_recognizers": [recognizer("(?<=Z)ebulon")]}),
        ("/anonymize", {"text": SECRET, "analyzer_results": [{"start": 0, "end": 99, "entity_type": "P"}]}),
        ("/anonymize", {"text": SECRET, "analyzer_results": [], "anonymizers": {"P": {"type": SECRET}}}),
    ]
    for path, body in bodies:
        r = c.post(path, json=body)
        assert r.status_code in (400, 422), (path, r.status_code)
        one_line(r)
        assert "Quayle" not in r.text
    assert "Quayle" not in caplog.text


def test_an_unexpected_failure_is_a_500_without_its_message(rules, caplog, monkeypatch):
    from spacy_textsan.serve import routes

    def broken(text, res):
        raise RuntimeError(f"broke on {text}")

    monkeypatch.setattr(routes, "result_json", broken)
    caplog.set_level(logging.DEBUG)
    with TestClient(create_app(rules)) as client:
        r = client.post("/sanitize", json={"text": SECRET})
        assert (r.status_code, r.json()) == (
            500,
            {"detail": "internal error: the service failed on this request (logged)"},
        )
        assert client.get("/health").status_code == 200
    assert "POST /sanitize failed: RuntimeError at test_serve_hostile.py" in caplog.text
    assert "Quayle" not in caplog.text and "broke on" not in caplog.text


# -- no key or value of the request in an error ---------------------------------------------------------------

MARK = "Qx7Marker"  # sent as keys and values ("...Marker"): never in an answer's error
OPERATOR_LIST = "hash, keep, mask, redact, replace"
HOSTILE_REQUESTS = [
    ("/sanitize", {"text": "x", MARK: 1}, 422, "body.<unknown field>: Extra inputs are not permitted"),
    ("/sanitize", {"text": "x", "mask_format": "***", "strategy": "mask", "x" + MARK: {MARK: MARK}}, 422, "body.<unknown field>: Extra inputs are not permitted"),
    ("/sanitize", {"text": "x", "on_error": MARK}, 422, "body.on_error: Input should be 'mask-all' or 'skip'"),
    ("/sanitize", {"text": "x", "on_error": "fail"}, 422, "body.on_error: Input should be 'mask-all' or 'skip'"),
    ("/sanitize", {"text": "x", "strategy": MARK}, 422, "body.strategy: item 0: the strategy is not one of mask, generalize, pseudonym, hash"),
    ("/sanitize", {"text": "x", "strategy": f"mask,{MARK}=mask"}, 422, "body.strategy: item 1: the label is not one of PERSON, CODE, LOC, ORG, DEM, DATETIME, QUANTITY, MISC"),
    ("/sanitize", {"text": "x", "strategy": f"mask,{MARK}"}, 422, "body.strategy: item 1: the strategy is not one of mask, generalize, pseudonym, hash"),
    ("/sanitize", {"text": "x", "strategy": "mask,hash"}, 422, "body.strategy: item 1: a second default strategy"),
    ("/sanitize", {"text": "x", "strategy": "keep"}, 422, "body.strategy: item 0: the strategy is not one of mask, generalize, pseudonym, hash"),
    ("/sanitize", {"text": "x", "mask_format": "[QxMarker]"}, 422, "body.mask_format: a word that is not upper-case would read as an original: use upper-case words such as [REDACTED] or the fields {label} and {n}"),
    ("/sanitize", {"text": "x", "mask_format": "{" + MARK + "}"}, 422, "body.mask_format: a field other than {label} and {n}: only {label} and {n} may be used"),
    ("/sanitize", {"text": "x", "language": MARK}, 422, "body.language: not supported: the pipeline's language is 'en'"),
    ("/api/render", {"text": "x", "spans": [], MARK: []}, 422, "body.<unknown field>: Extra inputs are not permitted"),
    ("/api/render", {"text": MARK, "spans": [{"start": 0, "end": 99, "label": MARK}]}, 422, "body.spans: span 0 is not a non-empty range of the text (9 characters)"),
    ("/api/export", {"text": "x", "spans": [], "doc_id": MARK * 30}, 422, "body.doc_id: String should have at most 200 characters"),
    ("/api/report", {"report_jsonl": "{}", "sanitized": {MARK: 5}}, 422, "body.sanitized.<key>: Input should be a valid string"),
    ("/api/report", {"report_jsonl": "{}", "sanitized": {MARK * 120: "x"}}, 422, "body.sanitized.<key>: String should have at most 1000 characters"),
    ("/api/report", {"report_jsonl": "{}", "sanitized": {"sanitized": 5}}, 422, "body.sanitized.<key>: Input should be a valid string"),
    ("/api/report", {"report_jsonl": "{}", MARK: "x"}, 422, "body.<unknown field>: Extra inputs are not permitted"),
    ("/api/report", {"report_jsonl": json.dumps({"spans": [{"start": 0, "end": 1, "text": "x", "label": "P", "risk": {MARK: "high"}}]})}, 422, "body.report_jsonl: report line 1: spans.0.risk.<key>: Input should be a valid number"),
    ("/api/report", {"report_jsonl": json.dumps({"spans": [{"start": 0, "end": 1, "text": MARK, "label": "P"}]})}, 422, "body.report_jsonl: report line 1: spans.0: start and end are not the range of the span's text"),
    ("/analyze", {"text": "x", "language": "en", MARK: 1}, 200, None),  # Presidio's fields textsan ignores: any
    ("/analyze", {"text": "x", "language": "en", "ad_hoc_recognizers": [recognizer(f"({MARK}")]}, 422, "body.ad_hoc_recognizers.0.patterns.0.regex: RE2 cannot compile this pattern (missing )); RE2 has no backreferences or lookarounds"),
    ("/analyze", {"text": "x", "language": "en", "ad_hoc_recognizers": [recognizer(f"(?={MARK})")]}, 422, "body.ad_hoc_recognizers.0.patterns.0.regex: RE2 cannot compile this pattern (invalid perl operator); RE2 has no backreferences or lookarounds"),
    ("/analyze", {"text": "x", "language": "en", "allow_list": ["ok", f"[{MARK}"], "allow_list_match": "regex"}, 422, "body.allow_list.1: RE2 cannot compile this pattern (missing ]); RE2 has no backreferences or lookarounds"),
    ("/analyze", {"text": "x", "language": "en", "allow_list_match": MARK}, 422, "body.allow_list_match: Input should be 'exact' or 'regex'"),
    ("/analyze", {"text": "x", "language": "en", "regex_flags": 64}, 422, "body.regex_flags: a flag RE2 does not have: give a sum of re.IGNORECASE (2), re.MULTILINE (8), re.DOTALL (16) and re.UNICODE (32)"),
    ("/analyze", {"text": "x", "language": "en", "score_threshold": 2}, 422, "body.score_threshold: Input should be less than or equal to 1"),
    ("/analyze", {"text": "x", "language": "en", "score_threshold": MARK}, 422, "body.score_threshold: Input should be a valid number"),
    ("/analyze", {"text": "x", "language": "en", "entities": [MARK * 30]}, 422, "body.entities.0: String should have at most 200 characters"),
    ("/analyze", {"text": [MARK, ""], "language": "en"}, 422, "body.text: No text provided"),
    ("/anonymize", {"text": "x", "analyzer_results": [], "anonymizers": {MARK: {"type": MARK}}}, 422, f"body.anonymizers.<key>.type: Invalid operator class: the operators are {OPERATOR_LIST}"),
    ("/anonymize", {"text": "x", "analyzer_results": [], "anonymizers": {"DEFAULT": {"type": "mask", "masking_char": MARK, "chars_to_mask": 1, "from_end": True}}}, 422, "body.anonymizers.<key>.mask.masking_char: String should have at most 1 character"),
    ("/anonymize", {"text": "x", "analyzer_results": [], "anonymizers": {MARK: {"type": "hash", "salt": MARK}}}, 422, "body.anonymizers.<key>.hash.salt: Salt must be at least 16 bytes (128 bits). Provided salt is 9 bytes."),
    ("/anonymize", {"text": "x", "analyzer_results": [], "anonymizers": {MARK: {"type": "hash", "hash_type": MARK}}}, 422, "body.anonymizers.<key>.hash.hash_type: Input should be 'sha256' or 'sha512'"),
    ("/anonymize", {"text": "x", "analyzer_results": [], "anonymizers": {MARK: {"type": "replace", "new_value": 5}}}, 422, "body.anonymizers.<key>.replace.new_value: Input should be a valid string"),
    ("/anonymize", {"text": "x", "analyzer_results": [], "anonymizers": {MARK: {"type": "custom", "lambda": MARK}}}, 422, "body.anonymizers.<key>.type: Custom type anonymizer is not supported"),
    ("/anonymize", {"text": MARK, "analyzer_results": [{"start": 0, "end": 99, "entity_type": MARK}]}, 422, "body.analyzer_results: Invalid input, result 0 is not a range of the text (9 characters)"),
    ("/anonymize", {"text": MARK, "analyzer_results": [{"start": 0, "end": 3, "entity_type": MARK, "score": MARK}]}, 422, "body.analyzer_results.0.score: Input should be a valid number"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "body", "status", "message"), HOSTILE_REQUESTS)
def test_no_error_quotes_a_key_or_a_value_of_the_request(c, path, body, status, message):
    """Every refusal names its field by its place (an unknown key as
    ``<unknown field>``, a key of a mapping as ``<key>``) and says why without
    quoting what was sent; a request refused is 422."""
    r = c.post(path, json=body)
    assert r.status_code == status, r.text
    if message is not None:
        key = "error" if path in ("/analyze", "/anonymize") else "detail"
        assert r.json() == {key: message}
    assert "marker" not in r.text.lower()


def test_no_error_quotes_a_body_that_is_not_json_or_a_query(c, rules):
    for path in ("/sanitize", "/api/report", "/analyze", "/anonymize"):
        presidio = path in ("/analyze", "/anonymize")
        r = raw(c, path, '{"text": "' + MARK + '", "' + MARK + '": }')
        assert r.status_code == (400 if presidio else 422)
        expected = "body.35: JSON decode error: Expecting value"
        assert one_line(r) == (f"Invalid request json: {expected}" if presidio else expected)
        r = raw(c, path, MARK)
        assert r.status_code == (400 if presidio else 422) and MARK not in r.text
    for path in ("/supportedentities", "/recognizers"):
        r = c.get(path, params={"language": MARK, MARK: MARK})
        assert (r.status_code, r.json()) == (
            422,
            {"error": "query.language: not supported: the pipeline's language is 'en'"},
        )
        r = c.get(path, params={"language": MARK * 3})
        assert (r.status_code, r.json()) == (422, {"error": "query.language: String should have at most 20 characters"})
    with TestClient(create_app(rules, ServeSettings(pipeline="rules_only", max_request_bytes=100))) as small:
        r = small.post("/sanitize", json={"text": MARK * 20})
        assert (r.status_code, r.json()) == (
            413,
            {"detail": "request body larger than 100 bytes (the service's --max-request-bytes)"},
        )


# -- /anonymize: conflicts resolved as Presidio resolves them, the render operators ------------------------------

NOTE = "Mr Galip Yalman led the team."  # Galip [3, 8), Yalman [9, 15), led [16, 19)


def result(start, end, kind, score=0.8) -> dict:
    return {"start": start, "end": end, "entity_type": kind, "score": score}


def item(start, end, kind, text, operator="replace", score=0.8) -> dict:
    return {"start": start, "end": end, "entity_type": kind, "text": text, "operator": operator, "score": score}


#: results -> the anonymized text and its items, with these operators (``keep`` shows what a cut result kept)
OVERLAPS = {
    "contained, lower score": (
        [result(3, 15, "PERSON", 0.9), result(5, 15, "LOCATION", 0.5)],
        "Mr <PERSON> led the team.",
        [item(3, 11, "PERSON", "<PERSON>", score=0.9)],
        {},
    ),
    "contained, higher score (dropped all the same, as in Presidio)": (
        [result(3, 15, "PERSON", 0.5), result(5, 15, "LOCATION", 0.9)],
        "Mr <PERSON> led the team.",
        [item(3, 11, "PERSON", "<PERSON>", score=0.5)],
        {},
    ),
    "identical span, another entity with a higher score": (
        [result(3, 15, "PERSON", 0.6), result(3, 15, "LOCATION", 0.7)],
        "Mr <LOCATION> led the team.",
        [item(3, 13, "LOCATION", "<LOCATION>", score=0.7)],
        {},
    ),
    "identical span and score: the later result": (
        [result(3, 15, "LOCATION"), result(3, 15, "PERSON")],
        "Mr <PERSON> led the team.",
        [item(3, 11, "PERSON", "<PERSON>")],
        {},
    ),
    "partial overlap, the right one scores higher": (
        [result(3, 12, "PERSON", 0.5), result(5, 15, "LOCATION", 0.9)],
        "Mr Ga<LOCATION> led the team.",  # PERSON keeps what is left of it: "Ga"
        [item(5, 15, "LOCATION", "<LOCATION>", score=0.9), item(3, 5, "PERSON", "Ga", "keep", 0.5)],
        {"PERSON": {"type": "keep"}},
    ),
    "partial overlap, the left one scores higher": (
        [result(3, 12, "PERSON", 0.9), result(5, 15, "LOCATION", 0.5)],
        "Mr <PERSON>man led the team.",  # LOCATION keeps what is left of it: "man"
        [item(11, 14, "LOCATION", "man", "keep", 0.5), item(3, 11, "PERSON", "<PERSON>", score=0.9)],
        {"LOCATION": {"type": "keep"}},
    ),
    "partial overlap, equal scores: the left one keeps the shared characters": (
        [result(5, 15, "LOCATION"), result(3, 12, "PERSON")],
        "Mr <PERSON>man led the team.",
        [item(11, 14, "LOCATION", "man", "keep"), item(3, 11, "PERSON", "<PERSON>")],
        {"LOCATION": {"type": "keep"}},
    ),
    "partial overlap of one type: merged, the highest score": (
        [result(3, 12, "PERSON", 0.4), result(5, 15, "PERSON", 0.7)],
        "Mr <PERSON> led the team.",
        [item(3, 11, "PERSON", "<PERSON>", score=0.7)],
        {},
    ),
    "adjacent, two types": (
        [result(3, 9, "PERSON"), result(9, 15, "LOCATION")],
        "Mr <PERSON>Yalman led the team.",
        [item(11, 17, "LOCATION", "Yalman", "keep"), item(3, 11, "PERSON", "<PERSON>")],
        {"LOCATION": {"type": "keep"}},
    ),
    "one type, a space between: joined, the later score": (
        [result(3, 8, "PERSON", 0.9), result(9, 15, "PERSON", 0.6)],
        "Mr <PERSON> led the team.",
        [item(3, 11, "PERSON", "<PERSON>", score=0.6)],
        {},
    ),
    "a chain of three, the middle one highest": (
        [result(0, 8, "TITLE", 0.5), result(3, 15, "PERSON", 0.9), result(9, 19, "EVENT", 0.7)],
        "<TITLE><PERSON><EVENT> the team.",
        [
            item(15, 22, "EVENT", "<EVENT>", score=0.7),
            item(7, 15, "PERSON", "<PERSON>", score=0.9),
            item(0, 7, "TITLE", "<TITLE>", score=0.5),
        ],
        {},
    ),
    "a chain of three, the middle one lowest": (
        [result(0, 8, "TITLE", 0.9), result(3, 15, "PERSON", 0.5), result(9, 19, "EVENT", 0.7)],
        "<TITLE><PERSON><EVENT> the team.",  # PERSON keeps the space between Galip and Yalman
        [
            item(15, 22, "EVENT", "<EVENT>", score=0.7),
            item(7, 15, "PERSON", "<PERSON>", score=0.5),
            item(0, 7, "TITLE", "<TITLE>", score=0.9),
        ],
        {},
    ),
    "a chain of three of one type": (
        [result(0, 8, "PERSON", 0.5), result(3, 15, "PERSON", 0.9), result(9, 19, "PERSON", 0.7)],
        "<PERSON> the team.",
        [item(0, 8, "PERSON", "<PERSON>", score=0.9)],
        {},
    ),
    "a result that covers no character": (
        [result(5, 5, "PERSON"), result(16, 19, "EVENT")],
        "Mr Galip Yalman <EVENT> the team.",
        [item(16, 23, "EVENT", "<EVENT>")],
        {},
    ),
}


@pytest.mark.parametrize("shape", list(OVERLAPS))
def test_overlapping_results_are_resolved_before_the_text_is_touched(c, shape):
    """Each character goes to one result at most, and each operator sees only
    the characters of its own result: the answer's items are where their text is."""
    results, text, items, anonymizers = OVERLAPS[shape]
    r = c.post("/anonymize", json={"text": NOTE, "analyzer_results": results, "anonymizers": anonymizers})
    assert r.status_code == 200
    assert r.json() == {"text": text, "items": items}
    for it in items:
        assert text[it["start"] : it["end"]] == it["text"]


def test_the_service_operators_are_the_registered_render_operators(c):
    assert c.get("/anonymizers").json() == sorted(span_operator_names()) == OPERATOR_LIST.split(", ")
    assert "keep" not in strategy_names() and "replace" not in strategy_names()  # never a generalizer strategy
    mask = get_operator("mask")
    config = {"type": "mask", "masking_char": "#", "chars_to_mask": 4, "from_end": False}
    r = c.post(
        "/anonymize",
        json={"text": NOTE, "analyzer_results": [result(3, 15, "PERSON")], "anonymizers": {"PERSON": config}},
    )
    expected = mask().operate("Galip Yalman", "PERSON", mask.params.model_validate(config))
    assert expected == "####p Yalman"
    assert r.json()["text"] == f"Mr {expected} led the team."
    salted = {"type": "hash", "hash_type": "sha512", "salt": "0123456789abcdef"}
    r = c.post(
        "/anonymize",
        json={"text": NOTE, "analyzer_results": [result(3, 15, "PERSON")], "anonymizers": {"PERSON": salted}},
    )
    digest = hashlib.sha512(b"Galip Yalman0123456789abcdef").hexdigest()
    assert r.json()["items"] == [item(3, 3 + 128, "PERSON", digest, "hash")]
    schema = c.get("/openapi.json").json()["components"]["schemas"]
    assert set(schema["Mask"]["properties"]) == {"type", "masking_char", "chars_to_mask", "from_end"}


SALT = "0123456789abcdef-salt"
PRESIDIO_OPERATORS = {
    "X": {"type": "mask", "masking_char": "*", "chars_to_mask": 2, "from_end": True},
    "Y": {"type": "keep"},
    "Z": {"type": "hash", "salt": SALT},
    "W": {"type": "redact"},
    "DEFAULT": {"type": "replace", "new_value": "<?>"},
}


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    text=st.text(alphabet="ab \n", min_size=1, max_size=25),
    spans=st.lists(
        st.tuples(st.integers(0, 25), st.integers(0, 25), st.sampled_from("XYZWV"), st.sampled_from([0.3, 0.6, 0.9])),
        max_size=7,
    ),
)
def test_anonymize_answers_what_presidio_answers_removing_intersections(text, spans):
    """For any results, /anonymize answers what Presidio's engine answers with
    ``conflict_resolution=REMOVE_INTERSECTIONS`` (overlaps of every shape,
    ties, spans joined by spaces, each operator)."""
    presidio = pytest.importorskip("presidio_anonymizer")
    from presidio_anonymizer.entities import ConflictResolutionStrategy
    from presidio_anonymizer.services.app_entities_convertor import AppEntitiesConvertor

    results = [
        {"start": min(a, b, len(text)), "end": min(max(a, b), len(text)), "entity_type": k, "score": p}
        for a, b, k, p in spans
    ]
    request = AnonymizeRequest.model_validate(
        {"text": text, "analyzer_results": results, "anonymizers": PRESIDIO_OPERATORS}
    )
    expected = presidio.AnonymizerEngine().anonymize(
        text=text,
        analyzer_results=AppEntitiesConvertor.analyzer_results_from_json(copy.deepcopy(results)),
        operators=AppEntitiesConvertor.operators_config_from_json(copy.deepcopy(PRESIDIO_OPERATORS)),
        conflict_resolution=ConflictResolutionStrategy.REMOVE_INTERSECTIONS,
    )
    got = anonymize(text, request.analyzer_results, request.anonymizers, Deadline(60))
    assert got == json.loads(expected.to_json())


def test_anonymize_checks_the_deadline_on_many_overlaps():
    """Results that overlap each other (each cut again by the next) are
    resolved under the request's deadline: past it, Expired, not a hang."""
    results = [RecognizerResultIn(start=0, end=20_000, entity_type="A", score=0.9)] + [
        RecognizerResultIn(start=i, end=20_000 + i, entity_type=f"B{i}", score=0.5) for i in range(1, 20_000)
    ]
    start = time.monotonic()
    with pytest.raises(Expired):
        anonymize("x" * 40_000, results, None, Deadline(0.2))
    assert time.monotonic() - start < 5
