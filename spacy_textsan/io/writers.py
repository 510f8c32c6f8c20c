"""Writing: each input file back in its format with only its texts replaced,
and the JSON/JSONL reports. Every file goes through :mod:`.atomic`.

An output keeps every byte of its input outside the sanitized values: the
CSV/TSV header, delimiters, quoting, line endings and blank lines, the JSONL
spacing, key order, escapes and blank lines, a UTF-8 BOM. A sanitized value is
written as its format needs it (a CSV field quoted where its input field was
or where it must be; a JSON string). Outputs are UTF-8 (with a BOM where the
input had a UTF-8 one); :meth:`OutputStream.encoding` can give the input's
own encoding instead (``textsan restore``).
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .atomic import AtomicFile, atomic_write
from .csv_format import write_csv_rows
from .errors import PathLike
from .field_names import looks_like_name, name_list
from .jsonl import json_dumps, jsonl_string_token
from .layout import csv_token
from .records import InputFile, Record
from .tab_json import TEXT

__all__ = [
    "OutputStream",
    "render_record",
    "render_tokens",
    "write_output",
    "output_name",
    "output_target",
    "write_jsonl",
    "write_json",
]

#: Name of the file written for TAB JSON input.
_TAB_OUTPUT = "sanitized.jsonl"


def render_record(input_file: InputFile, record: Record, entry: Mapping[str, str]) -> str:
    """The text of ``record`` in the output, with its fields replaced by
    ``entry`` (field -> text), the blank lines before it included."""
    if input_file.fmt == "tab":
        return json_dumps({"doc_id": _json_object(record)["doc_id"], TEXT: entry[TEXT]}) + "\n"
    if input_file.fmt == "txt":
        return entry[TEXT]
    if not record.exact:
        return record.before + _reserialised(input_file, record, entry)
    only_field = input_file.header is not None and len(input_file.header) == 1
    tokens = {}
    for name, (start, end, quoted) in record.spans.items():
        if input_file.fmt == "jsonl":
            tokens[name] = jsonl_string_token(record.source[start:end], record.texts[name], entry[name])
        else:
            assert input_file.delimiter is not None
            tokens[name] = csv_token(entry[name], input_file.delimiter, quoted, only_field)
    return render_tokens(record, tokens)


def render_tokens(record: Record, tokens: Mapping[str, str]) -> str:
    """``record``'s text (after the blank lines before it) with the token of
    each field replaced by ``tokens[field]``."""
    text = record.source
    for name, (start, end, _) in sorted(record.spans.items(), key=lambda item: -item[1][0]):
        text = text[:start] + tokens[name] + text[end:]
    return record.before + text


def _reserialised(input_file: InputFile, record: Record, entry: Mapping[str, str]) -> str:
    """A record whose values could not be located, written anew (minimal
    CSV quoting; JSON with the object's key order)."""
    ending = record.source[len(record.source.rstrip("\r\n")) :] if record.source else "\n"
    if input_file.fmt == "jsonl":
        return json_dumps({**_json_object(record), **entry}) + ending
    assert input_file.header is not None and input_file.delimiter is not None
    row = list(record.raw)
    for name, value in entry.items():
        row[input_file.header.index(name)] = value
    return _csv_line(row, input_file.delimiter, ending)


def _csv_line(row: list[str], delimiter: str, ending: str) -> str:
    buffer = io.StringIO()
    write_csv_rows(buffer, [row], delimiter, ending)
    return buffer.getvalue()


class OutputStream:
    """The output of one input file, written record by record into a
    temporary file and moved onto its name by :meth:`commit` (see
    :class:`.atomic.AtomicFile`)."""

    def __init__(
        self, input_file: InputFile, target: Path, *, encoding: str = "utf-8", owner_only: bool = False
    ) -> None:
        self.input_file = input_file
        self.encoding = encoding
        self.file = AtomicFile(target, owner_only=owner_only)
        self.bom = codecs.BOM_UTF8 if input_file.bom == codecs.BOM_UTF8 and encoding == "utf-8" else b""
        self._started = self._closed = False

    @classmethod
    def restoring(cls, input_file: InputFile, target: Path, bom: bytes, codec: str) -> OutputStream:
        """A stream that writes in an input's own encoding (``codec``, the
        codec after its BOM) with its BOM, readable by the owner only."""
        stream = cls(input_file, target, encoding=codec, owner_only=True)
        stream.bom = bom
        return stream

    def _start(self) -> None:
        if not self._started:
            self._started = True
            self.file.write(self.bom)
            self._write(self.input_file.prefix if self.input_file.fmt in ("csv", "tsv") else "")

    def _write(self, text: str) -> None:
        if text:
            self.file.write(text.encode(self.encoding))

    def write(self, record: Record, entry: Mapping[str, str]) -> None:
        self._start()
        self._write(render_record(self.input_file, record, entry))

    def write_tokens(self, record: Record, tokens: Mapping[str, str]) -> None:
        """Write ``record`` with its fields' tokens replaced as they are given."""
        self._start()
        self._write(render_tokens(record, tokens))

    def close(self) -> None:
        """Write what follows the last record and close the temporary file."""
        if not self._closed:
            self._start()
            if self.input_file.fmt in ("csv", "tsv", "jsonl"):
                self._write(self.input_file.suffix)
            self.file.close()
            self._closed = True

    def commit(self) -> Path:
        """Close the file (if not yet) and move it onto its name."""
        self.close()
        return self.file.commit()

    def abort(self) -> None:
        self.file.abort()


def output_target(input_file: InputFile, out_dir: PathLike, suffix: str = "", used: set[str] | None = None) -> Path:
    """The path of ``input_file``'s output in ``out_dir``: its name (with
    ``suffix`` before the extension; ``sanitized.jsonl`` for TAB JSON), made
    unique among ``used`` (see :func:`output_name`).

    RAISES (ValueError): The output would overwrite the input.
    """
    source = input_file.path
    template = Path(_TAB_OUTPUT) if input_file.fmt == "tab" else source
    name = output_name(f"{template.stem}{suffix}{template.suffix}", set() if used is None else used)
    target = Path(out_dir) / name
    if target.resolve() == source.resolve():
        raise ValueError(f"refusing to overwrite the input file {source}; choose another --out directory or a suffix")
    return target


def write_output(
    input_file: InputFile,
    sanitized: list[dict[str, str]],
    out_dir: PathLike,
    suffix: str = "",
    used: set[str] | None = None,
) -> list[Path]:
    """Write ``input_file`` (read whole) into ``out_dir`` with its texts replaced.

    The output has the input's name (with ``suffix`` before the extension)
    and format, and every byte of the input outside the replaced values (see
    the module's docstring). TAB JSON input gives ``sanitized{suffix}.jsonl``
    with one ``{"doc_id", "text"}`` line per document.

    input_file (InputFile): What :func:`read_input` returned.
    sanitized (list[dict[str, str]]): ``sanitized[i]`` maps exactly the fields of record ``i``
        (``records[i].texts``) to their sanitized text.
    out_dir (PathLike): Output directory, created if missing.
    suffix (str): Inserted between the output file's stem and extension.
    used (set[str] | None): Output names already taken in this run (see
        :func:`output_name`); the name chosen here is added to it.
    RETURNS (list[Path]): The paths written.
    RAISES (ValueError): ``sanitized`` does not match the records, or the output
        would overwrite the input. Nothing is written then.
    """
    _check_sanitized(input_file, sanitized)
    target = output_target(input_file, out_dir, suffix, used)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    stream = OutputStream(input_file, target)
    try:
        for record, entry in zip(input_file.records, sanitized, strict=True):
            stream.write(record, entry)
    except BaseException:
        stream.abort()
        raise
    return [stream.commit()]


def _check_sanitized(input_file: InputFile, sanitized: list[dict[str, str]]) -> None:
    """Fail closed unless there is one entry per record with exactly its fields."""
    if len(sanitized) != len(input_file.records):
        raise ValueError(
            f"{input_file.path}: got {len(sanitized)} sanitized entries for {len(input_file.records)} records"
        )
    for record, entry in zip(input_file.records, sanitized, strict=False):
        check_entry(input_file, record, entry)


def check_entry(input_file: InputFile, record: Record, entry: Mapping[str, Any]) -> None:
    """Fail closed unless ``entry`` has exactly the record's fields, as strings.
    The record is named by its number and line, not its doc_id, and the fields
    only when they look like names (:func:`.field_names.name_list`): both may
    be values of the input."""
    where = f"{input_file.path}: record {record.index} (line {record.line})"
    if set(entry) != set(record.texts):
        raise ValueError(
            f"{where} has fields {name_list(sorted(record.texts))}, its sanitized entry has {name_list(sorted(entry))}"
        )
    for name, value in entry.items():
        if not isinstance(value, str):
            shown = repr(name) if looks_like_name(name) else "value"
            raise ValueError(f"{where}: sanitized {shown} is {type(value).__name__}, not str")


def _json_object(record: Record) -> dict[str, Any]:
    """The object a JSONL or TAB record was read from."""
    assert isinstance(record.raw, dict)
    return record.raw


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


def write_jsonl(path: PathLike, rows: Iterable[Mapping[str, Any]], *, owner_only: bool = False) -> None:
    """Atomically write one JSON object per line (UTF-8, non-ASCII kept)."""
    with atomic_write(path, owner_only=owner_only) as out:
        for row in rows:
            out.write(json_dumps(row) + "\n")


def write_json(path: PathLike, obj: Any, indent: int = 2, *, owner_only: bool = False) -> None:
    """Atomically write ``obj`` as indented JSON (UTF-8, non-ASCII kept)."""
    with atomic_write(path, owner_only=owner_only) as out:
        out.write(json_dumps(obj, indent=indent) + "\n")
