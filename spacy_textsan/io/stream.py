"""Reading a text file as a stream of lines, in constant memory.

:class:`TextSource` decodes like :func:`.decode.read_text` (UTF-8 with or
without a BOM by default, UTF-16/32 by their BOM, any codec with
``encoding``; binary and empty files refused), but line by line, so that a
50 MB input is never held whole. Undecodable bytes are reported exactly as
:func:`~.decode.read_text` reports them (file, line, offset): on that error
path the file is decoded whole once to find them.
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .decode import ENCODING_HINT, SNIFF_BYTES, read_text, sniff
from .errors import InputError, PathLike

__all__ = ["TextSource", "open_source", "string_lines", "split_lf"]

_BUFFER = 1 << 20


@dataclass(frozen=True)
class TextSource:
    """A decodable text file.

    Attributes:
        path: The file.
        encoding: The encoding as reported (``"utf-8-sig"`` when a UTF-8 BOM
            is there, else the codec asked for or found by its BOM).
        codec: The Python codec that decodes the text after the BOM.
        bom: The input's byte-order mark (``b""`` for none); kept so that a
            restored file has it again.
        hint: Ends the message of undecodable bytes.
    """

    path: Path
    encoding: str
    codec: str
    bom: bytes
    hint: str = ENCODING_HINT

    def lines(self) -> Iterator[str]:
        """The lines of the text with their line breaks (``\\n``, ``\\r\\n`` or ``\\r``)."""
        try:
            with open(self.path, "rb") as raw:
                raw.seek(len(self.bom))
                text = io.TextIOWrapper(io.BufferedReader(raw, _BUFFER), encoding=self.body_codec, newline="")
                yield from text
        except UnicodeDecodeError:
            read_text(self.path, None if self.encoding == "utf-8-sig" else self.encoding, hint=self.hint)
            raise InputError(self.path, None, "cannot decode the file") from None
        except OSError as error:
            raise InputError(self.path, None, f"cannot read file: {error.strerror or error}") from None

    @property
    def body_codec(self) -> str:
        """The codec of the bytes after the BOM (byte order fixed by the BOM)."""
        return _BOM_CODECS.get(self.bom, self.codec)

    def encode(self, text: str) -> bytes:
        """``text`` as this file holds it: the same BOM, codec and byte order."""
        return self.bom + text.encode(self.body_codec)

    def text(self) -> str:
        """The whole text (for formats read whole: TXT, TAB JSON)."""
        return "".join(self.lines())


def open_source(path: PathLike, encoding: str | None = None, hint: str = ENCODING_HINT) -> TextSource:
    """Check ``path`` (readable, not binary, not empty, known encoding) from
    its first bytes and return its :class:`TextSource`.

    RAISES (InputError): Unreadable, binary or empty file, or unknown encoding.
    """
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError as error:
        raise InputError(path, None, f"cannot read file: {error.strerror or error}") from None
    name, codec = sniff(path, head, encoding)
    bom = b""
    if codec in ("utf-8", "utf-8-sig"):
        codec = "utf-8"
        if head.startswith(codecs.BOM_UTF8):
            bom, name = codecs.BOM_UTF8, encoding or "utf-8-sig"
    elif codec in ("utf-16", "utf-32"):
        bom = next((b for b in _BOMS if head.startswith(b) and _BOM_CODECS[b].startswith(codec)), b"")
    source = TextSource(path, name, codec, bom, hint)
    if not head[len(bom) :] or not any(line for line in _first(source.lines())):
        raise InputError(path, None, "empty file")
    return source


#: BOM -> codec of what follows it (UTF-32 first: its LE BOM starts with UTF-16's).
_BOM_CODECS = {
    codecs.BOM_UTF32_LE: "utf-32-le",
    codecs.BOM_UTF32_BE: "utf-32-be",
    codecs.BOM_UTF16_LE: "utf-16-le",
    codecs.BOM_UTF16_BE: "utf-16-be",
    codecs.BOM_UTF8: "utf-8",
}
_BOMS = tuple(_BOM_CODECS)[:4]


def _first(lines: Iterator[str]) -> Iterator[str]:
    """The first line only (and close the file)."""
    try:
        yield next(lines, "")
    finally:
        lines.close()  # type: ignore[attr-defined]


def string_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` as :meth:`TextSource.lines` gives them."""
    return iter(io.StringIO(text, newline=""))


def split_lf(lines: Iterable[str]) -> Iterator[str]:
    """Join lines that a lone ``\\r`` split: lines that end at ``\\n`` (or at the
    end of the text) only, as JSON Lines are."""
    pending = ""
    for line in lines:
        pending += line
        if pending.endswith("\n"):
            yield pending
            pending = ""
    if pending:
        yield pending
