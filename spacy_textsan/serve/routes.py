"""The endpoints of ``textsan serve``: the JSON API of the review page
(``/api/...``, ``/sanitize``), the Presidio-shaped ``/analyze`` and
``/anonymize``, ``/health`` and ``/metrics``.

Every document goes through the pipeline thread (:mod:`.pool`) and comes back
failing closed: a document that fails is masked whole or replaced by the
redaction notice, and a request that runs out of time gets 504 and nothing of
its documents. No text is logged."""

import asyncio
import json
import logging
import secrets
import time
from concurrent.futures import Future
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ..about import __version__
from ..io.atomic import atomic_write
from ..run.local import SanitizationError
from ..run.results import DocResult, report_status
from .pool import Busy, CallJob, PipelinePool, TextJob
from .presidio import (
    OPERATORS,
    SUPPORTED_ENTITIES,
    AnalyzeRequest,
    AnonymizeRequest,
    PresidioError,
    analyze_document,
    anonymize,
)
from .review import (
    REVIEW_SOURCE,
    Decision,
    check_decisions,
    render_reviewed,
    report_documents,
    result_json,
    training_record,
)
from .settings import ServeSettings
from .variants import Variants

logger = logging.getLogger("spacy_textsan")
router = APIRouter()

OnError = Literal["mask-all", "skip", "fail"]


class SanitizeRequest(BaseModel):
    """One text (``text``) or several (``texts``), with the options of ``textsan sanitize``."""

    model_config = ConfigDict(extra="forbid")
    texts: list[str] | None = None
    text: str | None = None
    strategy: str | None = Field(None, description="as --strategy: pseudonym,DATETIME=generalize")
    mask_format: str | None = Field(None, description='as --mask-format: "[{label} {n}]" or "***"')
    on_error: OnError | None = Field(None, description="a document that fails: mask-all, skip or fail")
    language: str | None = None


class SpanDecision(BaseModel):
    start: int
    end: int
    label: str
    entity_id: str | None = None
    masked: bool = True
    added: bool = Field(False, description="a span the reviewer added (also: source = review)")
    source: str | None = None
    identifier_type: str | None = Field(
        None, description="DIRECT, QUASI or NO_MASK as the pipeline typed it (kept in the training record)"
    )


class RenderRequest(BaseModel):
    text: str
    spans: list[SpanDecision]
    strategy: str | None = None
    mask_format: str | None = None


class ExportRequest(RenderRequest):
    doc_id: str = "document"


class ReportRequest(BaseModel):
    report_jsonl: str
    sanitized: dict[str, str] | None = None


# -- helpers ---------------------------------------------------------------------------


def _settings(request: Request) -> ServeSettings:
    return request.app.state.settings


def _pool(request: Request) -> PipelinePool:
    return request.app.state.pool


def check_documents(settings: ServeSettings, texts: list[str]) -> None:
    """422 for too many texts or a text too long (the limits of the service)."""
    if len(texts) > settings.max_texts:
        raise HTTPException(422, f"{len(texts)} texts in one request; the limit is {settings.max_texts} (--max-texts)")
    for i, text in enumerate(texts):
        if len(text) > settings.max_document_chars:
            raise HTTPException(
                422,
                f"text {i} has {len(text)} characters; the limit is {settings.max_document_chars} (--max-chars)",
            )


def check_language(request: Request, language: str | None) -> None:
    lang = request.app.state.nlp.lang
    if language is not None and language != lang:
        raise HTTPException(422, f"language {language!r} is not supported: the pipeline is {lang!r}")


def generalizer_overrides(strategy: str | None, mask_format: str | None) -> dict[str, object]:
    try:
        return Variants.overrides(strategy, mask_format)
    except ValueError as e:
        raise HTTPException(422, str(e)) from None


async def wait_for(request: Request, future: Future) -> Any:
    """The job's result, or 504 past the request timeout (the job is dropped
    if it has not started; nothing of its documents comes back)."""
    settings = _settings(request)
    try:
        return await asyncio.wait_for(asyncio.wrap_future(future), settings.timeout_s)
    except TimeoutError:
        future.cancel()
        request.app.state.metrics.timeout()
        raise HTTPException(
            504, f"not sanitized within the request timeout of {settings.timeout_s:g}s; nothing is returned"
        ) from None


