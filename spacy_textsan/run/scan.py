"""The pass over the inputs before any work: every record is read once (in
constant memory) so that a bad record, a layout ``--reversible`` could not
restore, or a doc_id twice is found before a document is processed; the pass
also counts the documents (for the progress bar) and samples the columns
and keys that are not selected (see :func:`unselected_values`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice

from ..io import InputError, InputFile, Record

#: Values sampled per unselected column or key.
SAMPLE = 200


@dataclass
class InputScan:
    """What the pass over one input found."""

    n_docs: int = 0
    n_records: int = 0
    #: records whose values could not be located in their text (written re-serialised)
    inexact: int = 0
    #: unselected column/key -> up to SAMPLE of its non-empty string values
    unselected: dict[str, list[str]] = field(default_factory=dict)


def scan_input(f: InputFile, doc_ids: set[str] | None = None) -> InputScan:
    """Read every record of ``f`` once. ``doc_ids``: the TAB doc_ids seen in
    the run so far (a doc_id twice raises :class:`~spacy_textsan.io.InputError`)."""
    scan = InputScan()
    for record in f.iter_records():
        scan.n_records += 1
        scan.n_docs += len(record.texts)
        if not record.exact:
            scan.inexact += 1
        if f.fmt == "tab" and doc_ids is not None:
            if record.doc_id in doc_ids:
                raise InputError(str(f.path), record.line, f"doc_id {record.doc_id} appears twice in the inputs")
            doc_ids.add(record.doc_id)
        if scan.n_records <= SAMPLE:
            for name, value in unselected_values(f, record).items():
                if value.strip():
                    scan.unselected.setdefault(name, []).append(value)
    return scan


def sample_columns(f: InputFile, n: int = SAMPLE) -> dict[str, list[str]]:
    """The values of each field of the first ``n`` records of ``f``."""
    out: dict[str, list[str]] = {name: [] for name in f.fields}
    records = f.iter_records()
    try:
        for record in islice(records, n):
            for name, value in record.texts.items():
                out.setdefault(name, []).append(value)
    finally:
        records.close()  # type: ignore[attr-defined]
    return out


def unselected_values(f: InputFile, record: Record) -> dict[str, str]:
    """The string values of ``record`` that are copied to the output as they
    are: the other columns of a table, the other top-level string keys of a
    JSONL object (nested values are listed under dotted names)."""
    if f.fmt in ("csv", "tsv") and f.header is not None and isinstance(record.raw, list):
        return {name: value for name, value in zip(f.header, record.raw, strict=False) if name not in record.texts}
    if f.fmt == "jsonl" and isinstance(record.raw, dict):
        out: dict[str, str] = {}
        _strings(record.raw, "", out, skip=set(record.texts))
        return out
    return {}


def _strings(obj: object, prefix: str, out: dict[str, str], skip: set[str]) -> None:
    if isinstance(obj, dict):
        for key, value in obj.items():
            name = f"{prefix}{key}"
            if not prefix and key in skip:
                continue
            if isinstance(value, str):
                out[name] = value
            else:
                _strings(value, f"{name}.", out, skip)
    elif isinstance(obj, list):  # items share one name: "tags[]", "people[].name"
        name = f"{prefix.rstrip('.')}[]"
        for value in obj:
            if isinstance(value, str):
                out.setdefault(name, value)
            else:
                _strings(value, f"{name}.", out, skip)


def reversible_problem(f: InputFile, scan: InputScan) -> str | None:
    """Why ``textsan restore`` could not give ``f`` back byte for byte (None: it can)."""
    if f.fmt == "tab":
        return "TAB JSON is written as sanitized.jsonl without its annotations, so it cannot be restored"
    if f.skipped:
        return f"{len(f.skipped)} malformed record(s) would be left out (--on-bad-line skip), so it cannot be restored"
    if scan.inexact:
        return f"{scan.inexact} record(s) could not be laid out as read, so it cannot be restored byte for byte"
    return None
