"""The error answers of ``textsan serve``: one line naming the field at fault,
never a key or a value of the request (:func:`describe`); ``{"detail": ...}``,
or ``{"error": ...}`` on Presidio's endpoints; 422 for a request refused, and
on Presidio's endpoints 400 for a body that is not JSON at all
(:func:`add_error_handlers`); and :class:`LastResort`, the 500 of an
exception no handler answered."""

import logging
import traceback
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from .fields import field_path
from .security import ASGIApp, Message, Receive, Scope, Send, send_json

logger = logging.getLogger("spacy_textsan")

#: Presidio's endpoints answer errors in Presidio's shape: {"error": message}.
PRESIDIO_PATHS = ("/analyze", "/anonymize", "/supportedentities", "/recognizers", "/anonymizers")
#: The most errors one answer lists.
MAX_ERRORS = 5
#: The refusals of a body that is not JSON at all (malformed, not UTF-8, nested too deep: :mod:`.parsing`).
NOT_JSON = ("json_invalid", "json_too_deep")


def add_error_handlers(app: FastAPI) -> None:
    """Refusals (pydantic's and the handlers' own) and HTTP errors answered as one line."""

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        if request.url.path not in PRESIDIO_PATHS:
            return JSONResponse({"detail": describe(errors)}, status_code=422)
        if any(e.get("type") in NOT_JSON for e in errors):
            return JSONResponse({"error": f"Invalid request json: {describe(errors)}"}, status_code=400)
        return JSONResponse({"error": describe(errors)}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        key = "error" if request.url.path in PRESIDIO_PATHS else "detail"
        return JSONResponse({key: exc.detail}, status_code=exc.status_code, headers=exc.headers)


class LastResort:
    """An exception no handler answered: a 500 without its message (it may
    quote a text), logged by its type and the place it was raised, never
    raised on to the server (which would log it whole)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as e:
            frame = traceback.extract_tb(e.__traceback__)[-1] if e.__traceback__ else None
            place = f" at {Path(frame.filename).name}:{frame.lineno} ({frame.name})" if frame else ""
            logger.error("%s %s failed: %s%s", scope.get("method"), scope.get("path"), type(e).__name__, place)
            if not started:
                key = "error" if scope.get("path") in PRESIDIO_PATHS else "detail"
                await send_json(send, 500, {key: "internal error: the service failed on this request (logged)"})


def describe(errors: list[dict[str, Any]]) -> str:
    """Pydantic's (or a handler's) errors as one line: ``body.texts.1: message;
    ...``, without the input they hold and with their place said by
    :func:`~.fields.field_path` (no key or value of the request comes back in
    an error), at most :data:`MAX_ERRORS` of them."""
    parts = []
    for e in errors[:MAX_ERRORS]:
        loc = field_path(e.get("loc", ()), extra=e.get("type") == "extra_forbidden")
        msg = str(e.get("msg", "")).removeprefix("Value error, ")
        if e.get("type") == "json_invalid" and isinstance(e.get("ctx"), dict) and e["ctx"].get("error"):
            msg = f"{msg}: {e['ctx']['error']}"
        parts.append(msg if loc in ("", "body") else f"{loc}: {msg}")
    if len(errors) > MAX_ERRORS:
        parts.append(f"and {len(errors) - MAX_ERRORS} more")
    return " ".join("; ".join(parts).split())
