"""Running a pipeline over many texts, failing closed.

A document whose processing raises (or that comes out without a sanitized
text) is never emitted in clear: its output is :data:`FAILED_TEXT`, its whole
text counts as masked, and the error is reported.
"""

import logging
import signal
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import islice

from spacy.language import Language
from spacy.tokens import Doc

from .extensions import UNKNOWN, get_candidates, masked_offsets, spans_records
from .generalizer.render import render
from .pipeline import spans_key_of

logger = logging.getLogger("spacy_textsan")

FAILED_TEXT = "[REDACTED: sanitization failed]"
#: ``DocResult.status``: sanitized as configured; with every candidate masked after a
#: failure (``on_error="mask-all"``); replaced by :data:`FAILED_TEXT`.
OK, FALLBACK, REDACTED = "ok", "fallback", "failed"


@dataclass
class DocResult:
    sanitized: str
    masked: list[list[int]]
    spans: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    decision: dict | None = None
    risky_sets: list[dict] = field(default_factory=list)
    doc: Doc | None = None
    #: the generalizer's map from the sanitized text back to the original (None: failed document)
    offset_map: list[list[int]] | None = None
    #: OK, FALLBACK or REDACTED (or the report's ``degraded`` when read back from one)
    status: str = OK

    @property
    def ok(self) -> bool:
        """Sanitized (as configured or by the fallback), not the redaction notice."""
        return self.status != REDACTED

    @property
    def n_masked(self) -> int:
        return sum(1 for s in self.spans if s["masked"] is not False)


def result_from_doc(doc: Doc, spans_key: str, keep_doc: bool = False) -> DocResult:
    if doc._.sanitized_text is None:
        return failed_result(doc.text, "pipeline produced no sanitized text (is a generalizer in it?)")
    return DocResult(
        sanitized=doc._.sanitized_text,
        masked=masked_offsets(doc, spans_key),
        spans=spans_records(get_candidates(doc, spans_key)),
        errors=list(doc._.sanitize_errors or []),
        decision=doc._.decision_info,
        risky_sets=list(doc._.risky_sets or []),
        doc=doc if keep_doc else None,
        offset_map=doc._.offset_map,
    )


def report_status(res: DocResult) -> str:
    """The report's status: ``ok``; ``degraded`` (a component failed closed and
    said so); ``fallback`` (every candidate masked after a failure);
    ``failed`` (the redaction notice)."""
    if not res.ok:
        return REDACTED
    if res.status == FALLBACK:
        return FALLBACK
    return "degraded" if res.errors else OK


def report_row(input_file, record, field_name: str, res: DocResult) -> dict:
    """The ``report.jsonl`` line of one document (a record's field). No
    timings: the same input and config give byte-identical output."""
    return {
        "file": str(input_file.path),
        "doc_id": record.doc_id,
        "index": record.index,
        "line": record.line,
        "field": field_name,
        "status": report_status(res),
        "n_spans": len(res.spans),
        "n_masked": res.n_masked,
        "spans": res.spans,
        "risky_sets": res.risky_sets,
        "errors": res.errors,
        "decision": report_decision(res),
    }


def report_decision(res: DocResult) -> dict | None:
    """The decision summary without its timing (``solve_ms``)."""
    return {k: v for k, v in res.decision.items() if k != "solve_ms"} if res.decision else None


def skipped_row(input_file, bad) -> dict:
    """The ``report.jsonl`` line of an input row left out (``--on-bad-line skip``)."""
    return {"file": str(input_file.path), "line": bad.line, "status": "skipped", "errors": [bad.reason]}


def failed_result(text: str, error: str) -> DocResult:
    return DocResult(sanitized=FAILED_TEXT, masked=[[0, len(text)]] if text else [], errors=[error], status=REDACTED)


