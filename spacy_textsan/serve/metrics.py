"""``GET /metrics``: requests by endpoint and answer, documents by status,
latency percentiles. Counts only: no text, no span, no client address."""

import math
import threading
from collections import Counter, deque
from collections.abc import Iterable

from ..run.files import STATUSES

#: Latencies kept for the percentiles (the latest ones; memory stays bounded).
LATENCY_WINDOW = 10_000


def percentile(sorted_values: list[float], q: float) -> float | None:
    """The nearest-rank ``q``-th percentile of ``sorted_values`` (None: no value)."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


class Metrics:
    """Counters of one service process, safe to update from any thread."""

    def __init__(self, window: int = LATENCY_WINDOW) -> None:
        self._lock = threading.Lock()
        self.requests: Counter[str] = Counter()
        self.answers: Counter[str] = Counter()
        self.documents: Counter[str] = Counter(dict.fromkeys(STATUSES, 0))
        self.latencies_ms: deque[float] = deque(maxlen=window)
        self.timeouts = 0
        self.rejected_busy = 0

    def request(self, path: str, status: int, elapsed_s: float) -> None:
        """One answered request of ``path`` (a route's path, never a query)."""
        with self._lock:
            self.requests[path] += 1
            self.answers[str(status)] += 1
            self.latencies_ms.append(elapsed_s * 1000)

    def documents_done(self, statuses: Iterable[str]) -> None:
        with self._lock:
            self.documents.update(statuses)

    def timeout(self) -> None:
        with self._lock:
            self.timeouts += 1

    def busy(self) -> None:
        with self._lock:
            self.rejected_busy += 1

    def snapshot(self, queue_depth: int = 0, batches: Iterable[int] = (), ner_process: dict | None = None) -> dict:
        """What ``GET /metrics`` answers (``batches``: documents of the
        latest ``nlp.pipe`` calls of the pipeline thread; ``ner_process``: the
        state of privacy_ner's NER process, None when it runs in-process)."""
        sizes: list[float] = sorted(batches)
        with self._lock:
            values = sorted(self.latencies_ms)
            return {
                "requests": {"total": sum(self.requests.values()), "by_path": dict(sorted(self.requests.items()))},
                "answers": dict(sorted(self.answers.items())),
                "documents": {"total": sum(self.documents.values()), **{s: self.documents[s] for s in STATUSES}},
                "latency_ms": {
                    "p50": _rounded(percentile(values, 50)),
                    "p90": _rounded(percentile(values, 90)),
                    "p99": _rounded(percentile(values, 99)),
                    "window": len(values),
                },
                "timeouts": self.timeouts,
                "rejected_busy": self.rejected_busy,
                "queue_depth": queue_depth,
                "batch_documents": {
                    "p50": percentile(sizes, 50),
                    "max": sizes[-1] if sizes else None,
                    "window": len(sizes),
                },
                "ner_process": ner_process,
            }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
