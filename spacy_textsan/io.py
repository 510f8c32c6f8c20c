"""Input and output of ``textsan sanitize INPUT... --out DIR``.

Documents are read from TXT, CSV/TSV, JSONL and TAB JSON files into
:class:`Record` objects, one per document, each holding the texts to sanitize
by field (column) name. :func:`write_output` writes the same file back with
only those texts replaced: every other row, column, key and value is kept, in
order.

A sanitizer must fail closed, so this module never guesses silently:

* every problem with an input file raises :class:`InputError`, which names the
  file and, where it has one, the 1-based line (never a raw ``csv``, ``json``
  or ``codecs`` traceback);
* a malformed record raises, or, with ``on_bad_line="skip"``, is left out of
  :attr:`InputFile.records` and reported in :attr:`InputFile.skipped`;
  nothing is ever dropped unreported;
* nothing is selected by default where a wrong guess could leave text
  unsanitized: CSV/TSV needs the columns named, and each must exist; a JSONL
  field (default ``"text"``) must be a string in every object;
* :func:`write_output` checks that it got exactly one sanitized entry, with
  exactly the record's fields, per record before writing anything, and every
  file is written through :func:`atomic_write`, so a failed run never leaves
  partial output behind.

This module only needs the standard library, so it can be imported (and
tested) on its own.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import re
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import IO, Any, Union

__all__ = [
    "FORMATS",
    "InputError",
    "Record",
    "InputFile",
    "detect_format",
    "read_input",
    "write_output",
    "output_name",
    "atomic_write",
    "write_jsonl",
    "write_json",
]

PathLike = Union[str, os.PathLike]

#: The formats :func:`read_input` reads (``tab`` is TAB JSON).
FORMATS = ("txt", "csv", "tsv", "jsonl", "tab")

#: Extension -> format; ".json" is TAB JSON or an error, decided by content.
_EXTENSIONS = {
    ".txt": "txt",
    ".text": "txt",
    ".md": "txt",
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
}
_CSV_FORMATS = ("csv", "tsv")
_SNIFF_DELIMITERS = ",;\t|"
_SNIFF_CHARS = 64 * 1024
_BINARY_SNIFF_BYTES = 8 * 1024
_ON_BAD_LINE = ("error", "skip")
#: Name of the only text field of TXT and TAB records.
_TEXT = "text"
#: Name of the file written for TAB JSON input.
_TAB_OUTPUT = "sanitized.jsonl"
_NOT_TAB = (
    ".json input must be TAB JSON (a list of documents with 'doc_id' and 'text'); "
    "for other JSON write one object per line as JSONL (.jsonl) or pass --format"
)
_JSON_WS = re.compile(r"[ \t\n\r]*")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class InputError(ValueError):
    """A problem with an input file: ``"{path}:{line}: {reason}"``.

    Attributes:
        path: The input file.
        line: 1-based line the problem is on, or None if it concerns the file.
        reason: What is wrong, and how to fix it where that is known.
    """

    def __init__(self, path: PathLike, line: int | None, reason: str) -> None:
        super().__init__(path, line, reason)  # keeps the error picklable
        self.path = Path(path)
        self.line = line
        self.reason = reason

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.path}: {self.reason}"
        return f"{self.path}:{self.line}: {self.reason}"


@dataclass
class Record:
    """One document of an input file.

    Attributes:
        index: 0-based position in :attr:`InputFile.records` (the position in
            the file when no record was skipped); ``sanitized[index]`` is its
            entry for :func:`write_output`.
        line: 1-based line the record starts on.
        doc_id: TAB ``doc_id``; JSONL ``doc_id`` or ``id`` field if present,
            else ``"{stem}:{line}"``; CSV ``"{stem}:{row}"`` with ``row`` the
            1-based data row in the file (header excluded, skipped rows
            counted); TXT the file stem.
        texts: Field (column) name -> text to sanitize; ``"text"`` for TXT/TAB.
        raw: The original row: ``list[str]`` for CSV, ``dict`` for JSONL and
            TAB, ``str`` for TXT.
    """

    index: int
    line: int
    doc_id: str
    texts: dict[str, str]
    raw: list[str] | dict[str, Any] | str


@dataclass
class InputFile:
    """A parsed input file.

    Attributes:
        path: The input file.
        fmt: One of :data:`FORMATS`.
        encoding: Encoding the file was decoded with.
        delimiter: CSV/TSV field delimiter (given or sniffed), else None.
        header: CSV/TSV header row, else None.
        records: The documents, in file order.
        skipped: Malformed records left out with ``on_bad_line="skip"``.
        fields: Names of the fields (columns) selected for sanitization.
        lineterminator: CSV/TSV line ending of the input, reused on output.
    """

    path: Path
    fmt: str
    encoding: str
    delimiter: str | None = None
    header: list[str] | None = None
    records: list[Record] = dataclass_field(default_factory=list)
    skipped: list[InputError] = dataclass_field(default_factory=list)
    fields: list[str] = dataclass_field(default_factory=list)
    lineterminator: str = "\n"


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------


def detect_format(path: PathLike, fmt: str | None = None) -> str:
    """Return the format of ``path``: one of :data:`FORMATS`.

    An explicit ``fmt`` wins; otherwise the extension decides. A ``.json`` file
    is read and must be TAB JSON (a list of objects with ``"text"`` and
    ``"annotations"`` or ``"doc_id"``).

    Raises:
        InputError: Unknown format or extension, or a ``.json`` file that is
            not TAB JSON.
    """
    path = Path(path)
    kind = _format_from_name(path, fmt)
    if kind == "json":
        _parse_tab_documents(path, _read_text(path, None)[0], require_tab_shape=True)
        return "tab"
    return kind


def read_input(
    path: PathLike,
    fmt: str | None = None,
    columns: Iterable[str] | None = None,
    field: str | None = None,
    encoding: str | None = None,
    delimiter: str | None = None,
    on_bad_line: str = "error",
) -> InputFile:
    """Read the documents of one input file.

    Args:
        path: The file.
        fmt: Format (one of :data:`FORMATS`); default: from the extension.
        columns: CSV/TSV, required: names of the columns to sanitize.
        field: JSONL: name of the string field to sanitize (default
            ``"text"``).
        encoding: Any Python codec; default: UTF-8 (BOM allowed), or UTF-16/32
            when the file starts with their BOM.
        delimiter: CSV/TSV: one character (``"\\t"`` and ``"tab"`` mean a
            tab); default: tab for TSV, sniffed among ``,;\\t|`` for CSV.
        on_bad_line: ``"error"`` raises on the first malformed record;
            ``"skip"`` leaves malformed records out and lists them in
            :attr:`InputFile.skipped`. Errors that make the rest of the file
            unreadable (encoding, CSV quoting, TAB JSON syntax) always raise.

    Options that do not apply to the file's format are ignored, so that one
    set of options can serve a run over files of several formats. TXT and TAB
    records always have the single field ``"text"``.

    Raises:
        InputError: For any problem with the file, or a missing or unknown
            CSV column.
        ValueError: For an ``on_bad_line`` other than ``"error"``/``"skip"``.
    """
    if on_bad_line not in _ON_BAD_LINE:
        raise ValueError(f"on_bad_line must be one of {_ON_BAD_LINE}, got {on_bad_line!r}")
    path = Path(path)
    kind = _format_from_name(path, fmt)
    fmt = "tab" if kind == "json" else kind
    text, used_encoding = _read_text(path, encoding)
    input_file = InputFile(path=path, fmt=fmt, encoding=used_encoding)
    reject = _rejecter(input_file, on_bad_line)
    if fmt == "txt":
        _read_txt(input_file, text)
    elif fmt in _CSV_FORMATS:
        _read_csv(input_file, text, columns, delimiter, reject)
    elif fmt == "jsonl":
        _read_jsonl(input_file, text, field or _TEXT, reject)
    else:
        documents = _parse_tab_documents(path, text, require_tab_shape=kind == "json")
        _read_tab(input_file, documents, reject)
    return input_file


#: Called with (line, reason) for a malformed record: raises or records a skip.
_Reject = Callable[[int | None, str], None]


def _rejecter(input_file: InputFile, on_bad_line: str) -> _Reject:
    """Return the handler for malformed records under ``on_bad_line``."""

    def reject(line: int | None, reason: str) -> None:
        error = InputError(input_file.path, line, reason)
        if on_bad_line == "error":
            raise error
        input_file.skipped.append(error)

    return reject


def _format_from_name(path: Path, fmt: str | None) -> str:
    """Return ``fmt`` or the format of the extension (``"json"`` for .json)."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise InputError(path, None, f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
        return fmt
    kind = _EXTENSIONS.get(path.suffix.lower())
    if kind is None:
        raise InputError(
            path,
            None,
            f"cannot tell the format from the extension {path.suffix or '(none)'!r}; "
            f"use {', '.join(sorted(_EXTENSIONS))} or pass --format ({', '.join(FORMATS)})",
        )
    return kind


