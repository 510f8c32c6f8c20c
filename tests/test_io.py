"""Tests of spacy_textsan.io: reading inputs, writing outputs, failing closed."""

import csv
import importlib.util
import io
import json
import os
import pickle
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _load_io():
    """Import spacy_textsan.io, or load the file alone while the package is incomplete."""
    try:
        from spacy_textsan import io as module
    except ImportError:
        path = Path(__file__).resolve().parents[1] / "spacy_textsan" / "io.py"
        spec = importlib.util.spec_from_file_location("spacy_textsan_io_standalone", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    return module


textsan_io = _load_io()
InputError = textsan_io.InputError
Record = textsan_io.Record
atomic_write = textsan_io.atomic_write
detect_format = textsan_io.detect_format
output_name = textsan_io.output_name
read_input = textsan_io.read_input
write_json = textsan_io.write_json
write_jsonl = textsan_io.write_jsonl
write_output = textsan_io.write_output

FIXTURES = Path(__file__).parent / "fixtures" / "io"


def write(directory: Path, name: str, content) -> Path:
    """Write ``content`` (str as UTF-8, or bytes) to ``directory/name`` exactly."""
    path = directory / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def identity(input_file):
    return [dict(record.texts) for record in input_file.records]


def upper(input_file):
    return [{name: text.upper() for name, text in record.texts.items()} for record in input_file.records]


def raises_input_error(match, *args, **kwargs):
    """Call read_input and return the InputError it must raise."""
    with pytest.raises(InputError, match=match) as info:
        read_input(*args, **kwargs)
    return info.value


# --------------------------------------------------------------------------
# InputError
# --------------------------------------------------------------------------


def test_input_error_str_with_and_without_line():
    error = InputError("data/a.csv", 7, "row has 2 fields")
    assert str(error) == "data/a.csv:7: row has 2 fields"
    assert (error.path, error.line, error.reason) == (Path("data/a.csv"), 7, "row has 2 fields")
    assert str(InputError(Path("a.txt"), None, "empty file")) == "a.txt: empty file"
    assert isinstance(error, ValueError)


def test_input_error_pickles():
    error = pickle.loads(pickle.dumps(InputError("a.csv", 3, "bad")))
    assert str(error) == "a.csv:3: bad"


# --------------------------------------------------------------------------
# detect_format
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, fmt",
    [
        ("a.txt", "txt"),
        ("a.text", "txt"),
        ("README.md", "txt"),
        ("a.csv", "csv"),
        ("A.CSV", "csv"),
        ("a.tsv", "tsv"),
        ("a.jsonl", "jsonl"),
        ("a.ndjson", "jsonl"),
    ],
)
def test_detect_format_by_extension(name, fmt):
    assert detect_format(name) == fmt


def test_detect_format_explicit_wins():
    assert detect_format("a.txt", "csv") == "csv"
    assert detect_format("notes.dat", "jsonl") == "jsonl"


def test_detect_format_unknown():
    with pytest.raises(InputError, match=r"cannot tell the format from the extension '\.dat'"):
        detect_format("notes.dat")
    with pytest.raises(InputError, match=r"unknown format 'xml'"):
        detect_format("notes.txt", "xml")


def test_detect_format_tab_json():
    assert detect_format(FIXTURES / "tab_sample.json") == "tab"


@pytest.mark.parametrize(
    "content",
    [
        '{"text": "a"}',  # an object
        '[{"text": "a", "label": 1}]',  # a list of non-TAB objects
        '{"text": "a"}\n{"text": "b"}\n',  # JSONL named .json
    ],
)
def test_detect_format_json_that_is_not_tab(tmp_path, content):
    path = write(tmp_path, "docs.json", content)
    with pytest.raises(InputError) as info:
        detect_format(path)
    assert str(info.value) == (
        f"{path}: .json input must be TAB JSON (a list of documents with 'doc_id' and 'text'); "
        "for other JSON write one object per line as JSONL (.jsonl) or pass --format"
    )
    with pytest.raises(InputError, match="must be TAB JSON"):
        read_input(path)


# --------------------------------------------------------------------------
# Bytes, encodings, empty and binary files
# --------------------------------------------------------------------------


def test_txt_is_one_record(tmp_path):
    path = write(tmp_path, "letter.txt", "Dear Jörg,\r\nsee you.\n")
    result = read_input(path)
    assert (result.fmt, result.encoding, result.fields, result.skipped) == ("txt", "utf-8", ["text"], [])
    text = "Dear Jörg,\r\nsee you.\n"
    assert result.records == [Record(index=0, line=1, doc_id="letter", texts={"text": text}, raw=text)]


