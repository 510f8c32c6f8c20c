"""The errors of :mod:`spacy_textsan.io`: every problem with an input file is an
:class:`InputError` naming the file and, where it has one, the 1-based line.

Two subclasses keep the details of the problem apart from its message, so that
a caller with its own error format (:func:`spacy_textsan.tab.reader.read_tab`)
can word it without parsing the message.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["PathLike", "InputError", "UndecodableError", "JsonSyntaxError"]

PathLike = str | os.PathLike


class InputError(ValueError):
    """A problem with an input file: ``"{path}:{line}: {reason}"``.

    Attributes:
        path: The input file.
        line: 1-based line the problem is on, or None if it concerns the file.
        reason: What is wrong, and how to fix it where that is known.
    """

    def __init__(self, path: PathLike, line: int | None, reason: str) -> None:
        super().__init__(path, line, reason)  # keeps the error picklable
        self.path = Path(path)
        self.line = line
        self.reason = reason

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.path}: {self.reason}"
        return f"{self.path}:{self.line}: {self.reason}"


class UndecodableError(InputError):
    """Bytes of an input file that its encoding cannot decode.

    Attributes:
        offset: File offset of the first undecodable byte.
        byte: Its value.
        encoding: The encoding name as given (or chosen from a BOM).
        codec: Python's name of the codec (``"utf-8"`` for ``"UTF8"``).
    """

    def __init__(self, path: PathLike, line: int, offset: int, byte: int, encoding: str, codec: str, hint: str) -> None:
        reason = f"cannot decode byte 0x{byte:02x} (file offset {offset}) as {encoding}"
        super().__init__(path, line, f"{reason}; {hint}" if hint else reason)
        self.args = (path, line, offset, byte, encoding, codec, hint)
        self.offset = offset
        self.byte = byte
        self.encoding = encoding
        self.codec = codec


class JsonSyntaxError(InputError):
    """Invalid JSON in an input file, at ``line`` and ``column`` (1-based).

    Attributes:
        column: 1-based column, as :class:`json.JSONDecodeError` counts it.
        msg: What the JSON parser expected, e.g. ``"Expecting ',' delimiter"``.
    """

    def __init__(self, path: PathLike, line: int, column: int, msg: str) -> None:
        super().__init__(path, line, f"invalid JSON: {msg} (column {column})")
        self.args = (path, line, column, msg)
        self.column = column
        self.msg = msg
