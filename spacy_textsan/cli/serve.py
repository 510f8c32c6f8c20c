"""``textsan serve``: the pipeline as a local web service (FastAPI + uvicorn)."""

import gc
import json
import os
from pathlib import Path

import typer
from wasabi import msg

from ..pipeline import MAX_DOCUMENT_CHARS
from ..render.keys import MissingKeyError, read_key
from ..serve.settings import SERVE_CONFIG_ENV, TOKEN_ENV, ServeSettings, SettingsError
from .numbers import MAX_BATCH, MAX_PROCESSES, MAX_REQUEST_BYTES, MAX_SECONDS, number_option
from .options import (
    BACKGROUND_HELP,
    LANG_HELP,
    PIPELINE_HELP,
    build_overrides,
    check_background_used,
    check_lang,
    load_or_fail,
    parse_settings,
    parse_strategy,
    set_background,
)
from .util import fail as _fail

#: Seconds a worker process may take to answer the supervisor of --workers N (loading a pipeline is slow).
WORKER_HEALTHCHECK_S = 120
NEEDS_SERVE = "textsan serve needs FastAPI and uvicorn: pip install spacy-textsan[serve]"


def serve_languages(values: list[str]) -> list[str]:
    """``--lang en,fr`` or ``--lang en --lang fr``: the languages, each checked, once each, in order."""
    codes = [code.strip() for value in values for code in value.split(",")]
    return list(dict.fromkeys(c for c in (check_lang(code) for code in codes) if c is not None))