def test_empty_file(tmp_path):
    path = write(tmp_path, "empty.csv", b"")
    error = raises_input_error("empty file", path, columns=["text"])
    assert str(error) == f"{path}: empty file"


def test_file_with_only_a_bom_is_empty(tmp_path):
    path = write(tmp_path, "bom.txt", b"\xef\xbb\xbf")
    raises_input_error("empty file", path)


@pytest.mark.parametrize("encoding", [None, "latin-1"])
def test_binary_file(tmp_path, encoding):
    path = write(tmp_path, "image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    error = raises_input_error("binary", path, encoding=encoding)
    assert str(error) == f"{path}: binary file, not text"


def test_missing_file(tmp_path):
    raises_input_error("cannot read file: No such file or directory", tmp_path / "nope.txt")


def test_utf8_bom_is_stripped(tmp_path):
    path = write(tmp_path, "bom.csv", b"\xef\xbb\xbfid,text\n1,caf\xc3\xa9\n")
    result = read_input(path, columns=["text"])
    assert result.encoding == "utf-8-sig"
    assert result.header == ["id", "text"]
    assert result.records[0].texts == {"text": "café"}


def test_utf16_with_bom_is_detected(tmp_path):
    path = write(tmp_path, "excel.tsv", "id\ttext\n1\tRenée\n".encode("utf-16"))
    result = read_input(path, columns=["text"])
    assert result.encoding == "utf-16"
    assert result.records[0].raw == ["1", "Renée"]


def test_cp1252_with_explicit_encoding():
    result = read_input(FIXTURES / "notes_cp1252.csv", columns=["name", "note"], encoding="cp1252")
    assert (result.encoding, result.delimiter, result.lineterminator) == ("cp1252", ";", "\r\n")
    assert result.header == ["id", "name", "note"]
    assert result.records == [
        Record(
            index=0,
            line=2,
            doc_id="notes_cp1252:1",
            texts={"name": "Renée Müller", "note": "\u201cpaid \u20ac50\u201d"},
            raw=["1", "Renée Müller", "\u201cpaid \u20ac50\u201d"],
        )
    ]


def test_latin1_with_explicit_encoding(tmp_path):
    path = write(tmp_path, "names.jsonl", '{"text": "Søren Ærø"}\n'.encode("latin-1"))
    result = read_input(path, encoding="latin-1")
    assert result.records[0].texts == {"text": "Søren Ærø"}


def test_undecodable_bytes_name_the_line(tmp_path):
    # The quoted field spans lines 2-3, so the bad byte is on line 4.
    path = write(tmp_path, "legacy.csv", b'id,text\n1,"two\nlines"\n2,caf\xe9\n')
    error = raises_input_error("--encoding", path, columns=["text"])
    assert error.line == 4
    assert str(error) == (
        f"{path}:4: cannot decode byte 0xe9 (file offset 27) as utf-8; pass the file's encoding "
        "with --encoding, e.g. --encoding cp1252 or --encoding latin-1"
    )


def test_undecodable_bytes_after_bom(tmp_path):
    path = write(tmp_path, "legacy.txt", b"\xef\xbb\xbfa\nb\n\xff")
    error = raises_input_error("0xff", path)
    assert (error.line, error.reason.split(" (")[1][:14]) == (3, "file offset 7)")


def test_wrong_explicit_encoding(tmp_path):
    path = write(tmp_path, "a.txt", "Grüße".encode())
    error = raises_input_error("as ascii", path, encoding="ascii")
    assert error.line == 1


def test_unknown_encoding(tmp_path):
    path = write(tmp_path, "a.txt", "x")
    raises_input_error("unknown encoding 'klingon'", path, encoding="klingon")


# --------------------------------------------------------------------------
# CSV / TSV
# --------------------------------------------------------------------------

QUOTED_CSV = 'id,text,note\r\n1,"Hello, ""John""\r\nSmith",x\r\n2,"a, b",\r\n3,plain,"multi\nline"\r\n'


def test_csv_quoted_newlines_and_commas(tmp_path):
    path = write(tmp_path, "notes.csv", QUOTED_CSV)
    result = read_input(path, columns=["text"])
    assert (result.fmt, result.delimiter, result.lineterminator) == ("csv", ",", "\r\n")
    assert (result.header, result.fields, result.skipped) == (["id", "text", "note"], ["text"], [])
    assert result.records == [
        Record(0, 2, "notes:1", {"text": 'Hello, "John"\r\nSmith'}, ["1", 'Hello, "John"\r\nSmith', "x"]),
        Record(1, 4, "notes:2", {"text": "a, b"}, ["2", "a, b", ""]),
        Record(2, 5, "notes:3", {"text": "plain"}, ["3", "plain", "multi\nline"]),
    ]


def test_csv_several_columns_in_given_order(tmp_path):
    path = write(tmp_path, "notes.csv", QUOTED_CSV)
    result = read_input(path, columns=["note", "text", "note"])
    assert result.fields == ["note", "text"]
    assert result.records[1].texts == {"note": "", "text": "a, b"}


def test_csv_semicolon_is_sniffed(tmp_path):
    path = write(tmp_path, "notes.csv", 'id;text\n1;"Müller, Hans; Dr."\n2;Jane, Doe\n')
    result = read_input(path, columns=["text"])
    assert (result.delimiter, result.lineterminator) == (";", "\n")
    assert [record.raw for record in result.records] == [["1", "Müller, Hans; Dr."], ["2", "Jane, Doe"]]


def test_tab_is_sniffed_in_csv(tmp_path):
    path = write(tmp_path, "notes.csv", "id\ttext\n1\ta, b; c\n2\td\n")
    result = read_input(path, columns=["text"])
    assert result.delimiter == "\t"
    assert [record.texts["text"] for record in result.records] == ["a, b; c", "d"]


def test_tsv_uses_tab_without_sniffing(tmp_path):
    path = write(tmp_path, "notes.tsv", "text\nJohn, Smith; Jr.\n")
    result = read_input(path, columns=["text"])
    assert (result.fmt, result.delimiter) == ("tsv", "\t")
    assert result.records[0].raw == ["John, Smith; Jr."]


@pytest.mark.parametrize("given, used", [("|", "|"), ("\\t", "\t"), ("tab", "\t")])
def test_explicit_delimiter(tmp_path, given, used):
    content = f"id{used}text\n1{used}a,b;c\n"
    path = write(tmp_path, "notes.csv", content)
    result = read_input(path, columns=["text"], delimiter=given)
    assert result.delimiter == used
    assert result.records[0].raw == ["1", "a,b;c"]


def test_invalid_delimiter(tmp_path):
    path = write(tmp_path, "notes.csv", "a,b\n")
    raises_input_error("delimiter must be one character", path, columns=["a"], delimiter=",;")


def test_single_column_csv_falls_back_to_comma(tmp_path):
    path = write(tmp_path, "notes.csv", "text\nhello\nworld\n")
    result = read_input(path, columns=["text"])
    assert result.delimiter == ","
    assert [record.texts for record in result.records] == [{"text": "hello"}, {"text": "world"}]


def test_csv_blank_lines_are_ignored_but_counted(tmp_path):
    path = write(tmp_path, "notes.csv", "\nid,text\n\n1,a\n\n\n2,b\n")
    result = read_input(path, columns=["text"])
    assert [(record.line, record.doc_id, record.raw) for record in result.records] == [
        (4, "notes:1", ["1", "a"]),
        (7, "notes:2", ["2", "b"]),
    ]


def test_csv_header_only_has_no_records(tmp_path):
    path = write(tmp_path, "notes.csv", "id,text\n")
    result = read_input(path, columns=["text"])
    assert (result.header, result.records) == (["id", "text"], [])


def test_csv_only_blank_lines(tmp_path):
    path = write(tmp_path, "notes.csv", "\n\n")
    raises_input_error("no header row", path, columns=["text"])


GUESSED_COMMA = " (delimiter ',' was guessed; pass --delimiter if it is wrong)"
RAGGED_CSV = 'id,text\n1,"spans\ntwo lines"\n2,ok\n3,too,many\n4,fine\n5\n6,"last"\n'


def test_ragged_row_names_the_physical_line(tmp_path):
    path = write(tmp_path, "ragged.csv", RAGGED_CSV)
    error = raises_input_error("fields", path, columns=["text"])
    # Row 3 is on line 5 because row 1 spans lines 2-3.
    assert str(error) == f"{path}:5: row has 3 fields, the header has 2{GUESSED_COMMA}"
    error = raises_input_error("fields", path, columns=["text"], delimiter=",")
    assert str(error) == f"{path}:5: row has 3 fields, the header has 2"


def test_ragged_rows_skipped_keep_good_rows_in_order(tmp_path):
    path = write(tmp_path, "ragged.csv", RAGGED_CSV)
    result = read_input(path, columns=["text"], delimiter=",", on_bad_line="skip")
    assert result.records == [
        Record(0, 2, "ragged:1", {"text": "spans\ntwo lines"}, ["1", "spans\ntwo lines"]),
        Record(1, 4, "ragged:2", {"text": "ok"}, ["2", "ok"]),
        Record(2, 6, "ragged:4", {"text": "fine"}, ["4", "fine"]),
        Record(3, 8, "ragged:6", {"text": "last"}, ["6", "last"]),
    ]
    assert [str(error) for error in result.skipped] == [
        f"{path}:5: row has 3 fields, the header has 2",
        f"{path}:7: row has 1 fields, the header has 2",
    ]


def test_unterminated_quote_is_an_error_even_when_skipping(tmp_path):
    # A lenient reader would swallow row 2 into row 1's text.
    path = write(tmp_path, "notes.csv", 'id,text\n1,"open\n2,b\n')
    error = raises_input_error("malformed CSV row", path, columns=["text"], on_bad_line="skip")
    assert error.line == 2


def test_text_after_closing_quote_is_an_error(tmp_path):
    path = write(tmp_path, "notes.csv", 'id,text\n1,"a"b\n')
    error = raises_input_error("check the quoting", path, columns=["text"])
    assert error.line == 2


def test_missing_column_lists_available_columns(tmp_path):
    path = write(tmp_path, "notes.csv", "id,body,author\n1,x,y\n")
    error = raises_input_error("unknown column", path, columns=["text"])
    assert str(error) == f"{path}: unknown column 'text'; available columns: 'id', 'body', 'author'{GUESSED_COMMA}"
    error = raises_input_error("unknown column", path, columns=["text"], delimiter=",")
    assert error.reason == "unknown column 'text'; available columns: 'id', 'body', 'author'"


def test_columns_are_required_for_csv(tmp_path):
    path = write(tmp_path, "notes.tsv", "id\tbody\n1\tx\n")
    error = raises_input_error("no columns selected", path)
    # changed: the option is --column (there is no --columns)
    assert error.reason == "no columns selected: pass --column NAME or --all-columns; available columns: 'id', 'body'"


def test_duplicated_selected_column(tmp_path):
    path = write(tmp_path, "notes.csv", "text,text\na,b\n")
    raises_input_error("column 'text' appears 2 times", path, columns=["text"])


def test_long_field_beyond_the_csv_default_limit(tmp_path):
    text = "x" * (csv.field_size_limit() + 10)
    path = write(tmp_path, "long.csv", f'id,text\n1,"{text}"\n')
    limit = csv.field_size_limit()
    assert read_input(path, columns=["text"]).records[0].texts["text"] == text
    assert csv.field_size_limit() == limit


# --------------------------------------------------------------------------
# JSONL
# --------------------------------------------------------------------------


def test_jsonl_records_ids_and_blank_lines(tmp_path):
    content = (
        '{"id": 7, "text": "Jörg", "meta": {"a": [1, 2]}}\n'
        "\n"
        '{"doc_id": "d-2", "id": 9, "text": "b"}\r\n'
        "   \n"
        '{"text": "c", "id": null}\n'
    )
    path = write(tmp_path, "docs.jsonl", content)
    result = read_input(path)
    assert (result.fmt, result.fields, result.skipped) == ("jsonl", ["text"], [])
    assert result.records == [
        Record(0, 1, "7", {"text": "Jörg"}, {"id": 7, "text": "Jörg", "meta": {"a": [1, 2]}}),
        Record(1, 3, "d-2", {"text": "b"}, {"doc_id": "d-2", "id": 9, "text": "b"}),
        Record(2, 5, "docs:5", {"text": "c"}, {"text": "c", "id": None}),
    ]


def test_jsonl_line_separator_inside_a_string_is_not_a_line_break(tmp_path):
    path = write(tmp_path, "docs.jsonl", '{"text": "a\u2028b\u0085c"}\n{"text": "d"}\n')
    result = read_input(path)
    assert [(record.line, record.texts["text"]) for record in result.records] == [(1, "a\u2028b\u0085c"), (2, "d")]


def test_jsonl_custom_field(tmp_path):
    path = write(tmp_path, "docs.jsonl", '{"body": "x", "text": 1}\n')
    result = read_input(path, field="body")
    assert (result.fields, result.records[0].texts) == (["body"], {"body": "x"})


BROKEN_JSONL = (
    '{"text": "a"}\n\n{"text": "b",\n[1, 2]\n{"body": "c"}\n{"text": 3}\n{"text": "x", "text": "y"}\n{"text": "z"}\n'
)


def test_jsonl_broken_line_names_the_line(tmp_path):
    path = write(tmp_path, "docs.jsonl", BROKEN_JSONL)
    error = raises_input_error("invalid JSON", path)
    assert str(error) == f"{path}:3: invalid JSON: Expecting property name enclosed in double quotes (column 14)"


def test_jsonl_skip_mode_reports_every_bad_line(tmp_path):
    path = write(tmp_path, "docs.jsonl", BROKEN_JSONL)
    result = read_input(path, on_bad_line="skip")
    assert [(record.index, record.line, record.raw) for record in result.records] == [
        (0, 1, {"text": "a"}),
        (1, 8, {"text": "z"}),
    ]
    assert [(error.line, error.reason) for error in result.skipped] == [
        (3, "invalid JSON: Expecting property name enclosed in double quotes (column 14)"),
        (4, "expected a JSON object, got an array"),
        (5, "missing field 'text' (fields: 'body'); pass --field"),
        (6, "field 'text' is a number, not a string"),
        (7, "invalid JSON object: duplicate key 'text'"),
    ]


def test_jsonl_non_object_line(tmp_path):
    path = write(tmp_path, "docs.jsonl", '{"text": "a"}\n"just a string"\n')
    error = raises_input_error("expected a JSON object", path)
    assert str(error) == f"{path}:2: expected a JSON object, got a string"


def test_jsonl_missing_field(tmp_path):
    path = write(tmp_path, "docs.jsonl", '{"body": "a", "id": 1}\n')
    error = raises_input_error("missing field", path)
    assert str(error) == f"{path}:1: missing field 'text' (fields: 'body', 'id'); pass --field"


def test_jsonl_only_blank_lines_has_no_records(tmp_path):
    path = write(tmp_path, "docs.jsonl", "\n \n")
    assert read_input(path).records == []


# --------------------------------------------------------------------------
# TAB JSON
# --------------------------------------------------------------------------


def test_tab_json_records():
    path = FIXTURES / "tab_sample.json"
    result = read_input(path)
    assert (result.fmt, result.fields, result.skipped) == ("tab", ["text"], [])
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert result.records == [
        Record(0, 2, "001-61807", {"text": "Mr Jörg Weber was born in 1962 in Graz."}, raw[0]),
        Record(1, 9, "001-72034", {"text": "The applicant, Ms Anna Novak, lives in Ljubljana."}, raw[1]),
    ]


def test_tab_json_missing_text_names_document_and_line(tmp_path):
    path = write(tmp_path, "tab.json", '[\n  {"doc_id": "a", "text": "x"},\n  {"doc_id": "b",\n   "meta": {}}\n]')
    error = raises_input_error("has no 'text'", path, fmt="tab")
    # changed: the doc_id, a value of the file, is not quoted
    assert str(error) == f"{path}:3: document 1 has no 'text'"


def test_tab_json_bad_documents_skipped(tmp_path):
    content = '[{"doc_id": "a", "text": "x"},\n 5,\n {"text": "y"},\n {"doc_id": "d", "text": null},\n {"doc_id": 4, "text": "z"}]'
    path = write(tmp_path, "tab.json", content)
    result = read_input(path, on_bad_line="skip")
    assert [(record.index, record.line, record.doc_id, record.texts) for record in result.records] == [
        (0, 1, "a", {"text": "x"}),
        (1, 5, "4", {"text": "z"}),
    ]
    assert [(error.line, error.reason) for error in result.skipped] == [
        (2, "document 1 is a number, not an object"),
        (3, "document 2 has no 'doc_id'"),
        (4, "document 3 has a 'text' that is not a string"),
    ]


@pytest.mark.parametrize(
    "content, line, message",
    [
        ('[\n {"doc_id": "a", "text": "x"},\n {"doc_id": "b" "text": "y"}\n]', 3, "Expecting ',' delimiter"),
        ('[\n {"doc_id": "a", "text": "x"}\n {"doc_id": "b"}\n]', 3, "Expecting ',' delimiter"),
        ('[{"doc_id": "a", "text": "x"},]', 1, "Expecting value"),
        ('[{"doc_id": "a", "text": "x"}]\n[]', 2, "Extra data"),
        ('[{"doc_id": "a", "text": "x"}', 1, "Expecting ',' delimiter"),
    ],
)
def test_tab_json_syntax_error_names_the_line(tmp_path, content, line, message):
    path = write(tmp_path, "tab.json", content)
    error = raises_input_error("invalid JSON", path)
    assert (error.line, error.reason.split(" (column")[0]) == (line, f"invalid JSON: {message}")


def test_tab_format_requires_a_list(tmp_path):
    path = write(tmp_path, "tab.txt", '{"doc_id": "a", "text": "x"}')
    raises_input_error("TAB JSON must be a list of documents", path, fmt="tab")


def test_empty_tab_list(tmp_path):
    path = write(tmp_path, "tab.json", "[ ]\n")
    assert read_input(path).records == []


# --------------------------------------------------------------------------
# One set of options for files of several formats
# --------------------------------------------------------------------------


def test_options_of_other_formats_are_ignored(tmp_path):
    # The CLI passes the same options to every input of a run.
    options = {"columns": ["body"], "field": "note", "delimiter": ";"}
    csv_file = read_input(write(tmp_path, "a.csv", "id;body\n1;x\n"), **options)
    jsonl_file = read_input(write(tmp_path, "b.jsonl", '{"note": "y", "body": "z"}\n'), **options)
    txt_file = read_input(write(tmp_path, "c.txt", "w"), **options)
    tab_file = read_input(FIXTURES / "tab_sample.json", **options)
    assert [f.fields for f in (csv_file, jsonl_file, txt_file, tab_file)] == [["body"], ["note"], ["text"], ["text"]]
    assert (csv_file.records[0].texts, jsonl_file.records[0].texts) == ({"body": "x"}, {"note": "y"})


def test_invalid_on_bad_line(tmp_path):
    with pytest.raises(ValueError, match="on_bad_line"):
        read_input(write(tmp_path, "a.txt", "x"), on_bad_line="ignore")


# --------------------------------------------------------------------------
# write_output
# --------------------------------------------------------------------------


def read_bytes(paths):
    assert len(paths) == 1
    return paths[0].read_bytes()


def test_csv_identity_round_trip_keeps_values(tmp_path):
    path = write(tmp_path, "notes.csv", QUOTED_CSV)
    result = read_input(path, columns=["text"])
    out = write_output(result, identity(result), tmp_path / "out")
    assert out == [tmp_path / "out" / "notes.csv"]
    # Same values; only quoting is minimal (the newline still forces it).
    assert read_bytes(out) == (
        b'id,text,note\r\n1,"Hello, ""John""\r\nSmith",x\r\n2,"a, b",\r\n3,plain,"multi\nline"\r\n'
    )
    again = read_input(out[0], columns=["text"])
    assert [record.raw for record in again.records] == [record.raw for record in result.records]


def test_csv_output_replaces_only_selected_columns(tmp_path):
    path = write(tmp_path, "notes.csv", 'id;name;note\n1;"Jörg; W.";"said ""hi"""\n2;Ann;\n')
    result = read_input(path, columns=["name"])
    out = write_output(result, [{"name": "[PERSON]"}, {"name": "A;B"}], tmp_path / "out")
    # the input's quoting is kept ("Jörg; W." was quoted); a value that needs quotes gets them
    assert read_bytes(out) == b'id;name;note\n1;"[PERSON]";"said ""hi"""\n2;"A;B";\n'


def test_csv_output_quotes_bare_carriage_return_in_lf_file(tmp_path):
    # csv.writer with lineterminator="\n" would leave "a\rb" unquoted.
    path = write(tmp_path, "notes.csv", "id,text\n1,x\n")
    result = read_input(path, columns=["text"])
    out = write_output(result, [{"text": "a\rb"}], tmp_path / "out")
    assert read_bytes(out) == b'id,text\n1,"a\rb"\n'
    assert read_input(out[0], columns=["text"]).records[0].texts == {"text": "a\rb"}


def test_tsv_cp1252_output_is_utf8(tmp_path):
    path = write(tmp_path, "notes.tsv", "id\ttext\n1\tRenée\n".encode("cp1252"))
    result = read_input(path, columns=["text"], encoding="cp1252")
    out = write_output(result, upper(result), tmp_path / "out")
    assert read_bytes(out) == "id\ttext\n1\tRENÉE\n".encode()


def test_csv_skipped_rows_are_not_written(tmp_path):
    path = write(tmp_path, "ragged.csv", RAGGED_CSV)
    result = read_input(path, columns=["text"], on_bad_line="skip")
    out = write_output(result, identity(result), tmp_path / "out")
    assert read_bytes(out) == b'id,text\n1,"spans\ntwo lines"\n2,ok\n4,fine\n6,"last"\n'


def test_jsonl_identity_round_trip_is_exact(tmp_path):
    content = (
        '{"id": 7, "text": "Jörg \\"J\\" W.\\n", "meta": {"a": [1, 2.5, null, true]}, "z": "é"}\n'
        '{"text": "日本", "score": -1e-07}\n'
    )
    path = write(tmp_path, "docs.jsonl", content)
    result = read_input(path)
    out = write_output(result, identity(result), tmp_path / "out")
    assert read_bytes(out) == content.encode("utf-8")
    assert [json.loads(line) for line in read_bytes(out).decode("utf-8").splitlines()] == [
        record.raw for record in result.records
    ]


def test_jsonl_output_replaces_only_the_field_and_keeps_key_order(tmp_path):
    path = write(tmp_path, "docs.jsonl", '{"a": 1, "body": "Jörg", "z": "x"}\n\n{"body": "b", "a": 2}\n')
    result = read_input(path, field="body")
    out = write_output(result, [{"body": "[PERSON]"}, {"body": "ß"}], tmp_path / "out")
    # every byte but the values is kept, the blank line too
    assert read_bytes(out) == '{"a": 1, "body": "[PERSON]", "z": "x"}\n\n{"body": "ß", "a": 2}\n'.encode()


def test_txt_output(tmp_path):
    path = write(tmp_path, "letter.txt", "Dear Jörg,\r\n")
    result = read_input(path)
    out = write_output(result, [{"text": "Dear [PERSON],\r\n"}], tmp_path / "out")
    assert read_bytes(out) == b"Dear [PERSON],\r\n"


def test_tab_output_is_sanitized_jsonl(tmp_path):
    result = read_input(FIXTURES / "tab_sample.json")
    out = write_output(result, [{"text": "Mr [PERSON]"}, {"text": "Ms [PERSON]"}], tmp_path / "out")
    assert out == [tmp_path / "out" / "sanitized.jsonl"]
    assert read_bytes(out) == (
        b'{"doc_id": "001-61807", "text": "Mr [PERSON]"}\n{"doc_id": "001-72034", "text": "Ms [PERSON]"}\n'
    )


def test_output_suffix_and_unique_names(tmp_path):
    first = read_input(write(tmp_path, "notes.txt", "a"))
    (tmp_path / "other").mkdir()
    second = read_input(write(tmp_path / "other", "notes.txt", "b"))
    used = set()
    out_dir = tmp_path / "out"
    paths = write_output(first, identity(first), out_dir, suffix=".clean", used=used)
    paths += write_output(second, identity(second), out_dir, suffix=".clean", used=used)
    assert paths == [out_dir / "notes.clean.txt", out_dir / "notes.clean-2.txt"]
    assert [path.read_text() for path in paths] == ["a", "b"]
    assert used == {"notes.clean.txt", "notes.clean-2.txt"}


@pytest.mark.parametrize(
    "sanitized, message",
    [
        ([{"text": "A"}], "got 1 sanitized entries for 2 records"),
        ([{"text": "A"}, {"text": "B"}, {"text": "C"}], "got 3 sanitized entries for 2 records"),
        # changed: the record is named by its line, not its doc_id (a value of the file)
        ([{"text": "A"}, {}], r"record 1 \(line 3\) has fields \['text'\], its sanitized entry has \[\]"),
        ([{"text": "A"}, {"text": "B", "id": "2"}], r"its sanitized entry has \['id', 'text'\]"),
        ([{"text": "A"}, {"text": None}], "sanitized 'text' is NoneType, not str"),
    ],
)
def test_mismatched_sanitized_entries_write_nothing(tmp_path, sanitized, message):
    path = write(tmp_path, "notes.csv", "id,text\n1,a\n2,b\n")
    result = read_input(path, columns=["text"])
    out_dir = tmp_path / "out"
    with pytest.raises(ValueError, match=message):
        write_output(result, sanitized, out_dir)
    assert not out_dir.exists()


def test_output_never_overwrites_the_input(tmp_path):
    path = write(tmp_path, "notes.txt", "secret")
    result = read_input(path)
    with pytest.raises(ValueError, match="refusing to overwrite the input file"):
        write_output(result, [{"text": "[X]"}], tmp_path)
    assert path.read_text() == "secret"
    assert write_output(result, [{"text": "[X]"}], tmp_path, suffix="-sanitized") == [tmp_path / "notes-sanitized.txt"]


def test_output_name():
    used = set()
    assert [output_name(name, used) for name in ["a/x.csv", "b/x.csv", "c/X.CSV", "x-2.csv", "y"]] == [
        "x.csv",
        "x-2.csv",
        "X-3.CSV",
        "x-2-2.csv",
        "y",
    ]
    assert used == {"x.csv", "x-2.csv", "X-3.CSV", "x-2-2.csv", "y"}


# --------------------------------------------------------------------------
# atomic_write and the JSON helpers
# --------------------------------------------------------------------------


def test_atomic_write_replaces_on_success(tmp_path):
    target = write(tmp_path, "out.txt", "old")
    with atomic_write(target) as out:
        out.write("new\r\nline\n")
        assert target.read_text() == "old"  # not visible before the end
    assert target.read_bytes() == b"new\r\nline\n"  # no newline translation
    assert os.listdir(tmp_path) == ["out.txt"]


def test_atomic_write_leaves_target_untouched_when_the_body_raises(tmp_path):
    target = write(tmp_path, "out.txt", "old")
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_write(target) as out:
            out.write("partial")
            raise RuntimeError("boom")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_atomic_write_creates_nothing_when_the_body_raises(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with atomic_write(tmp_path / "new.bin", "wb") as out:
            out.write(b"\x00")
            raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []


def test_atomic_write_binary_and_mode_check(tmp_path):
    with atomic_write(tmp_path / "a.bin", "wb") as out:
        out.write(b"\x00\xff")
    assert (tmp_path / "a.bin").read_bytes() == b"\x00\xff"
    with pytest.raises(ValueError, match="mode"):
        with atomic_write(tmp_path / "a.bin", "a"):
            pass


def test_write_jsonl_and_write_json_keep_non_ascii(tmp_path):
    write_jsonl(tmp_path / "a.jsonl", [{"text": "Jörg 日本", "n": 1}, {"text": "\ud800"}])
    assert (tmp_path / "a.jsonl").read_bytes() == '{"text": "Jörg 日本", "n": 1}\n{"text": "\\ud800"}\n'.encode()
    write_json(tmp_path / "a.json", {"b": ["é"]})
    assert (tmp_path / "a.json").read_bytes() == '{\n  "b": [\n    "é"\n  ]\n}\n'.encode()


# --------------------------------------------------------------------------
# Property: reading then writing with identity keeps every row and value
# --------------------------------------------------------------------------

_cells = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12),  # type: ignore[arg-type]  # ("Cs",) is read as tuple[str], not the Literal
    st.sampled_from(['"', '""', ",", ";", "\t", "|", "\n", "\r", "\r\n", " ", "", 'a,"b"\nc', "\ufeff"]),
)


