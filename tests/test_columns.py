"""A column of names without context is still a column of names: cells of a
CSV/JSONL field where nothing was found are masked whole when most cells of
that field are one identifier each (runner.column_votes)."""

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from spacy_textsan.cli import app
from spacy_textsan.run import DocResult, column_votes, mask_cell

RULES = str(Path(__file__).parent / "fixtures" / "cli" / "rules_only.cfg")


def result(text, spans):
    """A DocResult with masked spans ``(start, end, label)``."""
    return DocResult(
        sanitized=text,
        masked=[[s, e] for s, e, _ in spans],
        spans=[{"start": s, "end": e, "label": lab, "masked": True} for s, e, lab in spans],
    )


def test_column_votes():
    cells = [
        ("name", "Peder Halvorsen", result("Peder Halvorsen", [(0, 15, "PERSON")])),
        ("note", "called twice", result("called twice", [])),
        ("name", "Ola Nordmann", result("Ola Nordmann", [(0, 12, "PERSON")])),
        ("note", "ok", result("ok", [])),
        ("name", "Kari Smed", result("Kari Smed", [])),  # missed: masked by the vote
        ("name", "", result("", [])),  # empty: stays empty
        ("note", "Oslo", result("Oslo", [(0, 4, "LOC")])),  # 1 of 3: no vote
        ("name", "see the attached letter of 3 May about it", result("x", [])),  # long: no vote
        ("city", "Bergen", result("Bergen", [(0, 6, "LOC")])),  # 2 cells only: no vote
        ("city", "Tromsø", result("Tromsø", [])),
    ]
    assert column_votes(cells) == {4: "PERSON"}
    assert column_votes(cells, min_share=0.8) == {}


def test_mask_cell_keeps_surrounding_space():
    res = mask_cell("  Kari Smed ", result("  Kari Smed ", []), "PERSON")
    assert res.sanitized == "  [PERSON 1] "
    assert res.masked == [[2, 11]]
    assert res.offset_map == [[0, 2, 0, 2], [2, 12, 2, 11], [12, 13, 11, 12]]
    assert res.spans[0]["source"] == "column_vote" and res.spans[0]["text"] == "Kari Smed"


def test_sanitize_masks_a_column_of_names(tmp_path):
    src = tmp_path / "people.csv"
    src.write_text(
        "id,name,note\n1,Mr Peder Halvorsen,called\n2,Ms Kari Smed,ok\n3,Zorbuk Talvenheim,late\n4,Dr Ingrid Berg,\n",
        encoding="utf-8",
    )
    res = CliRunner().invoke(
        app,
        [
            "sanitize",
            str(src),
            "--column",
            "name",
            "--column",
            "note",
            "--pipeline",
            RULES,
            "--out",
            str(tmp_path / "out"),
        ],
    )
    assert res.exit_code == 0, res.output
    rows = list(csv.reader((tmp_path / "out" / "people.csv").open(encoding="utf-8")))
    assert rows == [
        ["id", "name", "note"],
        ["1", "[PERSON 1]", "called"],
        ["2", "[PERSON 1]", "ok"],
        ["3", "[PERSON 1]", "late"],
        ["4", "[PERSON 1]", ""],
    ]
    report = [json.loads(line) for line in (tmp_path / "out.report" / "report.jsonl").open(encoding="utf-8")]
    voted = [(r["line"], r["field"], s["text"]) for r in report for s in r["spans"] if s["source"] == "column_vote"]
    assert voted == [(4, "name", "Zorbuk Talvenheim")]
