"""``textsan serve`` in the shape of Presidio's REST API: the example requests
of Presidio's API reference (docs/api-docs/api-docs.yml) and of its Postman
collections (docs/samples/docker/) replayed against /analyze, /anonymize,
/supportedentities, /recognizers and /anonymizers; and, where
presidio-anonymizer is installed (``pip install spacy-textsan[bench]``), the
same answers as Presidio's own AnonymizerEngine."""

import copy
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.serve.app import create_app
from spacy_textsan.serve.presidio import CODE_TYPES, LABEL_TYPES, SUPPORTED_ENTITIES, entity_type
from spacy_textsan.serve.settings import ServeSettings

RULES = str(Path(__file__).parent / "fixtures" / "cli" / "rules_only.cfg")
LICENSE = "John Smith drivers license is AC432223"
LICENSE_ZIP = "John Smith drivers license is AC432223 and the zip code is 12345"
ZIP_RECOGNIZER = {
    "name": "Zip code Recognizer",
    "supported_language": "en",
    "patterns": [{"name": "zip code (weak)", "regex": "(\\b\\d{5}(?:\\-\\d{4})?\\b)", "score": 0.01}],
    "context": ["zip", "code"],
    "supported_entity": "ZIP",
}


def found(kind, start, end, score=1.0, explanation=None):
    return {"analysis_explanation": explanation, "end": end, "entity_type": kind, "score": score, "start": start}


@pytest.fixture(scope="module")
def c():
    with TestClient(create_app(load_pipeline(RULES), ServeSettings())) as test_client:
        yield test_client


# -- the analyzer's documented requests ---------------------------------------------------------


def test_analyze_minimal_request_single_text(c):
    r = c.post("/analyze", json={"text": LICENSE, "language": "en"})
    assert r.status_code == 200
    assert r.json() == [found("PERSON", 0, 10), found("ID", 30, 38)]


def test_analyze_minimal_request_batch(c):
    r = c.post("/analyze", json={"text": [LICENSE, LICENSE_ZIP], "language": "en"})
    assert r.status_code == 200
    first, second = r.json()
    assert first == [found("PERSON", 0, 10), found("ID", 30, 38)]
    # privacy_ner's postcode_cued rule also takes "is" for the postcode after "zip code" (reported):
    # that gives LOCATION results over "is", the rest is exact either way
    assert [x for x in second if x["entity_type"] != "LOCATION"] == [
        found("PERSON", 0, 10),
        found("ID", 30, 38),
        found("ID", 59, 64),
    ]
    assert [x for x in second if x["entity_type"] == "LOCATION"] in (
        [],
        [found("LOCATION", 27, 29), found("LOCATION", 56, 58)],
    )


def test_analyze_enhanced_request(c):
    """entities, score_threshold and an ad-hoc recognizer with context words:
    the weak ZIP pattern (0.01, raised to 0.4 by "zip") stays under 0.6;
    US_DRIVER_LICENSE, a type textsan does not name, lets its codes (ID) through."""
    request = {
        "text": LICENSE_ZIP,
        "language": "en",
        "return_decision_process": False,
        "correlation_id": "123e4567-e89b-12d3-a456-426614174000",
        "score_threshold": 0.6,
        "entities": ["US_DRIVER_LICENSE", "ZIP"],
        "trace": False,
        "ad_hoc_recognizers": [ZIP_RECOGNIZER],
    }
    r = c.post("/analyze", json=request)
    assert r.status_code == 200
    assert r.json() == [found("ID", 30, 38), found("ID", 59, 64)]
    r = c.post(
        "/analyze", json={**request, "entities": ["ZIP"], "score_threshold": 0.3, "return_decision_process": True}
    )
    assert r.json() == [
        found(
            "ZIP",
            59,
            64,
            0.4,
            {
                "recognizer": "Zip code Recognizer",
                "pattern_name": "zip code (weak)",
                "pattern": "(\\b\\d{5}(?:\\-\\d{4})?\\b)",
                "original_score": 0.01,
                "score": 0.4,
                "textual_explanation": None,
                "score_context_improvement": 0.4 - 0.01,
                "supportive_context_word": "zip",
                "validation_result": None,
                "regex_flags": None,
            },
        )
    ]


def test_analyze_postman_requests(c):
    r = c.post("/analyze", json={"text": LICENSE, "language": "en", "score_threshold": 0.7})
    assert r.json() == [found("PERSON", 0, 10), found("ID", 30, 38)]
    assert c.get("/supportedentities", params={"language": "en"}).json() == SUPPORTED_ENTITIES
    assert c.get("/recognizers", params={"language": "en"}).json() == ["privacy_ner", "mask_all", "generalizer"]
    assert c.get("/anonymizers").json() == ["hash", "keep", "mask", "redact", "replace"]


