"""Consistency of the sanitized outputs, with the default pipeline and every
strategy: every mention of one entity gets the same replacement, and no masked
string survives anywhere in its document's sanitized text in the TXT, CSV or
JSONL outputs (inside other words included). Documents (rows) are sanitized
one by one: a string masked in one row is not looked for in the others."""

import csv
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
import srsly
from typer.testing import CliRunner

from spacy_textsan.cli import app

SAMPLE = Path(__file__).parent.parent / "spacy_textsan" / "assets" / "sample.txt"
runner = CliRunner()


def _inputs(tmp_path):
    text = SAMPLE.read_text()
    paragraphs = [p for p in text.split("\n\n") if p.strip()]
    src = tmp_path / "in"
    src.mkdir()
    (src / "sample.txt").write_text(text)
    with open(src / "rows.csv", "w", newline="") as fh:  # quoted newlines, other columns
        w = csv.writer(fh)
        w.writerow(["id", "body", "tag"])
        for i in range(0, len(paragraphs), 2):
            w.writerow([i, "\n".join(paragraphs[i : i + 2]), f"t{i}"])
    with open(src / "rows.jsonl", "w") as fh:
        for i, p in enumerate(paragraphs):
            fh.write(json.dumps({"id": i, "text": p}) + "\n")
    return src


def _leaks(masked_text: str, output: str) -> bool:
    """Does a masked string occur in an output (the leak sweep's own rule)?"""
    masked_text = " ".join(masked_text.split())
    if len(masked_text) >= 4:
        return masked_text.casefold() in " ".join(output.split()).casefold()
    if len(masked_text) >= 2 and any(c.isalpha() for c in masked_text):
        return re.search(rf"(?<!\w){re.escape(masked_text)}(?!\w)", output, re.IGNORECASE) is not None
    return False


@pytest.mark.parametrize("strategy", ["mask", "generalize", "hash", "pseudonym"])
def test_no_masked_string_survives_and_entities_are_consistent(tmp_path, model_available, strategy):
    src = _inputs(tmp_path)
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["sanitize"]
        + [str(p) for p in (src / "sample.txt", src / "rows.csv", src / "rows.jsonl")]
        + ["--out", str(out), "--column", "body", "--strategy", strategy],
        env={"TEXTSAN_KEY": "test-key"},
    )
    assert res.exit_code == 0, res.output
    report = list(srsly.read_jsonl(tmp_path / "out.report" / "report.jsonl"))
    assert [r["file"].split("/")[-1] for r in report].count("rows.jsonl") == 5
    with open(out / "rows.csv", newline="") as fh:
        csv_rows = [r["body"] for r in csv.DictReader(fh)]
    outputs = {
        "sample.txt": [(out / "sample.txt").read_text()],
        "rows.csv": csv_rows,
        "rows.jsonl": [r["text"] for r in srsly.read_jsonl(out / "rows.jsonl")],
    }
    n_masked = 0
    for row in report:
        assert row["status"] == "ok"
        output = outputs[Path(row["file"]).name][row["index"]]  # each row is a document of its own
        by_entity = defaultdict(set)
        for span in row["spans"]:
            if span["masked"] is False:
                continue
            n_masked += 1
            by_entity[(span["label"], span["entity_id"])].add(span["replacement"])
            assert not _leaks(span["text"], output), (span["text"], span["replacement"])
        assert all(len(reps) == 1 for reps in by_entity.values()), by_entity
    assert n_masked > 60
    # the surrogate key is in no output, report included
    assert all("test-key" not in p.read_text() for p in out.iterdir()) and "test-key" not in res.output
