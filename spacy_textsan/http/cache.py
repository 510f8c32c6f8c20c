"""One persistent cache for the answers of remote services: JSON values in an sqlite3 file.

A row per (namespace, normalized key), the key stored as its SHA-256 hash
(so that queries about people are not readable from the file), the value as
JSON text, with the time it was written. Entries older than ``ttl_s`` are
misses (``None``: never expire). Cache failures (a locked or corrupt file)
are logged and treated as misses: they never fail a request.

Web search keeps result URLs here, the Wikidata client its parsed answers,
each under namespaces of its own. The table and column names are those of
the first version (``search_cache``, ``urls``), so that files written then
are still read.
"""

import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

from ..text_folding import fold

logger = logging.getLogger(__name__)


def normalize_query(query: str) -> str:
    """The cache key form of a query: NFKC, case-folded, whitespace collapsed
    (:func:`spacy_textsan.text_folding.fold`)."""
    return fold(query)


def hash_key(*parts: str) -> str:
    """SHA-256 of ``parts`` joined by a unit separator (hex)."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


class ResponseCache:
    """JSON values by (namespace, key) in the sqlite3 file ``path``; see the module docstring.
    Pickles without its connection (each process opens its own)."""

    def __init__(self, path: str, ttl_s: float | None = 7 * 24 * 3600.0, now: Callable[[], float] = time.time):
        self.path = str(path)
        self.ttl_s = ttl_s
        self.now = now
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid: int | None = None
        self._broken = False

    def __getstate__(self) -> dict[str, Any]:  # connections do not travel to other processes
        state = dict(self.__dict__)
        state.update(_conn=None, _pid=None)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection | None:
        if self._broken:
            return None
        if self._conn is None or self._pid != os.getpid():
            try:
                directory = os.path.dirname(os.path.abspath(self.path))
                os.makedirs(directory, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=5.0, check_same_thread=False)
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS search_cache ("
                    " backend TEXT NOT NULL, query TEXT NOT NULL, urls TEXT NOT NULL,"
                    " created REAL NOT NULL, PRIMARY KEY (backend, query))"
                )
                conn.commit()
            except (sqlite3.Error, OSError) as e:
                logger.warning("response cache %s disabled: %s", self.path, type(e).__name__)
                self._broken = True
                return None
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def get(self, namespace: str, key: str) -> Any | None:
        """The value cached for ``key`` (normalised), or None (miss, expired or unreadable)."""
        hashed = hash_key(normalize_query(key))
        with self._lock:
            conn = self._connection()
            if conn is None:
                return None
            try:
                row = conn.execute(
                    "SELECT urls, created FROM search_cache WHERE backend = ? AND query = ?", (namespace, hashed)
                ).fetchone()
            except sqlite3.Error as e:
                logger.warning("response cache read failed: %s", type(e).__name__)
                return None
        if row is None:
            return None
        value_json, created = row
        if self.ttl_s is not None and self.now() - created > self.ttl_s:
            return None
        try:
            return json.loads(value_json)
        except ValueError:
            return None

    def set(self, namespace: str, key: str, value: Any) -> None:
        """Store a successful answer (replacing an older one); ``value`` must be JSON-serialisable."""
        hashed = hash_key(normalize_query(key))
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            try:
                conn.execute(
                    "INSERT OR REPLACE INTO search_cache (backend, query, urls, created) VALUES (?, ?, ?, ?)",
                    (namespace, hashed, json.dumps(value), self.now()),
                )
                conn.commit()
            except sqlite3.Error as e:
                logger.warning("response cache write failed: %s", type(e).__name__)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None
