"""Input files and what sanitizing them gives: one loop for both engines.

The documents of a file are every field of every record (:func:`file_jobs`),
read as a stream. Whichever engine sanitized them, :func:`run_file` pairs the
results with their records, applies the column votes of tables (a first pass
spools the results to an unnamed temporary file, a second masks the voted
cells) and hands each record to the run's writer
(:class:`~spacy_textsan.run.outputs.RunWriter`), which writes into temporary
files that only a finished run moves onto their names. Memory stays constant
in the number of records.
"""

from __future__ import annotations

import pickle
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice, tee
from pathlib import Path
from typing import IO, Any, Protocol

from ..io import InputFile, Record
from .columns import ColumnTally, mask_cell, voted_cell
from .results import DocResult
from .runner import SanitizationError

#: The run's own outputs keep their names; an input with one of them gets "-2".
RESERVED_OUTPUTS = ("report.jsonl", "masked_spans.json", "predictions.json")
#: Report statuses, in the order the summary gives them.
STATUSES = ("ok", "degraded", "fallback", "failed")

Job = tuple[Record, str, str]  # (record, field name, text)
Outcome = tuple[Record, dict[str, DocResult]]  # a record and the result of each of its fields


#: the residual k of a document whose person the background does not hold (reid_risk)
NOT_MEASURED = "not measured"


@dataclass
class RunResult:
    """What a run did: status counts, the residual k of each document, the
    files it wrote."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))
    #: residual k (None: failed; NOT_MEASURED: the background does not hold the person) -> number of
    #: documents, for documents that have one
    residual_ks: Counter[Any] = field(default_factory=Counter)
    written: list[Path] = field(default_factory=list)
    #: --engine spark: the Parquet/JSONL dataset it wrote, if any
    dataset: Path | None = None
    #: reversible mode: the id that binds mapping.enc to this run (``textsan restore`` shows it)
    run_id: str | None = None

    @property
    def n_docs(self) -> int:
        return sum(self.counts.values())

    @property
    def exit_code(self) -> int:
        """0: every document as configured; 2: a document was redacted or fell
        back to masking every candidate; 3: only fail-closed component errors."""
        if self.counts.get("failed") or self.counts.get("fallback"):
            return 2
        return 3 if self.counts.get("degraded") else 0


def file_jobs(f: InputFile) -> list[Job]:
    """The documents of a file read whole: every field of every record, in order."""
    return [(rec, name, text) for rec in f.records for name, text in rec.texts.items()]


def paired(records: Iterable[Record], results: Iterable[DocResult]) -> Iterator[Outcome]:
    """Each record with the results of its fields, in order (``results`` has
    one per field of each record, in the records' order)."""
    results = iter(results)
    for record in records:
        names = list(record.texts)
        got = list(islice(results, len(names)))
        if len(got) != len(names):
            raise RuntimeError(f"{len(got)} results for the {len(names)} fields of record {record.index}")
        yield record, dict(zip(names, got, strict=True))


def local_outcomes(records: Iterable[Record], sanitize: Any) -> Iterator[Outcome]:
    """Records and their results, sanitized as they are read: ``sanitize``
    maps an iterator of texts to an iterator of results (lazily, reading at
    most a batch ahead)."""
    feed, keep = tee(records)
    texts = (text for record in feed for text in record.texts.values())
    return paired(keep, sanitize(texts))


class RecordSink(Protocol):
    """Where a file's records go (:meth:`spacy_textsan.run.outputs.RunWriter.open_file`)."""

    def write(self, record: Record, results: dict[str, DocResult]) -> None: ...

    def finish(self) -> None: ...


def run_file(f: InputFile, outcomes: Iterable[Outcome], output: RecordSink, mask_format: str) -> None:
    """Write one file's records (``outcomes``, in order) to ``output``;
    tables get their column votes first. Raises
    :class:`~spacy_textsan.run.runner.SanitizationError` with the file's path
    (``on_error="fail"``)."""
    try:
        if f.fmt in ("csv", "tsv"):
            outcomes = _voted(outcomes, mask_format)
        for record, results in outcomes:
            output.write(record, results)
    except SanitizationError as e:
        raise SanitizationError(f"{f.path}: a document could not be sanitized ({e})") from e
    output.finish()


def _voted(outcomes: Iterable[Outcome], mask_format: str) -> Iterator[Outcome]:
    """A table's outcomes with its column votes applied: a first pass spools
    them (pickled, to an unnamed temporary file of this user) and tallies the
    columns; a second reads them back and masks the voted cells."""
    tally = ColumnTally()
    with tempfile.TemporaryFile() as spool:
        n = 0
        for record, results in outcomes:
            for name, res in results.items():
                tally.add(name, record.texts[name], res)
            pickle.dump((record, results), spool, protocol=pickle.HIGHEST_PROTOCOL)
            n += 1
        votes = tally.votes()
        spool.seek(0)
        for record, results in _unspool(spool, n):
            for name, label in votes.items():
                text, cell = record.texts.get(name), results.get(name)
                if text is not None and cell is not None and voted_cell(text, cell):
                    results[name] = mask_cell(text, cell, label, mask_format)
            yield record, results


def _unspool(spool: IO[bytes], n: int) -> Iterator[Outcome]:
    for _ in range(n):
        yield pickle.load(spool)  # noqa: S301 (written by this process just before)
