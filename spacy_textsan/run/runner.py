"""Running a pipeline over many texts in this process, failing closed: a batch
that raises is retried document by document, a document that raises or runs
out of time is masked whole, redacted or stops the run (``on_error``)."""

import logging
import math
import os
import signal
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from itertools import islice

from spacy.language import Language

from ..decide.mask_all import MaskAll
from ..pipeline import spans_key_of
from ..stages import stage_of
from .results import FALLBACK, DocResult, failed_result, result_from_doc

logger = logging.getLogger("spacy_textsan")

#: What happens to a document whose processing raises or runs out of time (``on_error``).
ON_ERROR = ("mask-all", "skip", "fail")


#: Stages (a component's ``textsan_stage``) the ``mask-all`` fallback leaves out:
#: masking every candidate is at least as safe as any risk measure or decision. A
#: component of another package that only scores or decides says so with an
#: attribute ``textsan_skippable = True``.
SKIPPABLE_STAGES = ("risk", "decide")


#: Where the source NER of the detectors runs (``ner_process``): ``on`` in a
#: process of its own beside the pipeline, ``off`` in this process, ``auto``
#: on when it pays (:func:`wants_ner_process`).
NER_PROCESS = ("auto", "on", "off")

#: ``auto``: inputs shorter than this (characters, or bytes of the input
#: files) run in this process: the NER process takes a few seconds to start.
NER_PROCESS_MIN_CHARS = 100_000


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def wants_ner_process(mode: str, *, n_process: int = 1, n_chars: int | None = None) -> bool:
    """Whether the source NER runs in a process of its own (see
    :data:`NER_PROCESS`). ``auto`` says yes with two CPUs or more, one
    pipeline process (``n_process``), and an input of at least
    :data:`NER_PROCESS_MIN_CHARS` (``n_chars``; None: unknown, long)."""
    if mode not in NER_PROCESS:
        raise ValueError(f"ner_process must be one of {', '.join(NER_PROCESS)}, not {mode!r}")
    if mode == "on" and n_process != 1:
        raise ValueError("a NER process works with one pipeline process (n_process=1)")
    if mode != "auto":
        return mode == "on"
    return n_process == 1 and usable_cpus() >= 2 and (n_chars is None or n_chars >= NER_PROCESS_MIN_CHARS)


@contextmanager
def ner_process(nlp: Language, enabled: bool = True) -> Iterator[int]:
    """While the block runs, the detectors of ``nlp`` that can
    (``use_source_process``: privacy_ner) run their source NER in a process
    of their own: their NER reads the next documents while this process
    applies the rules and the rest of the pipeline, so a run takes about the
    time of the NER alone on two cores (a detector built with
    ``source_process = true`` has its process already). Yields how many
    detectors run their NER in a process; the processes end with the block
    (a later call starts them again)."""
    running = []
    if enabled:
        for _, proc in nlp.pipeline:
            if hasattr(proc, "use_source_process"):
                proc.use_source_process(True)  # started (or waited for, if it is loading) here
                process = getattr(proc, "source_process", None)
                if process is not None:
                    running.append(process)
    try:
        yield len(running)
    finally:
        for process in running:
            process.close()


#: The shortest time budget of a document that means something (a timer
#: rounds a shorter one to its first tick, so every document would run out of
#: time), and the longest timer set: a chunk's budget (the budget times its
#: documents) is capped here, below what ``setitimer`` takes (the platform's
#: ``time_t``).
MIN_TIMEOUT_S, MAX_TIMER_S = 0.001, 100_000_000.0


def check_timeout(timeout_s: float | None) -> None:
    """Raise ValueError unless ``timeout_s`` is None, 0 (no budget) or a finite
    number of seconds of at least :data:`MIN_TIMEOUT_S`."""
    if timeout_s is None or timeout_s == 0:
        return
    if not (math.isfinite(timeout_s) and timeout_s >= MIN_TIMEOUT_S):
        raise ValueError(
            f"timeout_s must be None, 0 (none) or a finite number of seconds of at least {MIN_TIMEOUT_S:g}, "
            f"not {timeout_s!r}"
        )


class SanitizationError(RuntimeError):
    """``on_error="fail"``: a document could not be sanitized; the run stops."""


class DocumentTimeout(Exception):
    """A document took longer than its time budget."""


