"""One HTTP transport for every remote service of spacy-textsan (web search, Wikidata).

* :class:`HttpSettings`: timeouts, retries, backoff, rate limit, headers, size cap
  (a config block, ``spacy_textsan.http_settings.v1``);
* :class:`Request`: one logical request (method, URL, parameters, headers, body, deadline);
* :class:`HttpTransport`: JSON requests with those settings (retries via tenacity,
  honouring ``Retry-After``), raising :class:`HttpError`;
* :class:`ResponseCache`: one persistent sqlite3 cache for any JSON answer;
* :func:`register_secret`: keeps an API key out of every log.

Nothing here knows what the answers mean: the clients (``risk.web_search``,
``gazetteer.wikidata_client``) do.
"""

from .cache import ResponseCache, hash_key, normalize_query
from .errors import HttpError, ResponseNotJson
from .redact import register_secret
from .request import Request
from .retry import backoff_delay, parse_retry_after
from .settings import HttpSettings, flat_http_factory, settings_for
from .transport import HttpTransport

__all__ = [
    "HttpError",
    "HttpSettings",
    "HttpTransport",
    "Request",
    "ResponseCache",
    "ResponseNotJson",
    "backoff_delay",
    "flat_http_factory",
    "hash_key",
    "normalize_query",
    "parse_retry_after",
    "register_secret",
    "settings_for",
]