def submit(request: Request, job: TextJob | CallJob) -> Future:
    try:
        return _pool(request).submit(job)
    except Busy as e:
        request.app.state.metrics.busy()
        raise HTTPException(503, f"the service is busy ({e}); try again", headers={"Retry-After": "1"}) from None


async def sanitize_documents(
    request: Request, texts: list[str], overrides: dict[str, object], on_error: str | None
) -> list[DocResult]:
    """The results of ``texts``, through the pipeline thread, failing closed."""
    settings = _settings(request)
    check_documents(settings, texts)
    job = TextJob(texts, overrides, on_error or settings.on_error)
    try:
        results: list[DocResult] = await wait_for(request, submit(request, job))
    except SanitizationError as e:
        raise HTTPException(500, f"a document could not be sanitized ({e}); on_error fail: nothing returned") from None
    except ValueError as e:  # the generalizer refused the request's strategy (a key missing...)
        raise HTTPException(422, str(e)) from None
    request.app.state.metrics.documents_done(report_status(r) for r in results)
    return results


def store(request: Request, endpoint: str, results: list[dict[str, Any]]) -> None:
    """``--store DIR``: the request's results as report rows, one JSON line
    per document, in a file of its own readable by its owner only."""
    folder = _settings(request).store
    if folder is None:
        return
    request_id = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{secrets.token_hex(6)}"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    with atomic_write(folder / f"{request_id}.jsonl", owner_only=True) as f:
        for i, res in enumerate(results):
            row = {"request": request_id, "endpoint": endpoint, "index": i}
            row.update({k: v for k, v in res.items() if k != "text"})
            row["n_spans"] = len(res["spans"])
            row["n_masked"] = sum(1 for s in res["spans"] if s["masked"] is not False)
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


# -- the review page's API ---------------------------------------------------------------


@router.post("/api/sanitize", tags=["textsan"], summary="Sanitize one text or a list")
async def api_sanitize(body: SanitizeRequest, request: Request) -> dict[str, Any]:
    """Each text sanitized by the pipeline (with the request's strategy, mask
    format and on_error): the sanitized text, the spans with their decisions,
    reasons and risk, the residual risk and the status (ok, degraded,
    fallback, failed). A failed document is never returned in clear."""
    if (body.texts is None) == (body.text is None):
        raise HTTPException(422, "give either 'text' (one string) or 'texts' (a list of strings)")
    check_language(request, body.language)
    texts = body.texts if body.texts is not None else [body.text or ""]
    overrides = generalizer_overrides(body.strategy, body.mask_format)
    results = await sanitize_documents(request, texts, overrides, body.on_error)
    out = [result_json(t, r) for t, r in zip(texts, results, strict=True)]
    store(request, "sanitize", out)
    return {"results": out}


router.add_api_route(
    "/sanitize",
    api_sanitize,
    methods=["POST"],
    tags=["textsan"],
    summary="Sanitize one text or a list (the same as /api/sanitize)",
)


def _decisions(text: str, spans: list[SpanDecision]) -> list[Decision]:
    decisions = [
        Decision(
            s.start,
            s.end,
            s.label,
            s.masked,
            s.entity_id,
            s.added or s.source == REVIEW_SOURCE,
            s.identifier_type,
        )
        for s in spans
    ]
    try:
        check_decisions(text, decisions)
    except ValueError as e:
        raise HTTPException(422, str(e)) from None
    return decisions


async def _render(request: Request, body: RenderRequest) -> dict[str, Any]:
    check_documents(_settings(request), [body.text])
    decisions = _decisions(body.text, body.spans)
    overrides = generalizer_overrides(body.strategy, body.mask_format)
    job = CallJob(lambda nlp: render_reviewed(nlp, body.text, decisions), overrides)
    try:
        res: DocResult = await wait_for(request, submit(request, job))
    except ValueError as e:
        raise HTTPException(422, str(e)) from None
    request.app.state.metrics.documents_done([report_status(res)])
    return result_json(body.text, res)


@router.post("/api/render", tags=["textsan"], summary="Render a text again with a reviewer's decisions")
async def api_render(body: RenderRequest, request: Request) -> dict[str, Any]:
    """The text sanitized with the given spans and decisions only (no detector,
    no decision component; the leak sweep and residual_risk still run)."""
    result = await _render(request, body)
    store(request, "render", [result])
    return result


