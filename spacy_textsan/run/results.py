"""What sanitizing one document gives (:class:`DocResult`), and its line in
``report.jsonl``.

A document whose processing raises (or that comes out without a sanitized
text) is never emitted in clear: its output is :data:`FAILED_TEXT`, its whole
text counts as masked, and the error is reported.
"""

from dataclasses import dataclass, field

from spacy.tokens import Doc

from ..extensions import get_candidates, masked_offsets, spans_records

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
    #: ``doc._.residual_risk``: the k of what stays visible (None without the residual_risk component)
    residual_risk: dict | None = None
    #: the language of the pipeline that sanitized it, when the run chose one (``--lang``; None: not said)
    language: str | None = None
    #: ``--lang auto`` (:mod:`.languages`): routed by detection, the language detected (None: none found)
    #: and why the default pipeline sanitized it (None: its own language's did)
    language_routed: bool = False
    language_detected: str | None = None
    language_fallback: str | None = None

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
        residual_risk=doc._.residual_risk,
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
        "residual_risk": res.residual_risk,
        **language_fields(res),
    }


def language_fields(res: DocResult) -> dict:
    """The report's language fields of a document: none when the run chose no language (the
    default English run's report is as before); ``language`` with ``--lang``; with ``--lang auto``
    also ``language_detected`` and ``language_fallback`` (why the default pipeline sanitized it)."""
    if res.language is None:
        return {}
    if not res.language_routed:
        return {"language": res.language}
    return {
        "language": res.language,
        "language_detected": res.language_detected,
        "language_fallback": res.language_fallback,
    }


def report_decision(res: DocResult) -> dict | None:
    """The decision summary without its timing (``solve_ms``)."""
    return {k: v for k, v in res.decision.items() if k != "solve_ms"} if res.decision else None


def skipped_row(input_file, bad) -> dict:
    """The ``report.jsonl`` line of an input row left out (``--on-bad-line skip``)."""
    return {"file": str(input_file.path), "line": bad.line, "status": "skipped", "errors": [bad.reason]}


def failed_result(text: str, error: str) -> DocResult:
    return DocResult(sanitized=FAILED_TEXT, masked=[[0, len(text)]] if text else [], errors=[error], status=REDACTED)
