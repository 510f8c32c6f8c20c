"""Writing a run, as it goes: the sanitized copy of each input into the
output folder; the files that hold original strings (``report.jsonl`` and,
for TAB JSON, ``masked_spans.json`` and ``predictions.json``) into the report
folder, owner-only; in reversible mode the encrypted mapping back to the
originals (``mapping.enc``).

:func:`plan_outputs` checks the whole plan (names, collisions with inputs,
directories in the way, folders that cannot be written) before any document
is processed. :class:`RunWriter` writes every file under a temporary name and
moves them all onto their names only when the run has finished
(:meth:`RunWriter.commit`); a run that fails or is killed leaves nothing that
looks complete.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import srsly

from ..io import AtomicFile, InputError, InputFile, OutputStream, Record, json_dumps, output_target
from ..render.keys import Secret
from ..render.mapping import encrypt_chunk, file_digest, mapping_segments, text_digest
from ..tab import masked_spans_json, predictions_to_tab
from .files import NOT_MEASURED, RESERVED_OUTPUTS, RunResult, paired, run_file
from .results import DocResult, report_row, skipped_row

MAPPING_FILE = "mapping.enc"
REPORT_FILE = "report.jsonl"
#: Records per encrypted chunk of the mapping.
MAPPING_CHUNK = 1000


class PlanError(ValueError):
    """The outputs of a run cannot be written as asked (found before any work)."""


@dataclass
class OutputPlan:
    """Where everything of a run goes."""

    out: Path
    report_dir: Path
    #: the sanitized copy of each input, in order
    targets: list[Path]
    reversible: bool = False
    #: outputs of an earlier run (``overwrite``) that this run does not write
    #: (a mapping.enc, TAB outputs): removed when the run is committed, so that
    #: none is left beside outputs it does not belong to
    stale: list[Path] = field(default_factory=list)
    #: directories :meth:`prepare` created (removed again if the run fails)
    created: list[Path] = field(default_factory=list)

    @property
    def report(self) -> Path:
        return self.report_dir / REPORT_FILE

    def prepare(self) -> None:
        """Create the folders and try writing in them (a probe file, removed).
        The report folder comes first and, when created here, is readable by its
        owner only (0700), also when it is a parent of ``out``."""
        for folder, owner_only in ((self.report_dir, True), (self.out, False)):
            missing = [p for p in (folder, *folder.parents) if not p.exists()]
            try:
                folder.mkdir(parents=True, exist_ok=True, mode=0o700 if owner_only else 0o777)
                if owner_only and folder in missing:
                    folder.chmod(0o700)  # mkdir's mode passes through the umask
                self.created += reversed(missing)
                probe = AtomicFile(folder / ".textsan-probe")
                probe.abort()
            except OSError as e:
                self.discard()
                raise PlanError(f"cannot write into {folder}: {e.strerror or e}") from None

    def discard(self) -> None:
        """Remove the folders :meth:`prepare` created, if still empty."""
        for folder in reversed(self.created):
            try:
                folder.rmdir()
            except OSError:
                pass
        self.created = []


def default_report_dir(out: Path) -> Path:
    """``OUT.report`` beside the output folder ``OUT``, never inside it."""
    out = Path(os.path.abspath(out))
    return out.with_name(f"{out.name}.report")


def plan_outputs(
    files: list[InputFile],
    out: Path,
    report_dir: Path | None = None,
    *,
    reversible: bool = False,
    overwrite: bool = False,
) -> OutputPlan:
    """Check where a run of ``files`` writes (nothing is created here).

    An earlier run's outputs in the way (a sanitized copy of the same name, a
    report, TAB outputs or ``mapping.enc``) are refused unless ``overwrite``:
    a run that replaced some of them would leave the rest beside outputs they
    do not belong to (a sanitized file without its report). With
    ``overwrite`` they are replaced, and those of them this run does not
    write (a ``mapping.enc``, TAB outputs) are removed when it ends.

    RAISES (PlanError): ``out`` or the report folder is a file, the report folder
        is inside ``out``, an output would overwrite an input, an earlier
        run's output is there (without ``overwrite``), a directory stands
        where an output goes, or a folder cannot be created or written.
    """
    out = Path(out)
    report_dir = default_report_dir(out) if report_dir is None else Path(report_dir)
    for folder, what in ((out, "--out"), (report_dir, "--report-dir")):
        if folder.exists() and not folder.is_dir():
            raise PlanError(f"{what} {folder} is a file, not a directory")
        _check_writable(folder, what)
    real_out, real_reports = Path(os.path.realpath(out)), Path(os.path.realpath(report_dir))
    if real_reports == real_out or real_out in real_reports.parents:
        raise PlanError(
            f"--report-dir {report_dir} is inside --out {out}: the reports hold the original strings "
            "and must not be shared with the sanitized files"
        )
    used = set(RESERVED_OUTPUTS) | {MAPPING_FILE}
    inputs = {Path(os.path.realpath(f.path)): f.path for f in files}
    targets = []
    for f in files:
        try:
            target = output_target(f, out, used=used)
        except ValueError as e:
            raise PlanError(str(e)) from None
        other = inputs.get(Path(os.path.realpath(target)))
        if other is not None:
            raise PlanError(
                f"the sanitized copy of {f.path} would be {target}, which is the input file {other}; "
                "choose another --out directory"
            )
        targets.append(target)
    owned = [*targets, report_dir / REPORT_FILE]
    owned += [report_dir / name for name in RESERVED_OUTPUTS[1:]] if any(f.fmt == "tab" for f in files) else []
    owned += [out / MAPPING_FILE] if reversible else []
    for path in owned:
        if path.is_dir():
            raise PlanError(f"cannot write {path}: a directory of that name is in the way")
    ours = [*targets, *(report_dir / name for name in RESERVED_OUTPUTS), out / MAPPING_FILE]
    earlier = [path for path in ours if os.path.lexists(path) and not path.is_dir()]
    if earlier and not overwrite:
        more = f" (and {len(earlier) - 1} more)" if len(earlier) > 1 else ""
        raise PlanError(
            f"{earlier[0]}{more} is there from an earlier run: pass --overwrite to replace the earlier "
            "run's outputs, or choose another --out"
        )
    stale = [path for path in earlier if path not in owned]
    return OutputPlan(out=out, report_dir=report_dir, targets=targets, reversible=reversible, stale=stale)


def _check_writable(folder: Path, what: str) -> None:
    """The nearest existing folder of ``folder`` must be a writable directory."""
    existing = next(p for p in (folder, *folder.absolute().parents) if p.exists())
    if not existing.is_dir():
        raise PlanError(f"{what} {folder}: {existing} is a file, not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise PlanError(f"{what} {folder}: {existing} is not writable")


class MappingStream:
    """``mapping.enc``, written as the run goes: numbered encrypted chunks
    (a file's header, its records by :data:`MAPPING_CHUNK`, an end marker
    with the SHA-256 of each sanitized file), each with the run's id."""

    def __init__(self, path: Path, key: Secret) -> None:
        self.key = key
        self.file = AtomicFile(path)
        self.seq = 0
        self.n_files = 0
        self.pending: list[dict[str, Any]] = []
        #: binds the chunks to this run (random: two runs never share one)
        self.run_id = secrets.token_hex(16)

    def _emit(self, chunk: dict[str, Any]) -> None:
        self.file.write(encrypt_chunk({**chunk, "run": self.run_id}, self.seq, self.key))
        self.seq += 1

    def start_file(self, f: InputFile, output: Path) -> None:
        self.flush()
        header = {
            "output": output.name,
            "format": f.fmt,
            "fields": list(f.fields),
            "delimiter": f.delimiter,
            "bom": f.bom.hex(),
            "codec": f.body_codec,
        }
        self._emit({"kind": "file", "file": header})
        self.n_files += 1

    def add(self, f: InputFile, record: Record, results: dict[str, DocResult]) -> None:
        fields = {}
        for name, res in results.items():
            original = record.texts[name]
            entry: dict[str, Any] = {
                "digest": text_digest(res.sanitized),
                "segments": mapping_segments(original, res.sanitized, res.offset_map),
            }
            start, end, quoted = record.spans[name]
            if quoted:
                entry["quoted"] = True
            if f.fmt == "jsonl" and record.source[start:end] != json_dumps(original):
                entry["token"] = record.source[start:end]  # escapes or spacing of the input's string
            fields[name] = entry
        self.pending.append({"index": record.index, "doc_id": record.doc_id, "fields": fields})
        if len(self.pending) >= MAPPING_CHUNK:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self._emit({"kind": "records", "records": self.pending})
            self.pending = []

    def finish(self, outputs: Sequence[AtomicFile]) -> None:
        """The end marker, with the SHA-256 of each sanitized file
        (``outputs``, closed, in the order of the files) as written."""
        self.flush()
        digests = [{"output": f.path.name, "sha256": file_digest(f.temp)} for f in outputs]
        self._emit({"kind": "end", "n_files": self.n_files, "outputs": digests})
        self.file.close()