@router.post("/api/export", tags=["textsan"], summary="The reviewed document and its training record")
async def api_export(body: ExportRequest, request: Request) -> dict[str, Any]:
    """The sanitized text, its result, and the reviewed spans as a TAB JSON
    document (a list of them is a file ``textsan convert`` reads)."""
    result = await _render(request, body)
    store(request, "export", [result])
    return {
        "sanitized": result["sanitized"],
        "report": result,
        "training": training_record(body.doc_id, body.text, result),
    }


@router.post("/api/report", tags=["textsan"], summary="Read a report.jsonl back for review")
async def api_report(body: ReportRequest) -> dict[str, Any]:
    """The documents of a report.jsonl written by ``textsan sanitize``, with
    their text rebuilt where the sanitized copies are given."""
    try:
        return {"documents": report_documents(body.report_jsonl, body.sanitized)}
    except ValueError as e:
        raise HTTPException(422, str(e)) from None


# -- health and metrics -----------------------------------------------------------------


@router.get("/health", tags=["service"])
async def health(request: Request) -> dict[str, str]:
    return {"status": "ok", "pipeline": _settings(request).pipeline, "version": __version__}


@router.get("/metrics", tags=["service"])
async def metrics(request: Request) -> dict[str, Any]:
    """Requests, answers, documents by status, latency percentiles (ms),
    documents per batch of the pipeline, privacy_ner's NER process."""
    pool = _pool(request)
    remote = next((p.source_process for p in request.app.state.detectors if p.source_process is not None), None)
    ner = None if remote is None else {"alive": remote.alive, "restarts": remote.restarts}
    return request.app.state.metrics.snapshot(pool.depth, list(pool.batches), ner)


# -- Presidio's REST API ------------------------------------------------------------------


def presidio_error(e: PresidioError | HTTPException) -> JSONResponse:
    if isinstance(e, PresidioError):
        return JSONResponse({"error": e.message}, status_code=e.status)
    return JSONResponse({"error": e.detail}, status_code=e.status_code, headers=e.headers)


@router.post("/analyze", tags=["presidio"], summary="Presidio analyzer: the spans to anonymize", response_model=None)
async def analyze(body: AnalyzeRequest, request: Request) -> list | JSONResponse:
    """Presidio's ``/analyze``: a list of ``{entity_type, start, end, score,
    analysis_explanation}`` (a list of lists for a list of texts)."""
    texts = body.text if isinstance(body.text, list) else [body.text]
    try:
        if not texts or not all(texts):
            raise PresidioError(400, "No text provided")
        check_language(request, body.language)
        results = await sanitize_documents(request, texts, {}, None)
        answers = [analyze_document(t, r, body) for t, r in zip(texts, results, strict=True)]
        store(request, "analyze", [result_json(t, r) for t, r in zip(texts, results, strict=True)])
    except (PresidioError, HTTPException) as e:
        return presidio_error(e)
    return answers if isinstance(body.text, list) else answers[0]


@router.post(
    "/anonymize", tags=["presidio"], summary="Presidio anonymizer: operators on given spans", response_model=None
)
async def anonymize_endpoint(body: AnonymizeRequest, request: Request) -> dict | JSONResponse:
    """Presidio's ``/anonymize``: ``{text, items}``."""
    try:
        check_documents(_settings(request), [body.text])
        return anonymize(body.text, body.analyzer_results, body.anonymizers)
    except (PresidioError, HTTPException) as e:
        return presidio_error(e)


@router.get("/supportedentities", tags=["presidio"], summary="Presidio analyzer: the entity types answered")
async def supported_entities(language: str | None = None) -> list[str]:
    return [*SUPPORTED_ENTITIES]


@router.get("/recognizers", tags=["presidio"], summary="Presidio analyzer: the recognizers (pipeline components)")
async def recognizers(request: Request, language: str | None = None) -> list[str]:
    return list(request.app.state.nlp.pipe_names)


@router.get("/anonymizers", tags=["presidio"], summary="Presidio anonymizer: the operators of /anonymize")
async def anonymizers() -> list[str]:
    return [*OPERATORS]
