"""The one thread that runs the pipeline for the service, and the bounded
queue in front of it.

Requests do not call the pipeline: they put a job in a bounded queue
(:class:`Busy` when it is full) and wait for its future. The worker takes a
job and every other one waiting, up to ``batch_size`` documents, groups them
by the settings they need (strategy, ``on_error``) and sanitizes each group in
one :func:`~spacy_textsan.run.runner.sanitize_texts` call: one ``nlp.pipe``
for many concurrent requests, failing closed document by document. Each call
runs in a memory zone of spaCy (``nlp.memory_zone()``), so the strings of the
texts are freed with their docs and memory stays flat over a long run; no Doc
leaves the zone (results hold plain strings and lists).

One thread per process: the pipeline and its memory zones are not shared
between threads. ``textsan serve --workers N`` runs N processes. A service of
several languages (``textsan serve --lang en,fr``) has one pipeline per
language, run by the same thread; a job says its language (None: the first).
"""

import ctypes
import functools
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from spacy.language import Language

from ..run.results import DocResult
from ..run.runner import SanitizationError, sanitize_texts
from .variants import Variants

logger = logging.getLogger("spacy_textsan")


class Busy(RuntimeError):
    """The queue is full: the service answers 503 (try again later)."""


@dataclass
class TextJob:
    """Texts to sanitize with one request's settings."""

    texts: list[str]
    overrides: dict[str, object] = field(default_factory=dict)
    on_error: str = "mask-all"
    future: Future = field(default_factory=Future)
    #: the language of the pipeline to run (None: the service's first)
    language: str | None = None


@dataclass
class CallJob:
    """A function of the pipeline (``fn(nlp)``) run alone in the worker: the
    re-rendering of a reviewed document. It must return no Doc."""

    fn: Callable[[Language], Any]
    overrides: dict[str, object] = field(default_factory=dict)
    future: Future = field(default_factory=Future)


_STOP = object()

#: documents between two :func:`trim_heap` calls of the pipeline thread
TRIM_EVERY = 500


