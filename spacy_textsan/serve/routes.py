"""The endpoints of ``textsan serve``: the JSON API of the review page
(``/api/...``, ``/sanitize``), the Presidio-shaped ``/analyze`` and
``/anonymize``, ``/health`` and ``/metrics``.

Every request body is read by a strict pydantic model (:mod:`.models`,
:mod:`.presidio`, :mod:`.anonymizer`): what it refuses is answered 422 (400
on the Presidio-shaped endpoints when the body is not JSON at all) in one line
naming the field, never quoting a key or a value of the request. Every document goes through the pipeline thread
(:mod:`.pool`) and comes back failing closed: a document that fails is masked
whole or replaced by the redaction notice. The rest of a request's work runs
in a thread of :class:`~.work.WorkPool`, never on the event loop; a request
that runs out of time (``--timeout``) gets 504 and nothing of its documents.
No text is logged.

Which answers hold original strings (see each endpoint's description):
``/sanitize`` and ``/api/render`` unless ``include_originals`` is false;
``/api/export`` (the training record is the text) and ``/api/report`` (the
texts rebuilt) always; ``/analyze`` and ``/anonymize`` never, but for what
``keep`` keeps and the reasons that ``return_decision_process`` explains.
"""

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from concurrent.futures import Future
from functools import partial
from typing import Any, TypeVar

from fastapi import APIRouter, HTTPException, Query, Request

from ..about import __version__
from ..io.atomic import atomic_write
from ..render.operators import StrategyError
from ..run.results import DocResult, report_status
from .anonymizer import OPERATORS, AnonymizeRequest, AnonymizeResponse, anonymize
from .fields import Error, InvalidField, Language, PresidioError, refused, strategy_reason
from .models import (
    ExportRequest,
    ExportResponse,
    Health,
    RenderRequest,
    ReportRequest,
    ReportResponse,
    Result,
    ReviewRequest,
    SanitizeRequest,
    SanitizeResponse,
)
from .parsing import JsonRoute
from .pool import Busy, CallJob, PipelinePool, TextJob
from .presidio import SUPPORTED_ENTITIES, AnalyzeRequest, RecognizerResult, analyze_documents
from .review import (
    REVIEW_SOURCE,
    Decision,
    render_reviewed,
    report_documents,
    result_json,
    training_record,
    without_originals,
)
from .settings import ServeSettings
from .variants import Variants
from .work import Deadline, Expired

logger = logging.getLogger("spacy_textsan")
router = APIRouter(route_class=JsonRoute)
T = TypeVar("T")

# -- the error answers each endpoint may give ---------------------------------------------


def _answer(status: int, description: str, model: type = Error) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": model, "description": description}}


TOKEN = _answer(401, "missing or wrong API token (a service started with one)")
TOO_LARGE = _answer(413, "request body larger than --max-request-bytes")
REFUSED = _answer(422, "a value refused (too long, out of range, not valid Unicode...): one line naming the field")
BUSY = _answer(503, "the service is busy: try again (Retry-After)")
LATE = _answer(504, "not done within the request timeout (--timeout): nothing of the documents is returned")
REVIEW_ERRORS = {**TOKEN, **TOO_LARGE, **REFUSED, **BUSY, **LATE}
PRESIDIO_ERRORS = {
    **TOKEN,
    **TOO_LARGE,
    **_answer(400, "the body is not JSON (malformed, not UTF-8, nested deeper than 64 levels)", PresidioError),
    **_answer(422, "a value refused: one line naming the field", PresidioError),
}


# -- helpers ---------------------------------------------------------------------------


def _settings(request: Request) -> ServeSettings:
    return request.app.state.settings


def _pool(request: Request) -> PipelinePool:
    return request.app.state.pool


def deadline_of(request: Request) -> Deadline:
    """The request's deadline: ``--timeout`` from the first time its handler asks."""
    if not hasattr(request.state, "deadline"):
        request.state.deadline = Deadline(_settings(request).timeout_s)
    return request.state.deadline


