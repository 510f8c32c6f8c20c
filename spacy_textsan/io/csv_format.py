"""CSV and TSV: the reader of table inputs and the row writer of their outputs.

A table needs a header row, and the columns to sanitize must be named: a
wrong guess could leave a column of names unsanitized. A guessed delimiter is
named in every error, so that a wrong guess is easy to correct. An error
lists the header only when it looks like one: the first row of a file without
a header is data (:mod:`.field_names`).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path
from typing import IO

from .errors import InputError
from .field_names import column_listing
from .layout import csv_field_spans
from .records import InputFile, Record, Reject

__all__ = ["CSV_FORMATS", "open_csv", "read_csv", "write_csv_rows"]

#: The formats read as tables.
CSV_FORMATS = ("csv", "tsv")
_SNIFF_DELIMITERS = ",;\t|"
_SNIFF_CHARS = 64 * 1024
_FIELD_LIMIT = 2**31 - 1
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def open_csv(input_file: InputFile, head: str, delimiter: str | None) -> None:
    """Set the delimiter (given, or sniffed from ``head``, the start of the
    text) and the line ending of a CSV/TSV file."""
    input_file.delimiter = _csv_delimiter(input_file.path, input_file.fmt, head, delimiter)
    line_break = _LINE_BREAK.search(head)
    input_file.lineterminator = line_break.group() if line_break else "\n"


def read_csv(
    input_file: InputFile,
    lines: Iterable[str],
    columns: Iterable[str] | None,
    reject: Reject,
    guessed: bool = False,
    *,
    all_columns: bool = False,
) -> Generator[Record, None, None]:
    """The records of a CSV/TSV file with a header row (:func:`open_csv` first);
    blank lines are kept in the output (:attr:`Record.before`). The header is
    read and the columns checked before the first record is yielded."""
    path = input_file.path
    delimiter = input_file.delimiter
    assert delimiter is not None
    hint = f" (delimiter {delimiter!r} was guessed; pass --delimiter if it is wrong)" if guessed else ""
    capture = _Capture(lines)
    old_limit = csv.field_size_limit()
    csv.field_size_limit(_FIELD_LIMIT)  # a field can be as long as the file
    try:
        rows = _csv_rows(path, capture, delimiter)
        header = next((row for _, row in rows if row), None)  # blank lines before it stay in the prefix
        if header is None:
            raise InputError(path, None, "no header row (the file has only blank lines)")
        input_file.header = header
        input_file.prefix = capture.take()
        selected = (
            {name: i for i, name in enumerate(header)} if all_columns else _select_columns(path, header, columns, hint)
        )
        input_file.fields = list(selected)
        stem = path.stem
        before, index, row_number = "", 0, 0
        for line, row in rows:
            source = capture.take()
            if not row:  # a blank line: kept before the next record
                before += source
                continue
            row_number += 1
            if len(row) != len(header):
                reject(line, f"row has {len(row)} fields, the header has {len(header)}{hint}")
                continue
            spans = csv_field_spans(source, row, delimiter) or []
            yield Record(
                index=index,
                line=line,
                doc_id=f"{stem}:{row_number}",
                texts={name: row[i] for name, i in selected.items()},
                raw=row,
                source=source,
                before=before,
                spans={name: spans[i] for name, i in selected.items()} if spans else {},
            )
            before, index = "", index + 1
        input_file.suffix = before + capture.take()
    finally:
        csv.field_size_limit(old_limit)


class _Capture:
    """The lines a ``csv.reader`` consumes, kept until taken: the text of the
    row just read (the reader never reads ahead)."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = iter(lines)
        self._taken: list[str] = []

    def __iter__(self) -> _Capture:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self._taken.append(line)
        return line

    def take(self) -> str:
        """The text read since the last call."""
        text = "".join(self._taken)
        self._taken.clear()
        return text


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


def _csv_rows(path: Path, lines: Iterable[str], delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """Yield (physical start line, row) for each row of ``lines`` (``[]``: a blank line).

    The reader is strict, so an unterminated quote or text after a closing
    quote raises instead of silently merging or altering rows.
    """
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    while True:
        line = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise InputError(path, line, f"malformed CSV row ({error}); check the quoting") from None
        yield line, row


def _select_columns(path: Path, header: list[str], columns: Iterable[str] | None, hint: str) -> dict[str, int]:
    """Map each selected column name to its index in ``header``; ``hint`` ends errors.
    The header is listed only when it looks like one (:func:`.field_names.column_listing`):
    in a file without a header row the first row is data."""
    names = [columns] if isinstance(columns, str) else list(dict.fromkeys(columns or []))
    if not names:
        raise InputError(
            path, None, f"no columns selected: pass --column NAME or --all-columns; {column_listing(header)}{hint}"
        )
    selected = {}
    for name in names:  # the user's own words: quoted
        if name not in header:
            raise InputError(path, None, f"unknown column {name!r}; {column_listing(header)}{hint}")
        if header.count(name) > 1:
            raise InputError(path, None, f"column {name!r} appears {header.count(name)} times in the first row")
        selected[name] = header.index(name)
    return selected


def write_csv_rows(out: IO[str], rows: Iterable[list[str]], delimiter: str, lineterminator: str) -> None:
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