def trim_heap() -> bool:
    """Give the free pages of the C heap back to the system (glibc's
    ``malloc_trim``; False where there is none). The pipeline frees what each
    batch allocated, but glibc keeps the freed pages of its arenas: without
    this a service's RSS crept up by megabytes per thousand documents, with
    it the RSS stays flat (docs/scale.md). A call takes a few milliseconds."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@functools.lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None).malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):  # not glibc
        return None


class PipelinePool:
    """A bounded queue of jobs and the thread that runs them (see the module doc)."""

    def __init__(
        self,
        nlp: Language,
        *,
        batch_size: int = 32,
        max_queue: int = 64,
        memory_zones: bool = True,
        gather_s: float = 0.01,
        pipelines: Mapping[str, Language] | None = None,
    ):
        self.nlp = nlp
        self.variants = Variants(nlp)
        #: the variants of each language's pipeline (``nlp``'s language: :attr:`variants`)
        self.by_language = {lang: Variants(other) for lang, other in (pipelines or {}).items() if other is not nlp}
        self.by_language[str(nlp.lang)] = self.variants
        self.batch_size = batch_size
        self.memory_zones = memory_zones
        self.gather_s = gather_s
        # requests in flight (submitted, not answered), and the most of them seen
        # during each of the latest two batches: how many clients are sending
        self._in_flight = 0
        self._peaks: deque[int] = deque([1], maxlen=2)
        self._count_lock = threading.Lock()
        self._queue: queue.Queue = queue.Queue(maxsize=max_queue)
        self._thread: threading.Thread | None = None
        #: documents of the latest sanitize_texts calls (one nlp.pipe for concurrent requests)
        self.batches: deque[int] = deque(maxlen=1000)
        #: documents since the C heap last gave its free pages back (:func:`trim_heap`)
        self._since_trim = 0

    # -- life ------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="textsan-pipeline", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Finish the job at hand, cancel those waiting, end the thread."""
        if self._thread is None:
            return
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                break
            if job is not _STOP:
                job.future.cancel()
        self._queue.put(_STOP)
        self._thread.join(timeout)
        self._thread = None

    @property
    def depth(self) -> int:
        return self._queue.qsize()

    # -- submitting --------------------------------------------------------------

    def submit(self, job: TextJob | CallJob) -> Future:
        """Queue ``job``; :class:`Busy` when the queue is full."""
        self.start()
        try:
            self._queue.put_nowait(job)
        except queue.Full:
            raise Busy(f"{self._queue.maxsize} requests are waiting already") from None
        with self._count_lock:
            self._in_flight += 1
            self._peaks[-1] = max(self._peaks[-1], self._in_flight)
        job.future.add_done_callback(self._answered)
        return job.future

    def _answered(self, _future: Future) -> None:
        with self._count_lock:
            self._in_flight -= 1

    # -- the worker --------------------------------------------------------------

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            jobs = [first]
            size = len(first.texts) if isinstance(first, TextJob) else self.batch_size
            # everything else waiting, up to a batch; while fewer requests came than there
            # were clients sending during the latest two batches, the ones on their way are
            # waited for (gather_s at most): clients answered together send their next
            # requests together, and one nlp.pipe for all of them is faster than one per
            # request. A lone client never waits.
            deadline = time.monotonic() + self.gather_s
            with self._count_lock:
                clients = max(self._peaks)
                self._peaks.append(self._in_flight)
            while size < self.batch_size:
                remaining = deadline - time.monotonic()
                try:
                    if len(jobs) < clients and remaining > 0:
                        nxt = self._queue.get(timeout=remaining)
                    else:
                        nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is _STOP:
                    self._queue.put(_STOP)
                    break
                jobs.append(nxt)
                size += len(nxt.texts) if isinstance(nxt, TextJob) else self.batch_size
            self._run_jobs([j for j in jobs if j.future.set_running_or_notify_cancel()])

    def _run_jobs(self, jobs: list) -> None:
        groups: dict[tuple, list[TextJob]] = {}
        for job in jobs:
            if isinstance(job, CallJob):
                self._guarded(job)
            elif job.on_error == "fail":  # its failure must stop no other request
                groups[("fail", id(job))] = [job]
            else:
                key = (job.on_error, job.language, tuple(sorted((k, repr(v)) for k, v in job.overrides.items())))
                groups.setdefault(key, []).append(job)
        for group in groups.values():
            self._guarded_group(group)

    def _zone(self, nlp: Language) -> AbstractContextManager:
        return nlp.memory_zone() if self.memory_zones else nullcontext()

    def _call(self, job: CallJob) -> Any:
        nlp = self.variants.get(job.overrides)
        with self._zone(nlp):
            return job.fn(nlp)

    def _sanitize(self, group: list[TextJob]) -> list[list[DocResult]]:
        language = group[0].language
        variants = self.variants if language is None else self.by_language[language]
        nlp = variants.get(group[0].overrides)
        texts = [t for job in group for t in job.texts]
        # sanitize_texts enters a memory zone per chunk itself (zones do not nest)
        results = list(sanitize_texts(nlp, texts, batch_size=self.batch_size, on_error=group[0].on_error))
        self.batches.append(len(texts))
        self._since_trim += len(texts)
        if self._since_trim >= TRIM_EVERY:
            self._since_trim = 0
            trim_heap()
        out, i = [], 0
        for job in group:
            out.append(results[i : i + len(job.texts)])
            i += len(job.texts)
        return out

    def _guarded_group(self, group: list[TextJob]) -> None:
        try:
            per_job = self._sanitize(group)
        except (ValueError, SanitizationError) as e:  # a strategy the generalizer refuses; on_error="fail"
            for job in group:
                job.future.set_exception(e)
            return
        except Exception as e:  # never leave a request waiting
            logger.error("the pipeline worker failed: %s", type(e).__name__)
            for job in group:
                job.future.set_exception(e)
            return
        for job, results in zip(group, per_job, strict=True):
            job.future.set_result(results)

    def _guarded(self, job: CallJob) -> None:
        try:
            job.future.set_result(self._call(job))
        except Exception as e:
            job.future.set_exception(e)
