"""Background knowledge loaders: a user's records file → an
:class:`~spacy_textsan.risk.kanon_index.InvertedIndex` (one record per person).

Records are JSONL (one object per person, its terms the values of some fields)
or CSV/TSV (one row per person, its terms the cells of some columns). Both are
decoded and parsed by :mod:`spacy_textsan.io`, as ``textsan sanitize`` reads
its inputs, so encodings and ``file:line`` errors are the same; every bad
input raises :class:`spacy_textsan.io.InputError`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..io import InputError, PathLike, iter_json_objects, raiser, read_input, read_text
from .kanon_index import InvertedIndex

__all__ = ["read_records_jsonl", "read_records_csv", "index_from_records_file"]

_FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv"}


def _record_terms(path: Path, line: int, name: str, value: Any, sep: str | None) -> list[str]:
    """The terms of one field value: a string, a number or a list of them."""
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in values:
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            kind = (
                "an object"
                if isinstance(item, dict)
                else "a list"
                if isinstance(item, list)
                else "a boolean"
                if isinstance(item, bool)
                else type(item).__name__
            )
            raise InputError(path, line, f"field {name!r} holds {kind}; expected a string, a number or a list of them")
        text = str(item)
        out.extend(text.split(sep) if sep else [text])
    return [t for t in out if t.strip()]


def read_records_jsonl(
    path: PathLike,
    fields: Sequence[str],
    encoding: str | None = None,
    multi_value_sep: str | None = None,
) -> Iterator[list[str]]:
    """Records from a JSONL file: each non-blank line is a JSON object (one
    person); the terms are the values of ``fields`` — strings, numbers
    (``1961``) or lists of them; a missing or null field gives no term.
    ``multi_value_sep`` (e.g. ``"|"``) also splits string values.

    Raises :class:`InputError` (``file:line: reason``) for invalid JSON, a
    line that is not an object, a value of another type, or when no record
    has any of ``fields`` (a misspelt field would give an empty index).
    """
    path = Path(path)
    fields = list(dict.fromkeys(fields))
    if not fields:
        raise InputError(path, None, "no fields selected: pass --field NAME (repeatable)")
    text, _ = read_text(path, encoding)
    seen = False
    # A key given twice keeps its last value, as json.loads does.
    for line, obj in iter_json_objects(text, raiser(path), unique_keys=False):
        terms: list[str] = []
        for name in fields:
            if name in obj:
                seen = True
                terms.extend(_record_terms(path, line, name, obj[name], multi_value_sep))
        yield terms
    if not seen:
        raise InputError(path, None, f"no record has any of the fields {', '.join(map(repr, fields))}")


def read_records_csv(
    path: PathLike,
    columns: Sequence[str],
    encoding: str | None = None,
    delimiter: str | None = None,
    multi_value_sep: str | None = None,
    fmt: str | None = None,
) -> Iterator[list[str]]:
    """Records from a CSV/TSV file with a header row: each row is one person,
    the non-empty cells of ``columns`` are its terms. Reads through
    :func:`spacy_textsan.io.read_input`, so delimiter sniffing, encodings and
    ``file:line`` errors (short rows, bad quoting, unknown columns) are the
    same as for ``textsan sanitize``."""
    input_file = read_input(path, fmt=fmt, columns=list(columns) or None, encoding=encoding, delimiter=delimiter)
    for record in input_file.records:
        terms: list[str] = []
        for value in record.texts.values():
            parts = value.split(multi_value_sep) if multi_value_sep else [value]
            terms.extend(p for p in parts if p.strip())
        yield terms


def index_from_records_file(
    path: PathLike,
    fields: Sequence[str],
    fmt: str | None = None,
    encoding: str | None = None,
    delimiter: str | None = None,
    multi_value_sep: str | None = None,
) -> InvertedIndex:
    """An index with one record per person of a JSONL or CSV/TSV file
    (``fields`` = JSONL fields or CSV columns). The format comes from ``fmt``
    (``jsonl``, ``csv``, ``tsv``) or the extension."""
    path = Path(path)
    kind = fmt or _FORMATS.get(path.suffix.lower())
    records: Iterator[list[str]]
    if kind == "jsonl":
        records = read_records_jsonl(path, fields, encoding=encoding, multi_value_sep=multi_value_sep)
    elif kind in ("csv", "tsv"):
        records = read_records_csv(
            path, fields, encoding=encoding, delimiter=delimiter, multi_value_sep=multi_value_sep, fmt=kind
        )
    else:
        raise InputError(
            path,
            None,
            "records must be JSONL (.jsonl) or CSV/TSV (.csv, .tsv); pass the format explicitly for other extensions",
        )
    return InvertedIndex.from_records(records)
