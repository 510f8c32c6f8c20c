"""Hostile and careless command lines: each is exit 1 with one line on stderr
naming the file (and line) or the option, and nothing written."""

import json
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spacy_textsan.cli import app
from spacy_textsan.detect.privacy_ner.rules import compile_patterns, compile_user_regex, find_rule_matches
from spacy_textsan.io.jsonl import jsonl_string_token
from spacy_textsan.render.mask_format import check_mask_format

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
