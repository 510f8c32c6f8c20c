"""The Doc/Span contract shared by every spacy-textsan component, in one place.

Data flows one way:

    text -> privacy_ner / wikidata_gazetteer   candidate spans in doc.spans[SPANS_KEY]
         -> risk measures                      span._.risk, span._.info_content, doc._.risky_sets
         -> mask_optimizer (or mask_all)       span._.masked, span._.reasons
         -> generalizer                        span._.replacement, doc._.sanitized_text

Span extension values are stored by spaCy in ``doc.user_data`` keyed on the
span's character offsets, so two spans with the same offsets share their
values. The candidate span group therefore never holds two spans with the same
offsets (``privacy_ner`` deduplicates them).

Mutable values (dicts, lists) have ``None`` as default so that no default
object is ever shared between spans: use :func:`set_risk` and
:func:`add_reason` rather than mutating the value in place.
"""

from collections.abc import Iterable, Sequence
from typing import Any

from spacy.attrs import ORTH, SPACY
from spacy.tokens import Doc, Span

#: Name of the span group that holds the candidate spans.
SPANS_KEY = "textsan"

#: The 8 entity types of the Text Anonymization Benchmark.
TAB_LABELS = ("PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC")

#: Identifier kinds of TAB's ``identifier_type`` plus UNKNOWN (not decided yet).
DIRECT, QUASI, NO_MASK, UNKNOWN = "DIRECT", "QUASI", "NO_MASK", "UNKNOWN"
IDENTIFIER_TYPES = (DIRECT, QUASI, NO_MASK, UNKNOWN)

SPAN_EXTENSIONS = {
    # Mentions of one entity share one id, e.g. "PERSON-1".
    "entity_id": None,
    # DIRECT / QUASI / NO_MASK / UNKNOWN.
    "identifier_type": UNKNOWN,
    # Which detector(s) proposed the span: "ner:<pipeline>:<label>", "rule:<name>", ...
    "source": None,
    # The recognizer of privacy_ner that found it ("iban", "dates": detect/privacy_ner/recognizers.py);
    # None for a source NER's span or a later mention's.
    "recognizer": None,
    # Knowledge-base entry the span is linked to (wikidata_gazetteer): "Q72", "wn:10008388-n", ...
    "kb_id": None,
    # Its ontology chain, most specific ancestor first: ["national capital", "city in Norway", "city"].
    "kb_chain": None,
    # Risk scores by measure name, in each measure's own unit, higher = riskier:
    # {"lm": 7.2 (surprisal, nats), "kanon": 0.5 (1 / records sharing the term)};
    # None until a measure ran. Spans a measure finds risky alone also go to
    # doc._.risky_sets, so that the decision needs no per-measure thresholds.
    "risk": None,
    # Information content of the span (masking cost); None until lm_risk ran.
    "info_content": None,
    # True: masked, False: kept, None: no decision yet (rendered as masked: fail closed).
    "masked": None,
    # What the span is replaced with in the sanitized text.
    "replacement": None,
    # Why the decision was taken: ["policy:mask_all"], ["direct identifier"], ...
    "reasons": None,
}

