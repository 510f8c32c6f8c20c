"""The ``supervised_risk`` factory: a span classifier of DIRECT / QUASI / NO_MASK.

Papadopoulou et al. (2022a, §3.2.3) train a classifier on TAB's ``identifier_type`` to say which
detected spans must be masked. This component is spaCy's own single-label
span categorizer (``spancat_singlelabel``) with two changes:

* its suggester proposes the candidate spans, not n-grams
  (``spacy_textsan.candidate_suggester.v1``: ``doc.spans["textsan"]``, or
  ``doc.ents`` when a doc has no candidates group);
* besides the usual span group (``doc.spans[spans_key]``, labels DIRECT /
  QUASI / NO_MASK with their probability in ``attrs["scores"]``) it writes on
  every candidate ``span._.risk["supervised"]`` = P(DIRECT) + P(QUASI) and,
  for a candidate whose identifier type is still unknown, the most probable
  identifier type. ``mask_optimizer`` turns the score into a constraint by
  config: ``risk_thresholds = {"supervised": 0.5}``.

Training: ``spacy_textsan.risk_corpus.v1`` reads the DocBins of ``textsan
convert`` and gives every Example the gold mentions as candidates on the
predicted side and their identifier types as the reference span group, so
the classifier learns on exactly the spans it will judge.
"""

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy
import spacy
from spacy.language import Language
from spacy.pipeline.spancat import SpanCategorizer, spancat_score
from spacy.tokens import Doc, DocBin, Span
from spacy.training import Example
from thinc.api import Config, Model, Ops, get_current_ops
from thinc.types import Ragged

from ..extensions import DIRECT, NO_MASK, QUASI, SPANS_KEY, UNKNOWN, get_candidates, set_risk
from ..pipeline import load_pipeline

__all__ = [
    "SupervisedRisk",
    "make_supervised_risk",
    "build_candidate_suggester",
    "create_risk_corpus",
    "create_candidate_risk_corpus",
    "RISK_LABELS",
    "MEASURE",
]

MEASURE = "supervised"
RISK_LABELS = (DIRECT, QUASI, NO_MASK)
GOLD_KEY = "textsan_gold"  # the span group written by ``textsan convert``

DEFAULT_MODEL = Config().from_str("""
[model]
@architectures = "spacy.SpanCategorizer.v1"
scorer = {"@layers": "Softmax.v2"}

[model.reducer]
@layers = "spacy.mean_max_reducer.v1"
hidden_size = 128

[model.tok2vec]
@architectures = "spacy.Tok2Vec.v2"

[model.tok2vec.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 96
rows = [5000, 1000, 2500, 2500]
attrs = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]
include_static_vectors = false

[model.tok2vec.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = 96
window_size = 2
maxout_pieces = 3
depth = 4
""")["model"]


@spacy.registry.misc("spacy_textsan.candidate_suggester.v1")
def build_candidate_suggester(spans_key: str = SPANS_KEY) -> Callable[..., Ragged]:
    """Suggest the candidate spans of ``doc.spans[spans_key]`` (``doc.ents``
    when the doc has no such group), in order, as spancat expects."""

    def suggest(docs: Iterable[Doc], *, ops: Ops | None = None) -> Ragged:
        ops = ops or get_current_ops()
        rows: list[list[int]] = []
        lengths: list[int] = []
        for doc in docs:
            spans = doc.spans[spans_key] if spans_key in doc.spans else doc.ents
            pairs = sorted({(s.start, s.end) for s in spans})
            rows.extend([a, b] for a, b in pairs)
            lengths.append(len(pairs))
        data = ops.asarray2i(rows) if rows else ops.alloc2i(0, 2)
        return Ragged(data, ops.asarray1i(lengths))

    return suggest


