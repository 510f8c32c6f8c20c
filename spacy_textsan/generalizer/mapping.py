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
"""

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from .keys import Secret

__all__ = [
    "MappingError",
    "mapping_segments",
    "restore_text",
    "text_digest",
    "encrypt_mapping",
    "decrypt_mapping",
    "generate_key",
    "MAPPING_VERSION",
]

MAPPING_VERSION = 1


class MappingError(ValueError):
    """The mapping cannot be read or does not fit the sanitized text."""


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


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
        raise MappingError("the sanitized text was changed after the run (checksum differs)")
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


def encrypt_mapping(mapping: dict[str, Any], key: Secret) -> bytes:
    payload = json.dumps({"version": MAPPING_VERSION, **mapping}, ensure_ascii=False, sort_keys=True)
    return _fernet(key).encrypt(payload.encode("utf-8"))


def decrypt_mapping(token: bytes, key: Secret) -> dict[str, Any]:
    from cryptography.fernet import InvalidToken

    try:
        data = json.loads(_fernet(key).decrypt(token.strip()).decode("utf-8"))
    except InvalidToken:
        raise MappingError("cannot decrypt the mapping: wrong key, or the file is damaged") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise MappingError("the decrypted mapping is not valid JSON") from None
    if not isinstance(data, dict) or data.get("version") != MAPPING_VERSION:
        raise MappingError(f"unsupported mapping version {data.get('version') if isinstance(data, dict) else '?'}")
    return data
