"""A JSON body nested deeper than :data:`MAX_JSON_DEPTH` is refused before it
is parsed (Python's JSON parser and pydantic recurse: a body of 100,000 ``[``
must not reach them), and so is a body that is not UTF-8. :class:`JsonRoute`
is the route class of the service's router: it measures the body first
(:func:`json_depth`, linear, in C)."""

import re
from collections.abc import Callable, Coroutine
from typing import Any

import numpy as np
from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool

#: The deepest JSON body accepted (the service's requests nest 5 levels at most).
MAX_JSON_DEPTH = 64

_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(data: bytes) -> int:
    """How deep the arrays and objects of a JSON document nest (0 for a
    scalar). Brackets inside strings do not count; an unbalanced document
    gives what its opening brackets reach (the parser refuses it anyway)."""
    skeleton = _STRING.sub(b"", _ESCAPE.sub(b"", data)).translate(None, _NOT_BRACKET)
    if not skeleton:
        return 0
    brackets = np.frombuffer(skeleton, dtype=np.uint8)
    steps = np.where((brackets == ord("[")) | (brackets == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


def _refused(kind: str, message: str) -> RequestValidationError:
    return RequestValidationError([{"type": kind, "loc": ("body",), "msg": message}])


class JsonRoute(APIRoute):
    """A route that refuses a body that is not UTF-8 or is nested deeper than
    :data:`MAX_JSON_DEPTH` (422; 400 on the Presidio-shaped endpoints) before
    FastAPI parses it."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def checked(request: Request) -> Response:
            if request.method in ("POST", "PUT", "PATCH"):
                body = await request.body()
                try:
                    body.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise _refused(
                        "json_invalid", f"JSON decode error: the body is not UTF-8 (byte {e.start})"
                    ) from None
                # the brackets anywhere bound the depth: most bodies need no more look (and the
                # rest is measured off the event loop: a body of quotes and brackets takes a while)
                if body.count(b"[") + body.count(b"{") <= MAX_JSON_DEPTH:
                    return await handler(request)
                depth = await run_in_threadpool(json_depth, body)
                if depth > MAX_JSON_DEPTH:
                    raise _refused(
                        "json_too_deep", f"JSON nested {depth} levels deep; at most {MAX_JSON_DEPTH} are accepted"
                    )
            return await handler(request)

        return checked
