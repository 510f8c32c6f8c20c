"""Secrets never reach the logs.

urllib3 logs request URLs, with their query strings, at DEBUG: an API key
sent as a query parameter would be written to any log that records DEBUG.
:data:`SCRUBBER` replaces every registered secret (as written and in its two
URL-encoded forms) by ``***`` in the records of the HTTP libraries' loggers.
:func:`install_log_filter` attaches it; :class:`~.transport.HttpTransport`
calls it when a client is built, not when this module is imported.
"""

import logging
import urllib.parse

#: Loggers whose records may carry a request URL.
HTTP_LOGGERS = ("urllib3.connectionpool", "urllib3.util.retry", "requests")


class SecretScrubber(logging.Filter):
    """Replaces registered secrets in the message of each record it sees."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            try:
                message = record.getMessage()
            except Exception:  # pragma: no cover - a broken record is not ours to fix
                return True
            scrubbed = message
            for secret in self.secrets:
                if secret:
                    scrubbed = scrubbed.replace(secret, "***")
            if scrubbed != message:
                record.msg, record.args = scrubbed, ()
        return True


#: The one scrubber of the process (logging is process-wide too).
SCRUBBER = SecretScrubber()


def install_log_filter() -> None:
    """Attach :data:`SCRUBBER` to :data:`HTTP_LOGGERS` (once: ``addFilter`` ignores a filter it has)."""
    for name in HTTP_LOGGERS:
        logging.getLogger(name).addFilter(SCRUBBER)


def register_secret(secret: str) -> None:
    """Never log ``secret``, as written or URL-encoded (``quote`` and ``quote_plus``)."""
    install_log_filter()
    for form in (secret, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)):
        SCRUBBER.secrets.add(form)
