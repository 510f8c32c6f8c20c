"""Property-based fuzzing of ``textsan serve`` against its own OpenAPI
description (schemathesis, in-process over ASGI): for requests drawn from the
schema, and requests that break it, the service never answers 500, answers
only the status codes its schema lists, with the content type and the body
those codes are described with, and refuses what the schema refuses.

Bounded: a few dozen examples per operation, derandomized (the same cases on
every run), on the rules-only pipeline with small limits."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.serve.app import create_app
from spacy_textsan.serve.settings import ServeSettings

schemathesis = pytest.importorskip("schemathesis")
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

RULES = str(Path(__file__).parent / "fixtures" / "cli" / "rules_only.cfg")
#: What every answer must satisfy. Not ``positive_data_acceptance``: some rules cannot be said in
#: JSON Schema (a span must be a range of *the* text, a mask format's words upper-case, a pattern
#: RE2's), so a schema-valid request may still be refused, 422 with the field named.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


# built when the module is collected (schemathesis' lazy loader, `from_fixture`, needs a pytest older than 9)
APP = create_app(
    load_pipeline(RULES),
    ServeSettings(pipeline="rules_only", timeout_s=30, max_document_chars=500, max_texts=4),
)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_every_answer_is_the_one_the_schema_describes(case):
    case.call_and_validate(checks=CHECKS)