DOC_EXTENSIONS = {
    # Sets of candidate spans that are risky together, from the risk measures:
    # [{"measure": "kanon", "spans": [[start, end], ...], "reason": "..."}].
    # A set of one span means the span is risky alone. The decision component
    # masks at least one span (entity) of every set.
    "risky_sets": None,
    # Summary of the masking decision: {"component", "status", "objective",
    # "solve_ms", "n_entities", "n_masked", "n_risky_sets", "fallback"}.
    "decision_info": None,
    # The sanitized text, set by the generalizer.
    "sanitized_text": None,
    # [[sanitized_start, sanitized_end, original_start, original_end], ...]: one
    # segment per kept stretch of text and per replacement, in order.
    "offset_map": None,
    # What stays visible can still tell (residual_risk): {"k", "n_background", "min_k", "reached",
    # "visible", "narrowing", "unknown", "masked_for_min_k"}, and with reid_risk in the pipeline
    # {"attack": the attacker's view, "kanon_k": the term count's k} ("k" is then the attack's);
    # None without the component.
    "residual_risk": None,
    # Errors that made a component fall back to a conservative result.
    "sanitize_errors": None,
    # The re-identification attack inside the pipeline (reid_risk): {"k", "target_k", "margin",
    # "n_background", "reached", "top", "narrowing", "masked", ...}; None without the component.
    "reid_risk": None,
    # The background record id of the document's person, when the data owner knows it: reid_risk
    # then checks that this record hides among k others (the stricter check).
    "reid_target": None,
    # Background record ids that are this document itself (copies in the archive): reid_risk leaves
    # them out and lists them in its report's "excluded".
    "reid_exclude": None,
}


class ExtensionClashError(RuntimeError):
    """Another package declared one of our extensions differently."""


def register_extensions() -> None:
    """Declare the extensions (idempotent).

    The names are short (``risk``, ``masked``, ``source``...) and part of the
    public API, so a clash with another package is an error rather than
    silently sharing its extension: ``masked = None`` must keep meaning "no
    decision yet, mask it", and a getter or default of someone else would
    change that. An extension already declared exactly as ours (a default, no
    getter, setter or method) is left alone.
    """
    for owner, extensions in ((Span, SPAN_EXTENSIONS), (Doc, DOC_EXTENSIONS)):
        for name, default in extensions.items():
            if not owner.has_extension(name):
                owner.set_extension(name, default=default)
                continue
            found = owner.get_extension(name)
            if found != (default, None, None, None):
                found_default, method, getter, setter = found
                raise ExtensionClashError(
                    f"spacy-textsan: the {owner.__name__} extension '{name}' (._.{name}) is already declared by "
                    f"another package with another definition (default={found_default!r}, method={method!r}, "
                    f"getter={getter!r}, setter={setter!r}); spacy-textsan needs default={default!r} and no getter, "
                    "setter or method, and cannot run beside that package"
                )


register_extensions()


def get_candidates(doc: Doc, spans_key: str = SPANS_KEY) -> list[Span]:
    """The candidate spans of a doc: the span group if a detector filled it,
    otherwise ``doc.ents`` (so decision components work in any pipeline)."""
    if spans_key in doc.spans:
        return list(doc.spans[spans_key])
    return list(doc.ents)


def covered_chars(doc: Doc, spans: Iterable[Span]) -> bytearray:
    """One byte per character of the doc, 1 where one of ``spans`` covers it
    (overlap tests in time proportional to the tested range, not to the spans)."""
    covered = bytearray(len(doc_text(doc)))
    for span in spans:
        covered[span.start_char : span.end_char] = b"\x01" * (span.end_char - span.start_char)
    return covered


def is_covered(covered: bytearray, start: int, end: int) -> bool:
    """Whether any character of ``[start, end)`` is covered."""
    return covered.find(1, start, end) != -1


def new_candidate(doc: Doc, start: int, end: int, label: str, source: str, covered: bytearray) -> Span | None:
    """A quasi-identifier span that a risk measure proposes (a rare phrase):
    ``None`` if it overlaps a character of ``covered`` (:func:`covered_chars`),
    which it then covers. Call :func:`add_candidates` to put it in the span group."""
    span = doc.char_span(start, end, label=label, alignment_mode="expand")
    if span is None or is_covered(covered, span.start_char, span.end_char):
        return None
    span._.source = source
    span._.identifier_type = QUASI
    covered[span.start_char : span.end_char] = b"\x01" * (span.end_char - span.start_char)
    return span


