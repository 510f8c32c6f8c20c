"""A local stand-in for Wikidata's Action API and Query Service, for the tests.

``WikidataServer`` listens on 127.0.0.1 (port 0) and answers

* ``GET /w/api.php?action=wbsearchentities&search=...&language=..&format=json``
  from ``fixtures/wikidata/search.json`` (keyed by the case-folded search text;
  unknown text: no results), like Wikidata: ``{"searchinfo", "search", "success"}``;
* ``GET /sparql?query=...&format=json`` with SPARQL JSON results for the item
  named in the query (``wd:Q585 ?prop ?item``) and each ``wdt:Pnn`` listed in
  it, from ``fixtures/wikidata/entities.json``.

Failure modes (``always``: every request; ``script``: the next requests, one
mode each, ``None`` for a normal answer): ``hang`` (answers nothing for
``hang_s``), ``429`` / ``503`` (with ``Retry-After: retry_after`` when set),
``500``, ``truncated`` (half of the JSON), ``html`` (an HTML error page with
status 200), ``wrong_shape`` (valid JSON, wrong structure), ``api_error``
(Wikidata's ``{"error": {...}}`` with status 200).

``received`` logs every request: path, params, headers, user_agent, time.
"""

import json
import os
import re
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "wikidata")
MODES = ("hang", "429", "500", "503", "truncated", "html", "wrong_shape", "api_error")
_SUBJECT = re.compile(r"wd:(Q[0-9]+)\s+\?prop")
_PROPS = re.compile(r"wdt:(P[0-9]+)")


def load_fixture(name: str) -> dict:
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        data = json.load(f)
    data.pop("_comment", None)
    return data


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request, client_address):  # clients that time out reset the connection
        pass


class WikidataServer:
    def __init__(self, hang_s: float = 5.0):
        self.search_results: dict[str, list[dict]] = load_fixture("search.json")
        self.entities: dict[str, dict] = load_fixture("entities.json")
        self.hang_s = hang_s
        self.always: str | None = None
        self.script: list[str | None] = []
        self.retry_after: str | None = None
        self.received: list[dict] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_GET(self):
                server._handle(self)

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    # -- control -------------------------------------------------------------- #
    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"  # type: ignore[str-bytes-safe]  # an AF_INET address: host is a str

    @property
    def api_url(self) -> str:
        return self.url + "/w/api.php"

    @property
    def sparql_url(self) -> str:
        return self.url + "/sparql"

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.received)

    def start(self) -> "WikidataServer":
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=2)

    # -- answers -------------------------------------------------------------- #
    def search_payload(self, params: dict[str, str]) -> dict:
        if params.get("action") != "wbsearchentities":
            return {"error": {"code": "badvalue", "info": 'Unrecognized value for parameter "action".'}}
        if not params.get("language") or not params.get("search"):
            return {"error": {"code": "missingparam", "info": 'The "search" and "language" parameters must be set.'}}
        limit = int(params.get("limit", "7"))
        results = self.search_results.get(params["search"].casefold(), [])[:limit]
        return {"searchinfo": {"search": params["search"]}, "search": results, "success": 1}

    def sparql_payload(self, query: str) -> dict:
        subject = _SUBJECT.search(query)
        entity = self.entities.get(subject.group(1), {}) if subject else {}
        bindings = []
        for prop in _PROPS.findall(query):
            for qid, label in entity.get(prop, []):
                bindings.append(
                    {
                        "prop": {"type": "uri", "value": f"http://www.wikidata.org/prop/direct/{prop}"},
                        "item": {"type": "uri", "value": f"http://www.wikidata.org/entity/{qid}"},
                        "itemLabel": {"xml:lang": "en", "type": "literal", "value": label},
                    }
                )
        return {"head": {"vars": ["prop", "item", "itemLabel"]}, "results": {"bindings": bindings}}

    def _next_failure(self) -> str | None:
        with self._lock:
            if self.script:
                return self.script.pop(0)
        return self.always

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        parsed = urllib.parse.urlsplit(handler.path)
        params = {k: v[0] for k, v in urllib.parse.parse_qs(parsed.query).items()}
        with self._lock:
            self.received.append(
                {
                    "path": parsed.path,
                    "params": params,
                    "headers": dict(handler.headers),
                    "user_agent": handler.headers.get("User-Agent"),
                    "time": time.monotonic(),
                }
            )
        failure = self._next_failure()
        if failure == "hang":
            self._stop.wait(self.hang_s)
            handler.close_connection = True
            return
        if failure in ("429", "500", "503"):
            headers = {"Retry-After": self.retry_after} if self.retry_after and failure != "500" else {}
            return self._send(handler, int(failure), b'{"error": "unavailable"}', headers=headers)
        if failure == "html":
            return self._send(
                handler, 200, b"<!DOCTYPE html><html><body>Wikimedia Error</body></html>", content_type="text/html"
            )
        if parsed.path == "/w/api.php":
            payload = self.search_payload(params)
            content_type = "application/json; charset=utf-8"
        elif parsed.path == "/sparql":
            payload = self.sparql_payload(params.get("query", ""))
            content_type = "application/sparql-results+json; charset=utf-8"
        else:
            return self._send(handler, 404, b"not found", content_type="text/plain")
        if failure == "wrong_shape":
            payload = {"search": {"id": "Q1"}, "results": [1, 2]}
        elif failure == "api_error":
            payload = {"error": {"code": "maxlag", "info": "Waiting for a database server"}}
        data = json.dumps(payload).encode("utf-8")
        if failure == "truncated":
            data = data[: len(data) // 2]
        self._send(handler, 200, data, content_type=content_type)

    @staticmethod
    def _send(
        handler, status: int, data: bytes, headers: dict | None = None, content_type: str = "application/json"
    ) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            handler.send_header(k, v)
        handler.end_headers()
        handler.wfile.write(data)
        handler.wfile.flush()


@pytest.fixture
def wikidata_server():
    """A started :class:`WikidataServer`, stopped after the test."""
    server = WikidataServer().start()
    try:
        yield server
    finally:
        server.stop()
