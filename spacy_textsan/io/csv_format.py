"""CSV and TSV: the reader of table inputs and the row writer of their outputs.

A table needs a header row, and the columns to sanitize must be named: a
wrong guess could leave a column of names unsanitized. A guessed delimiter is
named in every error, so that a wrong guess is easy to correct.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from .errors import InputError
from .records import InputFile, Record, Reject

__all__ = ["CSV_FORMATS", "read_csv", "write_csv_rows"]

#: The formats read as tables.
CSV_FORMATS = ("csv", "tsv")
_SNIFF_DELIMITERS = ",;\t|"
_SNIFF_CHARS = 64 * 1024
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def read_csv(
    input_file: InputFile,
    text: str,
    columns: Iterable[str] | None,
    delimiter: str | None,
    reject: Reject,
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