def add_candidates(doc: Doc, spans: Sequence[Span], spans_key: str = SPANS_KEY) -> None:
    """Add ``spans`` to the candidates, keeping them in text order."""
    if spans:
        merged = get_candidates(doc, spans_key) + list(spans)
        doc.spans[spans_key] = sorted(merged, key=lambda s: (s.start_char, s.end_char))


_TEXT_KEY = ("spacy_textsan", "text")


def doc_text(doc: Doc) -> str:
    """``doc.text``, computed once per doc: spaCy rebuilds it from every token on
    each access (milliseconds for a long document), so the components share one
    copy in ``doc.user_data``, checked against the doc's length."""
    user_data: dict[Any, Any] = doc.user_data  # spaCy's own keys are tuples too
    cached = user_data.get(_TEXT_KEY)
    end = doc[-1].idx + len(doc[-1].text_with_ws) if len(doc) else 0
    if isinstance(cached, str) and len(cached) == end:
        return cached
    # from the token arrays: no Token object per token (Doc.text makes one for each)
    strings = doc.vocab.strings
    text = "".join(
        strings[orth] + " " if space else strings[orth] for orth, space in doc.to_array([ORTH, SPACY]).tolist()
    )
    user_data[_TEXT_KEY] = text
    return text


def entity_key(span: Span) -> str:
    """Mentions of one entity share ``entity_id``; a span without one is its own entity."""
    return span._.entity_id or f"@{span.start_char}:{span.end_char}"


def set_risk(span: Span, measure: str, score: float) -> None:
    """Record a risk score for one measure without mutating a shared dict."""
    risk = dict(span._.risk or {})
    risk[measure] = float(score)
    span._.risk = risk


def add_reason(span: Span, reason: str) -> None:
    """Append a reason for the span's masking decision."""
    reasons = list(span._.reasons or [])
    if reason not in reasons:
        reasons.append(reason)
    span._.reasons = reasons


def add_risky_set(doc: Doc, measure: str, spans: Sequence[Span], reason: str) -> None:
    """Record that ``spans`` (candidate spans of ``doc``) are risky together
    according to ``measure``; one span: risky alone."""
    risky = list(doc._.risky_sets or [])
    risky.append(
        {
            "measure": measure,
            "spans": [[s.start_char, s.end_char] for s in spans],
            "reason": reason,
        }
    )
    doc._.risky_sets = risky


def add_error(doc: Doc, error: str) -> None:
    """Record a component failure on the doc (shown in the report)."""
    errors = list(doc._.sanitize_errors or [])
    errors.append(error)
    doc._.sanitize_errors = errors


def fail_closed(doc: Doc, measure: str, spans: Iterable[Span], reason: str, error: str) -> None:
    """How a risk measure fails: ``error`` is recorded (:func:`add_error`) and
    each of ``spans`` becomes risky alone for ``measure`` with ``reason``, so
    that the decision masks it (what cannot be assessed is not safe)."""
    for span in spans:
        add_risky_set(doc, measure, [span], reason)
    add_error(doc, error)


def span_record(span: Span) -> dict:
    """A JSON-serialisable description of a candidate span, for reports."""
    return {
        "start": span.start_char,
        "end": span.end_char,
        "text": span.text,
        "label": span.label_,
        "entity_id": span._.entity_id,
        "identifier_type": span._.identifier_type,
        "source": span._.source,
        "kb_id": span._.kb_id,
        "kb_chain": span._.kb_chain,
        "risk": span._.risk or {},
        "info_content": span._.info_content,
        "masked": span._.masked,
        "replacement": span._.replacement,
        "reasons": span._.reasons or [],
    }


def spans_records(spans: Iterable[Span]) -> list[dict]:
    return [span_record(s) for s in spans]


def masked_offsets(doc: Doc, spans_key: str = SPANS_KEY) -> list[list[int]]:
    """[start, end] character offsets of the masked (or undecided) spans, sorted."""
    out = sorted([s.start_char, s.end_char] for s in get_candidates(doc, spans_key) if s._.masked is not False)
    return out
