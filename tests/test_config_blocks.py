"""privacy_ner composed of registered blocks (``spacy_textsan.rule_layer.v1``,
``spacy_textsan.mentions.v1``): each setting written once, the blocks built from
config with their defaults, their settings overridden by path, and a setting
written where it was before it moved into a block named with its new place,
in one line."""

import dataclasses
import inspect
from pathlib import Path

import pytest
import spacy
import srsly
from thinc.api import Config
from typer.testing import CliRunner

from spacy_textsan.cli import app
from spacy_textsan.config_blocks import MovedSettingError, add_missing_blocks, moved_setting
from spacy_textsan.detect.privacy_ner import make_privacy_ner
from spacy_textsan.detect.privacy_ner.host_rules import find_rule_layer
from spacy_textsan.detect.privacy_ner.mentions import Mentions
from spacy_textsan.detect.privacy_ner.privacy_ner import DEFAULT_CONFIG
from spacy_textsan.detect.privacy_ner.rule_layer import RuleLayer
from spacy_textsan.pipeline import load_pipeline

RULES = str(Path(__file__).parent / "fixtures" / "cli" / "rules_only.cfg")
BLOCKS = {"rule_layer": ("spacy_textsan.rule_layer.v1", RuleLayer), "mentions": ("spacy_textsan.mentions.v1", Mentions)}


def settings_of(block: type) -> dict[str, object]:
    """The settings of a block and their defaults: its constructor's fields."""
    return {f.name: f.default for f in dataclasses.fields(block) if f.init}


def test_the_default_config_holds_the_blocks_by_reference():
    for key, (name, block) in BLOCKS.items():
        assert DEFAULT_CONFIG[key] == {"@misc": name}
        assert spacy.registry.misc.get(name) is block
        # a block's settings are written once: in the block, not in the factory
        assert not set(settings_of(block)) & set(DEFAULT_CONFIG)
        assert not set(settings_of(block)) & set(inspect.signature(make_privacy_ner).parameters)


def test_the_blocks_build_from_config_with_their_defaults():
    nlp = spacy.blank("en")
    ner = nlp.add_pipe("privacy_ner", config={"sources": []})
    assert ner.rule_layer == RuleLayer() and ner.mentions == Mentions()
    for key, (name, block) in BLOCKS.items():
        filled = nlp.config["components"]["privacy_ner"][key]
        assert filled["@misc"] == name
        assert srsly.json_loads(srsly.json_dumps({k: v for k, v in filled.items() if k != "@misc"})) == (
            srsly.json_loads(srsly.json_dumps(settings_of(block)))
        )
        assert spacy.registry.resolve(Config({"b": {"@misc": name}}))["b"] == block()
    again = spacy.util.load_model_from_config(nlp.config, auto_fill=True, validate=True).get_pipe("privacy_ner")
    assert (again.rule_layer, again.mentions) == (ner.rule_layer, ner.mentions)


def test_a_block_setting_changes_that_setting_only():
    nlp = spacy.blank("en")
    ner = nlp.add_pipe(
        "privacy_ner",
        config={"sources": [], "rule_layer": {"deny_list": ["PERSON:Ada"]}, "mentions": {"propagate": False}},
    )
    assert ner.rule_layer == RuleLayer(deny_list=["PERSON:Ada"])
    assert ner.mentions == Mentions(propagate=False)
    assert ner.rule_layer.deny == (("Ada", "PERSON"),)


def test_a_bad_block_value_fails_when_the_block_is_made():
    with pytest.raises(ValueError, match="deny_list label 'PLACE' is not a TAB label"):
        RuleLayer(deny_list=[{"text": "Oslo", "label": "PLACE"}])
    with pytest.raises(ValueError, match="phone_regions.*1 is not .*str"):
        spacy.blank("en").add_pipe("privacy_ner", config={"sources": [], "rule_layer": {"phone_regions": [1]}})


