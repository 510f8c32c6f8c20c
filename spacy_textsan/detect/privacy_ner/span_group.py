"""The chosen candidates of a detector as the candidate span group.

privacy_ner and the host rule layer (:mod:`.host_rules`) end the same way:
the chosen candidates, found on the detection copy, go back to the original
offsets, the tokens they start or end inside of are split, each becomes one
span (a detector may reshape or refuse it), the mentions of one entity share
an ``entity_id``, and the group is written to ``doc.spans[spans_key]``.
"""

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

from spacy.attrs import IDX
from spacy.tokens import Doc, Span, SpanGroup

from ...extensions import DIRECT, UNKNOWN
from .combine import Candidate
from .entity_ids import assign_entity_ids
from .normalize import NormalizedText

__all__ = ["split_tokens_at", "write_candidate_group"]


def split_tokens_at(doc: Doc, boundaries: Iterable[int]) -> None:
    """Split the tokens that a candidate starts or ends inside of
    (``1964-08-04;114.249.9.100;British`` is one token to spaCy's tokenizer),
    so that every span covers exactly its characters: a span expanded to a
    whole token would carry the rest of the token into its replacement."""
    cuts: dict[int, list[int]] = {}
    if not len(doc):
        return
    starts = doc.to_array(IDX).tolist()  # token start offsets, ascending
    for b in sorted(set(boundaries)):
        i = bisect_right(starts, b) - 1  # the token starting at or before b
        if i >= 0 and starts[i] < b < starts[i] + len(doc[i].text):
            cuts.setdefault(i, []).append(b - starts[i])
    if not cuts:
        return
    with doc.retokenize() as retokenizer:
        for i, offsets in cuts.items():
            token = doc[i]
            edges = [0] + offsets + [len(token.text)]
            orths = [token.text[a:b] for a, b in zip(edges, edges[1:], strict=False) if b > a]
            retokenizer.split(token, orths, heads=[(token, 0)] * len(orths))


def write_candidate_group(
    doc: Doc,
    chosen: Sequence[Candidate],
    norm: NormalizedText,
    spans_key: str,
    accept: Callable[[Span, Candidate], Span | None],
    fuzzy_threshold: float,
) -> SpanGroup:
    """Write ``doc.spans[spans_key]``: one span per chosen candidate.

    doc (Doc): The document; its tokens are split where a candidate starts or ends inside one.
    chosen (Sequence[Candidate]): The candidates, in offsets of the detection copy ``norm``.
    norm (NormalizedText): The detection copy the candidates were found on.
    spans_key (str): The span group written.
    accept (Callable[[Span, Candidate], Span | None]): The detector's last word on each span
        (expanded to whole tokens): the span to keep, reshaped or not, or None to drop it.
    fuzzy_threshold (float): How alike two mentions must be to be one entity (``assign_entity_ids``).
    RETURNS (SpanGroup): The group written; a span the group holds already is not added twice.
    """
    ranges = [norm.to_original(c.start, c.end) for c in chosen]
    split_tokens_at(doc, {b for r in ranges for b in r})
    spans: list[tuple[Span, Candidate]] = []
    seen = set()
    for c, (start, end) in zip(chosen, ranges, strict=True):
        span = doc.char_span(start, end, label=c.label, alignment_mode="expand")
        span = accept(span, c) if span is not None else None
        if span is None or (span.start, span.end) in seen:
            continue
        seen.add((span.start, span.end))
        spans.append((span, c))
    ids = assign_entity_ids([(s.text, s.label_) for s, _ in spans], fuzzy_threshold)
    group = SpanGroup(doc, name=spans_key)
    for (span, c), entity_id in zip(spans, ids, strict=True):
        span._.entity_id = entity_id
        span._.source = c.source
        if c.recognizer:
            span._.recognizer = c.recognizer
        span._.identifier_type = DIRECT if c.direct else UNKNOWN
        group.append(span)
    doc.spans[spans_key] = group
    return group
