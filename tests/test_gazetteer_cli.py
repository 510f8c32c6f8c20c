"""``textsan gazetteer build / info / exclusions`` through typer's CliRunner,
on the WordNet fixture of test_gazetteer_build.py (no download, no geography)."""

from pathlib import Path

import srsly
import typer
from typer.testing import CliRunner

from spacy_textsan.cli.gazetteer import gazetteer_app
from spacy_textsan.detect.gazetteer.curated import class_entries, read_classes
from spacy_textsan.detect.gazetteer.kb import GazetteerKB, KBEntry, normalize_surface
from spacy_textsan.detect.gazetteer.wordnet import read_wordnet

FIX = Path(__file__).parent / "fixtures"
WNDB = FIX / "gazetteer" / "wndb"
TAB = FIX / "tab_two_annotators.json"
runner = CliRunner()
app = typer.Typer()
app.add_typer(gazetteer_app, name="gazetteer")  # mounted as in spacy_textsan.cli


@app.command()
def version():  # a second command, as in the real app
    pass


def run(*args):
    return runner.invoke(app, ["gazetteer", *[str(a) for a in args]])


def text(res) -> str:
    """The output with wasabi's line wrapping undone."""
    return " ".join(res.output.split())


def bundled_classes():
    """The class entries that `gazetteer build` adds (from data/classes.txt) with the fixture WordNet."""
    return list(class_entries(read_classes(), read_wordnet(WNDB)))


def build(out, *extra):
    return run("build", out, "--wordnet", WNDB, "--no-geography", *extra)


def test_build_from_fixture_wordnet(tmp_path):
    res = build(tmp_path / "kb", "--exclusions", "none", "--quasi", "none")
    assert res.exit_code == 0, res.output
    # 16 WordNet entries (43 surfaces) + the bundled curated classes
    classes = bundled_classes()
    kb = GazetteerKB.from_disk(tmp_path / "kb")
    n_surfaces = sum(1 for _ in kb.surfaces())
    assert f"wrote {tmp_path / 'kb'}: {16 + len(classes)} entries, {n_surfaces} surface forms" in text(res)
    assert kb.stats() == {
        "LOC": 0,
        "ORG": 1 + sum(e.tab_type == "ORG" for e in classes),
        "DEM": 15,
        "MISC": sum(e.tab_type == "MISC" for e in classes),
    }
    assert n_surfaces - 43 == len({normalize_surface(s) for e in classes for s in e.surfaces})
    lawyer = kb.lookup("lawyers")
    assert [(e.label, e.tab_type, e.chain) for e in lawyer] == [("lawyer", "DEM", ["professional"])]
    assert [(e.label, e.chain) for e in kb.lookup("Norwegian")] == [("Norwegian", ["European", "inhabitant", "person"])]
    assert [e.label for e in kb.lookup("United Nations")] == ["United Nations"]
    meta = srsly.read_json(tmp_path / "kb" / "meta.json")
    # the fixture database is a trimmed WordNet: missing roots are skipped and reported
    assert meta["roots"] == ["person.n.01", "professional.n.01", "ill_health.n.01", "organization.n.01"]
    assert "sick_person.n.01" in meta["missing_roots"] and "person.n.01 skip 'relative'" in meta["missing_roots"]
    assert (meta["source"], meta["sources"], meta["n_surfaces"], meta["exclusions"], meta["n_classes"]) == (
        "offline",
        ["wordnet-wndb", "textsan-classes"],
        n_surfaces,
        "none",
        len(classes),
    )


def test_build_keeps_an_existing_kb_unless_forced(tmp_path):
    assert build(tmp_path / "kb", "--exclusions", "none").exit_code == 0
    excl = tmp_path / "excl.txt"
    excl.write_text("# never tag\nlawyer  # 0/9\nLAWYERS\n", encoding="utf-8")
    res = build(tmp_path / "kb", "--exclusions", excl)
    assert res.exit_code == 0 and "already holds a knowledge base" in res.output
    assert GazetteerKB.from_disk(tmp_path / "kb").lookup("lawyer")
    res = build(tmp_path / "kb", "--exclusions", excl, "--force")
    assert res.exit_code == 0, res.output
    kb = GazetteerKB.from_disk(tmp_path / "kb")
    assert kb.lookup("lawyer") == [] and kb.lookup("lawyers") == []
    assert [e.label for e in kb.lookup("attorneys")] == ["attorney"]  # excluded in another synset only