@Language.factory(
    "supervised_risk",
    requires=["doc.spans"],
    assigns=["doc.spans"],
    default_config={
        "model": DEFAULT_MODEL,
        "suggester": {"@misc": "spacy_textsan.candidate_suggester.v1", "spans_key": SPANS_KEY},
        "spans_key": "textsan_risk",
        "candidates_key": SPANS_KEY,
        "scorer": {"@scorers": "spacy.spancat_scorer.v1"},
    },
    default_score_weights={"spans_textsan_risk_f": 1.0, "spans_textsan_risk_p": 0.0, "spans_textsan_risk_r": 0.0},
)
def make_supervised_risk(
    nlp: Language,
    name: str,
    model: Model,
    suggester: Callable,
    spans_key: str,
    candidates_key: str,
    scorer: Callable | None,
) -> "SupervisedRisk":
    return SupervisedRisk(
        nlp.vocab, model, suggester, name=name, spans_key=spans_key, candidates_key=candidates_key, scorer=scorer
    )


class SupervisedRisk(SpanCategorizer):
    """Single-label span categorizer over the candidates (see the module doc)."""

    #: a risk measure (see :mod:`spacy_textsan.stages`)
    textsan_stage = "risk"
    #: what it reads and writes (:mod:`spacy_textsan.stages`)
    textsan_reads = ("doc.spans",)
    textsan_measures = ("doc.spans", "span._.risk", "doc._.risky_sets")

    def __init__(
        self,
        vocab,
        model: Model,
        suggester: Callable,
        name: str = "supervised_risk",
        *,
        spans_key: str = "textsan_risk",
        candidates_key: str = SPANS_KEY,
        scorer: Callable | None = spancat_score,
    ):
        super().__init__(
            vocab,
            model,
            suggester,
            name,
            add_negative_label=False,
            spans_key=spans_key,
            negative_weight=None,
            allow_overlap=True,
            max_positive=1,
            threshold=None,
            scorer=scorer,
        )
        self.candidates_key = candidates_key

    def set_annotations(self, docs: Iterable[Doc], indices_scores) -> None:
        docs = list(docs)
        super().set_annotations(docs, indices_scores)
        indices, scores = indices_scores
        scores = self.model.ops.to_numpy(scores)
        labels = list(self.labels)
        cols = {label: labels.index(label) for label in RISK_LABELS if label in labels}
        offset = 0
        for i, doc in enumerate(docs):
            n = int(indices.lengths[i])
            rows = self.model.ops.to_numpy(indices[i].dataXd)
            by_tokens = {(int(a), int(b)): scores[offset + k] for k, (a, b) in enumerate(rows)}
            offset += n
            candidates = (
                doc.spans[self.candidates_key]
                if self.candidates_key in doc.spans
                else get_candidates(doc, self.candidates_key)
            )
            for span in candidates:
                row = by_tokens.get((span.start, span.end))
                if row is None:
                    continue
                p_mask = float(sum(row[cols[lb]] for lb in (DIRECT, QUASI) if lb in cols))
                set_risk(span, MEASURE, round(p_mask, 6))
                if (span._.identifier_type or UNKNOWN) == UNKNOWN:
                    span._.identifier_type = labels[int(numpy.argmax(row))]


@spacy.registry.readers("spacy_textsan.risk_corpus.v1")
def create_risk_corpus(
    path: str | Path,
    spans_key: str = "textsan_risk",
    candidates_key: str = SPANS_KEY,
    gold_key: str = GOLD_KEY,
    identifiers: list[str] = list(RISK_LABELS),  # noqa: B006 (confection fills the config from the default)
) -> Callable[[Language], Iterator[Example]]:
    """Examples for ``supervised_risk`` from a ``textsan convert`` DocBin: the
    predicted doc holds the gold mentions as candidates (label = entity type),
    the reference doc the mentions labelled with their identifier type.
    Mentions with another identifier type (UNKNOWN) are left out."""
    keep = set(identifiers)

    def read(nlp: Language) -> Iterator[Example]:
        for gold in DocBin().from_disk(path).get_docs(nlp.vocab):
            mentions = [s for s in gold.spans.get(gold_key, []) if s.id_ in keep]
            if not mentions:
                continue
            predicted = nlp.make_doc(gold.text)
            reference = _same_tokens(predicted)
            predicted.spans[candidates_key] = [
                Span(predicted, s.start, s.end, label=s.label_) for s in _retokenized(predicted, mentions)
            ]
            reference.spans[spans_key] = [
                Span(reference, s.start, s.end, label=s.id_) for s in _retokenized(reference, mentions)
            ]
            yield Example(predicted, reference)

    return read


