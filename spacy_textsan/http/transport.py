"""One transport for every remote service: a JSON request with timeouts, retries, a rate limit and a size cap.

:meth:`HttpTransport.request_json` sends one logical request (a
:class:`~.request.Request`) and returns the parsed JSON body or raises
:class:`~.errors.HttpError`:

* a timeout per attempt (connect and read), and the request's ``deadline``
  (``time.monotonic()`` value) that bounds every attempt, wait and retry of
  it, so that a caller can give a whole task a time budget;
* retries with backoff honouring ``Retry-After`` (:mod:`.retry`);
* a client-side rate limit (:mod:`.ratelimit`), a User-Agent, and a cap on
  the response size (read in chunks, so that a huge body fails early);
* reasons without URLs or exceptions chained from the HTTP libraries (a URL
  may hold an API key); the libraries' log records are scrubbed of secrets
  (:mod:`.redact`).

A body that is not JSON raises :class:`~.errors.ResponseNotJson` at once.
Sessions are per process: a transport pickles without its session.
"""

import json
import logging
import os
import random
from typing import Any

import requests

from ..about import __version__
from .errors import HttpError, ResponseNotJson
from .ratelimit import RateLimiter
from .redact import install_log_filter
from .request import Request
from .retry import RETRY_AFTER_STATUSES, RETRY_STATUSES, Retryable, parse_retry_after, retry_policy
from .settings import HttpSettings

logger = logging.getLogger(__name__)

#: Sent when neither the settings nor the client name a User-Agent.
DEFAULT_USER_AGENT = f"spacy-textsan/{__version__} python-requests/{requests.__version__}"


class _TruncatedBody(Exception):
    pass


class _TooLarge(Exception):
    pass


def connection_reason(error: Exception) -> str:
    """A short description of a connection error without the URL (which may hold a key)."""
    text = repr(error)
    for needle, reason in (
        ("Read timed out", "read timeout"),
        ("refused", "connection refused"),
        ("RemoteDisconnected", "closed without a response"),
        ("ConnectionResetError", "connection reset"),
        ("Name or service not known", "unknown host"),
        ("NameResolutionError", "unknown host"),
        ("nodename nor servname", "unknown host"),
        ("SSLError", "TLS error"),
    ):
        if needle in text:
            return reason
    return type(error).__name__


def parse_json_body(body: bytes, label: str) -> Any:
    """The JSON in ``body``; :class:`~.errors.ResponseNotJson` saying what it is instead."""
    if not body.strip():
        raise ResponseNotJson(f"{label}: empty response body")
    try:
        return json.loads(body.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ResponseNotJson(f"{label}: response is not UTF-8 text") from None
    except ValueError as e:
        head = body.lstrip()[:1]
        what = "HTML, not JSON" if head == b"<" else f"invalid JSON ({getattr(e, 'msg', e)})"
        raise ResponseNotJson(f"{label}: response is {what}") from None


class HttpTransport:
    """Requests to one service for one client. ``label`` (``"searxng
    localhost:8888"``) starts every error reason; ``settings`` are the
    timeouts, retries, rate limit and headers (:class:`~.settings.HttpSettings`)."""

    def __init__(self, label: str, settings: HttpSettings | None = None):
        self.label = label
        self.settings = settings or HttpSettings()
        self.user_agent = self.settings.user_agent or DEFAULT_USER_AGENT
        self._rng = random.Random(self.settings.seed)
        self._rate = RateLimiter(self.settings.min_interval_s)
        self._session: requests.Session | None = None
        self._session_pid: int | None = None
        #: Requests actually sent (every attempt), for monitoring and tests.
        self.requests_sent = 0
        install_log_filter()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_session=None, _session_pid=None)
        return state

    def close(self) -> None:
        if self._session is not None and self._session_pid == os.getpid():
            self._session.close()
        self._session = None

    def _get_session(self) -> requests.Session:
        if self._session is None or self._session_pid != os.getpid():
            session = requests.Session()
            session.headers["User-Agent"] = self.user_agent
            session.headers["Accept"] = "application/json"
            self._session, self._session_pid = session, os.getpid()
        return self._session

    def request_json(self, request: Request) -> Any:
        """One logical request with retries: the parsed JSON body, or HttpError."""
        retrying = retry_policy(self.settings, self._rng, self.label, request.deadline)
        return retrying(self._attempt, request)

    def _budget_exhausted(self) -> HttpError:
        return HttpError(f"{self.label}: time budget exhausted")

    def _attempt(self, request: Request) -> Any:
        """One attempt: the parsed body, :class:`~.retry.Retryable`, or HttpError (not retried)."""
        remaining = request.remaining()
        if remaining is not None and remaining <= 0:
            raise self._budget_exhausted()
        self._rate.wait(request.deadline, self.label)
        timeout = self.settings.timeout_s
        remaining = request.remaining()
        if remaining is not None:
            if remaining <= 0:
                raise self._budget_exhausted()
            timeout = min(timeout, remaining)
        try:
            status, retry_after, body = self._send(request, timeout)
        except requests.exceptions.Timeout:
            raise Retryable(f"timeout after {timeout:.3g} s") from None
        except _TruncatedBody:
            raise Retryable("connection closed before the body was complete") from None
        except _TooLarge:
            raise HttpError(f"{self.label}: response larger than {self.settings.max_response_bytes} bytes") from None
        except requests.exceptions.ConnectionError as e:
            raise Retryable(f"connection failed ({connection_reason(e)})") from None
        except requests.exceptions.RequestException as e:
            raise HttpError(f"{self.label}: request failed ({type(e).__name__})") from None
        if 200 <= status < 300:
            return parse_json_body(body, self.label)
        reason = f"HTTP {status}"
        if status not in RETRY_STATUSES:
            raise HttpError(f"{self.label}: {reason}")
        if status in RETRY_AFTER_STATUSES and retry_after is not None:
            if retry_after > self.settings.retry_after_max_s:
                raise HttpError(
                    f"{self.label}: {reason}, Retry-After {retry_after:g} s exceeds "
                    f"the cap of {self.settings.retry_after_max_s:g} s"
                )
            raise Retryable(reason, retry_after)
        raise Retryable(reason)

    def _send(self, request: Request, timeout: float) -> tuple[int, float | None, bytes]:
        """Status, ``Retry-After`` (seconds) and body (empty unless 2xx) of one HTTP exchange."""
        all_headers = dict(self.settings.headers or {})
        all_headers.update(request.headers or {})
        self.requests_sent += 1
        with self._get_session().request(
            request.method,
            request.url,
            params=request.params,
            headers=all_headers,
            json=request.json_body,
            timeout=timeout,
            stream=True,
            allow_redirects=True,
        ) as resp:
            retry_after = parse_retry_after(resp.headers.get("Retry-After"))
            if not 200 <= resp.status_code < 300:
                return resp.status_code, retry_after, b""
            chunks, size = [], 0
            try:
                for chunk in resp.iter_content(chunk_size=65536):
                    size += len(chunk)
                    if size > self.settings.max_response_bytes:
                        raise _TooLarge()
                    chunks.append(chunk)
                    remaining = request.remaining()
                    if remaining is not None and remaining <= 0:
                        raise requests.exceptions.Timeout()
            except (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError):
                raise _TruncatedBody() from None
            return resp.status_code, retry_after, b"".join(chunks)
