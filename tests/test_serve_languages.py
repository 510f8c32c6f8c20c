"""``textsan serve`` with several languages (``--lang en,fr``): a request's ``language`` field picks the
pipeline on /sanitize, /analyze and /anonymize (422 for a language the service did not load, naming those
it did, not the one asked for), the OpenAPI enum lists the loaded languages, and the command's --lang is
checked before anything starts."""

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from spacy_textsan.cli import app
from spacy_textsan.cli.serve import serve_languages
from spacy_textsan.serve.app import create_app
from spacy_textsan.serve.settings import ServeSettings

FRENCH = "Le requérant, M. Jean Dupont, est né le 12 mars 1961 à Lyon."
ENGLISH = "Dear Mr Ada Lee, call 0312 555 12 34 about case 48213/09."
#: where the French rules find the name, the date and the place
NAME, DATE, PLACE = (14, 28), (40, 52), (55, 59)
REFUSED = "not supported: this service's languages are 'en', 'fr'"


@pytest.fixture(scope="module")
def client(masking_rules):
    app_ = create_app(masking_rules("en"), ServeSettings(pipeline="rules_only"), {"fr": masking_rules("fr")})
    with TestClient(app_) as c:
        yield c


def test_a_request_in_french_is_sanitized_by_the_french_pipeline(client):
    r = client.post("/sanitize", json={"text": FRENCH, "language": "fr"})
    assert r.status_code == 200
    [result] = r.json()["results"]
    assert result["sanitized"] == "Le requérant, [PERSON 1], est né le [DATETIME 1] à [LOC 1]."
    assert [(s["start"], s["end"], s["label"]) for s in result["spans"]] == [
        (*NAME, "PERSON"),
        (*DATE, "DATETIME"),
        (*PLACE, "LOC"),
    ]
    # no language: the first pipeline's (English)
    english = client.post("/sanitize", json={"text": ENGLISH}).json()["results"][0]["sanitized"]
    assert english == "Dear [PERSON 1], call [CODE 1] about case [CODE 2]."
    assert (
        client.post("/sanitize", json={"text": ENGLISH, "language": "en"}).json()["results"][0]["sanitized"] == english
    )


def test_presidios_analyze_honours_the_language(client):
    r = client.post("/analyze", json={"text": FRENCH, "language": "fr"})
    assert r.status_code == 200
    assert [(x["entity_type"], x["start"], x["end"]) for x in r.json()] == [
        ("PERSON", *NAME),
        ("DATE_TIME", *DATE),
        ("LOCATION", *PLACE),
    ]
    assert client.get("/recognizers", params={"language": "fr"}).json() == ["privacy_ner", "mask_all", "generalizer"]


def test_a_language_not_loaded_is_422_naming_the_loaded_ones_not_the_one_asked(client):
    asked = "de-SECRETLANG"
    for path, body in (
        ("/sanitize", {"text": FRENCH, "language": asked}),
        ("/analyze", {"text": FRENCH, "language": asked}),
        ("/anonymize", {"text": FRENCH, "analyzer_results": [], "language": asked}),
    ):
        r = client.post(path, json=body)
        key = "detail" if path == "/sanitize" else "error"
        assert (r.status_code, r.json()) == (422, {key: f"body.language: {REFUSED}"}), path
        assert "SECRETLANG" not in r.text and "Dupont" not in r.text
    r = client.get("/supportedentities", params={"language": "es"})
    assert (r.status_code, r.json()) == (422, {"error": f"query.language: {REFUSED}"})
    ok = client.post("/anonymize", json={"text": FRENCH, "analyzer_results": [], "language": "fr"})
    assert (ok.status_code, ok.json()["text"]) == (200, FRENCH)


def test_the_openapi_enum_lists_the_loaded_languages(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for model in ("AnalyzeRequest", "SanitizeRequest", "AnonymizeRequest"):
        field = schemas[model]["properties"]["language"]
        enums = [field.get("enum")] + [option.get("enum") for option in field.get("anyOf", [])]
        assert ["en", "fr"] in enums, model


def test_serve_lang_takes_a_list_or_repeats_and_refuses_an_unknown_one():
    assert serve_languages(["en,fr"]) == ["en", "fr"]
    assert serve_languages(["fr", "en", "fr"]) == ["fr", "en"]
    assert serve_languages([]) == []
    res = CliRunner().invoke(app, ["serve", "--lang", "en,xx"])
    assert (res.exit_code, res.stderr) == (1, "✘ --lang: unknown language 'xx': supported are en, fr, es, de\n")