@spacy.registry.readers("spacy_textsan.risk_corpus.v2")
def create_candidate_risk_corpus(
    path: str | Path,
    candidates_pipeline: str | Path,
    spans_key: str = "textsan_risk",
    candidates_key: str = SPANS_KEY,
    gold_key: str = GOLD_KEY,
    stop_at: str = "mask_optimizer",
) -> Callable[[Language], Iterator[Example]]:
    """Examples for ``supervised_risk`` on the spans it will judge: the candidates a pipeline
    (``candidates_pipeline``: a config or a pipeline folder, its components before ``stop_at``, run once
    per text) proposes, plus the gold mentions. Each is labelled by the gold mentions it overlaps: DIRECT,
    else QUASI, else NO_MASK (a candidate no annotator masked is what the classifier must learn to keep)."""
    cache: dict[str, list[tuple[int, int]]] = {}

    def proposed(texts: list[str]) -> None:
        todo = [t for t in dict.fromkeys(texts) if t not in cache]
        if not todo:
            return
        detect = load_pipeline(str(candidates_pipeline))
        if stop_at in detect.pipe_names:
            later = detect.pipe_names[detect.pipe_names.index(stop_at) :]
            detect.select_pipes(disable=later)
        for text, doc in zip(todo, detect.pipe(todo), strict=True):
            cache[text] = [(s.start_char, s.end_char) for s in get_candidates(doc, candidates_key)]

    def read(nlp: Language) -> Iterator[Example]:
        golds = list(DocBin().from_disk(path).get_docs(nlp.vocab))
        proposed([g.text for g in golds])
        for gold in golds:
            mentions = [s for s in gold.spans.get(gold_key, []) if s.id_ in RISK_LABELS]
            predicted = nlp.make_doc(gold.text)
            reference = _same_tokens(predicted)
            bounds = {(s.start_char, s.end_char): s.label_ for s in mentions}
            for start, end in cache[gold.text]:
                bounds.setdefault((start, end), "CANDIDATE")
            spans, labels = [], []
            for (start, end), label in sorted(bounds.items()):
                span = predicted.char_span(start, end, label=label, alignment_mode="expand")
                if span is None or not len(span):
                    continue
                spans.append(span)
                labels.append(_overlap_label(start, end, mentions))
            predicted.spans[candidates_key] = spans
            reference.spans[spans_key] = [
                Span(reference, s.start, s.end, label=label) for s, label in zip(spans, labels, strict=True)
            ]
            yield Example(predicted, reference)

    return read


def _same_tokens(doc: Doc) -> Doc:
    """A blank doc with ``doc``'s tokens: the reference side of an Example."""
    return Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc])


def _overlap_label(start: int, end: int, mentions: list[Span]) -> str:
    """DIRECT when ``[start, end)`` overlaps a DIRECT gold mention, else QUASI for a QUASI one, else NO_MASK."""
    types = {m.id_ for m in mentions if m.start_char < end and start < m.end_char}
    return next((t for t in (DIRECT, QUASI) if t in types), NO_MASK)


def _retokenized(doc: Doc, spans: Iterable[Span]) -> Iterator[Span]:
    for s in spans:
        span = doc.char_span(s.start_char, s.end_char, label=s.label_, span_id=s.id_, alignment_mode="expand")
        if span is not None and len(span):
            yield span
