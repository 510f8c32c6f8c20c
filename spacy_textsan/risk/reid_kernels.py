"""The passes over a background's postings that the attack makes for every document (:mod:`.reid_scores`),
compiled with Numba: each reads the postings of the document's terms where they lie (memory-mapped), in
one pass, without copying them (at a million records a document's common words hold tens of millions of
postings, and a copy, a scatter and a sparse product each cost a pass of their own).

The records are cut into ranges, one task each, run on every core: a task reads, of every term, the
postings of its range alone (found by bisection in the term's ascending records), so no two tasks write
the same record. A record's sum is taken term after term whatever the ranges, so the scores do not
depend on the number of threads.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable

import numpy as np
from numba import get_num_threads, njit, prange

__all__ = ["KINDS", "competing", "finish", "nth_largest", "record_ranges", "repeated_sums", "totals"]

#: the parts of a posting's weight :func:`finish` knows: BM25's, BM25+'s (a bonus ``delta`` per term
#: held) and the cosine's (log tf over the square root of the relative length)
KINDS = {"bm25": 0, "plus": 1, "cosine": 2}
#: Numba's default threading layer (workqueue) must not be entered by two threads at once (a service
#: answering requests in threads): a parallel pass runs under this lock
_LAUNCH = threading.Lock()

#: the records of a task: its sums (three numbers a record) stay in a core's cache while it reads every
#: term's postings of them
RANGE = 1 << 15
#: a background of at most this many records is read on the calling thread: its passes take microseconds,
#: and waking the other cores' threads costs more than that, most of all while a BLAS pool spins on them
#: (TAB's 219 judgments in a pipeline: 0.86 s of 40 documents' reid_risk in parallel passes, 0.11 s alone)
SERIAL_RECORDS = RANGE


def record_ranges(n_records: int) -> np.ndarray:
    """The bounds of the ranges of records the passes cut the background into (one task each): at most
    :data:`RANGE` records each, and at least one per thread."""
    tasks = max(1, min(n_records, max(get_num_threads(), -(-n_records // RANGE))))
    return np.linspace(0, n_records, tasks + 1).astype(np.int64)


@njit(cache=True, nogil=True, inline="always")
def _span(records: np.ndarray, start: int, end: int, lo: int, hi: int) -> tuple[int, int]:
    """Where the postings ``records[start:end]`` (ascending) of records ``lo`` to ``hi`` (exclusive) are."""
    part = records[start:end]
    return start + int(np.searchsorted(part, lo)), start + int(np.searchsorted(part, hi))


def _competing(
    records: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    lengths: np.ndarray,
    excluded: np.ndarray,
    ranges: np.ndarray,
) -> tuple[int, float, np.ndarray]:
    """``(n, total_length, df)``: how many records hold at least one of the terms (postings
    ``records[starts[u]:ends[u]]``), their lengths summed, and per term its postings; the records where
    ``excluded`` is set are not counted."""
    n_tasks, n_terms = ranges.shape[0] - 1, starts.shape[0]
    seen = np.zeros(lengths.shape[0], dtype=np.uint8)
    held = np.zeros((n_tasks, n_terms), dtype=np.int64)
    counted = np.zeros(n_tasks, dtype=np.int64)
    summed = np.zeros(n_tasks)
    for c in prange(n_tasks):
        lo, hi = ranges[c], ranges[c + 1]
        for u in range(n_terms):
            first, last = _span(records, starts[u], ends[u], lo, hi)
            for p in range(first, last):
                r = records[p]
                if excluded[r]:
                    continue
                held[c, u] += 1
                if not seen[r]:
                    seen[r] = 1
                    counted[c] += 1
                    summed[c] += lengths[r]
    return counted.sum(), summed.sum(), held.sum(axis=0)


def _totals(
    records: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    per_term: np.ndarray,
    total: np.ndarray,
    ranges: np.ndarray,
) -> None:
    """Into ``total``, per record, ``per_term`` summed over the terms it holds (postings
    ``records[starts[u]:ends[u]]``, each counted as held once; a term whose ``per_term`` is 0 is skipped)."""
    for c in prange(ranges.shape[0] - 1):
        lo, hi = ranges[c], ranges[c + 1]
        total[lo:hi] = 0.0
        for u in range(starts.shape[0]):
            w = per_term[u]
            if w == 0.0:
                continue
            first, last = _span(records, starts[u], ends[u], lo, hi)
            for p in range(first, last):
                total[records[p]] += w


def _repeated_sums(
    repeated: np.ndarray,
    repeated_tf: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    per_term: np.ndarray,
    lengths: np.ndarray,
    mean_length: float,
    k1: float,
    b: float,
    cosine: bool,
    out: np.ndarray,
    ranges: np.ndarray,
) -> None:
    """Per record, what the postings it holds more than once (``repeated``, their tf ``repeated_tf``, term
    ``u``'s from ``starts[u]`` to ``ends[u]``) add to :func:`totals`' sum: ``per_term`` times BM25's part of
    their tf less a single occurrence's, ``tf / (tf + norm) - 1 / (1 + norm)`` (``norm`` BM25's length
    norm), or with ``cosine`` the cosine's, ``log(tf) / sqrt(length / mean_length)``; written into ``out``."""
    for c in prange(ranges.shape[0] - 1):
        lo, hi = ranges[c], ranges[c + 1]
        out[lo:hi] = 0.0
        for u in range(starts.shape[0]):
            w = per_term[u]
            if w == 0.0:
                continue
            first, last = _span(repeated, starts[u], ends[u], lo, hi)
            for p in range(first, last):
                r = repeated[p]
                ft = np.float64(repeated_tf[p])
                length = lengths[r] / mean_length
                if cosine:
                    out[r] += w * (np.log(ft) / np.sqrt(max(length, 1e-3)))
                else:
                    norm = k1 * ((1 - b) + b * length)
                    out[r] += w * ((ft - 1.0) * norm / ((ft + norm) * (1.0 + norm)))


