"""``textsan background build`` and ``--background`` through typer's CliRunner, on hand-written fixtures."""

import json
from pathlib import Path

import numpy as np
import pytest
import srsly
from typer.testing import CliRunner

from spacy_textsan.cli import app
from spacy_textsan.cli import background_chunks as background_cli
from spacy_textsan.risk.reid_family import ANALYSERS, build_family, record_terms, save_family
from spacy_textsan.risk.reid_index import BackgroundIndex, analyse_terms, load_background

FIX = Path(__file__).parent / "fixtures" / "background"
runner = CliRunner()

BIO_TERMS = [
    ["ada", "lee", "leed", "1961", "she", "work", "carpent", "oaklin", "joineri", "york", "keep", "three", "goat"],
    ["omar", "haddad", "tuni", "1975", "he", "pharmacist", "central", "clinic", "lyon", "play", "oud"],
    ["mira", "kovac", "split", "1961", "she", "teach", "chemistri", "school", "zagreb", "swim", "everi", "morn"],
    ["jon", "berg", "bergen", "1988", "he", "repair", "boat", "tromsø", "sing", "choir", "keep", "bee"],
]


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def build(out, *args):
    return run("background", "build", out, *args)


def one_line_error(res, text):
    """Exit 1 with ``text`` in a single line on stderr and nothing on stdout."""
    assert res.exit_code == 1, res.output
    assert res.stderr.strip().count("\n") == 0 and text in res.stderr, res.stderr
    assert res.stdout == ""


def said(res) -> str:
    """The command's output with its lines unwrapped."""
    return " ".join(res.output.split())


def vocabulary(index: BackgroundIndex) -> set[str]:
    return {t for t in index.retriever.vocab_dict if t and index.term_id(t) is not None}


def test_jsonl_with_id_field(tmp_path):
    res = build(tmp_path / "bg", "--docs", FIX / "bios.jsonl", "--field", "bio", "--id-field", "id")
    assert res.exit_code == 0, res.output
    assert "records" in res.stdout and "index size" in res.stdout and "seconds" in res.stdout
    index = load_background(tmp_path / "bg")
    assert index.ids == ["p1", "p2", "p3", "p4"]
    assert vocabulary(index) == {t for terms in BIO_TERMS for t in terms}
    assert index.n_terms == 44 and index.lengths.tolist() == [13, 11, 12, 12]
    assert index.postings(index.term_id("1961"))[0].tolist() == [0, 2]
    assert index.postings(index.term_id("keep"))[0].tolist() == [0, 3]
    manifest = srsly.read_json(tmp_path / "bg" / "background.json")
    assert manifest["n_records"] == 4 and manifest["sources"] == [
        {"file": "bios.jsonl", "format": "jsonl", "records": 4}
    ]
    assert "built" in manifest and not (tmp_path / "bg" / ".partial").exists()
    assert sorted(p.name for p in (tmp_path / "bg").iterdir()) == ["background.json", "bm25", "family"]
    assert index.family["word"].n_records == 4 and len(index.hashes) == 4
    # the same records, terms given as lists: the same index, byte for byte
    ref = BackgroundIndex.from_term_lists(["p1", "p2", "p3", "p4"], BIO_TERMS)
    ref.save(tmp_path / "ref")
    for f in (tmp_path / "ref" / "bm25").iterdir():
        assert f.read_bytes() == (tmp_path / "bg" / "bm25" / f.name).read_bytes(), f.name


def test_csv_columns_joined_and_txt_tab_ids(tmp_path):
    res = build(
        tmp_path / "csv", "--docs", FIX / "staff.csv", "--field", "role", "--field", "town", "--id-field", "code"
    )
    assert res.exit_code == 0, res.output
    index = load_background(tmp_path / "csv")
    assert index.ids == ["S-1", "S-2", "S-3"]
    assert vocabulary(index) == {"nurs", "leed", "porter", "york"}
    assert index.postings(index.term_id("nurs"))[0].tolist() == [0, 2]
    # TXT: one record; TAB JSON: doc_id; JSONL without --id-field: FILE:LINE
    res = build(
        tmp_path / "mixed",
        "--docs",
        FIX / "note.txt",
        "--docs",
        FIX / "cases.json",
        "--docs",
        FIX / "bios.jsonl",
        "--field",
        "bio",
    )
    assert res.exit_code == 0, res.output
    index = load_background(tmp_path / "mixed")
    assert index.ids == [
        "note.txt:1",
        "case-1",
        "case-2",
        "bios.jsonl:1",
        "bios.jsonl:2",
        "bios.jsonl:3",
        "bios.jsonl:4",
    ]
    assert index.lengths.tolist() == [8, 4, 5, 13, 11, 12, 12]
    assert analyse_terms((FIX / "note.txt").read_text()) == [
        "visit",
        "old",
        "mill",
        "saltair",
        "weaver",
        "cottag",
        "canal",
        "cafe",
    ]
    assert index.postings(index.term_id("applic"))[0].tolist() == [1, 2]
    assert index.n_terms == 8 + 8 + 44 - 1  # note, cases, bios; '1961' is in a case and in the bios


