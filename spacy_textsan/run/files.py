"""Input files and what sanitizing them gives: one loop for both engines.

The documents of a file are every field of every record (:func:`file_jobs`);
whichever engine sanitized them, :func:`collect_run` applies the column votes
of tables and collects what the outputs need: the report rows, the status
counts and, for TAB JSON, the masked offsets and the predictions. Nothing is
written here (see :mod:`spacy_textsan.run.outputs`), so a run that fails
writes nothing.
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spacy.language import Language
from tqdm import tqdm

from ..io import InputError, InputFile, Record
from .columns import column_votes, mask_cell
from .local import SanitizationError, sanitize_texts
from .results import DocResult, report_row, skipped_row

#: The run's own outputs keep their names; an input with one of them gets "-2".
RESERVED_OUTPUTS = ("report.jsonl", "masked_spans.json", "predictions.json")
#: Report statuses, in the order the summary gives them.
STATUSES = ("ok", "degraded", "fallback", "failed")

Job = tuple[Record, str, str]  # (record, field name, text)


@dataclass
class FileRun:
    """One input file and the result of each of its documents (record, field), in order."""

    file: InputFile
    jobs: list[Job]
    results: list[DocResult]

    @property
    def sanitized(self) -> list[dict[str, str]]:
        """Per record: field name -> sanitized text."""
        out: list[dict[str, str]] = [dict() for _ in self.file.records]
        for (rec, name, _), res in zip(self.jobs, self.results, strict=True):
            out[rec.index][name] = res.sanitized
        return out

    @property
    def offset_maps(self) -> list[dict[str, Any]]:
        """Per record: field name -> the generalizer's offset map."""
        out: list[dict[str, Any]] = [dict() for _ in self.file.records]
        for (rec, name, _), res in zip(self.jobs, self.results, strict=True):
            out[rec.index][name] = res.offset_map
        return out


@dataclass
class RunResult:
    """What a run produced, before anything is written."""

    files: list[FileRun] = field(default_factory=list)
    report_rows: list[dict] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))
    #: TAB JSON inputs: doc_id -> masked [start, end] offsets (masked_spans.json)
    masked_spans: dict[str, list[list[int]]] = field(default_factory=dict)
    #: TAB JSON inputs: (doc_id, text) and doc_id -> span records (predictions.json)
    tab_texts: list[tuple[str, str]] = field(default_factory=list)
    tab_predictions: dict[str, list[dict]] = field(default_factory=dict)
    #: --engine spark: the Parquet/JSONL dataset it wrote, if any
    dataset: Path | None = None

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
    """The documents of a file: every field of every record, in order."""
    return [(rec, name, text) for rec in f.records for name, text in rec.texts.items()]


def local_results(
    files: list[InputFile],
    nlp: Language,
    *,
    batch_size: int = 32,
    n_process: int = 1,
    on_error: str = "mask-all",
    timeout_s: float | None = None,
) -> Iterator[Iterator[DocResult]]:
    """Per file, the results of its documents sanitized in this process
    (:func:`~spacy_textsan.run.local.sanitize_texts`), lazily."""
    for f in files:
        texts = (text for _, _, text in file_jobs(f))
        yield sanitize_texts(
            nlp, texts, batch_size=batch_size, n_process=n_process, on_error=on_error, timeout_s=timeout_s
        )


def collect_run(
    files: list[InputFile], per_file: Iterable[Iterable[DocResult]], mask_format: str, dataset: Path | None = None
) -> RunResult:
    """The run of ``files`` from the results of their documents (``per_file``,
    in file order, whichever engine produced them): column votes of tables,
    report rows, status counts, the TAB outputs. Raises
    :class:`~spacy_textsan.run.local.SanitizationError` (``on_error="fail"``,
    with the file's path) and :class:`~spacy_textsan.io.InputError` (a doc_id
    twice in TAB inputs)."""
    run = RunResult(dataset=dataset)
    for f, results in zip(files, per_file, strict=True):
        run.report_rows += [skipped_row(f, bad) for bad in f.skipped]
        jobs = file_jobs(f)
        progress = tqdm(results, total=len(jobs), desc=Path(f.path).name, unit="doc", leave=False, disable=None)
        try:
            done = list(progress)
        except SanitizationError as e:
            raise SanitizationError(f"{f.path}: a document could not be sanitized ({e})") from e
        if f.fmt not in ("txt", "tab"):  # a column of names without context is still a column of names
            votes = column_votes([(name, text, res) for (_, name, text), res in zip(jobs, done, strict=True)])
            for i, label in votes.items():
                done[i] = mask_cell(jobs[i][2], done[i], label, mask_format)
        for (rec, name, _), res in zip(jobs, done, strict=True):
            row = report_row(f, rec, name, res)
            run.counts[row["status"]] += 1
            run.report_rows.append(row)
            if f.fmt == "tab":
                _add_tab_document(run, f, rec, name, res)
        run.files.append(FileRun(f, jobs, done))
    return run


def _add_tab_document(run: RunResult, f: InputFile, rec: Record, name: str, res: DocResult) -> None:
    if rec.doc_id in run.masked_spans:
        raise InputError(str(f.path), rec.line, f"doc_id {rec.doc_id} appears twice in the inputs")
    run.masked_spans[rec.doc_id] = res.masked
    run.tab_texts.append((rec.doc_id, rec.texts[name]))
    run.tab_predictions[rec.doc_id] = [
        dict(sp, identifier_type="NO_MASK") if sp["masked"] is False else sp for sp in res.spans
    ]