def test_analyze_explains_textsan_decisions_and_filters(c):
    text = "Mail jane@x.org or call +44 20 7946 0958 about Jane Doe."
    r = c.post("/analyze", json={"text": text, "language": "en", "return_decision_process": True})
    results = r.json()
    assert [(x["entity_type"], text[x["start"] : x["end"]]) for x in results] == [
        ("EMAIL_ADDRESS", "jane@x.org"),
        ("PHONE_NUMBER", "+44 20 7946 0958"),
        ("PERSON", "Jane Doe"),
    ]
    assert results[0]["analysis_explanation"]["recognizer"] == "textsan:rule:email"
    assert results[0]["analysis_explanation"]["textual_explanation"] == "policy:mask_all"
    r = c.post("/analyze", json={"text": text, "language": "en", "entities": ["PERSON"]})
    assert r.json() == [found("PERSON", 47, 55)]
    r = c.post("/analyze", json={"text": text, "language": "en", "allow_list": ["Jane Doe"]})
    assert [x["entity_type"] for x in r.json()] == ["EMAIL_ADDRESS", "PHONE_NUMBER"]
    r = c.post("/analyze", json={"text": text, "language": "en", "allow_list": ["^jane"], "allow_list_match": "regex"})
    assert [x["entity_type"] for x in r.json()] == ["PHONE_NUMBER"]
    r = c.post(
        "/analyze",
        json={
            "text": text,
            "language": "en",
            "ad_hoc_recognizers": [{"name": "deny", "supported_entity": "TITLE", "deny_list": ["Mail"]}],
        },
    )
    assert found("TITLE", 0, 4) in r.json()


def test_analyze_errors_in_presidios_shape(c):
    # a request refused is 422, as documented; 400 only for a body that is not JSON (changed: these were 400)
    r = c.post("/analyze", json={"text": "", "language": "en"})
    assert (r.status_code, r.json()) == (422, {"error": "body.text: No text provided"})
    r = c.post("/analyze", json={"language": "en"})
    assert (r.status_code, r.json()) == (422, {"error": "body.text: Field required"})
    r = c.post("/analyze", json={"text": "Jane Doe", "language": "en", "score_threshold": 2})
    assert (r.status_code, r.json()) == (
        422,
        {"error": "body.score_threshold: Input should be less than or equal to 1"},
    )
    r = c.post("/analyze", content=b'{"text": "Jane Doe", ', headers={"Content-Type": "application/json"})
    assert (r.status_code, r.json()) == (
        400,
        {
            "error": "Invalid request json: body.21: JSON decode error: Expecting property name enclosed in double quotes"
        },
    )
    r = c.post("/analyze", json={"text": "Jane Doe", "language": "fr"})
    assert (r.status_code, r.json()) == (
        422,
        {"error": "body.language: not supported: the pipeline's language is 'en'"},
    )
    r = c.post(
        "/analyze",
        json={
            "text": "x",
            "language": "en",
            "ad_hoc_recognizers": [
                {"name": "bad", "supported_entity": "X", "patterns": [{"regex": "(", "score": 0.5}]}
            ],
        },
    )
    assert r.status_code == 422
    assert r.json()["error"] == (
        "body.ad_hoc_recognizers.0.patterns.0.regex: RE2 cannot compile this pattern (missing )); "
        "RE2 has no backreferences or lookarounds"
    )


# -- the anonymizer's documented requests -----------------------------------------------------------


REPLACE_AND_REDACT = {
    "text": "hello world, my name is Jane Doe. My number is: 034453334",
    "anonymizers": {
        "PERSON": {"type": "redact"},
        "PHONE_NUMBER": {"type": "replace", "new_value": "ANONYMIZED"},
    },
    "analyzer_results": [
        {"start": 24, "end": 32, "score": 0.8, "entity_type": "PERSON"},
        {"start": 48, "end": 57, "score": 0.95, "entity_type": "PHONE_NUMBER"},
    ],
}
REPLACE_AS_DEFAULT = {  # the reference's example less its trailing commas (not JSON)
    "text": "hello world, my name is Jane Doe.",
    "anonymizers": {"DEFAULT": {"type": "replace", "new_value": "ANONYMIZED"}},
    "analyzer_results": [{"start": 24, "end": 32, "score": 0.8, "entity_type": "PERSON"}],
}
POSTMAN_SIMPLE = {
    "text": "hello world, my name is Jane Doe. My number is: 034453334",
    "anonymizers": {
        "DEFAULT": {"type": "replace", "new_value": "ANONYMIZED"},
        "PHONE_NUMBER": {"type": "mask", "masking_char": "*", "chars_to_mask": 4, "from_end": True},
    },
    "analyzer_results": [
        {"start": 24, "end": 32, "score": 0.8, "entity_type": "NAME"},
        {"start": 24, "end": 28, "score": 0.8, "entity_type": "FIRST_NAME"},
        {"start": 29, "end": 32, "score": 0.6, "entity_type": "LAST_NAME"},
        {"start": 48, "end": 57, "score": 0.95, "entity_type": "PHONE_NUMBER"},
    ],
}