def test_jsonl_two_fields(tmp_path):
    res = build(tmp_path / "bg", "--docs", FIX / "bios.jsonl", "--field", "name", "--field", "bio")
    assert res.exit_code == 0, res.output
    index = load_background(tmp_path / "bg")
    assert index.lengths.tolist() == [15, 13, 14, 14]  # the name's two words, then the bio


def family_files(folder: Path) -> dict[str, bytes]:
    """Every file of the background's attacker family, by its path under ``family/``."""
    root = folder / "family"
    return {str(f.relative_to(root)): f.read_bytes() for f in sorted(root.rglob("*")) if f.is_file()}


def test_the_chunked_family_is_the_one_build_family_gives(tmp_path):
    docs = ["--docs", FIX / "bios.jsonl", "--docs", FIX / "cases.json", "--docs", FIX / "note.txt"]
    res = build(tmp_path / "bg", *docs, "--field", "bio", "--chunk-size", "2")
    assert res.exit_code == 0, res.output
    texts = [json.loads(line)["bio"] for line in (FIX / "bios.jsonl").read_text().splitlines() if line.strip()]
    texts += [case["text"] for case in json.loads((FIX / "cases.json").read_text())]
    texts.append((FIX / "note.txt").read_text())
    family, hashes = build_family(texts)
    index = load_background(tmp_path / "bg")
    assert index.hashes == hashes and len(hashes) == index.n_records == 7
    assert index.same_text(texts[4]) == ["case-1"]
    assert sorted(index.family) == sorted(ANALYSERS)
    for name in ANALYSERS:
        built, ref = index.family[name], family[name]
        assert built.vocab == ref.vocab, name
        assert list(built.vocab) == list(ref.vocab), name  # the same order
        for field in ("indptr", "records", "tf", "lengths"):
            got, want = np.asarray(getattr(built, field)), np.asarray(getattr(ref, field))
            assert got.dtype == want.dtype and np.array_equal(got, want), (name, field)
    assert family["pair"].n_records == 7 and len(family["pair"].vocab) > 0
    # and the files, byte for byte: one chunk, the in-memory build and save_family
    res = build(tmp_path / "one", *docs, "--field", "bio")
    assert res.exit_code == 0, res.output
    save_family(tmp_path / "ref", family, hashes)
    assert family_files(tmp_path / "bg") == family_files(tmp_path / "one") == family_files(tmp_path / "ref")
    assert srsly.read_json(tmp_path / "bg" / "background.json")["family"] == sorted(ANALYSERS)


def test_interrupted_build_resumes_to_the_same_bytes(tmp_path, monkeypatch):
    docs = ["--docs", FIX / "bios.jsonl", "--docs", FIX / "cases.json", "--field", "bio", "--chunk-size", "2"]
    assert build(tmp_path / "ref", *docs).exit_code == 0
    out = tmp_path / "bg"
    real_save = background_cli._save_chunk

    def interrupt_at_third(partial, number, *args):
        if number == 3:
            raise KeyboardInterrupt
        real_save(partial, number, *args)

    monkeypatch.setattr(background_cli, "_save_chunk", interrupt_at_third)
    res = build(out, *docs)
    assert res.exit_code == 130 and "run the same command again to resume" in said(res)
    assert sorted(p.name for p in (out / ".partial").iterdir()) == [
        "chunk-00001.json",
        "chunk-00001.npz",
        "chunk-00002.json",
        "chunk-00002.npz",
        "fingerprint.json",
    ]
    assert not (out / "background.json").exists()
    monkeypatch.setattr(background_cli, "_save_chunk", real_save)
    # a lost chunk is made again; the finished one is not
    (out / ".partial" / "chunk-00001.json").unlink()
    calls = []
    monkeypatch.setattr(background_cli, "record_terms", lambda text: calls.append(text) or record_terms(text))
    res = build(out, *docs)
    assert res.exit_code == 0, res.output
    assert "resuming the interrupted build: 1 finished chunk(s)" in said(res)
    assert len(calls) == 4  # chunks 1 and 3 (the bios 1-2, the cases), not chunk 2
    for f in (tmp_path / "ref" / "bm25").iterdir():
        assert f.read_bytes() == (out / "bm25" / f.name).read_bytes(), f.name
    assert family_files(out) == family_files(tmp_path / "ref") and len(family_files(out)) == 4 * 5 + 1
    assert srsly.read_json(out / "background.json") == srsly.read_json(tmp_path / "ref" / "background.json")
    assert not (out / ".partial").exists()
    # changed options start over
    monkeypatch.setattr(background_cli, "_save_chunk", interrupt_at_third)
    assert build(out, *docs[:-1], "1").exit_code == 130
    monkeypatch.setattr(background_cli, "_save_chunk", real_save)
    res = build(out, *docs)
    assert res.exit_code == 0 and "starting over" in said(res) and "resuming" not in said(res)
    assert family_files(out) == family_files(tmp_path / "ref")


