"""``textsan restore``: the files of a reversible run back, byte for byte.

The sanitized copies keep every byte of their inputs outside the sanitized
values (:mod:`spacy_textsan.io.writers`); the mapping holds, per value, the
replaced stretches with their originals, how the input wrote the value (a
quoted CSV field, a JSON string with escapes) and the input's encoding and
BOM. Restoring puts the originals back into the same places and encodes the
text as the input was. Every file is checked against the mapping before
anything is written: the checksum of each value, then the SHA-256 of the
whole file as the run wrote it (a mapping of version 3), so that a file
changed anywhere, or a ``mapping.enc`` of another run, is refused; restored
files are 0600.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..io import InputError, InputFile, OutputStream, Record, json_dumps, open_input, output_name
from ..io.layout import csv_token
from ..render.mapping import MappingError, file_digest, restore_text
from .header import shown_field


class RestoreError(ValueError):
    """A sanitized file does not fit its mapping (nothing is written)."""


def restore_files(sanitized_dir: Path, mapping: dict[str, Any], out: Path) -> list[Path]:
    """Restore every file of ``mapping`` from ``sanitized_dir`` into ``out``;
    returns the paths written. Raises :class:`RestoreError` naming the file
    and line before anything is written."""
    entries = mapping["files"]
    opened = [(_open(sanitized_dir / entry["output"], entry), entry) for entry in entries]
    for f, entry in opened:  # check everything first
        for _ in _restored(f, entry):
            pass
        _check_file(f.path, entry)
    used: set[str] = set()
    streams = []
    out.mkdir(parents=True, exist_ok=True)
    try:
        for f, entry in opened:
            target = out / output_name(entry["output"], used)
            bom, codec = bytes.fromhex(entry.get("bom", "")), entry.get("codec", "utf-8")
            stream = OutputStream.restoring(f, target, bom, codec)
            streams.append(stream)
            for record, tokens in _restored(f, entry):
                stream.write_tokens(record, tokens)
            stream.close()
        return [stream.commit() for stream in streams]
    except BaseException:
        for stream in streams:
            stream.abort()
        raise


def _check_file(path: Path, entry: dict[str, Any]) -> None:
    """The sanitized file as the run wrote it (the SHA-256 the mapping holds,
    if it holds one)."""
    expected = entry.get("sha256")
    if expected is not None and file_digest(path) != expected:
        raise RestoreError(
            f"{path}: not the file mapping.enc was written with (SHA-256 differs): it was changed after the "
            "run, or mapping.enc comes from another run"
        )


def _open(source: Path, entry: dict[str, Any]) -> InputFile:
    fields = entry["fields"] or ["text"]
    try:
        return open_input(
            source,
            fmt=entry["format"],
            columns=fields,
            field=fields[0],
            delimiter=entry["delimiter"],
            all_columns=fields == ["*"],
        )
    except InputError as e:
        raise RestoreError(str(e)) from None


def _restored(f: InputFile, entry: dict[str, Any]) -> Iterator[tuple[Record, dict[str, str]]]:
    """Each record of the sanitized file ``f`` with the tokens that restore its fields."""
    records = entry["records"]
    n = 0
    try:
        for record in f.iter_records():
            if n >= len(records):
                raise RestoreError(f"{f.path}: more records than the mapping has ({len(records)})")
            fields = records[n]["fields"]
            n += 1
            if not record.exact:
                raise RestoreError(f"{f.path}:{record.line}: the record was changed after the run")
            tokens = {}
            for name, text in record.texts.items():
                m = fields.get(name)
                if m is None:
                    raise RestoreError(f"{f.path}:{record.line}: {shown_field(f, name)} is not in the mapping")
                original = restore_text(text, m["segments"], m["digest"])
                tokens[name] = _token(f, original, m)
            yield record, tokens
    except MappingError as e:
        raise RestoreError(f"{f.path}:{record.line}: {e}") from None
    except InputError as e:
        raise RestoreError(str(e)) from None
    if n != len(records):
        raise RestoreError(f"{f.path}: {n} records, the mapping has {len(records)}")


def _token(f: InputFile, original: str, m: dict[str, Any]) -> str:
    """How the input wrote ``original``."""
    if f.fmt == "jsonl":
        return m.get("token") or json_dumps(original)
    if f.fmt in ("csv", "tsv") and m.get("quoted"):
        assert f.delimiter is not None
        return csv_token(original, f.delimiter, quoted=True)
    return original
