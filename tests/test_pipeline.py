"""Loading pipelines: the bundled default, config files, foreign pipelines."""

import pytest
import spacy
from spacy.language import Language

from spacy_textsan.pipeline import complete_pipeline, load_pipeline, spans_key_of

RULES_CFG = "tests/fixtures/cli/rules_only.cfg"


@Language.factory("test_keep_dates", requires=["doc.spans"])
def make_keep_dates(nlp, name):
    """A stand-in decision component: keeps DATETIME spans, masks the rest."""

    def keep_dates(doc):
        for span in doc.spans["textsan"]:
            span._.masked = span.label_ != "DATETIME"
        return doc

    return keep_dates


def test_default_pipeline(model_available, default_pipe_names):
    nlp = load_pipeline()
    assert nlp.pipe_names == default_pipe_names
    assert nlp.config["components"]["privacy_ner"]["sources"] == [model_available]
    # defaults are filled in so that nlp.config shows every setting
    assert nlp.config["components"]["privacy_ner"]["combine"] == "union"
    assert nlp.config["components"]["generalizer"]["mask_format"] == "[{label} {n}]"


def test_config_file_with_overrides():
    nlp = load_pipeline(
        RULES_CFG,
        {
            "components.generalizer.mask_format": "<{label}>",
            "components.privacy_ner.rule_layer.patterns": [{"label": "CODE", "pattern": r"PX\d+"}],
            "components.not_there.x": 1,
        },
    )
    assert nlp("Mr Ada Lee, patient PX12.")._.sanitized_text == "<PERSON>, patient <CODE>."


def test_decision_component_is_replaced_by_config_alone():
    config = spacy.util.load_config(RULES_CFG)
    config["nlp"]["pipeline"] = ["privacy_ner", "test_keep_dates", "generalizer"]
    del config["components"]["mask_all"]
    config["components"]["test_keep_dates"] = {"factory": "test_keep_dates"}
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    assert nlp("Mr Ada Lee came on 1 May 2001.")._.sanitized_text == "[PERSON 1] came on 1 May 2001."


def test_foreign_pipeline_is_completed(model_available):
    nlp = complete_pipeline(spacy.load(model_available))
    assert nlp.pipe_names[-3:] == ["privacy_ner", "mask_all", "generalizer"]
    assert nlp.get_pipe("privacy_ner").source_names == ["doc.ents"]
    doc = nlp("Galip Yalman lives in Ankara.")
    assert doc._.sanitized_text == "[PERSON 1] lives in [LOC 1]."
    assert spans_key_of(nlp) == "textsan"


def test_saved_pipeline_round_trip(tmp_path):
    nlp = load_pipeline(RULES_CFG)
    nlp.to_disk(tmp_path / "pipe")
    again = load_pipeline(str(tmp_path / "pipe"))
    assert again.pipe_names == nlp.pipe_names
    text = "Mr Ada Lee paid EUR 300."
    assert again(text)._.sanitized_text == nlp(text)._.sanitized_text == "[PERSON 1] paid [QUANTITY 1]."


def test_missing_config_file():
    with pytest.raises(FileNotFoundError):
        load_pipeline("nope.cfg")
