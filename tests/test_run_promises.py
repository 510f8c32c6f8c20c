"""The run keeps its promises (issue 17): every bad option or output is found
before any work (exit 1, one line on stderr, nothing written); outputs are
written as they go and appear only when the run ends; restore gives the inputs
back byte for byte; the files with original strings stay out of the output
folder. One test (or more) per numbered case of the issue."""

import codecs
import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spacy_textsan.cli import app
from spacy_textsan.io import open_input
from spacy_textsan.render.mapping import generate_key
from spacy_textsan.run import plan_outputs
from spacy_textsan.run.outputs import RunWriter
from spacy_textsan.run.results import DocResult

FIX = Path(__file__).parent / "fixtures" / "cli"
RULES = str(FIX / "rules_only.cfg")
LETTER = "Dear Mr Ada Lee, call 0312 555 12 34 about case 48213/09.\n"
SANITIZED_LETTER = "Dear [PERSON 1], call [CODE 1] about case [CODE 2].\n"


def run(*args, env=None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def tree(folder: Path) -> list[str]:
    """Every path under ``folder`` (hidden temporary files included), sorted."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


@pytest.fixture
def letter(tmp_path):
    src = tmp_path / "in" / "letter.txt"
    src.parent.mkdir()
    src.write_text(LETTER)
    return src


def refused(res, message: str):
    """Exit 1, the message on stderr (one line), nothing on stdout."""
    assert res.exit_code == 1, res.output
    assert res.stderr == f"✘ {message}\n"
    assert res.stdout == ""


# 1. --out an existing file, an unwritable --out, a directory where the report goes


def test_out_naming_a_file_is_refused_before_any_work(tmp_path, letter):
    (tmp_path / "taken").write_text("mine")
    refused(
        run("sanitize", letter, "--out", tmp_path / "taken", "--pipeline", RULES),
        f"--out {tmp_path / 'taken'} is a file, not a directory",
    )
    assert (tmp_path / "taken").read_text() == "mine" and not (tmp_path / "taken.report").exists()


@pytest.mark.parametrize("out", ["/proc/textsan-x", "/sys/textsan-x"])
def test_an_unwritable_out_is_refused_before_any_work(tmp_path, letter, out):
    res = run("sanitize", letter, "--out", out, "--pipeline", RULES)
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.startswith(("✘ --out /", "✘ cannot write into /")), res.stderr
    assert not Path(out).exists() and not Path(f"{out}.report").exists()


def test_a_directory_where_the_report_goes_is_refused_before_any_work(tmp_path, letter):
    (tmp_path / "o.report" / "report.jsonl").mkdir(parents=True)
    refused(
        run("sanitize", letter, "--out", tmp_path / "o", "--pipeline", RULES),
        f"cannot write {tmp_path / 'o.report' / 'report.jsonl'}: a directory of that name is in the way",
    )
    assert not (tmp_path / "o").exists() and tree(tmp_path / "o.report") == ["report.jsonl"]


def test_a_directory_where_a_copy_goes_is_refused(tmp_path, letter):
    (tmp_path / "o" / "letter.txt").mkdir(parents=True)
    refused(
        run("sanitize", letter, "--out", tmp_path / "o", "--pipeline", RULES),
        f"cannot write {tmp_path / 'o' / 'letter.txt'}: a directory of that name is in the way",
    )
    assert tree(tmp_path / "o") == ["letter.txt"] and not (tmp_path / "o.report").exists()


# 2. --reversible with a key that is not a Fernet key


@pytest.mark.parametrize("where", ["file", "env"])
def test_a_mapping_key_that_is_not_fernet_is_refused_before_any_work(tmp_path, letter, where):
    bad = tmp_path / "bad.key"
    bad.write_text("hunter2\n")
    args = ["sanitize", letter, "--out", tmp_path / "o", "--pipeline", RULES, "--reversible"]
    if where == "file":
        res = run(*args, "--mapping-key-file", bad)
        name = str(bad)
    else:
        res = run(*args, env={"TEXTSAN_MAPPING_KEY": "hunter2"})
        name = "$TEXTSAN_MAPPING_KEY"
    refused(
        res,
        f"{name}: the mapping key is not a Fernet key (32 url-safe base64-encoded bytes; make one "
        "with `textsan keygen`)",
    )
    assert "hunter2" not in res.output
    assert not (tmp_path / "o").exists() and not (tmp_path / "o.report").exists()


# 3. an input that its output would overwrite: refused before anything is written


def test_an_output_that_would_overwrite_an_input_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "d2").mkdir()
    (tmp_path / "inout").mkdir()
    (tmp_path / "d2" / "same.txt").write_text(LETTER)
    (tmp_path / "inout" / "x.txt").write_text(LETTER)
    res = run(
        "sanitize",
        tmp_path / "d2" / "same.txt",
        tmp_path / "inout" / "x.txt",
        "--out",
        tmp_path / "inout",
        "--pipeline",
        RULES,
    )
    refused(
        res,
        f"refusing to overwrite the input file {tmp_path / 'inout' / 'x.txt'}; choose another --out "
        "directory or a suffix",
    )
    assert tree(tmp_path / "inout") == ["x.txt"] and (tmp_path / "inout" / "x.txt").read_text() == LETTER
    assert not (tmp_path / "inout.report").exists()


def test_an_output_that_would_be_another_input_is_refused(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "o").mkdir()
    (tmp_path / "a" / "x.txt").write_text(LETTER)
    (tmp_path / "o" / "x.txt").write_text("other input")
    files = [open_input(tmp_path / "a" / "x.txt"), open_input(tmp_path / "o" / "x.txt")]
    with pytest.raises(ValueError) as error:
        plan_outputs(files, tmp_path / "o")
    assert str(error.value) == (
        f"the sanitized copy of {tmp_path / 'a' / 'x.txt'} would be {tmp_path / 'o' / 'x.txt'}, "
        f"which is the input file {tmp_path / 'o' / 'x.txt'}; choose another --out directory"
    )


# 4. invalid option values: exit 1, the error on stderr


@pytest.mark.parametrize(
    "option, message",
    [
        (["--strategy", "bogus"], "--strategy: 'bogus' is not one of mask, generalize, pseudonym, hash"),
        (["--set", "foo"], "--set must be section.key=value, e.g. paths.kanon_index=assets/idx: 'foo'"),
        (["--on-error", "ignore"], "--on-error must be one of mask-all, skip, fail, not 'ignore'"),
        (["--engine", "gpu"], "--engine must be one of local, spark, not 'gpu'"),
    ],
)
def test_invalid_option_values_exit_1_on_stderr(tmp_path, letter, option, message):
    res = run("sanitize", letter, "--out", tmp_path / "o", "--pipeline", RULES, *option)
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.startswith(f"✘ {message}"), res.stderr
    assert not (tmp_path / "o").exists()


def test_a_bad_pattern_regex_exits_1(tmp_path, letter):
    res = run("sanitize", letter, "--out", tmp_path / "o", "--pipeline", RULES, "--pattern", "CODE=(unclosed")
    assert res.exit_code == 1 and res.stdout == "" and res.stderr.startswith("✘ ")
    assert "CODE=(unclosed" in res.stderr or "unclosed" in res.stderr or "missing )" in res.stderr
    assert not (tmp_path / "o").exists()


def test_a_usage_error_of_the_parser_exits_1_from_the_command(tmp_path, letter):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "spacy_textsan",
            "sanitize",
            str(letter),
            "--out",
            str(tmp_path / "o"),
            "--no-such-option",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert "No such option: --no-such-option" in proc.stderr
    assert not (tmp_path / "o").exists()


# 6. outputs are written as the run goes, under temporary names until it ends


def test_an_unfinished_run_leaves_nothing_that_looks_complete(tmp_path):
    src = tmp_path / "rows.jsonl"
    src.write_text('{"text": "a"}\n{"text": "b"}\n')
    f = open_input(src)
    plan = plan_outputs([f], tmp_path / "o")
    plan.prepare()
    writer = RunWriter(plan)
    output = writer.open_file(f)
    for record in f.iter_records():
        output.write(record, {"text": DocResult(sanitized="[X]", masked=[], offset_map=[])})
    output.finish()
    # as a killed run would leave it: only hidden temporary files
    assert [p.name for p in (tmp_path / "o").iterdir()] == [] or all(
        p.name.startswith(".rows.jsonl.") and p.name.endswith(".tmp") for p in (tmp_path / "o").iterdir()
    )
    assert not (tmp_path / "o" / "rows.jsonl").exists() and not (tmp_path / "o.report" / "report.jsonl").exists()
    writer.commit()
    assert (tmp_path / "o" / "rows.jsonl").read_text() == '{"text": "[X]"}\n{"text": "[X]"}\n'
    assert tree(tmp_path / "o") == ["rows.jsonl"] and tree(tmp_path / "o.report") == ["report.jsonl"]


def test_a_failing_run_removes_its_temporary_files(tmp_path):
    src = tmp_path / "rows.jsonl"
    src.write_text('{"text": "a"}\n')
    f = open_input(src)
    plan = plan_outputs([f], tmp_path / "o")
    plan.prepare()
    with pytest.raises(RuntimeError, match="boom"):
        with RunWriter(plan) as writer:
            writer.open_file(f)
            raise RuntimeError("boom")
    assert not (tmp_path / "o").exists() and not (tmp_path / "o.report").exists()


def test_the_progress_bar_counts_documents_with_rate_and_eta(tmp_path, capsys):
    from spacy_textsan.pipeline import load_pipeline
    from spacy_textsan.run import sanitize_files

    src = tmp_path / "rows.jsonl"
    src.write_text("".join(json.dumps({"text": f"Mr Ada Lee {i}"}) + "\n" for i in range(5)))
    f = open_input(src)
    run_result = sanitize_files([f], load_pipeline(RULES), plan_outputs([f], tmp_path / "o"), progress=True, n_docs=5)
    assert run_result.counts["ok"] == 5
    err = capsys.readouterr().err
    assert "5/5" in err and "doc/s" in err and "100%" in err
    quiet = run("sanitize", src, "--out", tmp_path / "q", "--pipeline", RULES, "--quiet")
    assert quiet.exit_code == 0 and "doc/s" not in quiet.output


# 7. restore gives every input back byte for byte


ROUND_TRIPS = {
    "bom.txt": codecs.BOM_UTF8 + LETTER.encode(),
    "utf16.txt": LETTER.encode("utf-16"),
    "utf16be.csv": codecs.BOM_UTF16_BE + "id,note\r\n1,Mr Ada Lee\r\n".encode("utf-16-be"),
    "cp1252.tsv": "id\tnote\n1\tMr Ada Lee paid 300 €\n".encode("cp1252"),
    "layout.jsonl": (
        b'{"id":1,"text":"Mr Ada Lee, caf\\u00e9"}\n\n  {"text" : "call 0312 555 12 34", "n": [1,2]}\r\n'
        b'\n{"text":"no newline at the end: Ada Lee"}'
    ),
    "quoted.csv": b'"id","note"\r\n"1","Mr Ada Lee"\r\n2,"plain"\r\n\r\n3,"a ""quoted"" Ada Lee, here"\r\n',
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIPS))
def test_restore_is_byte_identical(tmp_path, name):
    src = tmp_path / "in" / name
    src.parent.mkdir()
    src.write_bytes(ROUND_TRIPS[name])
    key = tmp_path / "map.key"
    key.write_bytes(generate_key())
    encoding = ["--encoding", "cp1252"] if "cp1252" in name else []
    res = run(
        "sanitize",
        src,
        "--out",
        tmp_path / "o",
        "--pipeline",
        RULES,
        "--column",
        "note",
        "--reversible",
        "--mapping-key-file",
        key,
        *encoding,
    )
    assert res.exit_code == 0, res.output
    sanitized = (tmp_path / "o" / name).read_bytes()
    assert b"Ada Lee" not in sanitized and "Ada Lee".encode("utf-16-be") not in sanitized
    restored = run("restore", tmp_path / "o", "--out", tmp_path / "back", "--key-file", key)
    assert restored.exit_code == 0, restored.output
    assert (tmp_path / "back" / name).read_bytes() == ROUND_TRIPS[name]
    assert stat.S_IMODE((tmp_path / "back" / name).stat().st_mode) == 0o600


def test_sanitized_copies_keep_the_layout_outside_the_values(tmp_path):
    src = tmp_path / "layout.jsonl"
    src.write_bytes(ROUND_TRIPS["layout.jsonl"])
    assert run("sanitize", src, "--out", tmp_path / "o", "--pipeline", RULES).exit_code == 0
    assert (tmp_path / "o" / "layout.jsonl").read_bytes() == (
        b'{"id":1,"text":"[PERSON 1], caf\\u00e9"}\n\n  {"text" : "call [CODE 1]", "n": [1,2]}\r\n'
        b'\n{"text":"no newline at the end: [PERSON 1]"}'
    )


def test_restore_refuses_reordered_mapping_chunks(tmp_path, letter):
    key = tmp_path / "map.key"
    key.write_bytes(generate_key())
    second = letter.with_name("second.txt")
    second.write_text(LETTER)
    assert (
        run(
            "sanitize",
            letter,
            second,
            "--out",
            tmp_path / "o",
            "--pipeline",
            RULES,
            "--reversible",
            "--mapping-key-file",
            key,
        ).exit_code
        == 0
    )
    lines = (tmp_path / "o" / "mapping.enc").read_bytes().splitlines(keepends=True)
    assert len(lines) == 5  # file, records, file, records, end
    (tmp_path / "o" / "mapping.enc").write_bytes(b"".join([lines[2], lines[3], lines[0], lines[1], lines[4]]))
    res = run("restore", tmp_path / "o", "--out", tmp_path / "back", "--key-file", key)
    refused(res, f"{tmp_path / 'o' / 'mapping.enc'}: the mapping's chunks are missing, reordered or damaged")
    assert not (tmp_path / "back").exists()


@pytest.mark.parametrize(
    "case, message",
    [
        ("tab", "TAB JSON is written as sanitized.jsonl without its annotations, so it cannot be restored"),
        ("skip", "1 malformed record(s) would be left out (--on-bad-line skip), so it cannot be restored"),
    ],
)
def test_reversible_refuses_a_layout_it_cannot_restore_up_front(tmp_path, case, message):
    key = tmp_path / "map.key"
    key.write_bytes(generate_key())
    if case == "tab":
        src, extra = FIX / "tab_small.json", []
    else:
        src, extra = tmp_path / "rows.jsonl", ["--on-bad-line", "skip"]
        src.write_text('{"text": "Mr Ada Lee"}\n{broken\n')
    res = run(
        "sanitize", src, "--out", tmp_path / "o", "--pipeline", RULES, "--reversible", "--mapping-key-file", key, *extra
    )
    refused(res, f"{src}: --reversible refused: {message}")
    assert not (tmp_path / "o").exists()


# 9. the files with original strings are kept apart, owner-only


def test_no_file_in_the_output_folder_holds_an_original_string(tmp_path):
    key = tmp_path / "map.key"
    key.write_bytes(generate_key())
    res = run(
        "sanitize",
        FIX / "tab_small.json",
        FIX / "notes.csv",
        "--column",
        "note",
        "--out",
        tmp_path / "shared",
        "--pipeline",
        RULES,
    )
    assert res.exit_code == 0, res.output
    assert tree(tmp_path / "shared") == ["notes.csv", "sanitized.jsonl"]
    reports = tmp_path / "shared.report"
    assert tree(reports) == ["masked_spans.json", "predictions.json", "report.jsonl"]
    assert stat.S_IMODE(reports.stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in reports.iterdir()} == {0o600}
    report = [json.loads(line) for line in (reports / "report.jsonl").read_text().splitlines()]
    originals = {s["text"] for row in report for s in row["spans"] if s["masked"] is not False}
    assert "Galip Yalman" in " ".join(originals)
    for path in (tmp_path / "shared").iterdir():
        text = path.read_text()
        assert not [o for o in originals if o in text], path
    assert (
        f"reports in {reports} (masked_spans.json, predictions.json, report.jsonl) hold the original strings"
        in " ".join(res.stdout.split())
    )


def test_a_report_dir_inside_out_is_refused(tmp_path, letter):
    refused(
        run("sanitize", letter, "--out", tmp_path / "o", "--report-dir", tmp_path / "o" / "r", "--pipeline", RULES),
        f"--report-dir {tmp_path / 'o' / 'r'} is inside --out {tmp_path / 'o'}: the reports hold the original "
        "strings and must not be shared with the sanitized files",
    )


def test_report_dir_option(tmp_path, letter):
    assert (
        run(
            "sanitize", letter, "--out", tmp_path / "o", "--report-dir", tmp_path / "private", "--pipeline", RULES
        ).exit_code
        == 0
    )
    assert tree(tmp_path / "o") == ["letter.txt"] and tree(tmp_path / "private") == ["report.jsonl"]
    assert (tmp_path / "o" / "letter.txt").read_text() == SANITIZED_LETTER


# 12. unselected columns and keys that look like personal data


def test_unselected_personal_columns_are_named_and_all_columns_sanitizes_them(tmp_path):
    src = tmp_path / "staff.csv"
    src.write_text("id,email,note\n" + "".join(f"{i},ada.lee{i}@example.org,Mr Ada Lee called\n" for i in range(4)))
    res = run("sanitize", src, "--out", tmp_path / "o", "--pipeline", RULES, "--column", "note")
    assert res.exit_code == 0, res.output
    assert (
        f"{src}: columns not sanitized that look like personal data: 'email' (e-mail addresses in 4 of 4 "
        "values). They are copied as they are: select them (--column) or pass --all-columns"
    ) in " ".join(res.stdout.split())
    assert "ada.lee0@example.org" in (tmp_path / "o" / "staff.csv").read_text()
    res = run("sanitize", src, "--out", tmp_path / "all", "--pipeline", RULES, "--all-columns")
    assert res.exit_code == 0, res.output
    assert "look like personal data" not in res.stdout
    out = (tmp_path / "all" / "staff.csv").read_text()
    assert "example.org" not in out and "Ada Lee" not in out and out.startswith("id,email,note\n0,")


def test_unselected_jsonl_keys_are_named(tmp_path):
    src = tmp_path / "tickets.jsonl"
    src.write_text(
        "".join(json.dumps({"text": "Call me.", "contact": {"email": f"bo{i}@example.com"}}) + "\n" for i in range(3))
    )
    res = run("sanitize", src, "--out", tmp_path / "o", "--pipeline", RULES)
    assert res.exit_code == 0, res.output
    assert (
        "keys not sanitized that look like personal data: 'contact.email' (e-mail addresses in 3 of 3 values)"
        in " ".join(res.stdout.split())
    )
