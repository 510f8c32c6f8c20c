"""TAB JSON: the one parser of TAB files, shared by ``textsan sanitize`` and the
TAB gold reader.

:func:`scan_tab_json` checks the syntax and the list structure of a TAB file
and returns each document with the line it starts on. What is checked in a
document depends on its use: :func:`read_tab_records` needs only ``doc_id``
and ``text`` to sanitize it; :func:`spacy_textsan.tab.reader.read_tab`, which
reads the same way, also checks the gold annotations.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import InputError
from .jsonl import TOO_DEEP, id_string, json_syntax_error, json_type
from .records import InputFile, Record, Reject

__all__ = ["NOT_TAB", "TEXT", "scan_tab_json", "looks_like_tab", "read_tab_records"]

#: Name of the only text field of TXT and TAB records.
TEXT = "text"
NOT_TAB = (
    ".json input must be TAB JSON (a list of documents with 'doc_id' and 'text'); "
    "for other JSON write one object per line as JSONL (.jsonl) or pass --format"
)
_JSON_WS = re.compile(r"[ \t\n\r]*")


def _skip_ws(text: str, pos: int) -> int:
    """The position of the first non-whitespace character at or after ``pos``."""
    match = _JSON_WS.match(text, pos)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def scan_tab_json(path: Path, text: str, require_tab_shape: bool = False) -> list[tuple[int, Any]]:
    """Parse a TAB JSON list; return (start line, value) per element.

    The list is scanned element by element so that each document's line is
    known. With ``require_tab_shape`` (a ``.json`` file without ``--format``)
    the top level must look like TAB JSON, else the error suggests JSONL.

    RAISES (InputError): A file of whitespace only (``"empty file"``), or a top
        level that is not a list.
    RAISES (JsonSyntaxError): Invalid JSON, with its line and column.
    """
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if pos == len(text):
        raise InputError(path, None, "empty file")
    if not text.startswith("[", pos):
        raise InputError(path, None, NOT_TAB if require_tab_shape else "TAB JSON must be a list of documents")
    documents: list[tuple[int, Any]] = []
    line, counted = 1, 0
    pos = _skip_ws(text, pos + 1)
    closed = text.startswith("]", pos)
    while not closed:
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as error:
            raise json_syntax_error(path, error) from None
        except RecursionError:
            raise InputError(path, line, TOO_DEEP) from None
        documents.append((line, value))
        pos = _skip_ws(text, pos)
        if text.startswith("]", pos):
            closed = True
        elif text.startswith(",", pos):
            pos = _skip_ws(text, pos + 1)
        else:
            raise json_syntax_error(path, json.JSONDecodeError("Expecting ',' delimiter", text, pos))
    pos = _skip_ws(text, pos + 1)
    if pos != len(text):
        raise json_syntax_error(path, json.JSONDecodeError("Extra data", text, pos))
    if require_tab_shape and documents and not looks_like_tab(documents[0][1]):
        raise InputError(path, None, NOT_TAB)
    return documents


def looks_like_tab(document: Any) -> bool:
    """Whether ``document`` is a TAB document: "text" and "annotations"/"doc_id"."""
    return isinstance(document, dict) and "text" in document and ("annotations" in document or "doc_id" in document)


def read_tab_records(input_file: InputFile, documents: list[tuple[int, Any]], reject: Reject) -> Iterator[Record]:
    """Turn scanned TAB documents into records with the field ``"text"``.

    A document needs a string or integer ``doc_id`` and a string ``text``;
    its annotations are not looked at (they are not sanitized).
    """
    input_file.fields = [TEXT]
    index = 0
    for number, (line, document) in enumerate(documents):
        where = f"document {number}"
        if not isinstance(document, dict):
            reject(line, f"{where} is {json_type(document)}, not an object")
            continue
        doc_id = id_string(document.get("doc_id"))
        if doc_id is None:
            problem = "no 'doc_id'" if "doc_id" not in document else "a 'doc_id' that is not a string or integer"
            reject(line, f"{where} has {problem}")
            continue
        if not isinstance(document.get(TEXT), str):
            problem = "no 'text'" if TEXT not in document else "a 'text' that is not a string"
            reject(line, f"{where} has {problem}")  # not its doc_id: a value of the file
            continue
        yield Record(index=index, line=line, doc_id=doc_id, texts={TEXT: document[TEXT]}, raw=document)
        index += 1