def serve_cmd(
    pipeline: str | None = typer.Option(None, "--pipeline", "-p", help=PIPELINE_HELP),
    lang: list[str] = typer.Option(
        [],
        "--lang",
        help=f"{LANG_HELP}. Several (--lang en,fr or repeated): one pipeline each, the first the default; a "
        "request's language field picks one (422 for another). --pipeline is the first's",
    ),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on; any but loopback needs a token"),
    port: int = number_option(8000, "--port", low=0, high=65535, help="Port to listen on (0: any free one)"),
    workers: int = number_option(
        1, "--workers", low=1, high=MAX_PROCESSES, help="Processes, each with the pipeline loaded once"
    ),
    token_file: Path | None = typer.Option(
        None, "--token-file", help=f"File holding the API token (default: ${TOKEN_ENV}); every request must send it"
    ),
    cors: list[str] = typer.Option([], "--cors", help="Origin allowed to call the API from its pages (repeatable)"),
    max_request_bytes: int = number_option(
        10 * 1024 * 1024, "--max-request-bytes", low=1, high=MAX_REQUEST_BYTES, help="Larger: 413"
    ),
    max_chars: int = number_option(
        1_000_000, "--max-chars", low=1, high=MAX_DOCUMENT_CHARS, help="Longest document, in characters (422)"
    ),
    max_texts: int = number_option(100, "--max-texts", low=1, high=MAX_BATCH, help="Most texts in one request (422)"),
    timeout: float = number_option(
        60.0,
        "--timeout",
        kind=float,
        low=0.001,
        high=MAX_SECONDS,
        unit="seconds",
        help="How long a request waits (504 beyond)",
    ),
    store: Path | None = typer.Option(
        None, "--store", help="Folder where each request's results are written (0600); nothing is stored without it"
    ),
    batch_size: int = number_option(
        32, "--batch-size", low=1, high=MAX_BATCH, help="Documents of concurrent requests per nlp.pipe"
    ),
    max_queue: int = number_option(
        64, "--max-queue", low=1, high=MAX_BATCH, help="Requests waiting at most (503 beyond)"
    ),
    on_error: str = typer.Option("mask-all", "--on-error", help="A document that fails: mask-all or skip"),
    strategy: str | None = typer.Option(None, "--strategy", help="Default strategy, as textsan sanitize takes it"),
    mask_format: str | None = typer.Option(None, "--mask-format", help='Replacement, e.g. "***" or "[{label} {n}]"'),
    key_file: Path | None = typer.Option(
        None, "--key-file", help="Secret key file of the hash and pseudonym strategies (default: $TEXTSAN_KEY)"
    ),
    pattern: list[str] = typer.Option([], "--pattern", help="Extra rule LABEL=REGEX (repeatable)"),
    allow_list: Path | None = typer.Option(None, "--allow-list", help="File of terms never to mask"),
    deny_list: Path | None = typer.Option(None, "--deny-list", help="File of terms always to mask (LABEL<TAB>term)"),
    settings: list[str] = typer.Option([], "--set", help="Config override section.key=value (repeatable)"),
    background: Path | None = typer.Option(None, "--background", help=BACKGROUND_HELP),
    ner_process: bool | None = typer.Option(
        None,
        "--ner-process/--no-ner-process",
        help="Run privacy_ner's source NER in a process of its own, beside the rules "
        "(default: on with 2 CPU cores or more)",
    ),
) -> None:
    """Serve the pipeline over HTTP: the review page at /, POST /sanitize
    (and the page's /api/...), Presidio-shaped POST /analyze and /anonymize,
    GET /health, /metrics and /docs. Binds to 127.0.0.1 unless told
    otherwise; another host needs an API token. Texts are never logged and
    nothing is stored without --store."""
    languages = serve_languages(lang)
    try:
        token = read_key(token_file, TOKEN_ENV, what="API token", required=False)
    except MissingKeyError as e:
        _fail(str(e))
    config = ServeSettings(
        host=host,
        port=port,
        token=token,
        cors=list(cors),
        max_request_bytes=max_request_bytes,
        max_document_chars=max_chars,
        max_texts=max_texts,
        timeout_s=timeout,
        store=store,
        batch_size=batch_size,
        max_queue=max_queue,
        on_error=on_error,
        pipeline=pipeline or "default",
        ner_process=(os.cpu_count() or 1) >= 2 if ner_process is None else ner_process,
    )
    try:
        config.check()
    except SettingsError as e:
        _fail(str(e))
    overrides = build_overrides(pattern, allow_list, deny_list, mask_format, settings)
    overrides.update(parse_strategy(strategy))
    set_background(overrides, background)
    if key_file is not None:
        if not key_file.is_file():
            _fail(f"{key_file}: key file not found")
        overrides["components.generalizer.key_file"] = str(key_file)
    try:
        import uvicorn

        from ..serve.app import create_app, server_options
    except ImportError:
        _fail(NEEDS_SERVE)
    first = languages[0] if languages else None
    nlp = load_or_fail(pipeline, overrides, parse_settings(settings), lang=first)
    others = {code: load_or_fail(None, overrides, parse_settings(settings), lang=code) for code in languages[1:]}
    check_background_used(nlp, background, pipeline)
    shown = f" ({', '.join(languages)})" if languages else ""
    msg.info(
        f"textsan serve: pipeline {config.pipeline}{shown} on http://{host}:{port} "
        f"({'API token required' if token else 'no token: this machine only'}; "
        f"{'CORS for ' + ', '.join(cors) if cors else 'no CORS'}; "
        f"{'results stored in ' + str(store) if store else 'nothing stored'}; {workers} worker(s)"
        f"{', NER in a process of its own' if config.ner_process else ''})"
    )
    common = server_options(config)
    if workers == 1:
        uvicorn.run(create_app(nlp, config, others), **common)
        return
    # N processes: each loads the pipeline once (checked here first) and reads its settings from the environment
    del nlp, others
    gc.collect()
    os.environ[SERVE_CONFIG_ENV] = json.dumps(
        {
            "pipeline": pipeline,
            "languages": languages,
            "overrides": overrides,
            "settings": config.to_json(),
            "token_file": str(token_file) if token_file else None,
        }
    )
    # a worker loading the pipeline answers the supervisor's pings late: give it time before it counts as hung
    uvicorn.run(
        "spacy_textsan.serve.app:app_from_env",
        factory=True,
        workers=workers,
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_S,
        **common,
    )