class FileOutput:
    """One input's records, written to its sanitized copy, the report and
    the mapping as they come."""

    def __init__(self, writer: RunWriter, f: InputFile, target: Path) -> None:
        self.writer, self.f = writer, f
        self.stream = OutputStream(f, target)
        writer.files.append(self.stream)
        for bad in f.skipped:
            writer.add_row(skipped_row(f, bad), None)
        if writer.mapping is not None:
            writer.mapping.start_file(f, target)

    def write(self, record: Record, results: dict[str, DocResult]) -> None:
        self.stream.write(record, {name: res.sanitized for name, res in results.items()})
        for name, res in results.items():
            self.writer.add_row(report_row(self.f, record, name, res), res)
            if self.f.fmt == "tab":
                self.writer.add_tab_document(self.f, record, name, res)
        if self.writer.mapping is not None:
            self.writer.mapping.add(self.f, record, results)

    def finish(self) -> None:
        self.stream.close()


class RunWriter:
    """Every output of a run (see the module's docstring). Use as a context
    manager: leaving it by an exception removes every temporary file."""

    def __init__(self, plan: OutputPlan, mapping_key: Secret | None = None) -> None:
        self.plan = plan
        self.result = RunResult()
        self.files: list[OutputStream] = []
        self.n_opened = 0
        self.report = AtomicFile(plan.report, owner_only=True)
        self.mapping = MappingStream(plan.out / MAPPING_FILE, mapping_key) if mapping_key is not None else None
        self.masked_spans: dict[str, list[list[int]]] = {}
        self.tab_texts: list[tuple[str, str]] = []
        self.tab_predictions: dict[str, list[dict]] = {}

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        if kind is not None:
            self.abort()

    def open_file(self, f: InputFile) -> FileOutput:
        target = self.plan.targets[self.n_opened]
        self.n_opened += 1
        return FileOutput(self, f, target)

    def add_row(self, row: dict, res: DocResult | None) -> None:
        self.report.write_text(json_dumps(row) + "\n")
        if res is None:
            return
        self.result.counts[row["status"]] += 1
        if isinstance(res.residual_risk, dict):
            k = res.residual_risk.get("k")
            self.result.residual_ks[
                NOT_MEASURED if k is None and res.residual_risk.get("measured") is False else k
            ] += 1

    def add_tab_document(self, f: InputFile, record: Record, name: str, res: DocResult) -> None:
        if record.doc_id in self.masked_spans:
            raise InputError(str(f.path), record.line, f"doc_id {record.doc_id} appears twice in the inputs")
        self.masked_spans[record.doc_id] = res.masked
        self.tab_texts.append((record.doc_id, record.texts[name]))
        self.tab_predictions[record.doc_id] = [
            dict(sp, identifier_type="NO_MASK") if sp["masked"] is False else sp for sp in res.spans
        ]

    def commit(self) -> RunResult:
        """Move every output onto its name: the sanitized copies, the report,
        the mapping, the TAB outputs; returns the run's result."""
        extra: list[AtomicFile] = []
        if self.mapping is not None:
            for stream in self.files:
                stream.close()
            self.mapping.finish([stream.file for stream in self.files])
            extra.append(self.mapping.file)
            self.result.run_id = self.mapping.run_id
        if self.masked_spans:
            for name, obj in (
                ("masked_spans.json", masked_spans_json(self.masked_spans)),
                ("predictions.json", predictions_to_tab(self.tab_texts, self.tab_predictions)),
            ):
                tab_file = AtomicFile(self.plan.report_dir / name, owner_only=True)
                extra.append(tab_file)
                tab_file.write_text(srsly.json_dumps(obj, indent=2) + "\n")
        written = [stream.commit() for stream in self.files]
        written.append(self.report.commit())
        written += [f.commit() for f in extra]
        for path in self.plan.stale:  # an earlier run's, which these outputs replace (overwrite)
            path.unlink(missing_ok=True)
        self.result.written = written
        return self.result

    def abort(self) -> None:
        """Remove every temporary file; nothing of the run stays."""
        for stream in self.files:
            stream.abort()
        self.report.abort()
        if self.mapping is not None:
            self.mapping.file.abort()
        self.plan.discard()


def write_results(
    files: Sequence[InputFile],
    per_file: Sequence[Sequence[DocResult]],
    plan: OutputPlan,
    mask_format: str,
    mapping_key: Secret | None = None,
) -> RunResult:
    """Write the results of files read whole (``per_file``: each file's
    results in job order, e.g. from Spark) as :class:`RunWriter` does."""
    plan.prepare()
    with RunWriter(plan, mapping_key) as writer:
        for f, results in zip(files, per_file, strict=True):
            run_file(f, paired(f.records, results), writer.open_file(f), mask_format)
        return writer.commit()
