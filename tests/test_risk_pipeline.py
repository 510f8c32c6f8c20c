"""The bundled risk pipeline (configs/risk.cfg) end to end, rules-only detection."""

from pathlib import Path

import srsly
from typer.testing import CliRunner

from spacy_textsan.cli import app
from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.risk.kanon_index import InvertedIndex

RISK_CFG = str(Path(__file__).parent.parent / "spacy_textsan" / "configs" / "risk.cfg")
TEXT = "Mr Ada Lee was born in 1961, paid EUR 300 on 2 May 2001."


def make_index(path):
    # '1961' and 'eur 300' are each shared by 4 records, together by 3: with k = 4 each is
    # safe alone but the pair is risky; '2 may 2001' and 'ada lee' are in no record
    records = [["1961", "eur 300"]] * 3 + [["1961"], ["eur 300"]]
    InvertedIndex.from_records(records).to_disk(path)
    return str(path)


def overrides(index):
    return {
        "paths.kanon_index": index,
        "components.privacy_ner.sources": [],
        "components.kanon_risk.k": 4,
        "components.lm_risk.threshold": -100.0,
    }


def test_optimizer_masks_the_cheaper_span_of_a_risky_pair(tmp_path):
    nlp = load_pipeline(RISK_CFG, overrides(make_index(tmp_path / "idx")))
    assert nlp.pipe_names == ["privacy_ner", "lm_risk", "kanon_risk", "mask_optimizer", "generalizer"]
    doc = nlp(TEXT)
    # information content (wordfreq): '1961' ≈ 11.0 nats < 'EUR 300' ≈ 25.7, so '1961' is masked
    assert doc._.sanitized_text == "[PERSON 1] was born in [DATETIME 1], paid EUR 300 on [DATETIME 2]."
    reasons = {s.text: s._.reasons for s in doc.spans["textsan"]}
    assert reasons == {
        "Mr Ada Lee": ["direct identifier (label PERSON)", "risky: kanon: 'ada lee' appears in 0 < 4 records"],
        "1961": ["covers risky combination: kanon: '1961' + 'eur 300' shared by 3 < 4 records"],
        "EUR 300": ["kept: its risky combinations are covered by other spans"],
        "2 May 2001": ["risky: kanon: '2 may 2001' appears in 0 < 4 records"],
    }
    assert doc._.decision_info["status"] == "OPTIMAL" and doc._.decision_info["n_risky_sets"] == 3


def test_cli_set_overrides_reach_the_config(tmp_path):
    index = make_index(tmp_path / "idx")
    src = tmp_path / "t.txt"
    src.write_text(TEXT)
    args = ["sanitize", str(src), "--out", str(tmp_path / "o"), "--pipeline", RISK_CFG]
    for key, value in overrides(index).items():
        args += ["--set", f"{key}={srsly.json_dumps(value)}"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert (
        tmp_path / "o" / "t.txt"
    ).read_text() == "[PERSON 1] was born in [DATETIME 1], paid EUR 300 on [DATETIME 2]."
    report = list(srsly.read_jsonl(tmp_path / "o.report" / "report.jsonl"))[0]
    assert report["decision"]["status"] == "OPTIMAL"
    assert [rs["measure"] for rs in report["risky_sets"]] == ["kanon", "kanon", "kanon"]
    bad = CliRunner().invoke(app, ["sanitize", str(src), "--out", str(tmp_path / "o"), "--set", "nodot"])
    assert bad.exit_code != 0 and "section.key=value" in bad.output
