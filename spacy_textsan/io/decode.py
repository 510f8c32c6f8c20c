"""The one text decoder of spacy-textsan's input files.

Inputs to sanitize, TAB gold files, k-anonymity records and the allow/deny
lists are all read by :func:`read_text`: UTF-8 by default (a BOM is allowed and
stripped), UTF-16/32 when the file starts with their BOM, or any Python codec
given with ``encoding``. Every failure is an :class:`~.errors.InputError`
naming the file and, for undecodable bytes, the line and file offset.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from .errors import InputError, PathLike, UndecodableError

__all__ = ["ENCODING_HINT", "read_text", "bom_encoding", "sniff"]

#: How to fix undecodable bytes, for files read with an ``--encoding`` option.
ENCODING_HINT = "pass the file's encoding with --encoding, e.g. --encoding cp1252 or --encoding latin-1"
#: How much of a file :func:`sniff` looks at.
SNIFF_BYTES = 8 * 1024


def read_text(
    path: PathLike,
    encoding: str | None = None,
    *,
    allow_empty: bool = False,
    detect_binary: bool = True,
    hint: str = ENCODING_HINT,
) -> tuple[str, str]:
    """Read and decode ``path``; return (text, encoding used).

    path (PathLike): The file.
    encoding (str | None): Any Python codec; default: UTF-8 (BOM allowed), or UTF-16/32
        when the file starts with their BOM. The encoding returned is
        ``"utf-8-sig"`` when a UTF-8 BOM was stripped.
    allow_empty (bool): Accept a file with no text (else ``"empty file"``).
    detect_binary (bool): Reject a file with a NUL character in its first 8 KiB
        as ``"binary file, not text"``, before decoding it. Without it, a
        binary file fails on its first undecodable byte instead.
    hint (str): Ends the message of undecodable bytes (how to fix them).
    RAISES (InputError): Unreadable, binary or empty file, or unknown encoding.
    RAISES (UndecodableError): Bytes the encoding cannot decode.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(path, None, f"cannot read file: {error.strerror or error}") from None
    name, codec = sniff(path, data[:SNIFF_BYTES], encoding, detect_binary)
    start = 0
    if codec in ("utf-8", "utf-8-sig"):
        # Strip the BOM here rather than with utf-8-sig, whose error offsets
        # do not count it.
        codec = "utf-8"
        if data.startswith(codecs.BOM_UTF8):
            start = len(codecs.BOM_UTF8)
            name = encoding or "utf-8-sig"
    try:
        text = data[start:].decode(codec)
    except UnicodeDecodeError as error:
        offset = start + error.start
        line = data[:offset].decode(codec, errors="replace").count("\n") + 1
        raise UndecodableError(path, line, offset, data[offset], name, codec, hint) from None
    if not text and not allow_empty:
        raise InputError(path, None, "empty file")
    return text, name


def sniff(path: Path, head: bytes, encoding: str | None, detect_binary: bool = True) -> tuple[str, str]:
    """(encoding name, Python codec) of a file from its first bytes ``head``:
    ``encoding`` if given, else UTF-16/32 by their BOM, else UTF-8. Raises
    :class:`InputError` for an unknown encoding or (``detect_binary``) a NUL
    character, the mark of a binary file."""
    name = encoding or bom_encoding(head) or "utf-8"
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        raise InputError(path, None, f"unknown encoding {name!r}") from None
    if detect_binary and "\x00" in head.decode(codec, errors="replace"):
        raise InputError(path, None, "binary file, not text")
    return name, codec


def bom_encoding(data: bytes) -> str | None:
    """Return "utf-32"/"utf-16" if ``data`` starts with their BOM, else None."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"  # before UTF-16: the UTF-32-LE BOM starts with the UTF-16-LE one
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    return None
