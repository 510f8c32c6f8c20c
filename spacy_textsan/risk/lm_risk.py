"""``lm_risk``: language-model surprisal as a privacy risk (Papadopoulou et al. 2022a, §3.2.1).

Each candidate span gets its log-probability in context from a backend
(:mod:`.lm_backends`). A span that is hard to predict is specific, so:

* ``span._.info_content = -logprob`` (nats): the masking cost used by the
  optimizer (Papadopoulou et al. 2022a, §3.3);
* ``span._.risk["lm"] = -logprob`` (higher = riskier);
* a span with ``logprob < threshold`` is risky alone: it goes to
  ``doc._.risky_sets`` as a one-span set with the reason
  ``"log-probability -13.1 < -12"``.

Fail closed: if the backend raises (or returns something unusable) for a
document, the error is recorded with ``add_error``, every assessed candidate
becomes risky alone (reason ``"lm backend failed: …"``) and its
``info_content`` stays ``None``. The pipeline never crashes because of the
backend.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import minibatch

from ..extensions import SPANS_KEY, add_risky_set, fail_closed, get_candidates, set_risk
from .lm_backends import SpanLogProbBackend

#: Name of the measure in ``span._.risk`` and ``doc._.risky_sets``.
MEASURE = "lm"

#: Default threshold (nats) for the default wordfreq backend, calibrated on TAB
#: train (benchmarks/lm_risk_bench.py -> benchmarks/results/lm_risk_calibration.json):
#: the threshold with the best TPR - FPR among those flagging >= 90% of the
#: privacy_ner candidates that overlap gold DIRECT/QUASI mentions (train: 91% of
#: them flagged, 81% of the NO_MASK / unannotated ones; dev: 86% / 79%). Unigram
#: rarity separates the two weakly (AUC 0.64), so the default stays privacy
#: first. The paper's -3.5 is for RoBERTa log-probabilities in context: set the
#: threshold again with another backend.
DEFAULT_THRESHOLD = -12.0


@Language.factory(
    "lm_risk",
    requires=["doc.spans"],
    assigns=["doc._.risky_sets", "span._.risk", "span._.info_content"],
    default_config={
        "backend": {"@misc": "spacy_textsan.wordfreq_backend.v1"},
        "threshold": DEFAULT_THRESHOLD,
        "labels": None,
        "spans_key": SPANS_KEY,
        "batch_size": 64,
    },
)
def make_lm_risk(
    nlp: Language,
    name: str,
    backend: SpanLogProbBackend,
    threshold: float,
    labels: list[str] | None,
    spans_key: str,
    batch_size: int,
) -> LMRisk:
    return LMRisk(name, backend=backend, threshold=threshold, labels=labels, spans_key=spans_key, batch_size=batch_size)


def risk_reason(logprob: float, threshold: float) -> str:
    """``"log-probability -9.1 < -3.5"``."""
    return f"log-probability {logprob:.1f} < {threshold:g}"


class LMRisk:
    """Scores candidate spans with a log-probability backend.

    ``labels``: the candidate labels assessed (``None``: all); other spans are
    left untouched. ``batch_size``: documents sent to the backend at once by
    :meth:`pipe`.
    """

    #: a risk measure (see :mod:`spacy_textsan.stages`)
    textsan_stage = "risk"
    #: what it reads and writes (:mod:`spacy_textsan.stages`)
    textsan_reads = ("doc.spans",)
    textsan_measures = ("doc._.risky_sets", "span._.risk", "span._.info_content")

    def __init__(
        self,
        name: str = "lm_risk",
        *,
        backend: SpanLogProbBackend,
        threshold: float = DEFAULT_THRESHOLD,
        labels: Iterable[str] | None = None,
        spans_key: str = SPANS_KEY,
        batch_size: int = 64,
    ):
        if batch_size < 1:
            raise ValueError("lm_risk: batch_size must be >= 1")
        self.name = name
        self.backend = backend
        self.threshold = float(threshold)
        self.assessed_labels = None if labels is None else set(labels)
        self.spans_key = spans_key
        self.batch_size = batch_size

    def assessed(self, doc: Doc) -> list[Span]:
        """The candidate spans this component scores."""
        return [
            span
            for span in get_candidates(doc, self.spans_key)
            if self.assessed_labels is None or span.label_ in self.assessed_labels
        ]

    def __call__(self, doc: Doc) -> Doc:
        self._process([doc])
        return doc

    def pipe(self, stream: Iterable[Doc], batch_size: int | None = None) -> Iterator[Doc]:
        for batch in minibatch(stream, size=batch_size or self.batch_size):
            self._process(batch)
            yield from batch

    def _process(self, docs: Sequence[Doc]) -> None:
        spans = [self.assessed(doc) for doc in docs]
        todo = [i for i, doc_spans in enumerate(spans) if doc_spans]
        if not todo:
            return
        try:
            scores = self._scores([docs[i] for i in todo], [spans[i] for i in todo])
        except Exception:  # noqa: BLE001  (retry one by one below)
            scores = None
        for position, i in enumerate(todo):
            if scores is not None:
                self._apply(docs[i], spans[i], scores[position])
                continue
            try:  # the batch failed: find which documents fail
                doc_scores = self._scores([docs[i]], [spans[i]])[0]
            except Exception as error:  # noqa: BLE001  (fail closed, never crash)
                self._fail(docs[i], spans[i], error)
            else:
                self._apply(docs[i], spans[i], doc_scores)

    def _scores(self, docs: Sequence[Doc], spans: Sequence[list[Span]]) -> list[list[float]]:
        """Backend log-probabilities, checked (one finite value <= 0 per span)."""
        items = [
            (doc.text, [(s.start_char, s.end_char) for s in doc_spans])
            for doc, doc_spans in zip(docs, spans, strict=False)
        ]
        scores = self.backend.docs_span_logprobs(items)
        if len(scores) != len(items):
            raise ValueError(f"backend returned {len(scores)} results for {len(items)} documents")
        checked = []
        for doc_scores, (_, doc_offsets) in zip(scores, items, strict=False):
            doc_scores = [float(x) for x in doc_scores]
            if len(doc_scores) != len(doc_offsets):
                raise ValueError(f"backend returned {len(doc_scores)} scores for {len(doc_offsets)} spans")
            if not all(math.isfinite(x) for x in doc_scores):
                raise ValueError("backend returned a non-finite log-probability")
            checked.append([min(0.0, x) for x in doc_scores])
        return checked

    def _apply(self, doc: Doc, spans: Sequence[Span], logprobs: Sequence[float]) -> None:
        for span, logprob in zip(spans, logprobs, strict=False):
            span._.info_content = -logprob
            set_risk(span, MEASURE, -logprob)
            if logprob < self.threshold:
                add_risky_set(doc, MEASURE, [span], risk_reason(logprob, self.threshold))

    def _fail(self, doc: Doc, spans: Sequence[Span], error: Exception) -> None:
        """Fail closed: every assessed span risky alone, its ``info_content`` left ``None``."""
        message = f"{type(error).__name__}: {error}"
        fail_closed(doc, MEASURE, spans, f"lm backend failed: {message}", f"{self.name}: lm backend failed: {message}")