def _finish(
    total: np.ndarray,
    more: np.ndarray,
    lengths: np.ndarray,
    mean_length: float,
    k1: float,
    b: float,
    delta: float,
    kind: int,
) -> np.ndarray:
    """Every record's score: ``total`` times the part of a posting held once in it (by ``kind``, one of
    :data:`KINDS`), plus ``more``."""
    out = np.empty(total.shape[0])
    for r in prange(total.shape[0]):
        length = lengths[r] / mean_length
        if kind == 2:
            once = 1.0 / np.sqrt(max(length, 1e-3))
        else:
            once = 1.0 / (1.0 + k1 * ((1 - b) + b * length))
            if kind == 1:
                once += delta
        out[r] = total[r] * once + more[r]
    return out


@njit(cache=True, nogil=True)
def nth_largest(values: np.ndarray, n: int) -> float:
    """The ``n``-th largest of ``values`` (counted with repeats; ``1 <= n <= len(values)``), as
    ``np.partition(values, len(values) - n)[len(values) - n]``: one pass keeping the ``n`` largest in a
    heap, most values turned away by one comparison."""
    heap = np.empty(n)
    size = 0
    for v in values:
        if size < n:
            # sift up
            i = size
            heap[i] = v
            size += 1
            while i > 0:
                parent = (i - 1) // 2
                if heap[parent] <= heap[i]:
                    break
                heap[parent], heap[i] = heap[i], heap[parent]
                i = parent
        elif v > heap[0]:
            # replace the smallest kept, sift down
            heap[0] = v
            i = 0
            while True:
                left, smallest = 2 * i + 1, i
                if left < n and heap[left] < heap[smallest]:
                    smallest = left
                if left + 1 < n and heap[left + 1] < heap[smallest]:
                    smallest = left + 1
                if smallest == i:
                    break
                heap[smallest], heap[i] = heap[i], heap[smallest]
                i = smallest
    return heap[0]


def _twins(kernel: Callable, records_of: Callable[..., int]) -> Callable:
    """``kernel`` compiled twice: run on every core (under :data:`_LAUNCH`) over a background of more than
    :data:`SERIAL_RECORDS` records (``records_of(*args)``), on the calling thread alone over a smaller one.
    The same sums in the same order either way."""
    parallel = njit(parallel=True, cache=True, nogil=True)(kernel)
    serial = njit(cache=True, nogil=True)(kernel)

    @functools.wraps(kernel)
    def run(*args):
        if records_of(*args) <= SERIAL_RECORDS:
            return serial(*args)
        with _LAUNCH:
            return parallel(*args)

    return run


def _ranged(*args) -> int:
    return int(args[-1][-1])  # the last argument: the ranges' bounds, the last of them every record


competing = _twins(_competing, _ranged)
totals = _twins(_totals, _ranged)
repeated_sums = _twins(_repeated_sums, _ranged)
finish = _twins(_finish, lambda total, *rest: total.shape[0])