#: What happens to a document whose processing raises or runs out of time (``on_error``).
ON_ERROR = ("mask-all", "skip", "fail")
#: Factories the ``mask-all`` fallback leaves out: masking every candidate is at
#: least as safe as any risk measure or decision. A component of another package
#: that only scores or decides says so with an attribute ``textsan_skippable = True``.
SKIPPABLE_FACTORIES = ("lm_risk", "kanon_risk", "web_risk", "supervised_risk", "mask_optimizer", "mask_all")


class SanitizationError(RuntimeError):
    """``on_error="fail"``: a document could not be sanitized; the run stops."""


class DocumentTimeout(Exception):
    """A document took longer than its time budget."""


@contextmanager
def time_budget(seconds: float | None):
    """Raise :class:`DocumentTimeout` in the block after ``seconds`` (wall
    clock; main thread of a Unix process only, elsewhere no limit)."""
    usable = (
        seconds
        and seconds > 0
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    def expire(signum, frame):
        raise DocumentTimeout(f"time budget of {seconds:g}s exceeded")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def fallback_result(
    nlp: Language, text: str, error: str, spans_key: str, keep_doc: bool, timeout_s: float | None
) -> DocResult:
    """``mask-all``: run the pipeline again without the components that
    masking everything makes unnecessary (risk measures, decisions), mask
    every candidate, and render. A failing detector or generalizer, or a
    second timeout, gives the redaction notice instead (a detector that did
    not run cannot vouch that nothing else is in the text)."""
    from .optimizer.mask_all import MaskAll

    errors = [error]
    try:
        with time_budget(timeout_s):
            doc = nlp.make_doc(text)
            masked = False
            for name, proc in nlp.pipeline:
                factory = nlp.get_pipe_meta(name).factory
                if factory in SKIPPABLE_FACTORIES or getattr(proc, "textsan_skippable", False):
                    continue
                if factory == "generalizer" and not masked:
                    doc = MaskAll(overwrite=True, spans_key=spans_key)(doc)
                    masked = True
                doc = proc(doc)
            if not masked:
                doc = MaskAll(overwrite=True, spans_key=spans_key)(doc)
        result = result_from_doc(doc, spans_key, keep_doc)
    except Exception as e:
        logger.error("fallback failed: %s: %s", type(e).__name__, e)
        return failed_result(
            text, "; ".join(errors + [f"fallback (mask every candidate) failed: {type(e).__name__}: {e}"])
        )
    if not result.ok:
        return failed_result(text, "; ".join(errors + result.errors))
    result.errors = errors + [e for e in result.errors if e not in errors] + ["fallback: every candidate span masked"]
    result.status = FALLBACK
    return result


def sanitize_texts(
    nlp: Language,
    texts: Iterable[str],
    *,
    batch_size: int = 32,
    n_process: int = 1,
    keep_docs: bool = False,
    on_error: str = "mask-all",
    timeout_s: float | None = None,
) -> Iterator[DocResult]:
    """One :class:`DocResult` per text, in input order.

    A batch that raises is retried one document at a time; a document that
    raises (or exceeds ``timeout_s`` seconds, when given) is handled by
    ``on_error``: ``mask-all`` (:func:`fallback_result`, then the redaction
    notice if that fails too), ``skip`` (the redaction notice at once) or
    ``fail`` (:class:`SanitizationError`). ``timeout_s`` applies per
    document, and to a batch as ``timeout_s`` times its size; it needs the
    main thread of a Unix process and ``n_process=1``.
    """
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {ON_ERROR}, not {on_error!r}")
    spans_key = spans_key_of(nlp)
    it = iter(texts)
    chunk_size = max(1, batch_size) * max(1, n_process)
    budget = timeout_s if n_process == 1 else None
    while True:
        chunk = list(islice(it, chunk_size))
        if not chunk:
            return
        try:
            with time_budget(budget * len(chunk) if budget else None):
                docs = list(nlp.pipe(chunk, batch_size=batch_size, n_process=n_process))
            results = [result_from_doc(d, spans_key, keep_docs) for d in docs]
        except Exception as batch_error:  # fail closed: retry one by one
            logger.warning("batch failed (%s); retrying documents one by one", batch_error)
            results = []
            for text in chunk:
                try:
                    with time_budget(budget):
                        doc = nlp(text)
                    results.append(result_from_doc(doc, spans_key, keep_docs))
                except Exception as e:
                    error = f"{type(e).__name__}: {e}"
                    logger.error("sanitization failed: %s", error)
                    if on_error == "fail":
                        raise SanitizationError(error) from e
                    if on_error == "skip":
                        results.append(failed_result(text, error))
                    else:
                        results.append(fallback_result(nlp, text, error, spans_key, keep_docs, budget))
        yield from results


# --------------------------------------------------------------------------- #
# Columns: a column of names without context is still a column of names
# --------------------------------------------------------------------------- #

#: ``column_votes`` settings: fields with at least ``MIN_CELLS`` non-empty cells, of
#: which at least ``MIN_SHARE`` are one identifier, mask their undetected short cells.
COLUMN_MIN_CELLS, COLUMN_MIN_SHARE, COLUMN_MAX_WORDS = 3, 0.5, 6


def _whole_cell_label(text: str, res: DocResult) -> str | None:
    """The label of the one masked span that covers (nearly) all of a cell."""
    body = len(text.strip())
    masked = [s for s in res.spans if s["masked"] is not False]
    if not body or len(masked) != 1:
        return None
    span = masked[0]
    return span["label"] if (span["end"] - span["start"]) >= 0.8 * body else None


def column_votes(
    cells: Sequence[tuple],
    min_cells: int = COLUMN_MIN_CELLS,
    min_share: float = COLUMN_MIN_SHARE,
    max_words: int = COLUMN_MAX_WORDS,
) -> dict[int, str]:
    """``cells`` are ``(field, text, DocResult)`` of one file, in order. For a
    field whose non-empty cells are mostly (``min_share``) one identifier each
    (a whole cell masked, whatever its label), the cells of that field where
    nothing was masked and that are short (at most ``max_words`` words, one
    line) are masked whole with the field's most frequent label: returns
    ``{position in cells: label}``."""
    by_field: dict[str, list[int]] = {}
    for i, (field_name, text, _) in enumerate(cells):
        if text and text.strip():
            by_field.setdefault(field_name, []).append(i)
    out: dict[int, str] = {}
    for positions in by_field.values():
        if len(positions) < min_cells:
            continue
        labels = Counter(_whole_cell_label(cells[i][1], cells[i][2]) for i in positions)
        labels.pop(None, None)
        if not labels:
            continue
        label = labels.most_common(1)[0][0]
        if sum(labels.values()) < min_share * len(positions):
            continue
        for i in positions:
            _, text, res = cells[i]
            if res.ok and res.n_masked == 0 and len(text.split()) <= max_words and "\n" not in text.strip():
                out[i] = label
    return out


def mask_cell(text: str, res: DocResult, label: str, mask_format: str = "[{label} {n}]") -> DocResult:
    """``res`` with the whole cell masked as ``label`` (source ``column_vote``)."""
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    sanitized, offset_map = render(text, [(start, end, mask_format.format(label=label, n=1))])
    span = {
        "start": start,
        "end": end,
        "text": text[start:end],
        "label": label,
        "entity_id": f"{label}-1",
        "identifier_type": UNKNOWN,
        "source": "column_vote",
        "kb_id": None,
        "kb_chain": None,
        "risk": {},
        "info_content": None,
        "masked": True,
        "replacement": sanitized[start : len(sanitized) - (len(text) - end)],
        "reasons": [f"most cells of this column are {label}"],
    }
    return replace(res, sanitized=sanitized, masked=[[start, end]], spans=[span], offset_map=offset_map)


def mask_format_of(nlp: Language) -> str:
    """The mask format of the pipeline's generalizer (the default one without)."""
    for _, proc in nlp.pipeline:
        if isinstance(getattr(proc, "mask_format", None), str):
            return proc.mask_format
    return "[{label} {n}]"