def item(start, end, kind, text, operator, score):
    return {"start": start, "end": end, "entity_type": kind, "text": text, "operator": operator, "score": score}


def test_anonymize_documented_requests(c):
    r = c.post("/anonymize", json=REPLACE_AND_REDACT)
    assert r.status_code == 200
    assert r.json() == {
        "text": "hello world, my name is . My number is: ANONYMIZED",
        "items": [
            item(40, 50, "PHONE_NUMBER", "ANONYMIZED", "replace", 0.95),
            item(24, 24, "PERSON", "", "redact", 0.8),
        ],
    }
    assert c.post("/anonymize", json=REPLACE_AS_DEFAULT).json() == {
        "text": "hello world, my name is ANONYMIZED.",
        "items": [item(24, 34, "PERSON", "ANONYMIZED", "replace", 0.8)],
    }
    assert c.post("/anonymize", json=POSTMAN_SIMPLE).json() == {
        "text": "hello world, my name is ANONYMIZED. My number is: 03445****",
        "items": [
            item(50, 59, "PHONE_NUMBER", "03445****", "mask", 0.95),
            item(24, 34, "NAME", "ANONYMIZED", "replace", 0.8),
        ],
    }


def test_analyze_then_anonymize_masks_what_sanitize_masks(c):
    text = "Mail jane@x.org or call +44 20 7946 0958 about Jane Doe."
    found_ = c.post("/analyze", json={"text": text, "language": "en"}).json()
    r = c.post("/anonymize", json={"text": text, "analyzer_results": found_})
    assert r.json()["text"] == "Mail <EMAIL_ADDRESS> or call <PHONE_NUMBER> about <PERSON>."


def test_anonymize_errors_in_presidios_shape(c):
    # changed: every refusal is 422 (custom and a bad masking_char were 400), the entity type (a key of the
    # request) is named <key>, and the offsets of a result are not quoted
    base = {"text": "My name is Jane", "analyzer_results": [{"start": 11, "end": 15, "score": 1, "entity_type": "P"}]}
    cases = [
        (
            {**base, "anonymizers": {"P": {"type": "custom", "lambda": "x"}}},
            422,
            "body.anonymizers.<key>.type: Custom type anonymizer is not supported",
        ),
        (
            {**base, "anonymizers": {"P": {"type": "encrypt", "key": "WmZq4t7w!z%C&F)J"}}},
            422,
            "body.anonymizers.<key>.type: the encrypt operator is not supported by spacy-textsan "
            "(textsan sanitize --reversible keeps an encrypted way back)",
        ),
        (
            {**base, "anonymizers": {"P": {"type": "nope"}}},
            422,
            "body.anonymizers.<key>.type: Invalid operator class: the operators are hash, keep, mask, redact, replace",
        ),
        (
            {
                **base,
                "anonymizers": {"P": {"type": "mask", "masking_char": "**", "chars_to_mask": 1, "from_end": True}},
            },
            422,
            "body.anonymizers.<key>.mask.masking_char: String should have at most 1 character",
        ),
        (
            {**base, "anonymizers": {"P": {"type": "hash", "salt": "short"}}},
            422,
            "body.anonymizers.<key>.hash.salt: Salt must be at least 16 bytes (128 bits). Provided salt is 5 bytes.",
        ),
        ({**base, "text": ""}, 422, "body.text: Invalid input, text can not be empty"),
        (
            {**base, "analyzer_results": [{"start": 11, "end": 99, "score": 1, "entity_type": "P"}]},
            422,
            "body.analyzer_results: Invalid input, result 0 is not a range of the text (15 characters)",
        ),
    ]
    for request, status, error in cases:
        r = c.post("/anonymize", json=request)
        assert (r.status_code, r.json()) == (status, {"error": error}), request


