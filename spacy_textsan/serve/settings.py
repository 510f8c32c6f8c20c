"""What ``textsan serve`` is told: where it listens, who may call it, how much
it accepts and how long it waits (:class:`ServeSettings`)."""

import ipaddress
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..render.keys import Secret

#: The environment variable of the API token (``--token-file`` wins over it).
TOKEN_ENV = "TEXTSAN_TOKEN"
#: How ``textsan serve --workers N`` hands its settings to each worker process (never the token itself).
SERVE_CONFIG_ENV = "TEXTSAN_SERVE_CONFIG"


class SettingsError(ValueError):
    """Settings the service refuses to start with (the message says why)."""


@dataclass
class ServeSettings:
    """The settings of one service (``textsan serve`` options).

    The defaults are safe: loopback only, no CORS, nothing stored, bounded
    requests. ``token`` is required on any other host (:meth:`check`).
    """

    host: str = "127.0.0.1"
    port: int = 8000
    #: the API token (None: no token asked for, loopback only)
    token: Secret | None = None
    #: origins allowed to call the API from a browser page of theirs (CORS); none by default
    cors: list[str] = field(default_factory=list)
    #: the largest request body accepted, in bytes (413 beyond)
    max_request_bytes: int = 10 * 1024 * 1024
    #: the longest document accepted, in characters (422 beyond)
    max_document_chars: int = 1_000_000
    #: the most texts one request may hold (422 beyond)
    max_texts: int = 100
    #: seconds a request waits for its documents (504 beyond; nothing of them comes back)
    timeout_s: float = 60.0
    #: where each request's results are written (None: nothing is stored)
    store: Path | None = None
    #: documents per nlp.pipe call of the batching worker
    batch_size: int = 32
    #: requests waiting at most; one more is answered 503
    max_queue: int = 64
    #: a document that fails: mask-all (every candidate masked) or skip (the redaction notice)
    on_error: str = "mask-all"
    #: the pipeline's name as shown by GET /health
    pipeline: str = "default"
    #: privacy_ner's source NER in a process of its own (its NER runs beside the rules: two cores used)
    ner_process: bool = False

    def to_json(self) -> dict[str, Any]:
        """The settings as JSON, without the token."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "token"}
        out["store"] = str(self.store) if self.store is not None else None
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any], token: Secret | None) -> "ServeSettings":
        settings = cls(**{**data, "token": token})
        settings.store = Path(settings.store) if settings.store is not None else None
        return settings

    def check(self) -> None:
        """Raise :class:`SettingsError` for settings that must not run: a
        non-loopback host without a token, limits that are not positive."""
        if not is_loopback(self.host) and self.token is None:
            raise SettingsError(
                f"--host {self.host} is reachable from other machines: give an API token "
                f"(--token-file FILE or ${TOKEN_ENV}); without one textsan serve binds to 127.0.0.1 only"
            )
        for name in ("max_request_bytes", "max_document_chars", "max_texts", "batch_size", "max_queue"):
            if getattr(self, name) < 1:
                raise SettingsError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.timeout_s <= 0:
            raise SettingsError(f"timeout_s must be positive, not {self.timeout_s}")
        if self.on_error not in ("mask-all", "skip"):
            raise SettingsError(f"on_error must be mask-all or skip, not {self.on_error!r}")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False
