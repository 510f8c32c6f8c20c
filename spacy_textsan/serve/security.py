"""What every request of ``textsan serve`` goes through: the API token
(compared in constant time), the request-size limit, and the security headers
of every answer. Plain ASGI middleware, so that nothing of a refused request
is read, parsed or logged."""

import base64
import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from ..render.keys import Secret

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The page and the API load nothing from elsewhere and run no inline script or style.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    # answers hold personal data (the texts, the spans): no cache keeps them
    (b"cache-control", b"no-store"),
]


def token_matches(expected: Secret, presented: str | None) -> bool:
    """Whether ``presented`` is the token, in time independent of where they
    differ (and of the presented token's length: both sides are hashed first)."""
    if presented is None:
        return False
    want = hashlib.sha256(expected.reveal()).digest()
    got = hashlib.sha256(presented.encode("utf-8", "surrogateescape")).digest()
    return hmac.compare_digest(want, got)


def presented_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization`` header: ``Bearer TOKEN`` (API clients),
    or ``Basic`` with the token as password and any user name (what a browser
    sends after its login prompt, so that the review page loads)."""
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    value = value.strip()
    if scheme.lower() == "bearer":
        return value
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(value, validate=True).decode("utf-8")
        except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
            return None
        return decoded.partition(":")[2]
    return None


async def send_json(send: Send, status: int, body: dict, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """Answer a request from middleware (nothing of it read further)."""
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": data})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class TokenAuth:
    """Every request must carry the token (``Authorization: Bearer TOKEN``, or
    HTTP Basic with the token as password); 401 otherwise. A browser is asked
    for it by its login prompt (``WWW-Authenticate: Basic``)."""

    def __init__(self, app: ASGIApp, token: Secret) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or token_matches(self.token, presented_token(_header(scope, b"authorization"))):
            await self.app(scope, receive, send)
            return
        await send_json(
            send,
            401,
            {"detail": "missing or wrong API token: send Authorization: Bearer <token>"},
            [(b"www-authenticate", b'Basic realm="textsan", charset="UTF-8"')],
        )


class BodyLimit:
    """Requests larger than ``max_bytes`` are answered 413: at once when their
    ``Content-Length`` says so, else as soon as the body read so far passes
    it. The body (at most ``max_bytes``) is read here, before the app sees
    the request, and handed on whole."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _message(self) -> dict:
        return {"detail": f"request body larger than {self.max_bytes} bytes (the service's --max-request-bytes)"}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None and length.strip().isdigit() and int(length) > self.max_bytes:
            await send_json(send, 413, self._message())
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await send_json(send, 413, self._message())
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        whole: Message | None = {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        async def replay() -> Message:
            nonlocal whole
            if whole is not None:
                message, whole = whole, None
                return message
            return await receive()

        await self.app(scope, replay, send)


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every answer (the review page's CSP
    allows no inline script or style and nothing from another origin)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k, v) for k, v in SECURITY_HEADERS if k not in names
                ]
            await send(message)

        await self.app(scope, receive, with_headers)