@st.composite
def csv_tables(draw):
    """(header, rows, delimiter, line ending, selected column)."""
    width = draw(st.integers(1, 4))
    header = ["id", "text", "note", "extra"][:width]
    rows = draw(st.lists(st.lists(_cells, min_size=width, max_size=width), max_size=8))
    delimiter = draw(st.sampled_from([",", ";", "\t", "|"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    column = draw(st.sampled_from(header))
    return header, rows, delimiter, newline, column


def _write_table(path, header, rows, delimiter, newline):
    buffer = io.StringIO()
    # QUOTE_ALL so that the input itself is unambiguous whatever the cells hold.
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator=newline, quoting=csv.QUOTE_ALL)
    writer.writerows([header] + rows)
    path.write_bytes(buffer.getvalue().encode("utf-8"))


def _round_trip(directory, header, rows, delimiter, newline, column, given_delimiter):
    path = Path(directory) / "table.csv"
    _write_table(path, header, rows, delimiter, newline)
    result = read_input(path, columns=[column], delimiter=given_delimiter)
    assert result.header == header
    assert [record.raw for record in result.records] == rows
    assert [record.texts for record in result.records] == [{column: row[header.index(column)]} for row in rows]
    out = write_output(result, identity(result), Path(directory) / "out")
    again = read_input(out[0], columns=[column], delimiter=delimiter)
    assert again.header == header
    assert [record.raw for record in again.records] == rows


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(csv_tables())
def test_property_csv_identity_round_trip(table):
    header, rows, delimiter, newline, column = table
    with tempfile.TemporaryDirectory() as directory:
        _round_trip(directory, header, rows, delimiter, newline, column, given_delimiter=delimiter)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(csv_tables())
def test_property_sniffed_delimiter_fails_closed(table):
    """A guessed delimiter either reads the table exactly or raises InputError."""
    header, rows, delimiter, newline, column = table
    with tempfile.TemporaryDirectory() as directory:
        try:
            _round_trip(directory, header, rows, delimiter, newline, column, given_delimiter=None)
        except InputError:
            pass