def _read_text(path: Path, encoding: str | None) -> tuple[str, str]:
    """Read and decode ``path``; return (text, encoding used).

    Rejects unreadable, binary and empty files and undecodable bytes.
    """
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(path, None, f"cannot read file: {error.strerror or error}") from None
    name = encoding or _bom_encoding(data) or "utf-8"
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        raise InputError(path, None, f"unknown encoding {name!r}") from None
    if "\x00" in data[:_BINARY_SNIFF_BYTES].decode(codec, errors="replace"):
        raise InputError(path, None, "binary file, not text")
    start = 0
    if codec in ("utf-8", "utf-8-sig"):
        # Strip the BOM here rather than with utf-8-sig, whose error offsets
        # do not count it.
        codec = "utf-8"
        if data.startswith(codecs.BOM_UTF8):
            start = len(codecs.BOM_UTF8)
            name = encoding or "utf-8-sig"
    try:
        text = data[start:].decode(codec)
    except UnicodeDecodeError as error:
        offset = start + error.start
        line = data[:offset].decode(codec, errors="replace").count("\n") + 1
        raise InputError(
            path,
            line,
            f"cannot decode byte 0x{data[offset]:02x} (file offset {offset}) as {name}; "
            "pass the file's encoding with --encoding, e.g. --encoding cp1252 or --encoding latin-1",
        ) from None
    if not text:
        raise InputError(path, None, "empty file")
    return text, name