def test_block_settings_are_overridden_by_path_on_a_config_without_the_block():
    nlp = load_pipeline(RULES, {"components.privacy_ner.rule_layer.allow_list": ["Ada Lee"]})
    assert nlp.get_pipe("privacy_ner").rule_layer.allowed == {"ada lee"}
    config = {"components": {"privacy_ner": {"factory": "privacy_ner"}, "x": {"factory": "mask_all"}}}
    assert add_missing_blocks(config, {"components.privacy_ner.mentions.propagate": False}) == [
        "components.privacy_ner.mentions"
    ]
    assert config["components"]["privacy_ner"]["mentions"] == {"@misc": "spacy_textsan.mentions.v1"}


def test_a_foreign_pipeline_takes_block_overrides(tmp_path):
    spacy.blank("en").to_disk(tmp_path / "blank")
    nlp = load_pipeline(str(tmp_path / "blank"), {"components.privacy_ner.rule_layer.deny_list": ["PERSON:Ada"]})
    assert nlp.get_pipe("privacy_ner").rule_layer.deny == (("Ada", "PERSON"),)


def test_the_host_rule_layer_reads_the_blocks():
    text = "Mail ada@example.org on 1 May 2001."

    def found(*layer):
        return {text[m.start : m.end] for m in find_rule_layer(text, *layer)}

    assert {"ada@example.org", "1 May 2001"} <= found()
    assert "1 May 2001" not in found(RuleLayer(allow_list=["1 May 2001"]))
    assert found(RuleLayer(rules=False)) == set()


# --------------------------------------------------------------------------- an old flat key

MOVED = (
    "privacy_ner.deny_list moved to privacy_ner.rule_layer.deny_list: set it in [components.privacy_ner.rule_layer] "
    "(@misc = 'spacy_textsan.rule_layer.v1') or with components.privacy_ner.rule_layer.deny_list"
)


def test_every_old_key_names_its_block():
    assert {key: moved_setting("privacy_ner", key) for key in ("deny_list", "fuzzy_threshold", "sources", "x")} == {
        "deny_list": ("rule_layer", "spacy_textsan.rule_layer.v1"),
        "fuzzy_threshold": ("mentions", "spacy_textsan.mentions.v1"),
        "sources": None,
        "x": None,
    }


def test_an_old_flat_key_in_a_config_is_one_line_naming_its_new_place(tmp_path):
    cfg = tmp_path / "old.cfg"
    cfg.write_text(Path(RULES).read_text().replace("sources = []", 'sources = []\ndeny_list = ["PERSON:Ada"]'))
    with pytest.raises(MovedSettingError) as e:
        load_pipeline(str(cfg))
    assert str(e.value) == MOVED
    with pytest.raises(MovedSettingError, match=r"^privacy_ner\.propagate moved to privacy_ner\.mentions\.propagate: "):
        load_pipeline(RULES, {"components.privacy_ner.propagate": False})
    res = CliRunner().invoke(app, ["sanitize", str(cfg), "--out", str(tmp_path / "out"), "--pipeline", str(cfg)])
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert res.exit_code == 1 and lines == [f"✘ cannot load pipeline {cfg}: {MOVED}"]


def test_an_old_flat_key_given_with_set_is_one_line(tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("Mr Ada Lee.")
    args = ["sanitize", str(src), "--out", str(tmp_path / "out"), "--pipeline", RULES, "--set"]
    res = CliRunner().invoke(app, [*args, 'components.privacy_ner.deny_list=["Ada"]'])
    assert res.exit_code == 1 and res.output.strip() == f"✘ --set components.privacy_ner.deny_list: {MOVED}"
    res = CliRunner().invoke(app, [*args, "components.privacy_ner.rule_layer.deny_lst=[]"])
    assert res.exit_code == 1 and res.output.strip() == (
        "✘ --set components.privacy_ner.rule_layer.deny_lst: privacy_ner.rule_layer has no setting 'deny_lst'; "
        "did you mean components.privacy_ner.rule_layer.deny_list?"
    )
    assert not (tmp_path / "out").exists()
