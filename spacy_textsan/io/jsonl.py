"""JSON Lines: the reader of JSONL inputs and the JSON helpers the formats share.

:func:`iter_json_objects` is the one JSONL parser: ``textsan sanitize`` reads
its documents with it (:func:`read_jsonl`) and the k-anonymity loaders their
records (:func:`spacy_textsan.risk.kanon_records.read_records_jsonl`).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .errors import JsonSyntaxError
from .field_names import duplicate_key, key_listing
from .layout import jsonl_value_span
from .records import InputFile, Record, Reject
from .stream import split_lf, string_lines

__all__ = [
    "iter_json_lines",
    "iter_json_objects",
    "read_jsonl",
    "id_string",
    "json_type",
    "json_reason",
    "json_syntax_error",
    "json_dumps",
]


class _DuplicateKey(ValueError):
    """A JSON object has the same key twice (one value would be lost)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` that rejects duplicate keys (named only when
    they look like names, :func:`.field_names.duplicate_key`)."""
    obj: dict[str, Any] = {}
    for position, (key, value) in enumerate(pairs, start=1):
        if key in obj:
            first = next(i for i, (other, _) in enumerate(pairs, start=1) if other == key)
            raise _DuplicateKey(duplicate_key(key, first, position))
        obj[key] = value
    return obj


#: the reason for JSON nested deeper than the parser's recursion limit
TOO_DEEP = "invalid JSON: nested too deeply to read (arrays or objects inside one another thousands of levels deep)"


def iter_json_lines(
    lines: Iterable[str], reject: Reject, unique_keys: bool = True
) -> Iterator[tuple[int, str, dict[str, Any] | None]]:
    """Yield (1-based line, the line's text, object) for every line of
    ``lines`` (split at ``\n`` only, see :func:`.stream.split_lf`); the
    object is None for a blank line. A line that is not valid JSON, not an
    object, or (with ``unique_keys``) holds a key twice goes to ``reject``
    and is not yielded."""
    hook = _unique_keys if unique_keys else None
    # Split on "\n" only: JSON strings cannot hold a raw "\n", but they can
    # hold U+2028 and friends, which str.splitlines() would split on.
    for line, source in enumerate(split_lf(lines), start=1):
        if not source.strip():
            yield line, source, None
            continue
        try:
            obj = json.loads(source[:-1] if source.endswith("\n") else source, object_pairs_hook=hook)
        except json.JSONDecodeError as error:
            reject(line, json_reason(error))
            continue
        except RecursionError:
            reject(line, TOO_DEEP)
            continue
        except _DuplicateKey as error:
            reject(line, f"invalid JSON object: {error}")
            continue
        if not isinstance(obj, dict):
            reject(line, f"expected a JSON object, got {json_type(obj)}")
            continue
        yield line, source, obj


def iter_json_objects(text: str, reject: Reject, unique_keys: bool = True) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (1-based line, object) for each JSON object line of ``text``;
    blank lines are skipped but counted (see :func:`iter_json_lines`)."""
    for line, _, obj in iter_json_lines(string_lines(text), reject, unique_keys):
        if obj is not None:
            yield line, obj


def read_jsonl(
    input_file: InputFile, lines: Iterable[str], field: str, reject: Reject, all_strings: bool = False
) -> Iterator[Record]:
    """The records of a JSONL file: one JSON object per line, each with the
    string ``field`` to sanitize (``all_strings``: every top-level string
    value instead). Blank lines are kept (:attr:`Record.before`,
    :attr:`InputFile.suffix`); a rejected line is left out of the output."""
    input_file.fields = ["*"] if all_strings else [field]
    stem = input_file.path.stem
    before, index = "", 0
    for line, source, obj in iter_json_lines(lines, reject):
        if obj is None:
            before += source
            continue
        if all_strings:
            texts = {key: value for key, value in obj.items() if isinstance(value, str)}
        elif field not in obj:
            reject(line, f"missing field {field!r} ({key_listing(obj)}); pass --field")
            continue
        elif not isinstance(obj[field], str):
            reject(line, f"field {field!r} is {json_type(obj[field])}, not a string")
            continue
        else:
            texts = {field: obj[field]}
        doc_id = id_string(obj.get("doc_id", obj.get("id")))
        spans = {name: (*span, False) for name in texts if (span := jsonl_value_span(source, name)) is not None}
        yield Record(
            index=index,
            line=line,
            doc_id=f"{stem}:{line}" if doc_id is None else doc_id,
            texts=texts,
            raw=obj,
            source=source,
            before=before,
            spans=spans,
        )
        before, index = "", index + 1
    input_file.suffix = before


def id_string(value: Any) -> str | None:
    """Return a string or integer id as a string, anything else as None."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    return None


def json_type(value: Any) -> str:
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


def json_reason(error: json.JSONDecodeError) -> str:
    """The reason of an :class:`~.errors.InputError` for invalid JSON on a line."""
    return f"invalid JSON: {error.msg} (column {error.colno})"


def json_syntax_error(path: Path, error: json.JSONDecodeError) -> JsonSyntaxError:
    """The error for invalid JSON in a file parsed as a whole (lines counted in it)."""
    return JsonSyntaxError(path, error.lineno, error.colno, error.msg)


def json_dumps(obj: Any, indent: int | None = None) -> str:
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


_WORD_OR_CHAR = re.compile(r"\w+|\W", re.UNICODE)
_ESCAPE = re.compile(r'\\(?:u[0-9a-fA-F]{4}(?:\\u[0-9a-fA-F]{4})?|["\\/bfnrt])')


def _string_pieces(token: str) -> list[str] | None:
    """The source of each character of the JSON string ``token`` (quotes
    included in ``token``): ``"caf\\u00e9"`` gives ``["c", "a", "f", "\\u00e9"]``.
    None when ``token`` is not a JSON string."""
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        return None
    pieces: list[str] = []
    pos, end = 1, len(token) - 1
    while pos < end:
        if token[pos] != "\\":
            pieces.append(token[pos])
            pos += 1
            continue
        m = _ESCAPE.match(token, pos)
        if m is None:
            return None
        decoded = json.loads(f'"{m.group(0)}"')
        if len(decoded) == 2:  # two \u escapes that are not one surrogate pair: one piece each
            first = m.group(0)[:6]
            pieces.append(first)
            pos += len(first)
            continue
        pieces.append(m.group(0))
        pos = m.end()
    return pieces


def jsonl_string_token(token: str, original: str, sanitized: str) -> str:
    """The JSON string token of ``sanitized`` for a value whose token in the
    input was ``token`` (the string ``original``): the input's own token when
    nothing changed, else its escapes kept (``\\u00e9``, ``\\/``) wherever the
    text is unchanged, so the output differs from the input only where
    something was masked."""
    if sanitized == original:
        return token
    if "\\" not in token:
        return json_dumps(sanitized)
    pieces = _string_pieces(token)
    if pieces is None or len(pieces) != len(original):  # each piece is one character of ``original``
        return json_dumps(sanitized)
    a = _WORD_OR_CHAR.findall(original)
    b = _WORD_OR_CHAR.findall(sanitized)
    a_starts = [0]
    for word in a:
        a_starts.append(a_starts[-1] + len(word))
    b_starts = [0]
    for word in b:
        b_starts.append(b_starts[-1] + len(word))
    out = ['"']
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append("".join(pieces[a_starts[i1] : a_starts[i2]]))
        else:
            out.append(json_dumps(sanitized[b_starts[j1] : b_starts[j2]])[1:-1])
    out.append('"')
    result = "".join(out)
    return result if json.loads(result) == sanitized else json_dumps(sanitized)