def test_partial_chunks_of_another_format_start_over(tmp_path, monkeypatch):
    docs = ["--docs", FIX / "bios.jsonl", "--field", "bio", "--chunk-size", "2"]
    out = tmp_path / "bg"
    real_save = background_cli._save_chunk

    def interrupt_at_second(partial, number, *args):
        if number == 2:
            raise KeyboardInterrupt
        real_save(partial, number, *args)

    monkeypatch.setattr(background_cli, "_save_chunk", interrupt_at_second)
    assert build(out, *docs).exit_code == 130
    monkeypatch.setattr(background_cli, "_save_chunk", real_save)
    # a partial build of the chunk format before the family's (its fingerprint has no chunk_format)
    stamp = out / ".partial" / "fingerprint.json"
    old = json.loads(stamp.read_text())
    del old["chunk_format"]
    stamp.write_text(json.dumps(old))
    res = build(out, *docs)
    assert res.exit_code == 0 and "starting over" in said(res) and "resuming" not in said(res)
    assert load_background(out).family["pair"].n_records == 4


def test_force_and_rebuild_keep_kanon_files(tmp_path):
    out = tmp_path / "bg"
    out.mkdir()
    (out / "meta.json").write_text("{}")
    (out / "index.msgpack").write_bytes(b"x")
    res = build(out, "--docs", FIX / "cases.json")
    assert res.exit_code == 0, res.output
    assert "keeps the kanon_risk term index" in said(res)
    assert (out / "meta.json").read_text() == "{}" and (out / "index.msgpack").read_bytes() == b"x"
    (out / "bm25" / "stale.npy").write_bytes(b"old")
    res = build(out, "--docs", FIX / "note.txt", "--force")
    assert res.exit_code == 0, res.output
    assert load_background(out).ids == ["note.txt:1"] and not (out / "bm25" / "stale.npy").exists()
    assert (out / "meta.json").read_text() == "{}"
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.md").write_text("mine")
    one_line_error(build(other, "--docs", FIX / "note.txt"), f"{other}: exists and is not a background folder")
    assert sorted(p.name for p in other.iterdir()) == ["notes.md"]
    res = build(other, "--docs", FIX / "note.txt", "--force")
    assert res.exit_code == 0 and (other / "notes.md").read_text() == "mine"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--docs", "{tmp}/nope.jsonl"], "{tmp}/nope.jsonl: file not found"),
        (["--docs", "{tmp}"], "{tmp}: is a folder, not a file"),
        (["--docs", "{fix}/bios.jsonl"], "{fix}/bios.jsonl:1: missing field 'text'"),
        (["--docs", "{fix}/bios.jsonl", "--field", "bio", "--docs", "{fix}/bios.jsonl"], "bios.jsonl: given twice"),
        (
            ["--docs", "{fix}/bios.jsonl", "--field", "name", "--id-field", "nope"],
            "{fix}/bios.jsonl:1: the record has no id 'nope'",
        ),
        (
            ["--docs", "{fix}/staff.csv", "--field", "role", "--id-field", "nope"],
            "{fix}/staff.csv: unknown id column 'nope'; available columns: 'code', 'role', 'town', 'note'",
        ),
        (
            ["--docs", "{fix}/staff.csv", "--field", "role", "--id-field", "town"],
            # changed: the id, a value of the file, is not quoted
            "{fix}/staff.csv:4: the record id is given twice (first at {fix}/staff.csv:2)",
        ),
        (["--docs", "{fix}/staff.csv", "--field", "role", "--id-field", "note"], "{fix}/staff.csv:4: empty id"),
        (
            ["--docs", "{fix}/cases.json", "--docs", "{tmp}/copy/cases.json"],
            "{tmp}/copy/cases.json:2: the record id is given twice (first at {fix}/cases.json:2)",
        ),
        (["--docs", "{fix}/note.txt", "--docs", "{tmp}/copy/note.txt"], "have the same file name"),
        (["--docs", "{fix}/note.txt", "--on-duplicate", "last"], "--on-duplicate must be one of error, first"),
        (["--docs", "{fix}/note.txt", "--pipeline", "x.cfg"], "--pipeline is used with --terms only"),
    ],
)
def test_errors_write_nothing(tmp_path, args, message):
    (tmp_path / "copy").mkdir()
    for name in ("cases.json", "note.txt"):
        (tmp_path / "copy" / name).write_bytes((FIX / name).read_bytes())
    args = [a.format(tmp=tmp_path, fix=FIX) for a in args]
    one_line_error(build(tmp_path / "bg", *args), message.format(tmp=tmp_path, fix=FIX))
    assert not (tmp_path / "bg").exists()


