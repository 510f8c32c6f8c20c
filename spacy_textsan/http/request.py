"""One logical request, as a client asks the transport for it.

A client builds a :class:`Request` once; the transport
(:meth:`~.transport.HttpTransport.request_json`) hands the same object to
every attempt and to the retry loop, which read what they need of it (the
method, URL, parameters, headers and body to send; the deadline that bounds
every attempt, wait and retry).
"""

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Request:
    """One request to a service, from the client down to each attempt.

    method (str): ``"GET"`` or ``"POST"``.
    url (str): The endpoint (may hold an API key: never shown in a reason or a log).
    params (Mapping | None): Query parameters (``requests`` encodes them).
    headers (Mapping | None): Sent with this request, over the settings' headers
        (:attr:`~.settings.HttpSettings.headers`).
    json_body (Any): Sent as the JSON body (None: no body).
    deadline (float | None): A ``time.monotonic()`` value that bounds every attempt, wait
        and retry of the request (None: only the timeouts and retries bound it).
    """

    method: str
    url: str
    params: Mapping[str, Any] | None = None
    headers: Mapping[str, str] | None = None
    json_body: Any = None
    deadline: float | None = None

    def __repr__(self) -> str:
        """The method and the service's host only: the URL's path and query may hold a key, the
        parameters, headers and body the document's words, and a repr ends up in logs and tracebacks."""
        host = urlsplit(self.url).hostname or "?"
        return f"Request({self.method} {host})"

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None: no deadline)."""
        return None if self.deadline is None else self.deadline - time.monotonic()