@contextmanager
def time_budget(seconds: float | None):
    """Raise :class:`DocumentTimeout` in the block after ``seconds`` (wall
    clock; main thread of a Unix process only, elsewhere no limit)."""
    usable = (
        seconds is not None
        and seconds > 0
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable or seconds is None:
        yield
        return

    def expire(signum, frame):
        raise DocumentTimeout(f"time budget of {seconds:g}s exceeded")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, MAX_TIMER_S))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def fallback_result(
    nlp: Language, text: str, error: str, spans_key: str, keep_doc: bool, timeout_s: float | None
) -> DocResult:
    """``mask-all``: run the pipeline again without the components that
    masking everything makes unnecessary (risk measures, decisions), mask
    every candidate, and render. A failing detector or generalizer, or a
    second timeout, gives the redaction notice instead (a detector that did
    not run cannot vouch that nothing else is in the text)."""
    errors = [error]
    try:
        with time_budget(timeout_s):
            doc = nlp.make_doc(text)
            masked = False
            for _, proc in nlp.pipeline:
                stage = stage_of(proc)
                if stage in SKIPPABLE_STAGES or getattr(proc, "textsan_skippable", False):
                    continue
                if stage == "render" and not masked:
                    doc = MaskAll(overwrite=True, spans_key=spans_key)(doc)
                    masked = True
                doc = proc(doc)
            if not masked:
                doc = MaskAll(overwrite=True, spans_key=spans_key)(doc)
        result = result_from_doc(doc, spans_key, keep_doc)
    except Exception as e:
        logger.error("fallback failed: %s: %s", type(e).__name__, e)
        return failed_result(
            text, "; ".join(errors + [f"fallback (mask every candidate) failed: {type(e).__name__}: {e}"])
        )
    if not result.ok:
        return failed_result(text, "; ".join(errors + result.errors))
    result.errors = errors + [e for e in result.errors if e not in errors] + ["fallback: every candidate span masked"]
    result.status = FALLBACK
    return result


def sanitize_texts(
    nlp: Language,
    texts: Iterable[str],
    *,
    batch_size: int = 32,
    n_process: int = 1,
    keep_docs: bool = False,
    on_error: str = "mask-all",
    timeout_s: float | None = None,
) -> Iterator[DocResult]:
    """One :class:`DocResult` per text, in input order.

    A batch that raises is retried one document at a time; a document that
    raises (or exceeds ``timeout_s`` seconds, when given) is handled by
    ``on_error``: ``mask-all`` (:func:`fallback_result`, then the redaction
    notice if that fails too), ``skip`` (the redaction notice at once) or
    ``fail`` (:class:`SanitizationError`). ``timeout_s`` applies per
    document, and to a batch as ``timeout_s`` times its size; it needs the
    main thread of a Unix process and ``n_process=1``; None or 0: no budget
    (see :func:`check_timeout`).
    """
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {ON_ERROR}, not {on_error!r}")
    check_timeout(timeout_s)
    spans_key = spans_key_of(nlp)
    it = iter(texts)
    chunk_size = max(1, batch_size) * max(1, n_process)
    budget = timeout_s if n_process == 1 else None
    # detectors whose NER runs in a process of its own read one chunk ahead
    ahead = [p for _, p in nlp.pipeline if getattr(p, "source_process", None) is not None] if n_process == 1 else []
    chunk = list(islice(it, chunk_size))
    _prefetch(ahead, chunk)
    while chunk:
        following = list(islice(it, chunk_size))
        _prefetch(ahead, following)
        # The strings of a chunk's documents are dropped with them (spaCy's memory
        # zone), so a run of millions of rows does not grow the vocabulary for ever;
        # a DocResult holds plain Python values only. Docs kept need their strings.
        with nlp.memory_zone() if not keep_docs else nullcontext():
            results = _sanitize_chunk(nlp, chunk, spans_key, batch_size, n_process, keep_docs, on_error, budget)
        yield from results
        chunk = following


def _prefetch(detectors: list, texts: list[str]) -> None:
    """The texts of the next chunk to the NER process of each detector
    (privacy_ner's ``prefetch``): it reads them while this chunk ends."""
    for detector in detectors:
        if texts and hasattr(detector, "prefetch"):
            detector.prefetch(texts)


def _sanitize_chunk(
    nlp: Language,
    chunk: list[str],
    spans_key: str,
    batch_size: int,
    n_process: int,
    keep_docs: bool,
    on_error: str,
    budget: float | None,
) -> list[DocResult]:
    """The results of one chunk of texts (see :func:`sanitize_texts`)."""
    try:
        with time_budget(budget * len(chunk) if budget else None):
            docs = list(nlp.pipe(chunk, batch_size=batch_size, n_process=n_process))
        results = [result_from_doc(d, spans_key, keep_docs) for d in docs]
    except Exception as batch_error:  # fail closed: retry one by one
        logger.warning("batch failed (%s); retrying documents one by one", batch_error)
        results = []
        for text in chunk:
            try:
                with time_budget(budget):
                    doc = nlp(text)
                results.append(result_from_doc(doc, spans_key, keep_docs))
            except Exception as e:
                error = f"{type(e).__name__}: {e}"
                logger.error("sanitization failed: %s", error)
                if on_error == "fail":
                    raise SanitizationError(error) from e
                if on_error == "skip":
                    results.append(failed_result(text, error))
                else:
                    results.append(fallback_result(nlp, text, error, spans_key, keep_docs, budget))
    return results