def _bom_encoding(data: bytes) -> str | None:
    """Return "utf-32"/"utf-16" if ``data`` starts with their BOM, else None."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"  # before UTF-16: the UTF-32-LE BOM starts with the UTF-16-LE one
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    return None


def _read_txt(input_file: InputFile, text: str) -> None:
    """The whole file is one record with the field ``"text"``."""
    input_file.fields = [_TEXT]
    stem = input_file.path.stem
    input_file.records.append(Record(index=0, line=1, doc_id=stem, texts={_TEXT: text}, raw=text))


# -- CSV / TSV ---------------------------------------------------------------


def _read_csv(
    input_file: InputFile,
    text: str,
    columns: Iterable[str] | None,
    delimiter: str | None,
    reject: _Reject,
) -> None:
    """Read a CSV/TSV file with a header row; blank lines are ignored."""
    path = input_file.path
    input_file.delimiter = _csv_delimiter(path, input_file.fmt, text, delimiter)
    guessed = delimiter is None and input_file.fmt == "csv"
    hint = f" (delimiter {input_file.delimiter!r} was guessed; pass --delimiter if it is wrong)" if guessed else ""
    line_break = _LINE_BREAK.search(text)
    input_file.lineterminator = line_break.group() if line_break else "\n"
    old_limit = csv.field_size_limit()
    csv.field_size_limit(max(old_limit, len(text)))  # a field can be as long as the file
    try:
        rows = _csv_rows(path, text, input_file.delimiter)
        _, header = next(rows, (None, None))
        if header is None:
            raise InputError(path, None, "no header row (the file has only blank lines)")
        input_file.header = header
        selected = _select_columns(path, header, columns, hint)
        input_file.fields = list(selected)
        stem = path.stem
        for row_number, (line, row) in enumerate(rows, start=1):
            if len(row) != len(header):
                reject(line, f"row has {len(row)} fields, the header has {len(header)}{hint}")
                continue
            input_file.records.append(
                Record(
                    index=len(input_file.records),
                    line=line,
                    doc_id=f"{stem}:{row_number}",
                    texts={name: row[i] for name, i in selected.items()},
                    raw=row,
                )
            )
    finally:
        csv.field_size_limit(old_limit)


def _csv_delimiter(path: Path, fmt: str, text: str, delimiter: str | None) -> str:
    """Return the given delimiter, a tab for TSV, or one sniffed from ``text``."""
    if delimiter is not None:
        if delimiter in ("\\t", "tab"):
            return "\t"
        if len(delimiter) != 1 or delimiter in '"\r\n':
            raise InputError(
                path, None, f"the delimiter must be one character other than a quote or newline, got {delimiter!r}"
            )
        return delimiter
    if fmt == "tsv":
        return "\t"
    sample = text[:_SNIFF_CHARS]
    if len(text) > _SNIFF_CHARS and "\n" in sample:
        sample = sample[: sample.rindex("\n")]  # whole lines only
    try:
        return csv.Sniffer().sniff(sample, delimiters=_SNIFF_DELIMITERS).delimiter
    except csv.Error:
        return ","


def _csv_rows(path: Path, text: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """Yield (physical start line, row) for each non-blank row of ``text``.

    The reader is strict, so an unterminated quote or text after a closing
    quote raises instead of silently merging or altering rows.
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    while True:
        line = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise InputError(path, line, f"malformed CSV row ({error}); check the quoting") from None
        if row:
            yield line, row


