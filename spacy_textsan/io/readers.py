"""Reading: :func:`read_input` decodes a file with :func:`.decode.read_text`
and hands it to the reader of its format (TXT here, CSV/TSV, JSONL, TAB JSON
in their modules)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from .csv_format import CSV_FORMATS, open_csv, read_csv
from .decode import read_text
from .errors import InputError, PathLike
from .jsonl import read_jsonl
from .records import ON_BAD_LINE, InputFile, Record, rejecter
from .stream import TextSource, open_source
from .tab_json import TEXT, read_tab_records, scan_tab_json

__all__ = ["FORMATS", "detect_format", "open_input", "read_input"]

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

    RAISES (InputError): Unknown format or extension, or a ``.json`` file that is
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
    """Read the documents of one input file (all of them, into
    :attr:`InputFile.records`; :func:`open_input` reads them as a stream).

    path (PathLike): The file.
    fmt (str | None): Format (one of :data:`FORMATS`); default: from the extension.
    columns (Iterable[str] | None): CSV/TSV, required: names of the columns to sanitize.
    field (str | None): JSONL: name of the string field to sanitize (default
        ``"text"``).
    encoding (str | None): Any Python codec; default: UTF-8 (BOM allowed), or UTF-16/32
        when the file starts with their BOM.
    delimiter (str | None): CSV/TSV: one character (``"\\t"`` and ``"tab"`` mean a
        tab); default: tab for TSV, sniffed among ``,;\\t|`` for CSV.
    on_bad_line (str): ``"error"`` raises on the first malformed record;
        ``"skip"`` leaves malformed records out and lists them in
        :attr:`InputFile.skipped`. Errors that make the rest of the file
        unreadable (encoding, CSV quoting, TAB JSON syntax) always raise.
    Options that do not apply to the file's format are ignored, so that one
    set of options can serve a run over files of several formats. TXT and TAB
    records always have the single field ``"text"``.

    RAISES (InputError): For any problem with the file, or a missing or unknown
        CSV column.
    RAISES (ValueError): For an ``on_bad_line`` other than ``"error"``/``"skip"``.
    """
    input_file = open_input(path, fmt, columns, field, encoding, delimiter, on_bad_line)
    input_file.records = list(input_file.iter_records())
    input_file.stream = None
    return input_file


def open_input(
    path: PathLike,
    fmt: str | None = None,
    columns: Iterable[str] | None = None,
    field: str | None = None,
    encoding: str | None = None,
    delimiter: str | None = None,
    on_bad_line: str = "error",
    *,
    all_columns: bool = False,
) -> InputFile:
    """Open one input file for reading its records as a stream
    (:meth:`InputFile.iter_records`, constant memory for every format but
    TAB JSON, which is one JSON document). The arguments are those of
    :func:`read_input`; the file's encoding, format, delimiter and (CSV) header
    and columns are checked here, each record when it is read.

    ``all_columns``: CSV/TSV: every column instead of ``columns``; JSONL:
    every top-level string value of each object instead of ``field``."""
    if on_bad_line not in ON_BAD_LINE:
        raise ValueError(f"on_bad_line must be one of {ON_BAD_LINE}, got {on_bad_line!r}")
    path = Path(path)
    kind = _format_from_name(path, fmt)
    fmt = "tab" if kind == "json" else kind
    source = open_source(path, encoding)
    input_file = InputFile(path=path, fmt=fmt, encoding=source.encoding, bom=source.bom, body_codec=source.body_codec)
    reject = rejecter(input_file, on_bad_line)
    if fmt == "txt":
        input_file.fields = [TEXT]
        input_file.stream = lambda: _read_txt(input_file, source.text())
    elif fmt in CSV_FORMATS:
        open_csv(input_file, _head(source), delimiter)
        guessed = delimiter is None and fmt == "csv"
        input_file.stream = lambda: read_csv(
            input_file, source.lines(), columns, reject, guessed, all_columns=all_columns
        )
        first = read_csv(input_file, source.lines(), columns, reject, guessed, all_columns=all_columns)
        try:
            next(first, None)  # reads the header and checks the columns
        finally:
            first.close()
        input_file.skipped = []
    elif fmt == "jsonl":
        input_file.fields = [field or TEXT]
        input_file.stream = lambda: read_jsonl(input_file, source.lines(), field or TEXT, reject, all_columns)
    else:
        documents = scan_tab_json(path, source.text(), require_tab_shape=kind == "json")
        input_file.fields = [TEXT]
        input_file.stream = lambda: read_tab_records(input_file, documents, reject)
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


def _read_txt(input_file: InputFile, text: str) -> Iterator[Record]:
    """The whole file is one record with the field ``"text"``."""
    yield Record(
        index=0,
        line=1,
        doc_id=input_file.path.stem,
        texts={TEXT: text},
        raw=text,
        source=text,
        spans={TEXT: (0, len(text), False)},
    )


def _head(source: TextSource, chars: int = 1 << 16) -> str:
    """The first ``chars`` characters of ``source`` or more (whole lines)."""
    head, lines = "", source.lines()
    try:
        for line in lines:
            head += line
            if len(head) >= chars:
                break
    finally:
        lines.close()  # type: ignore[attr-defined]
    return head
