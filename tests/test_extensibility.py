"""What other packages plug into: generalizer operators registered by name,
components that say their stage by attribute, and extensions that refuse to
be shared with a package that declared them differently."""

import subprocess
import sys
from pathlib import Path

import catalogue
import pytest
import spacy
from spacy.language import Language
from typer.testing import CliRunner

from spacy_textsan.cli import app, parse_strategy
from spacy_textsan.extensions import register_extensions
from spacy_textsan.pipeline import complete_pipeline, load_pipeline
from spacy_textsan.render import Operator, register_operator
from spacy_textsan.render.operators import strategy_names
from spacy_textsan.stages import stage_of

RULES = str(Path(__file__).parent / "fixtures" / "cli" / "rules_only.cfg")
TEXT = "Mr Ada Lee lodged application no. 48213/09 on 2 May 2001. Mr Lee was heard."


class Initials(Operator):
    """The initials of the entity's fullest mention."""

    name = "test_initials"

    def replace(self, entity, context):
        return "".join(w[0] for w in entity.fullest().split()) + "."


@pytest.fixture
def initials():
    """``Initials`` registered for the test only (the registry is global: other tests list its names)."""
    register_operator(Initials)
    yield Initials
    catalogue.REGISTRY.pop(("spacy_textsan", "operators", Initials.name), None)
    assert "test_initials" not in strategy_names()


def test_a_registered_operator_is_a_strategy_of_the_component_and_the_cli(tmp_path, initials):
    assert strategy_names()[:4] == ("mask", "generalize", "pseudonym", "hash")
    assert "test_initials" in strategy_names()
    overrides = parse_strategy("test_initials,CODE=mask")
    assert overrides == {
        "components.generalizer.strategy": "test_initials",
        "components.generalizer.strategy_by_label": {"CODE": "mask"},
    }
    nlp = load_pipeline(RULES, overrides)
    doc = nlp(TEXT)
    # both mentions of the person get the replacement of the fullest one
    assert doc._.sanitized_text == "MAL. lodged application no. [CODE 1] on 2M2.. MAL. was heard."
    src = tmp_path / "note.txt"
    src.write_text(TEXT + "\n", encoding="utf-8")
    res = CliRunner().invoke(
        app, ["sanitize", str(src), "--out", str(tmp_path / "o"), "--pipeline", RULES, "--strategy", "test_initials"]
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o" / "note.txt").read_text(encoding="utf-8") == (
        "MAL. lodged application no. 4. on 2M2.. MAL. was heard.\n"
    )


def test_an_unknown_strategy_is_refused_with_the_registered_names():
    with pytest.raises(Exception, match="'nope' is not one of mask, generalize, pseudonym, hash"):
        parse_strategy("nope")
    with pytest.raises(ValueError, match="must be one of"):
        load_pipeline(RULES, {"components.generalizer.strategy": "nope"})


@Language.component("test_decides_itself")
def _decides_itself(doc):
    for span in doc.spans.get("textsan", []):
        span._.masked = span.label_ != "DATETIME"
    return doc


_decides_itself.textsan_stage = "decide"  # a decision component of another package


def test_complete_pipeline_reads_the_stages_of_the_components():
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    nlp.add_pipe("test_decides_itself")
    complete_pipeline(nlp)
    # a detector and a decision are there: only the generalizer is added
    assert nlp.pipe_names == ["privacy_ner", "test_decides_itself", "generalizer"]
    assert [stage_of(proc) for _, proc in nlp.pipeline] == ["detect", "decide", "render"]
    assert (
        nlp(TEXT)._.sanitized_text == "[PERSON 1] lodged application no. [CODE 1] on 2 May 2001. [PERSON 1] was heard."
    )
    blank = complete_pipeline(spacy.blank("en"))
    assert blank.pipe_names == ["privacy_ner", "mask_all", "generalizer"]


def test_extensions_are_idempotent_and_a_clash_is_an_error():
    register_extensions()  # declared already, by import: no error, nothing changed
    code = (
        "from spacy.tokens import Span\n"
        "Span.set_extension('masked', default=False)\n"  # another package: kept by default
        "import spacy_textsan\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 1
    assert "ExtensionClashError: spacy-textsan: the Span extension 'masked' (._.masked)" in res.stderr
