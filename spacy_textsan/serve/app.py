"""The FastAPI application of ``textsan serve`` (:func:`create_app`): the
routes of :mod:`.routes`, the review page and its static files, offline API
docs, its error answers (:mod:`.errors`) and OpenAPI description
(:mod:`.openapi`), and the layers every request goes through, outermost first:
metrics, security headers, the request-size limit, CORS (only with ``cors``),
the API token (only with ``token``), the last resort (an unexpected exception
is a 500 without its message)."""

import gc
import html
import json
import os
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from spacy.language import Language
from starlette.middleware.cors import CORSMiddleware

from ..about import __version__
from ..pipeline import load_pipeline
from ..render.keys import read_key
from ..visualize import UI_DEFAULT, ui_language
from .errors import LastResort, add_error_handlers
from .metrics import Metrics
from .openapi import describe_limits
from .pool import PipelinePool
from .review import page_html, service_ui_language
from .routes import router
from .security import ASGIApp, BodyLimit, Message, Receive, Scope, SecurityHeaders, Send, TokenAuth
from .settings import SERVE_CONFIG_ENV, TOKEN_ENV, ServeSettings
from .work import WorkPool

STATIC_DIR = Path(__file__).parent / "static"
#: Paths counted by name in /metrics (anything else counts as "other": no unbounded keys).
COUNTED_PATHS = (
    "/",
    "/api/sanitize",
    "/sanitize",
    "/api/render",
    "/api/report",
    "/api/export",
    "/analyze",
    "/anonymize",
    "/supportedentities",
    "/recognizers",
    "/anonymizers",
    "/health",
    "/metrics",
    "/docs",
    "/openapi.json",
)
#: Swagger UI from local files, started by a script file (the CSP allows no inline script).
DOCS_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>spacy-textsan API</title>
<link rel="stylesheet" href="/docs-assets/swagger-ui.css">
<link rel="icon" href="/docs-assets/favicon.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs-assets/swagger-ui-bundle.js"></script>
<script src="/docs-init.js"></script>
</body>
</html>
"""
DOCS_INIT = 'window.ui = SwaggerUIBundle({url: "/openapi.json", dom_id: "#swagger-ui"});\n'


def create_app(
    nlp: Language, settings: ServeSettings | None = None, pipelines: Mapping[str, Language] | None = None
) -> FastAPI:
    """The service of pipeline ``nlp`` (loaded once; run by one thread of
    this process, :class:`~.pool.PipelinePool`). ``pipelines``: more
    languages, each with its pipeline (``textsan serve --lang en,fr``): a
    request's ``language`` picks one (``nlp``'s when it gives none).
    ``settings.check()`` is called first: a non-loopback host without a
    token raises :class:`~.settings.SettingsError`."""
    settings = settings or ServeSettings()
    settings.check()
    languages: dict[str, Language] = {str(nlp.lang): nlp}
    languages.update({lang: p for lang, p in (pipelines or {}).items() if lang != nlp.lang})
    pool = PipelinePool(nlp, batch_size=settings.batch_size, max_queue=settings.max_queue, pipelines=languages)
    work = WorkPool()
    detectors: list[Any] = [
        proc for each in languages.values() for _, proc in each.pipeline if hasattr(proc, "use_source_process")
    ]
    if settings.ner_process:
        for proc in detectors:
            proc.use_source_process(True)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # what is loaded by now (the pipeline, its vocab and resources: millions of objects) is left
        # out of Python's full garbage collections, whose pass over it would stop the event loop
        # (and /health) for hundreds of milliseconds
        gc.freeze()
        pool.start()
        yield
        pool.stop()
        work.close()
        gc.unfreeze()
        for proc in detectors:  # a child NER process ends with the service (a later request starts it again)
            if proc.source_process is not None:
                proc.source_process.close()

    app = FastAPI(
        title="spacy-textsan",
        version=__version__,
        description="Sanitize text with spacy-textsan: the review page's API, Presidio-shaped /analyze and "
        "/anonymize, health and metrics.",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.nlp = nlp
    #: the pipeline of each language the service answers, the first (``nlp``'s) the default
    app.state.pipelines = languages
    app.state.settings = settings
    app.state.pool = pool
    app.state.work = work
    app.state.detectors = detectors
    app.state.metrics = Metrics()
    app.include_router(router)
    _add_page(app)
    _add_docs(app)

    describe_limits(app, settings)
    add_error_handlers(app)

    # add_middleware: the last added runs first
    app.add_middleware(LastResort)
    if settings.token is not None:
        app.add_middleware(TokenAuth, token=settings.token)
    if settings.cors:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
        )
    app.add_middleware(BodyLimit, max_bytes=settings.max_request_bytes)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(Counted, metrics=app.state.metrics)
    return app


def server_options(settings: ServeSettings) -> dict[str, Any]:
    """uvicorn's options of the service: its address, no ``Server`` header;
    uvicorn's access log shows method, path and status, never a body."""
    return {"host": settings.host, "port": settings.port, "server_header": False, "log_level": "info"}


