"""Reading: :func:`read_input` decodes a file with :func:`.decode.read_text`
and hands it to the reader of its format (TXT here, CSV/TSV, JSONL, TAB JSON
in their modules)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .csv_format import CSV_FORMATS, read_csv
from .decode import read_text
from .errors import InputError, PathLike
from .jsonl import read_jsonl
from .records import ON_BAD_LINE, InputFile, Record, rejecter
from .tab_json import TEXT, read_tab_records, scan_tab_json

__all__ = ["FORMATS", "detect_format", "read_input"]

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
        scan_tab_json(path, read_text(path)[0], require_tab_shape=True)
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
    if on_bad_line not in ON_BAD_LINE:
        raise ValueError(f"on_bad_line must be one of {ON_BAD_LINE}, got {on_bad_line!r}")
    path = Path(path)
    kind = _format_from_name(path, fmt)
    fmt = "tab" if kind == "json" else kind
    text, used_encoding = read_text(path, encoding)
    input_file = InputFile(path=path, fmt=fmt, encoding=used_encoding)
    reject = rejecter(input_file, on_bad_line)
    if fmt == "txt":
        _read_txt(input_file, text)
    elif fmt in CSV_FORMATS:
        read_csv(input_file, text, columns, delimiter, reject)
    elif fmt == "jsonl":
        read_jsonl(input_file, text, field or TEXT, reject)
    else:
        documents = scan_tab_json(path, text, require_tab_shape=kind == "json")
        read_tab_records(input_file, documents, reject)
    return input_file


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


def _read_txt(input_file: InputFile, text: str) -> None:
    """The whole file is one record with the field ``"text"``."""
    input_file.fields = [TEXT]
    stem = input_file.path.stem
    input_file.records.append(Record(index=0, line=1, doc_id=stem, texts={TEXT: text}, raw=text))