def _select_columns(path: Path, header: list[str], columns: Iterable[str] | None, hint: str) -> dict[str, int]:
    """Map each selected column name to its index in ``header``; ``hint`` ends errors."""
    available = "available columns: " + ", ".join(repr(name) for name in header) + hint
    if columns is None:
        raise InputError(path, None, f"no columns selected: pass --columns; {available}")
    names = [columns] if isinstance(columns, str) else list(dict.fromkeys(columns))
    if not names:
        raise InputError(path, None, f"no columns selected: pass --columns; {available}")
    selected = {}
    for name in names:
        if name not in header:
            raise InputError(path, None, f"unknown column {name!r}; {available}")
        if header.count(name) > 1:
            raise InputError(path, None, f"column {name!r} appears {header.count(name)} times in the header")
        selected[name] = header.index(name)
    return selected


# -- JSONL -------------------------------------------------------------------


class _DuplicateKey(ValueError):
    """A JSON object has the same key twice (one value would be lost)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` that rejects duplicate keys."""
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _DuplicateKey(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def _read_jsonl(input_file: InputFile, text: str, field: str, reject: _Reject) -> None:
    """Read one JSON object per line; blank lines are ignored but counted."""
    input_file.fields = [field]
    stem = input_file.path.stem
    # Split on "\n" only: JSON strings cannot hold a raw "\n", but they can
    # hold U+2028 and friends, which str.splitlines() would split on.
    for line, source in enumerate(text.split("\n"), start=1):
        if not source.strip():
            continue
        try:
            obj = json.loads(source, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as error:
            reject(line, _json_reason(error))
            continue
        except _DuplicateKey as error:
            reject(line, f"invalid JSON object: {error}")
            continue
        if not isinstance(obj, dict):
            reject(line, f"expected a JSON object, got {_json_type(obj)}")
            continue
        if field not in obj:
            keys = ", ".join(repr(key) for key in obj)
            reject(line, f"missing field {field!r} (fields: {keys or 'none'}); pass --field")
            continue
        if not isinstance(obj[field], str):
            reject(line, f"field {field!r} is {_json_type(obj[field])}, not a string")
            continue
        doc_id = _id_string(obj.get("doc_id", obj.get("id")))
        input_file.records.append(
            Record(
                index=len(input_file.records),
                line=line,
                doc_id=f"{stem}:{line}" if doc_id is None else doc_id,
                texts={field: obj[field]},
                raw=obj,
            )
        )


def _id_string(value: Any) -> str | None:
    """Return a string or integer id as a string, anything else as None."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    return None


def _json_type(value: Any) -> str:
    """The JSON name of ``value``'s type, with an article."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


# -- TAB JSON ----------------------------------------------------------------


def _parse_tab_documents(path: Path, text: str, require_tab_shape: bool) -> list[tuple[int, Any]]:
    """Parse a TAB JSON list; return (start line, value) per element.

    The list is scanned element by element so that each document's line is
    known. With ``require_tab_shape`` (a ``.json`` file without ``--format``)
    the top level must look like TAB JSON, else the error suggests JSONL.
    """
    decoder = json.JSONDecoder()
    pos = _JSON_WS.match(text).end()
    if not text.startswith("[", pos):
        reason = _NOT_TAB if require_tab_shape else "TAB JSON must be a list of documents"
        raise InputError(path, None, reason)
    documents: list[tuple[int, Any]] = []
    line, counted = 1, 0
    pos = _JSON_WS.match(text, pos + 1).end()
    closed = text.startswith("]", pos)
    while not closed:
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as error:
            raise _json_syntax_error(path, error) from None
        documents.append((line, value))
        pos = _JSON_WS.match(text, pos).end()
        if text.startswith("]", pos):
            closed = True
        elif text.startswith(",", pos):
            pos = _JSON_WS.match(text, pos + 1).end()
        else:
            raise _json_syntax_error(path, json.JSONDecodeError("Expecting ',' delimiter", text, pos))
    pos = _JSON_WS.match(text, pos + 1).end()
    if pos != len(text):
        raise _json_syntax_error(path, json.JSONDecodeError("Extra data", text, pos))
    if require_tab_shape and documents and not _looks_like_tab(documents[0][1]):
        raise InputError(path, None, _NOT_TAB)
    return documents


def _looks_like_tab(document: Any) -> bool:
    """Whether ``document`` is a TAB document: "text" and "annotations"/"doc_id"."""
    return isinstance(document, dict) and "text" in document and ("annotations" in document or "doc_id" in document)


def _json_reason(error: json.JSONDecodeError) -> str:
    return f"invalid JSON: {error.msg} (column {error.colno})"


def _json_syntax_error(path: Path, error: json.JSONDecodeError) -> InputError:
    return InputError(path, error.lineno, _json_reason(error))


def _read_tab(input_file: InputFile, documents: list[tuple[int, Any]], reject: _Reject) -> None:
    """Turn parsed TAB documents into records with the field ``"text"``."""
    input_file.fields = [_TEXT]
    for number, (line, document) in enumerate(documents):
        where = f"document {number}"
        if not isinstance(document, dict):
            reject(line, f"{where} is {_json_type(document)}, not an object")
            continue
        doc_id = _id_string(document.get("doc_id"))
        if doc_id is None:
            problem = "no 'doc_id'" if "doc_id" not in document else "a 'doc_id' that is not a string or integer"
            reject(line, f"{where} has {problem}")
            continue
        if not isinstance(document.get(_TEXT), str):
            problem = "no 'text'" if _TEXT not in document else "a 'text' that is not a string"
            reject(line, f"{where} ({doc_id!r}) has {problem}")
            continue
        input_file.records.append(
            Record(
                index=len(input_file.records),
                line=line,
                doc_id=doc_id,
                texts={_TEXT: document[_TEXT]},
                raw=document,
            )
        )


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def write_output(
    input_file: InputFile,
    sanitized: list[dict[str, str]],
    out_dir: PathLike,
    suffix: str = "",
    used: set[str] | None = None,
) -> list[Path]:
    """Write ``input_file`` into ``out_dir`` with its texts replaced.

    The output has the input's name (with ``suffix`` before the extension)
    and format: CSV/TSV keeps the delimiter, header, line ending and every
    other column (minimal quoting); JSONL keeps each object and its key order
    and replaces only the field; TXT is the sanitized text. TAB JSON input
    gives ``sanitized{suffix}.jsonl`` with one ``{"doc_id", "text"}`` line
    per document. Outputs are UTF-8.

    Args:
        input_file: What :func:`read_input` returned.
        sanitized: ``sanitized[i]`` maps exactly the fields of record ``i``
            (``records[i].texts``) to their sanitized text.
        out_dir: Output directory, created if missing.
        suffix: Inserted between the output file's stem and extension.
        used: Output names already taken in this run (see
            :func:`output_name`); the name chosen here is added to it.

    Returns:
        The paths written.

    Raises:
        ValueError: ``sanitized`` does not match the records, or the output
            would overwrite the input. Nothing is written then.
    """
    _check_sanitized(input_file, sanitized)
    source = input_file.path
    template = Path(_TAB_OUTPUT) if input_file.fmt == "tab" else source
    name = output_name(f"{template.stem}{suffix}{template.suffix}", set() if used is None else used)
    out_dir = Path(out_dir)
    target = out_dir / name
    if target.resolve() == source.resolve():
        raise ValueError(f"refusing to overwrite the input file {source}; choose another --out directory or a suffix")
    out_dir.mkdir(parents=True, exist_ok=True)
    _WRITERS[input_file.fmt](target, input_file, sanitized)
    return [target]


def _check_sanitized(input_file: InputFile, sanitized: list[dict[str, str]]) -> None:
    """Fail closed unless there is one entry per record with exactly its fields."""
    if len(sanitized) != len(input_file.records):
        raise ValueError(
            f"{input_file.path}: got {len(sanitized)} sanitized entries for {len(input_file.records)} records"
        )
    for record, entry in zip(input_file.records, sanitized, strict=False):
        if set(entry) != set(record.texts):
            raise ValueError(
                f"{input_file.path}: record {record.index} ({record.doc_id}) has fields "
                f"{sorted(record.texts)}, its sanitized entry has {sorted(entry)}"
            )
        for name, value in entry.items():
            if not isinstance(value, str):
                raise ValueError(
                    f"{input_file.path}: record {record.index} ({record.doc_id}): sanitized {name!r} is "
                    f"{type(value).__name__}, not str"
                )


def _write_txt(target: Path, input_file: InputFile, sanitized: list[dict[str, str]]) -> None:
    with atomic_write(target) as out:
        out.write(sanitized[0][_TEXT])


def _write_csv(target: Path, input_file: InputFile, sanitized: list[dict[str, str]]) -> None:
    assert input_file.header is not None and input_file.delimiter is not None
    header = input_file.header
    rows: list[list[str]] = [header]
    for record, entry in zip(input_file.records, sanitized, strict=False):
        row = list(record.raw)
        for name, value in entry.items():
            row[header.index(name)] = value
        rows.append(row)
    with atomic_write(target) as out:
        _write_csv_rows(out, rows, input_file.delimiter, input_file.lineterminator)


def _write_csv_rows(out: IO[str], rows: Iterable[list[str]], delimiter: str, lineterminator: str) -> None:
    """Write ``rows`` with minimal quoting, ending each with ``lineterminator``.

    csv.writer quotes a field only for the newline characters that occur in
    its own lineterminator, so with ``"\\n"`` a field holding a bare ``"\\r"``
    would be written unquoted and split the row when read back. Each row is
    therefore formatted with ``"\\r\\n"`` (both characters force quoting),
    and that terminator is swapped for the file's own.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    for row in rows:
        writer.writerow(row)
        out.write(buffer.getvalue()[:-2] + lineterminator)
        buffer.seek(0)
        buffer.truncate()


def _write_jsonl_records(target: Path, input_file: InputFile, sanitized: list[dict[str, str]]) -> None:
    # The fields already exist in each object, so the key order is kept.
    write_jsonl(target, ({**record.raw, **entry} for record, entry in zip(input_file.records, sanitized, strict=False)))


def _write_tab(target: Path, input_file: InputFile, sanitized: list[dict[str, str]]) -> None:
    pairs = zip(input_file.records, sanitized, strict=False)
    write_jsonl(target, ({"doc_id": record.raw["doc_id"], "text": entry[_TEXT]} for record, entry in pairs))


_WRITERS: dict[str, Callable[[Path, InputFile, list[dict[str, str]]], None]] = {
    "txt": _write_txt,
    "csv": _write_csv,
    "tsv": _write_csv,
    "jsonl": _write_jsonl_records,
    "tab": _write_tab,
}


def output_name(path: PathLike, used: set[str]) -> str:
    """Return a file name for ``path`` not yet in ``used`` and add it to ``used``.

    Clashes get ``-2``, ``-3``, ... before the extension. Names compare
    case-insensitively, as on macOS and Windows file systems.
    """
    name = Path(path).name
    stem, extension = Path(name).stem, Path(name).suffix
    taken = {other.casefold() for other in used}
    candidate, number = name, 2
    while candidate.casefold() in taken:
        candidate = f"{stem}-{number}{extension}"
        number += 1
    used.add(candidate)
    return candidate


@contextmanager
def atomic_write(path: PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Open a temporary file next to ``path``; move it onto ``path`` on success.

    On an exception in the body the temporary file is removed and ``path`` is
    left as it was. Text mode does no newline translation (``newline=""``),
    so what is written is what ends up in the file.

    Args:
        path: The file to write.
        mode: ``"w"`` (text) or ``"wb"`` (binary).
        encoding: Text encoding; ignored in binary mode.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', got {mode!r}")
    target = Path(path)
    binary = mode == "wb"
    while True:
        temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            # "x" rather than tempfile.mkstemp: the file gets the usual
            # umask permissions instead of 0600.
            handle = open(
                temp, "xb" if binary else "x", encoding=None if binary else encoding, newline=None if binary else ""
            )
            break
        except FileExistsError:
            continue
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def write_jsonl(path: PathLike, rows: Iterable[Mapping[str, Any]]) -> None:
    """Atomically write one JSON object per line (UTF-8, non-ASCII kept)."""
    with atomic_write(path) as out:
        for row in rows:
            out.write(_json_dumps(row) + "\n")


def write_json(path: PathLike, obj: Any, indent: int = 2) -> None:
    """Atomically write ``obj`` as indented JSON (UTF-8, non-ASCII kept)."""
    with atomic_write(path) as out:
        out.write(_json_dumps(obj, indent=indent) + "\n")


def _json_dumps(obj: Any, indent: int | None = None) -> str:
    """``json.dumps`` keeping non-ASCII text readable.

    Strings with lone surrogates (possible from ``"\\ud800"`` escapes in the
    input) cannot be written as UTF-8; such values fall back to ``\\u``
    escapes, which keep them exactly.
    """
    text = json.dumps(obj, ensure_ascii=False, indent=indent)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, ensure_ascii=True, indent=indent)
    return text