def app_from_env() -> FastAPI:
    """The app of one worker process of ``textsan serve --workers N``: the
    pipeline and settings named in ``$TEXTSAN_SERVE_CONFIG`` (the token read
    again from its file or ``$TEXTSAN_TOKEN``)."""
    config = json.loads(os.environ[SERVE_CONFIG_ENV])
    token = read_key(config.get("token_file"), TOKEN_ENV, what="API token", required=False)
    overrides = config.get("overrides") or {}
    languages = config.get("languages") or []
    nlp = load_pipeline(config.get("pipeline"), overrides, lang=languages[0] if languages else None)
    others = {lang: load_pipeline(None, overrides, lang=lang) for lang in languages[1:] if lang != nlp.lang}
    return create_app(nlp, ServeSettings.from_json(config["settings"], token), others)


class Counted:
    """Counts every answer by path and status, with its latency."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def counting(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, counting)
        finally:
            path = scope.get("path", "")
            name = path if path in COUNTED_PATHS else "/static/*" if path.startswith("/static/") else "other"
            self.metrics.request(name, status, time.perf_counter() - start)


def _add_page(app: FastAPI) -> None:
    """The review page at ``/`` and its files at ``/static`` (no inline script
    or style; its words in ``/static/i18n/<code>.json``). The page speaks, first
    that applies: ``?ui=fr``, the service's first language (``--lang fr``; not
    for a service of English only), else English, which the page's script then
    changes to the browser's language when the page speaks it
    (:func:`~.review.page_html`, docs/service.md)."""
    if STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    index = STATIC_DIR / "index.html"
    template = index.read_text(encoding="utf-8") if index.is_file() else None
    service = service_ui_language(list(app.state.pipelines))

    @app.get("/", include_in_schema=False, response_model=None)
    async def page(request: Request) -> Response:
        if template is None:
            return JSONResponse({"detail": "the review page is not installed"}, status_code=404)
        lang = ui_language(request.query_params.get("ui"), service) or UI_DEFAULT
        return HTMLResponse(page_html(template, lang, service))


def _add_docs(app: FastAPI) -> None:
    """``/docs`` without a CDN: Swagger UI from the files of the fastapi-offline
    package when it is installed (``pip install spacy-textsan[serve]``),
    started by a script file (the CSP allows no inline script); else a list
    of the endpoints and a link to ``/openapi.json``."""
    try:
        import fastapi_offline

        assets: Path | None = Path(fastapi_offline.__file__).parent / "static"
    except ImportError:
        assets = None
    if assets is not None and (assets / "swagger-ui-bundle.js").is_file():
        app.mount("/docs-assets", StaticFiles(directory=assets), name="docs-assets")

        @app.get("/docs-init.js", include_in_schema=False)
        async def docs_init() -> Response:
            return Response(DOCS_INIT, media_type="text/javascript")

        @app.get("/docs", include_in_schema=False)
        async def docs() -> HTMLResponse:
            return HTMLResponse(DOCS_PAGE)

        return

    @app.get("/docs", include_in_schema=False)
    async def docs_list() -> HTMLResponse:
        rows = "".join(
            f"<li><code>{html.escape(','.join(sorted(getattr(r, 'methods', None) or [])))} {html.escape(getattr(r, 'path', ''))}</code></li>"
            for r in app.routes
            if getattr(r, "include_in_schema", False)
        )
        return HTMLResponse(
            f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>spacy-textsan API</title></head>"
            f"<body><h1>spacy-textsan API</h1><p>The OpenAPI description: <a href=/openapi.json>/openapi.json</a> "
            f"(install fastapi-offline for the interactive page).</p><ul>{rows}</ul></body></html>"
        )
