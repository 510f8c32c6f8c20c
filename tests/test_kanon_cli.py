"""``textsan kanon build`` through typer's CliRunner (no model needed)."""

from pathlib import Path

import srsly
import typer
from typer.testing import CliRunner

from spacy_textsan.cli.kanon import kanon_app
from spacy_textsan.risk.kanon_index import InvertedIndex

FIX = Path(__file__).parent / "fixtures" / "kanon"
RULES = str(Path(__file__).parent / "fixtures" / "cli" / "rules_only.cfg")
runner = CliRunner()
# mounted as in spacy_textsan.cli: app.add_typer(kanon_app, name="kanon")
app = typer.Typer()
app.add_typer(kanon_app, name="kanon")


@app.command()
def version():  # a second command, as in the real app
    pass


def run(*args):
    return runner.invoke(app, ["kanon", "build", *[str(a) for a in args]])


def test_build_from_jsonl_records(tmp_path):
    res = run(
        tmp_path / "idx",
        "--records",
        FIX / "people.jsonl",
        "--field",
        "city",
        "--field",
        "birth_year",
        "--field",
        "occupation",
    )
    assert res.exit_code == 0, res.output
    assert "records" in res.output and "terms" in res.output
    assert srsly.read_json(tmp_path / "idx" / "meta.json") == {
        "version": 1,
        "n_records": 4,
        "n_terms": 7,
        "normalise": True,
    }
    idx = InvertedIndex.from_disk(tmp_path / "idx")
    assert [idx.count(t) for t in ["Ankara", "1961", "teacher", "1970"]] == [3, 3, 2, 1]


def test_build_from_csv_records_with_separator(tmp_path):
    res = run(tmp_path / "idx", "--records", FIX / "people.csv", "--column", "occupation", "--sep", "|")
    assert res.exit_code == 0, res.output
    idx = InvertedIndex.from_disk(tmp_path / "idx")
    assert (idx.n_records, len(idx), idx.count("teacher"), idx.count("judge")) == (3, 2, 2, 1)


def test_build_from_docs(tmp_path):
    res = run(tmp_path / "idx", "--docs", FIX / "docs.jsonl", "--pipeline", RULES)
    assert res.exit_code == 0, res.output
    idx = InvertedIndex.from_disk(tmp_path / "idx")
    # doc a: "Mr Ada Lee" (title dropped), 1961, 48213/09; doc b: "Ms B. Baysal", 1961; doc c: nothing
    assert idx.n_records == 3
    assert sorted(idx.terms()) == ["1961", "48213/09", "ada lee", "b. baysal"]
    assert idx.count("1961") == 2 and idx.postings("ada lee").to_array().tolist() == [0]


def test_build_errors(tmp_path):
    res = run(tmp_path / "idx", "--records", FIX / "bad_json.jsonl", "--field", "city")
    assert res.exit_code == 1 and "bad_json.jsonl:3: invalid JSON" in res.output
    res = run(tmp_path / "idx", "--records", FIX / "bad_row.csv", "--column", "city")
    assert res.exit_code == 1 and "bad_row.csv:3: row has 2 fields" in res.output
    res = run(tmp_path / "idx", "--records", FIX / "people.jsonl")
    assert res.exit_code != 0 and "--field" in res.output
    res = run(tmp_path / "idx")
    assert res.exit_code != 0 and "either --records" in res.output
    assert not (tmp_path / "idx").exists()


def test_error_with_a_long_path_stays_on_one_line(tmp_path):
    deep = tmp_path / ("a-directory-name-long-enough-to-push-the-message-past-eighty-columns" * 2)
    deep.mkdir()
    bad = deep / "bad_row.csv"
    bad.write_bytes((FIX / "bad_row.csv").read_bytes())
    res = run(tmp_path / "idx", "--records", bad, "--column", "city")
    assert res.exit_code == 1
    assert f"{bad}:3: row has 2 fields, the header has 3" in res.output
