"""Where each value sits in its record's text, so that an output can replace
the sanitized values and keep every other byte of the input.

The readers parse with the standard library (``json``, ``csv``); the
functions here only *locate* the values those parsers returned, and check
that what they locate decodes to exactly that value. When the check fails,
the record is written re-serialised instead (and ``--reversible`` is refused
for its file, since it could not be restored byte for byte).
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]  # public, but not in typeshed

__all__ = ["jsonl_value_span", "csv_field_spans", "csv_token"]

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def jsonl_value_span(line: str, key: str) -> tuple[int, int] | None:
    """The [start, end) of the JSON token of the top-level ``key``'s value in
    the object ``line``; None if ``key`` is not a top-level key or ``line`` is
    not one JSON object (the caller parsed it already, so that means the
    reader and this scanner disagree: fail safe, write it re-serialised)."""
    try:
        pos = _WS.match(line, 0).end()  # type: ignore[union-attr]
        if line[pos : pos + 1] != "{":
            return None
        pos = _WS.match(line, pos + 1).end()  # type: ignore[union-attr]
        found = None
        while line[pos : pos + 1] == '"':
            name, pos = scanstring(line, pos + 1)
            pos = _WS.match(line, pos).end()  # type: ignore[union-attr]
            if line[pos : pos + 1] != ":":
                return None
            start = _WS.match(line, pos + 1).end()  # type: ignore[union-attr]
            _, end = _DECODER.raw_decode(line, start)
            if name == key:
                found = (start, end)
            pos = _WS.match(line, end).end()  # type: ignore[union-attr]
            if line[pos : pos + 1] == ",":
                pos = _WS.match(line, pos + 1).end()  # type: ignore[union-attr]
            elif line[pos : pos + 1] == "}":
                return found
            else:
                return None
        return found if line[pos : pos + 1] == "}" else None
    except (ValueError, IndexError):
        return None


def csv_field_spans(raw: str, row: list[str], delimiter: str) -> list[tuple[int, int, bool]] | None:
    """(start, end, quoted) of each field of ``row`` in ``raw``, the text the
    ``csv`` module (strict, double quotes) parsed it from, line break
    included; None if they do not line up."""
    spans = []
    pos = 0
    for i, value in enumerate(row):
        quoted = raw.startswith('"', pos)
        token = _quote(value) if quoted else value
        if not raw.startswith(token, pos):
            return None
        spans.append((pos, pos + len(token), quoted))
        pos += len(token)
        if i < len(row) - 1:
            if not raw.startswith(delimiter, pos):
                return None
            pos += len(delimiter)
    return spans if raw[pos:] in ("", "\n", "\r", "\r\n") else None


def csv_token(value: str, delimiter: str, quoted: bool = False, only_field: bool = False) -> str:
    """The CSV token of ``value``: quoted if the input's was (``quoted``) or
    if it must be (a delimiter, quote or line break in it, or an empty value
    that is a row's only field, which would read as a blank line)."""
    must = any(c in value for c in (delimiter, '"', "\r", "\n")) or (only_field and not value)
    return _quote(value) if quoted or must else value


def _quote(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'
