"""Reversible mode: the mapping from replacements back to the originals, encrypted.

:func:`mapping_segments` takes what the generalizer produced (the original
text, the sanitized text and the offset map) and keeps only the replaced
stretches: ``[sanitized_start, sanitized_end, original_string]``.
:func:`restore_text` puts the originals back. The mapping of a whole run is a
JSON document encrypted with Fernet (AES-128-CBC + HMAC-SHA256, from the
``cryptography`` package): :func:`encrypt_mapping` / :func:`decrypt_mapping`.
The key (``textsan keygen``) comes from a file or ``$TEXTSAN_MAPPING_KEY``
and never appears in messages (:mod:`.keys`).

Each segment list carries the SHA-256 of the sanitized text it belongs to, so
a sanitized file edited after the run is refused rather than restored wrongly.
A streamed mapping is bound to its run and to its sanitized files: every
chunk carries the run's id (chunks of two runs cannot be mixed) and the last
one the SHA-256 of each sanitized file as written (:func:`file_digest`), so
that a sanitized file changed anywhere, or a ``mapping.enc`` copied from
another run made with the same key, is refused.
"""

import hashlib
import json
import os
from collections.abc import Sequence
from typing import Any

from .keys import Secret

__all__ = [
    "MappingError",
    "mapping_segments",
    "restore_text",
    "text_digest",
    "file_digest",
    "encrypt_mapping",
    "decrypt_mapping",
    "generate_key",
    "MAPPING_VERSION",
    "STREAM_VERSION",
    "check_mapping_key",
    "encrypt_chunk",
    "decrypt_stream",
]

MAPPING_VERSION = 1
#: A mapping written as it goes: one Fernet token per line, each a numbered
#: chunk carrying the run's id; the last one holds the SHA-256 of each
#: sanitized file. Version 2 (no run id, no file digests) is still read.
STREAM_VERSION = 3
_UNBOUND_STREAM_VERSION = 2


