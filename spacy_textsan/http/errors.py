"""Errors of the HTTP transport (:mod:`spacy_textsan.http`)."""


class HttpError(Exception):
    """A request that produced no trustworthy answer. ``reason`` is one short
    line naming the service and host; it never holds a URL's query string, a
    traceback or a secret."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class ResponseNotJson(HttpError):
    """The service answered 2xx with a body that is not JSON (never retried:
    asking again would get the same answer)."""