def test_build_errors(tmp_path):
    res = build(tmp_path / "kb", "--exclusions", tmp_path / "missing.txt")
    assert res.exit_code == 1 and f"cannot read --exclusions {tmp_path / 'missing.txt'}" in res.output
    empty = tmp_path / "empty"
    empty.mkdir()
    res = run("build", tmp_path / "kb", "--wordnet", empty, "--no-geography")
    assert res.exit_code == 1 and str(empty) in res.output
    assert not (tmp_path / "kb").exists()
    # a database that has none of the roots
    other = tmp_path / "other"
    other.mkdir()
    for f in WNDB.iterdir():
        text = f.read_text(encoding="utf-8")
        if f.name == "index.noun":
            text = "".join(
                line
                for line in text.splitlines(keepends=True)
                if line.startswith(" ")
                or not line.startswith(("person ", "professional ", "ill_health ", "organization "))
            )
        (other / f.name).write_text(text, encoding="utf-8")
    res = run("build", tmp_path / "kb", "--wordnet", other, "--no-geography")
    assert res.exit_code == 1 and "none of the WordNet roots" in res.output
    assert not (tmp_path / "kb").exists()


def test_info_lookup(tmp_path):
    assert build(tmp_path / "kb", "--exclusions", "none", "--quasi", "none").exit_code == 0
    res = run("info", tmp_path / "kb", "--lookup", "lawyers", "--lookup", "teachers")
    assert res.exit_code == 0, res.output
    assert f"{16 + len(bundled_classes())} entries" in res.output
    assert "lawyers: wn:00004000-n DEM lawyer -> professional" in res.output
    assert "teachers: not in the knowledge base" in res.output
    res = run("info", tmp_path / "nothing")
    assert res.exit_code == 1 and "holds no knowledge base" in res.output


def small_kb(path):
    kb = GazetteerKB()
    for entry in [
        KBEntry("x:british", "British", "DEM", chain=["nationality"]),
        KBEntry("x:researcher", "researcher", "DEM", chain=["person"]),
        KBEntry("x:claim", "claim", "MISC", chain=["assertion"]),
        KBEntry("x:norway", "Norway", "LOC", chain=["country"]),
    ]:
        kb.add(entry)
    kb.to_disk(path)


def test_exclusions_from_gold_annotations(tmp_path):
    small_kb(tmp_path / "kb")
    out = tmp_path / "excl.txt"
    # d1: "British" (annotator 1) and "researcher" (annotator 2) are to mask; d2: "claim" is never annotated
    res = run("exclusions", tmp_path / "kb", "--docs", TAB, "-o", out, "--min-count", 1)
    assert res.exit_code == 0, res.output
    assert "1 of 3 surfaces seen" in text(res)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# ") and "tab_two_annotators.json" in lines[1]
    assert lines[2:] == ["claim  # 0/1"]
    # LOC: "Norway" twice in d2, once annotated DIRECT (the NO_MASK one does not count): rate 1/2
    res = run("exclusions", tmp_path / "kb", "--docs", TAB, "-o", out, "--min-count", 1, "--label", "LOC")
    assert res.exit_code == 0 and out.read_text(encoding="utf-8").splitlines()[2:] == []
    res = run(
        "exclusions", tmp_path / "kb", "--docs", TAB, "-o", out, "--min-count", 1, "--label", "LOC", "--max-rate", 0.5
    )
    assert res.exit_code == 0 and out.read_text(encoding="utf-8").splitlines()[2:] == [
        "norway  # 1/2"
    ]  # normalised surface
    # the derived list feeds the build
    res = build(tmp_path / "kb2", "--exclusions", out)
    assert res.exit_code == 0, res.output


def test_exclusions_bad_docs(tmp_path):
    small_kb(tmp_path / "kb")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"doc_id": "a",\n "text": }]', encoding="utf-8")
    res = run("exclusions", tmp_path / "kb", "--docs", bad, "-o", tmp_path / "x.txt")
    assert res.exit_code == 1 and "bad.json" in res.output
    assert not (tmp_path / "x.txt").exists()