class MappingError(ValueError):
    """The mapping cannot be read or does not fit the sanitized text."""


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def file_digest(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes (hex), read in pieces."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def mapping_segments(original: str, sanitized: str, offset_map: Sequence[Sequence[int]] | None) -> list[list]:
    """The replaced stretches of ``sanitized`` with their original strings.
    Without an offset map (a document that failed and was replaced by a
    notice), the whole sanitized text maps to the whole original."""
    if offset_map is None:
        return [[0, len(sanitized), original]]
    out = []
    for s_start, s_end, o_start, o_end in offset_map:
        if sanitized[s_start:s_end] != original[o_start:o_end]:
            out.append([s_start, s_end, original[o_start:o_end]])
    return out


def restore_text(sanitized: str, segments: Sequence[Sequence[Any]], digest: str | None = None) -> str:
    """``sanitized`` with every segment's original string put back."""
    if digest is not None and text_digest(sanitized) != digest:
        raise MappingError(
            "the sanitized text was changed after the run, or the mapping is another run's (checksum differs)"
        )
    pieces, pos = [], 0
    for start, end, original in sorted(segments, key=lambda s: s[0]):
        if not (pos <= start <= end <= len(sanitized)):
            raise MappingError(f"segment [{start}, {end}] does not fit the sanitized text")
        pieces += [sanitized[pos:start], original]
        pos = end
    return "".join(pieces) + sanitized[pos:]


def generate_key() -> bytes:
    from cryptography.fernet import Fernet

    return Fernet.generate_key()


def _fernet(key: Secret):
    from cryptography.fernet import Fernet

    try:
        return Fernet(key.reveal())
    except (ValueError, TypeError):
        raise MappingError(
            "the mapping key is not a Fernet key (32 url-safe base64-encoded bytes; make one with `textsan keygen`)"
        ) from None


def check_mapping_key(key: Secret) -> None:
    """Raise :class:`MappingError` unless ``key`` is a Fernet key (before any work)."""
    _fernet(key)


def encrypt_chunk(chunk: dict[str, Any], seq: int, key: Secret) -> bytes:
    """One line of a streamed mapping: ``chunk`` with its sequence number,
    encrypted (a newline ends it)."""
    payload = json.dumps({"version": STREAM_VERSION, "seq": seq, **chunk}, ensure_ascii=False, sort_keys=True)
    return _fernet(key).encrypt(payload.encode("utf-8", "surrogatepass")) + b"\n"


def decrypt_stream(data: bytes, key: Secret) -> dict[str, Any]:
    """The mapping of a run from its file: a streamed one (chunks ``file``,
    ``records``, ``end``, numbered from 0 with nothing missing, reordered or
    added, all of one run) or a version 1 mapping (one token). Returns
    ``{"version", "run", "files": [{..., "records": [...], "sha256"}, ...]}``
    (``run`` and ``sha256``: version 3 only)."""
    lines = data.split()
    if not lines:
        raise MappingError("the mapping is empty")
    if len(lines) == 1:
        try:
            return decrypt_mapping(lines[0], key)
        except MappingError as e:
            if not str(e).startswith("unsupported mapping version"):
                raise
    files: list[dict[str, Any]] = []
    first = _decrypt_json(lines[0], key)
    version, run = first.get("version"), first.get("run")
    if version not in (STREAM_VERSION, _UNBOUND_STREAM_VERSION):
        raise MappingError(f"unsupported mapping version {version}")
    if version == STREAM_VERSION and not (isinstance(run, str) and run):
        raise MappingError("the mapping's chunks are missing, reordered or damaged")
    end: dict[str, Any] | None = None
    for seq, line in enumerate(lines):
        chunk = first if seq == 0 else _decrypt_json(line, key)
        if chunk.get("version") != version or chunk.get("seq") != seq or end is not None:
            raise MappingError("the mapping's chunks are missing, reordered or damaged")
        if chunk.get("run") != run:
            raise MappingError("the mapping's chunks come from more than one run")
        kind = chunk.get("kind")
        if kind == "file":
            files.append({**chunk["file"], "records": []})
        elif kind == "records" and files:
            files[-1]["records"] += chunk["records"]
        elif kind == "end" and chunk.get("n_files") == len(files):
            end = chunk
        else:
            raise MappingError("the mapping's chunks are missing, reordered or damaged")
    if end is None:
        raise MappingError("the mapping is incomplete (its last chunk is missing)")
    if version == STREAM_VERSION:
        _attach_digests(files, end.get("outputs"))
    return {"version": version, "run": run, "files": files}


def _attach_digests(files: list[dict[str, Any]], outputs: Any) -> None:
    """The SHA-256 of each sanitized file (the end chunk's ``outputs``, one
    per file, in order) put into its entry."""
    if not isinstance(outputs, list) or len(outputs) != len(files):
        raise MappingError("the mapping's chunks are missing, reordered or damaged")
    for entry, output in zip(files, outputs, strict=True):
        if not isinstance(output, dict) or output.get("output") != entry.get("output"):
            raise MappingError("the mapping's chunks are missing, reordered or damaged")
        entry["sha256"] = output.get("sha256")


def _decrypt_json(token: bytes, key: Secret) -> dict[str, Any]:
    from cryptography.fernet import InvalidToken

    try:
        data = json.loads(_fernet(key).decrypt(token.strip()).decode("utf-8", "surrogatepass"))
    except InvalidToken:
        raise MappingError("cannot decrypt the mapping: wrong key, or the file is damaged") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise MappingError("the decrypted mapping is not valid JSON") from None
    if not isinstance(data, dict):
        raise MappingError("the decrypted mapping is not a JSON object")
    return data


def encrypt_mapping(mapping: dict[str, Any], key: Secret) -> bytes:
    payload = json.dumps({"version": MAPPING_VERSION, **mapping}, ensure_ascii=False, sort_keys=True)
    return _fernet(key).encrypt(payload.encode("utf-8"))


def decrypt_mapping(token: bytes, key: Secret) -> dict[str, Any]:
    data = _decrypt_json(token, key)
    if data.get("version") != MAPPING_VERSION:
        raise MappingError(f"unsupported mapping version {data.get('version')}")
    return data
