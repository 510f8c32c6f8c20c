"""A programmable search server on 127.0.0.1 for the web_risk tests (no network).

Routes:
  GET  /search?q=...&format=json&pageno=N   SearXNG shape: {"results": [{"url": ...}]}
  GET  /v1/find?query=...&page=N             generic shape: {"data": {"items": [{"link": ...}]}}
  POST /v1/find  {"query": ..., "page": N}   same, query in a JSON body

``results`` maps a query string to its URLs; ``page_size`` slices them into
pages. Failures are programmable: ``always`` (every request), ``script`` (the
next requests, in order) and ``fail_queries`` (by query). Modes: "hang",
"close", "429", "500", "503" (any status code), "truncated", "short_body", "wrong_shape",
"no_url", "html", "unresponsive". ``retry_after`` sets the Retry-After header
of 429/503. Every request is recorded in ``received``.
"""

import json
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

MODES = (
    "hang",
    "close",
    "429",
    "500",
    "503",
    "truncated",
    "short_body",
    "wrong_shape",
    "no_url",
    "html",
    "unresponsive",
)


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):  # clients that time out reset the connection
        pass


class SearchServer:
    def __init__(self, page_size: int = 10, hang_s: float = 5.0):
        self.results: dict[str, list[str]] = {}
        self.page_size = page_size
        self.hang_s = hang_s
        self.always: str | None = None
        self.script: list[str] = []
        self.fail_queries: dict[str, str] = {}
        self.retry_after: str | None = None
        self.received: list[dict] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms delayed-ACK stalls

            def log_message(self, *args):  # keep test output quiet
                pass

            def do_GET(self):
                server._handle(self, "GET")

            def do_POST(self):
                server._handle(self, "POST")

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.block_on_close = False
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    # -- control -------------------------------------------------------------- #
    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"  # type: ignore[str-bytes-safe]  # an AF_INET address: host is a str

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.received)

    def queries(self) -> list[str]:
        with self._lock:
            return [r["query"] for r in self.received]

    def start(self) -> "SearchServer":
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # releases hanging handlers
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=2)

    # -- handling ------------------------------------------------------------- #
    def _next_failure(self, query: str) -> str | None:
        with self._lock:
            if self.script:
                return self.script.pop(0)
        if query in self.fail_queries:
            return self.fail_queries[query]
        return self.always

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        parsed = urllib.parse.urlsplit(handler.path)
        params = {k: v[0] for k, v in urllib.parse.parse_qs(parsed.query).items()}
        body = None
        if method == "POST":
            length = int(handler.headers.get("Content-Length") or 0)
            raw = handler.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                body = None
        if parsed.path == "/search":
            query, page = params.get("q", ""), int(params.get("pageno", "1"))
        elif isinstance(body, dict):
            query, page = str(body.get("query", "")), int(body.get("page", 1))
        else:
            query, page = params.get("query", ""), int(params.get("page", "1"))
        with self._lock:
            self.received.append(
                {
                    "method": method,
                    "path": parsed.path,
                    "params": params,
                    "body": body,
                    "headers": dict(handler.headers),
                    "query": query,
                    "page": page,
                    "time": time.monotonic(),
                }
            )
        failure = self._next_failure(query)
        if failure == "hang":
            self._stop.wait(self.hang_s)
            handler.close_connection = True
            return
        if failure == "close":
            handler.close_connection = True
            return
        if failure is not None and failure.isdigit():  # "429", "500", "503", "401", ...
            headers = {"Retry-After": self.retry_after} if self.retry_after and failure in ("429", "503") else {}
            return self._send(handler, int(failure), b'{"error": "unavailable"}', headers=headers)
        urls = self.results.get(query, [])
        chunk = urls[(page - 1) * self.page_size : page * self.page_size]
        payload: dict[str, object]
        if parsed.path == "/search":
            payload = {"query": query, "results": [{"url": u, "title": u} for u in chunk], "unresponsive_engines": []}
        else:
            payload = {"data": {"items": [{"link": u} for u in chunk]}}
        data = json.dumps(payload).encode()
        if failure == "truncated":
            data = data[: len(data) // 2]
        elif failure == "short_body":  # announces more bytes than it sends, then closes
            return self._send(handler, 200, data[: len(data) // 2], length=len(data), close=True)
        elif failure == "wrong_shape":
            data = json.dumps({"results": {"url": "https://x.example/"}}).encode()
        elif failure == "no_url":
            data = json.dumps({"results": [{"title": "no url"}], "data": {"items": [{"title": "x"}]}}).encode()
        elif failure == "html":
            return self._send(handler, 200, b"<html><body>Too many requests</body></html>", content_type="text/html")
        elif failure == "unresponsive":
            data = json.dumps({"results": [], "unresponsive_engines": [["google", "timeout"]]}).encode()
        self._send(handler, 200, data)

    @staticmethod
    def _send(
        handler,
        status: int,
        data: bytes,
        headers: dict | None = None,
        content_type: str = "application/json",
        length: int | None = None,
        close: bool = False,
    ) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data) if length is None else length))
        for k, v in (headers or {}).items():
            handler.send_header(k, v)
        handler.end_headers()
        handler.wfile.write(data)
        handler.wfile.flush()
        if close:
            handler.close_connection = True


def free_port() -> int:
    """A port with nothing listening on it (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def search_server():
    """A started :class:`SearchServer`, stopped after the test."""
    server = SearchServer().start()
    try:
        yield server
    finally:
        server.stop()