def test_out_is_a_file(tmp_path):
    out = tmp_path / "bg"
    out.write_text("keep me")
    one_line_error(build(out, "--docs", FIX / "note.txt", "--force"), f"{out}: is a file, not a folder")
    assert out.read_text() == "keep me"


def test_duplicates_keep_the_first(tmp_path):
    dup = tmp_path / "more.json"
    dup.write_text(json.dumps([{"doc_id": "case-2", "text": "Another text."}, {"doc_id": "case-3", "text": "Third."}]))
    res = build(tmp_path / "bg", "--docs", FIX / "cases.json", "--docs", dup, "--on-duplicate", "first")
    assert res.exit_code == 0, res.output
    index = load_background(tmp_path / "bg")
    assert index.ids == ["case-1", "case-2", "case-3"] and index.term_id("anoth") is None
    # two documents on one line (minified TAB JSON) are still two records
    one_line = tmp_path / "one_line.json"
    one_line.write_text(json.dumps([{"doc_id": "x", "text": "First."}, {"doc_id": "x", "text": "Second."}]))
    one_line_error(
        build(tmp_path / "bg2", "--docs", one_line),
        f"{one_line}:1: the record id is given twice (first at {one_line}:1, record 1 of the file)",
    )
    assert not (tmp_path / "bg2").exists()


def test_sanitize_background_option(tmp_path, model_available):
    bg = tmp_path / "bg"
    assert build(bg, "--docs", FIX / "bios.jsonl", "--field", "bio", "--id-field", "id").exit_code == 0
    bad = run("sanitize", FIX / "note.txt", "--out", tmp_path / "o", "--background", tmp_path)
    one_line_error(bad, f"{tmp_path}: not a background folder (no background.json)")
    assert not (tmp_path / "o").exists()
    src = tmp_path / "doc.txt"
    src.write_text(
        "She was born in Split in 1961 and teaches chemistry at a school in Zagreb; she swims every morning.\n"
    )
    res = run("sanitize", src, "--out", tmp_path / "out", "--background", bg)
    assert res.exit_code == 0, res.output
    out = (tmp_path / "out" / "doc.txt").read_text()
    assert out.strip() and "Zagreb" not in out
    # the re-identification search ran over the 4 records of this background
    report = (tmp_path / "out.report" / "report.jsonl").read_text()
    assert "of 4 background records" in report
    assert np.array_equal(load_background(bg).lengths, [13, 11, 12, 12])


def test_terms_builds_the_kanon_index_of_the_same_records(tmp_path):
    rules = Path(__file__).parent / "fixtures" / "cli" / "rules_only.cfg"
    res = build(
        tmp_path / "bg",
        "--docs",
        FIX / "cases.json",
        "--docs",
        FIX / "bios.jsonl",
        "--field",
        "bio",
        "--terms",
        "--pipeline",
        rules,
    )
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (tmp_path / "bg").iterdir()) == [
        "background.json",
        "bm25",
        "family",
        "index.msgpack",
        "meta.json",
    ]
    from spacy_textsan.risk.kanon_index import InvertedIndex

    kanon = InvertedIndex.from_disk(tmp_path / "bg")
    assert kanon.n_records == load_background(tmp_path / "bg").n_records == 6
    assert kanon.count("1961") == 3 and kanon.count("ada lee") == 1