def timed_out(request: Request, done: str = "sanitized") -> HTTPException:
    request.app.state.metrics.timeout()
    return HTTPException(
        504, f"not {done} within the request timeout of {_settings(request).timeout_s:g}s; nothing is returned"
    )


def check_documents(settings: ServeSettings, texts: list[str], field: str = "texts", one: bool = False) -> None:
    """422 for too many texts or a text too long (the limits of the service);
    ``field`` names them in the body (``one``: a single text, not a list)."""
    if len(texts) > settings.max_texts:
        raise refused((field,), f"{len(texts)} texts in one request; the limit is {settings.max_texts} (--max-texts)")
    for i, text in enumerate(texts):
        if len(text) > settings.max_document_chars:
            raise refused(
                (field,) if one else (field, i),
                f"{len(text)} characters; the limit is {settings.max_document_chars} (--max-chars)",
            )


def check_language(request: Request, language: str | None, where: str = "body") -> str | None:
    """The language of the pipeline to run: ``language`` (None: the
    service's first), or 422 for a language the service has no pipeline of
    (its OpenAPI ``enum``; the message names those it has, not the one asked for)."""
    pipelines = request.app.state.pipelines
    if language is None or language in pipelines:
        return language
    if len(pipelines) == 1:
        message = f"not supported: the pipeline's language is {next(iter(pipelines))!r}"
    else:
        message = f"not supported: this service's languages are {', '.join(map(repr, pipelines))}"
    raise refused(("language",), message, where)


def generalizer_overrides(strategy: str | None, mask_format: str | None) -> dict[str, object]:
    try:
        return Variants.overrides(strategy, mask_format)
    except StrategyError as e:
        raise refused(("strategy",), strategy_reason(e)) from None


async def wait_for(request: Request, future: Future) -> Any:
    """The job's result, or 504 past the request's deadline (the job is dropped
    if it has not started; nothing of its documents comes back)."""
    try:
        return await asyncio.wait_for(asyncio.wrap_future(future), deadline_of(request).left)
    except TimeoutError:
        future.cancel()
        raise timed_out(request) from None


async def in_worker(request: Request, fn: Callable[[Deadline], T]) -> T:
    """``fn(deadline)`` in a thread of the work pool: 504 past the deadline,
    422 for a value it refuses (:class:`~.fields.InvalidField`)."""
    try:
        return await request.app.state.work.run(fn, deadline_of(request))
    except Expired:
        raise timed_out(request, "answered") from None
    except InvalidField as e:
        raise e.error() from None


def submit(request: Request, job: TextJob | CallJob) -> Future:
    try:
        return _pool(request).submit(job)
    except Busy as e:
        request.app.state.metrics.busy()
        raise HTTPException(503, f"the service is busy ({e}); try again", headers={"Retry-After": "1"}) from None


async def sanitize_documents(
    request: Request,
    texts: list[str],
    overrides: dict[str, object],
    on_error: str | None,
    field: str = "texts",
    one: bool = False,
    language: str | None = None,
) -> list[DocResult]:
    """The results of ``texts``, through the pipeline thread (that of
    ``language``, checked by :func:`check_language`), failing closed."""
    settings = _settings(request)
    check_documents(settings, texts, field, one)
    job = TextJob(texts, overrides, on_error or settings.on_error, language=language)
    try:
        results: list[DocResult] = await wait_for(request, submit(request, job))
    except ValueError as e:  # the generalizer refused the request's strategy (a key missing...): says so itself
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


@router.post(
    "/api/sanitize",
    tags=["textsan"],
    summary="Sanitize one text or a list",
    response_model=None,
    responses={200: {"model": SanitizeResponse}, **REVIEW_ERRORS},
)
async def api_sanitize(body: SanitizeRequest, request: Request) -> dict[str, Any]:
    """Each text sanitized by the pipeline (with the request's strategy, mask
    format and on_error): the sanitized text, the spans with their decisions,
    reasons and risk, the residual risk and the status (ok, degraded,
    fallback, failed). A failed document is never returned in clear.

    Original strings: the answer holds the input text and each span's
    original string unless ``include_originals`` is false (then it holds
    none: see the field)."""
    language = check_language(request, body.language)
    texts = body.documents
    overrides = generalizer_overrides(body.strategy, body.mask_format)
    one = body.text is not None
    results = await sanitize_documents(
        request, texts, overrides, body.on_error, "text" if one else "texts", one, language
    )
    out = [result_json(t, r) for t, r in zip(texts, results, strict=True)]
    store(request, "sanitize", out)
    return {"results": out if body.include_originals else [without_originals(r) for r in out]}


