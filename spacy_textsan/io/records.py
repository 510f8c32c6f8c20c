"""What the readers of :mod:`spacy_textsan.io` return: :class:`InputFile` with
its :class:`Record` objects, one per document."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any

from .errors import InputError, PathLike

__all__ = ["Record", "InputFile", "Reject", "rejecter", "raiser", "ON_BAD_LINE"]

#: The values of ``on_bad_line``.
ON_BAD_LINE = ("error", "skip")


@dataclass
class Record:
    """One document of an input file.

    Attributes:
        index: 0-based position in :attr:`InputFile.records` (the position in
            the file when no record was skipped); ``sanitized[index]`` is its
            entry for :func:`~spacy_textsan.io.write_output`.
        line: 1-based line the record starts on.
        doc_id: TAB ``doc_id``; JSONL ``doc_id`` or ``id`` field if present,
            else ``"{stem}:{line}"``; CSV ``"{stem}:{row}"`` with ``row`` the
            1-based data row in the file (header excluded, skipped rows
            counted); TXT the file stem.
        texts: Field (column) name -> text to sanitize; ``"text"`` for TXT/TAB.
        raw: The original row: ``list[str]`` for CSV, ``dict`` for JSONL and
            TAB, ``str`` for TXT.
        source: The record's text in the file, its line break included
            (TXT: the whole text; TAB JSON: empty, not kept).
        before: The text between the previous record and this one that is
            kept in the outputs (blank lines).
        spans: Field -> (start, end, quoted) of its value's token in
            ``source``; a field missing here (the value could not be located)
            is written by re-serialising the record.
    """

    index: int
    line: int
    doc_id: str
    texts: dict[str, str]
    raw: list[str] | dict[str, Any] | str
    # Layout, not content: two records with the same document compare equal.
    source: str = dataclass_field(default="", compare=False, repr=False)
    before: str = dataclass_field(default="", compare=False, repr=False)
    spans: dict[str, tuple[int, int, bool]] = dataclass_field(default_factory=dict, compare=False, repr=False)

    @property
    def exact(self) -> bool:
        """Every field was located in :attr:`source`: the record can be written
        (and restored) with every other byte kept."""
        return bool(self.source) and set(self.spans) == set(self.texts)


@dataclass
class InputFile:
    """A parsed input file.

    Attributes:
        path: The input file.
        fmt: One of :data:`~spacy_textsan.io.FORMATS`.
        encoding: Encoding the file was decoded with.
        delimiter: CSV/TSV field delimiter (given or sniffed), else None.
        header: CSV/TSV header row, else None.
        records: The documents, in file order.
        skipped: Malformed records left out with ``on_bad_line="skip"``.
        fields: Names of the fields (columns) selected for sanitization.
        lineterminator: CSV/TSV line ending of the input, reused on output.
        bom: The input's byte-order mark (``b""``: none).
        body_codec: The codec of the input after its BOM.
        prefix: Text before the first record that is kept (CSV/TSV: the header
            row and blank lines before it).
        suffix: Text after the last record that is kept (trailing blank
            lines); known once the records were read.
        n_records: How many records the last full read gave.
    """

    path: Path
    fmt: str
    encoding: str
    delimiter: str | None = None
    header: list[str] | None = None
    records: list[Record] = dataclass_field(default_factory=list)
    skipped: list[InputError] = dataclass_field(default_factory=list)
    fields: list[str] = dataclass_field(default_factory=list)
    lineterminator: str = "\n"
    bom: bytes = b""
    body_codec: str = "utf-8"
    prefix: str = ""
    suffix: str = ""
    n_records: int = 0
    #: re-reads the file and yields its records (set by open_input)
    stream: Callable[[], Iterator[Record]] | None = dataclass_field(default=None, repr=False, compare=False)

    def iter_records(self) -> Iterator[Record]:
        """The records, read from the file again in constant memory (or the
        ones already read); :attr:`skipped` and :attr:`suffix` are set anew."""
        if self.stream is None:
            yield from self.records
            return
        self.skipped = []
        count = 0
        for record in self.stream():
            count += 1
            yield record
        self.n_records = count

    def encode(self, text: str) -> bytes:
        """``text`` in the input's encoding, with its BOM."""
        return self.bom + text.encode(self.body_codec)


#: Called with (line, reason) for a malformed record: raises or records a skip.
Reject = Callable[[int | None, str], None]


def rejecter(input_file: InputFile, on_bad_line: str) -> Reject:
    """Return the handler for malformed records under ``on_bad_line``."""

    def reject(line: int | None, reason: str) -> None:
        error = InputError(input_file.path, line, reason)
        if on_bad_line == "error":
            raise error
        input_file.skipped.append(error)

    return reject


def raiser(path: PathLike) -> Reject:
    """The handler that raises on the first malformed record of ``path``."""

    def reject(line: int | None, reason: str) -> None:
        raise InputError(path, line, reason)

    return reject