def test_a_failed_document_is_one_result_over_the_whole_text(tmp_path):
    from spacy.language import Language

    @Language.factory("test_presidio_detector_fault")
    def make_fault(nlp, name):
        def fault(doc):
            raise RuntimeError("detector crashed")

        return fault

    cfg = tmp_path / "fault.cfg"
    cfg.write_text(
        Path(RULES).read_text().replace('"privacy_ner"', '"privacy_ner","test_presidio_detector_fault"', 1)
        + '\n[components.test_presidio_detector_fault]\nfactory = "test_presidio_detector_fault"\n'
    )
    with TestClient(create_app(load_pipeline(str(cfg)))) as client:
        r = client.post(
            "/analyze",
            json={
                "text": "Jane Doe",
                "language": "en",
                "entities": ["EMAIL_ADDRESS"],
                "allow_list": ["Jane Doe"],
                "return_decision_process": True,
            },
        )
    (result,) = r.json()
    assert (result["entity_type"], result["start"], result["end"], result["score"]) == ("TEXTSAN_FAILED", 0, 8, 1.0)
    assert result["analysis_explanation"]["textual_explanation"] == (
        "sanitization failed, the whole text is to be masked: RuntimeError: detector crashed; "
        "fallback (mask every candidate) failed: RuntimeError: detector crashed"
    )


def test_entity_types_map_to_presidios():
    def record(label, source):
        return {"label": label, "source": source}

    assert entity_type(record("PERSON", "ner:en:PERSON")) == "PERSON"
    assert entity_type(record("LOC", "id:address")) == "LOCATION"
    assert entity_type(record("DATETIME", "rule:date_dmy")) == "DATE_TIME"
    assert entity_type(record("DEM", "gazetteer:wikidata")) == "NRP"
    assert entity_type(record("ORG", "ner:en:ORG")) == "ORGANIZATION"
    assert entity_type(record("CODE", "rule:email")) == "EMAIL_ADDRESS"
    assert entity_type(record("CODE", "id:phone")) == "PHONE_NUMBER"
    assert entity_type(record("CODE", "propagated:rule:iban")) == "IBAN_CODE"
    assert entity_type(record("CODE", "id:payment_card")) == "CREDIT_CARD"
    assert entity_type(record("CODE", "id:cued_code")) == "ID"
    assert entity_type(record("CODE", None)) == "ID"
    assert SUPPORTED_ENTITIES == sorted({*LABEL_TYPES.values(), *CODE_TYPES.values()})


# -- the same answers as Presidio's own engine ------------------------------------------------------------


SALT = "0123456789abcdef-salt"
AGAINST_PRESIDIO = [
    REPLACE_AND_REDACT,
    REPLACE_AS_DEFAULT,
    POSTMAN_SIMPLE,
    {  # contained, overlapping of one type, joined by spaces, keep, hash with a salt, mask from the start
        "text": "My name is Jane Doe Smith, born in Oslo Norway; card 4111 1111 1111 1111 ok",
        "anonymizers": {
            "PERSON": {"type": "mask", "masking_char": "#", "chars_to_mask": 6, "from_end": False},
            "LOCATION": {"type": "keep"},
            "CREDIT_CARD": {"type": "hash", "hash_type": "sha512", "salt": SALT},
        },
        "analyzer_results": [
            {"start": 11, "end": 19, "score": 0.8, "entity_type": "PERSON"},
            {"start": 15, "end": 25, "score": 0.5, "entity_type": "PERSON"},
            {"start": 11, "end": 15, "score": 0.9, "entity_type": "LOCATION"},
            {"start": 35, "end": 39, "score": 0.7, "entity_type": "LOCATION"},
            {"start": 40, "end": 46, "score": 0.6, "entity_type": "LOCATION"},
            {"start": 53, "end": 72, "score": 1.0, "entity_type": "CREDIT_CARD"},
            {"start": 53, "end": 57, "score": 0.3, "entity_type": "NUMBER"},
        ],
    },
    {  # no anonymizers: <ENTITY_TYPE>; equal offsets, the higher score stays
        "text": "Call 555-0100 now",
        "analyzer_results": [
            {"start": 5, "end": 13, "score": 0.4, "entity_type": "PHONE_NUMBER"},
            {"start": 5, "end": 13, "score": 0.9, "entity_type": "US_BANK_NUMBER"},
        ],
    },
]


@pytest.mark.parametrize("request_json", AGAINST_PRESIDIO, ids=range(len(AGAINST_PRESIDIO)))
def test_anonymize_answers_what_presidio_answers(c, request_json):
    presidio = pytest.importorskip("presidio_anonymizer")
    from presidio_anonymizer.services.app_entities_convertor import AppEntitiesConvertor

    given = copy.deepcopy(request_json)  # Presidio's converter takes "type" out of the operators
    expected = presidio.AnonymizerEngine().anonymize(
        text=given["text"],
        analyzer_results=AppEntitiesConvertor.analyzer_results_from_json(given["analyzer_results"]),
        operators=AppEntitiesConvertor.operators_config_from_json(given.get("anonymizers")),
    )
    assert c.post("/anonymize", json=request_json).json() == json.loads(expected.to_json())