router.add_api_route(
    "/sanitize",
    api_sanitize,
    methods=["POST"],
    tags=["textsan"],
    summary="Sanitize one text or a list (the same as /api/sanitize)",
    response_model=None,
    responses={200: {"model": SanitizeResponse}, **REVIEW_ERRORS},
)


def _decisions(body: ReviewRequest) -> list[Decision]:
    return [
        Decision(
            s.start, s.end, s.label, s.masked, s.entity_id, s.added or s.source == REVIEW_SOURCE, s.identifier_type
        )
        for s in body.spans
    ]


async def _render(request: Request, body: ReviewRequest) -> dict[str, Any]:
    check_documents(_settings(request), [body.text], "text", one=True)
    decisions = _decisions(body)
    overrides = generalizer_overrides(body.strategy, body.mask_format)
    job = CallJob(lambda nlp: render_reviewed(nlp, body.text, decisions), overrides)
    try:
        res: DocResult = await wait_for(request, submit(request, job))
    except ValueError as e:  # the generalizer refused the request's strategy
        raise HTTPException(422, str(e)) from None
    request.app.state.metrics.documents_done([report_status(res)])
    return result_json(body.text, res)


@router.post(
    "/api/render",
    tags=["textsan"],
    summary="Render a text again with a reviewer's decisions",
    response_model=None,
    responses={200: {"model": Result}, **REVIEW_ERRORS},
)
async def api_render(body: RenderRequest, request: Request) -> dict[str, Any]:
    """The text sanitized with the given spans and decisions only (no detector,
    no decision component; the leak sweep and residual_risk still run).

    Original strings: the answer holds the text and the spans' original
    strings unless ``include_originals`` is false."""
    result = await _render(request, body)
    store(request, "render", [result])
    return result if body.include_originals else without_originals(result)


@router.post(
    "/api/export",
    tags=["textsan"],
    summary="The reviewed document and its training record",
    response_model=None,
    responses={200: {"model": ExportResponse}, **REVIEW_ERRORS},
)
async def api_export(body: ExportRequest, request: Request) -> dict[str, Any]:
    """The sanitized text, its result, and the reviewed spans as a TAB JSON
    document (a list of them is a file ``textsan convert`` reads).

    Original strings: always (the training record is the text and its spans)."""
    result = await _render(request, body)
    store(request, "export", [result])
    return {
        "sanitized": result["sanitized"],
        "report": result,
        "training": training_record(body.doc_id, body.text, result),
    }


@router.post(
    "/api/report",
    tags=["textsan"],
    summary="Read a report.jsonl back for review",
    response_model=None,
    responses={200: {"model": ReportResponse}, **TOKEN, **TOO_LARGE, **REFUSED, **LATE},
)
async def api_report(body: ReportRequest, request: Request) -> dict[str, Any]:
    """The documents of a report.jsonl written by ``textsan sanitize``, with
    their text rebuilt where the sanitized copies are given. Each line must be
    a report row (types, finite numbers, spans that are ranges of their text).

    Original strings: always (the spans' strings, and the texts rebuilt)."""

    def read(deadline: Deadline) -> list[dict[str, Any]]:
        try:
            return report_documents(body.report_jsonl, body.sanitized, deadline)
        except ValueError as e:
            raise InvalidField(("report_jsonl",), str(e)) from None

    return {"documents": await in_worker(request, read)}


# -- health and metrics -----------------------------------------------------------------


