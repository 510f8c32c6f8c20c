"""Writing: each input file back in its format with only its texts replaced,
and the JSON/JSONL reports. Every file goes through :func:`.atomic.atomic_write`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from .atomic import atomic_write
from .csv_format import write_csv_rows
from .errors import PathLike
from .jsonl import json_dumps
from .records import InputFile, Record
from .tab_json import TEXT

__all__ = ["write_output", "output_name", "write_jsonl", "write_json"]

#: Name of the file written for TAB JSON input.
_TAB_OUTPUT = "sanitized.jsonl"


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
        out.write(sanitized[0][TEXT])


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
        write_csv_rows(out, rows, input_file.delimiter, input_file.lineterminator)


def _write_jsonl_records(target: Path, input_file: InputFile, sanitized: list[dict[str, str]]) -> None:
    # The fields already exist in each object, so the key order is kept.
    pairs = zip(input_file.records, sanitized, strict=False)
    write_jsonl(target, ({**_json_object(record), **entry} for record, entry in pairs))


def _write_tab(target: Path, input_file: InputFile, sanitized: list[dict[str, str]]) -> None:
    pairs = zip(input_file.records, sanitized, strict=False)
    write_jsonl(target, ({"doc_id": _json_object(record)["doc_id"], "text": entry[TEXT]} for record, entry in pairs))


def _json_object(record: Record) -> dict[str, Any]:
    """The object a JSONL or TAB record was read from."""
    assert isinstance(record.raw, dict)
    return record.raw


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


def write_jsonl(path: PathLike, rows: Iterable[Mapping[str, Any]]) -> None:
    """Atomically write one JSON object per line (UTF-8, non-ASCII kept)."""
    with atomic_write(path) as out:
        for row in rows:
            out.write(json_dumps(row) + "\n")


def write_json(path: PathLike, obj: Any, indent: int = 2) -> None:
    """Atomically write ``obj`` as indented JSON (UTF-8, non-ASCII kept)."""
    with atomic_write(path) as out:
        out.write(json_dumps(obj, indent=indent) + "\n")