@router.get("/health", tags=["service"], response_model=None, responses={200: {"model": Health}, **TOKEN})
async def health(request: Request) -> dict[str, str]:
    return {"status": "ok", "pipeline": _settings(request).pipeline, "version": __version__}


@router.get("/metrics", tags=["service"], responses=TOKEN)
async def metrics(request: Request) -> dict[str, Any]:
    """Requests, answers, documents by status, latency percentiles (ms),
    documents per batch of the pipeline, privacy_ner's NER process."""
    pool = _pool(request)
    remote = next((p.source_process for p in request.app.state.detectors if p.source_process is not None), None)
    ner = None if remote is None else {"alive": remote.alive, "restarts": remote.restarts}
    return request.app.state.metrics.snapshot(pool.depth, list(pool.batches), ner)


# -- Presidio's REST API ------------------------------------------------------------------


@router.post(
    "/analyze",
    tags=["presidio"],
    summary="Presidio analyzer: the spans to anonymize",
    response_model=None,
    responses={
        200: {"model": list[RecognizerResult] | list[list[RecognizerResult]]},
        **PRESIDIO_ERRORS,
        **_answer(503, BUSY[503]["description"], PresidioError),
        **_answer(504, LATE[504]["description"], PresidioError),
    },
)
async def analyze(body: AnalyzeRequest, request: Request) -> list:
    """Presidio's ``/analyze``: a list of ``{entity_type, start, end, score,
    analysis_explanation}`` (a list of lists for a list of texts). Patterns
    (``ad_hoc_recognizers``, a regex ``allow_list``) are RE2's: no
    backreferences or lookarounds (422 names the pattern).

    Original strings: none (offsets and types); with
    ``return_decision_process`` the explanations give the pipeline's reasons,
    which may quote the text."""
    texts = body.texts
    language = check_language(request, body.language)
    results = await sanitize_documents(
        request, texts, {}, None, "text", one=not isinstance(body.text, list), language=language
    )
    answers = await in_worker(request, partial(analyze_documents, texts, results, body))
    store(request, "analyze", [result_json(t, r) for t, r in zip(texts, results, strict=True)])
    return answers if isinstance(body.text, list) else answers[0]


@router.post(
    "/anonymize",
    tags=["presidio"],
    summary="Presidio anonymizer: operators on given spans",
    response_model=None,
    responses={
        200: {"model": AnonymizeResponse},
        **PRESIDIO_ERRORS,
        **_answer(504, LATE[504]["description"], PresidioError),
    },
)
async def anonymize_endpoint(body: AnonymizeRequest, request: Request) -> dict:
    """Presidio's ``/anonymize``: ``{text, items}``.

    Original strings: none but the text outside the spans and what ``keep`` keeps."""
    check_language(request, body.language)
    check_documents(_settings(request), [body.text], "text", one=True)
    return await in_worker(request, partial(anonymize, body.text, body.analyzer_results, body.anonymizers))


LANGUAGE = Query(None, description="one of the service's languages (422 for another)")
LANGUAGE_ERRORS = {
    **TOKEN,
    **_answer(422, "a language the service has no pipeline of (or longer than 20 characters)", PresidioError),
}


@router.get(
    "/supportedentities",
    tags=["presidio"],
    summary="Presidio analyzer: the entity types answered",
    responses=LANGUAGE_ERRORS,
)
async def supported_entities(request: Request, language: Language | None = LANGUAGE) -> list[str]:
    check_language(request, language, "query")
    return [*SUPPORTED_ENTITIES]


@router.get(
    "/recognizers",
    tags=["presidio"],
    summary="Presidio analyzer: the recognizers (pipeline components)",
    responses=LANGUAGE_ERRORS,
)
async def recognizers(request: Request, language: Language | None = LANGUAGE) -> list[str]:
    language = check_language(request, language, "query")
    return list(request.app.state.pipelines.get(language, request.app.state.nlp).pipe_names)


@router.get(
    "/anonymizers", tags=["presidio"], summary="Presidio anonymizer: the operators of /anonymize", responses=TOKEN
)
async def anonymizers() -> list[str]:
    return [*OPERATORS]
