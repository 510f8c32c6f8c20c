"""The rule layer of privacy_ner on a host pipeline's own entities.

A decision component or the generalizer added to a pipeline that has no
spacy-textsan detector (``nlp.add_pipe("generalizer")`` on a stock spaCy
pipeline) would read ``doc.ents`` alone, and phone numbers, e-mail addresses
and codes that a statistical NER does not tag would stay in clear. What
privacy_ner finds without any statistical NER is added to them here:

* :func:`find_rule_layer` (pure, over a string): the default patterns of
  :mod:`.rules` (e-mails, URLs, IPv4, IBANs, phones, court file numbers,
  dates, amounts, ages...) and the identifier layer of :mod:`.identifiers`
  (network ids, postal addresses, checksummed standard numbers, cued and
  long numbers, table cells, phone numbers);
* :func:`add_rule_layer`: the host's entities, labels as they are, with those
  matches added, written to the candidate span group.
"""

from collections.abc import Sequence
from functools import cache

from spacy.tokens import Doc, SpanGroup

from ...extensions import SPANS_KEY, UNKNOWN, doc_text
from .combine import PRIORITY_CODE, PRIORITY_DEFAULT, PRIORITY_PROPAGATED, Candidate, resolve_overlaps
from .entity_ids import assign_entity_ids
from .identifiers import find_identifiers
from .normalize import normalise
from .phones import DEFAULT_PHONE_REGIONS
from .privacy_ner import DOC_ENTS, split_tokens_at
from .rules import (
    DEFAULT_ALLOW_PATTERNS,
    DEFAULT_PATTERNS,
    RuleMatch,
    compile_allow_patterns,
    compile_patterns,
    find_rule_matches,
    is_allowed,
)

__all__ = ["find_rule_layer", "add_rule_layer"]


@cache
def _patterns() -> list[tuple]:
    return compile_patterns(DEFAULT_PATTERNS)


@cache
def _allow_patterns() -> list[tuple]:
    return compile_allow_patterns(DEFAULT_ALLOW_PATTERNS)


def find_rule_layer(text: str, phone_regions: Sequence[str] = DEFAULT_PHONE_REGIONS) -> list[RuleMatch]:
    """What privacy_ner's default patterns and identifier layer find in
    ``text`` (no statistical NER, no name lexicon), less the matches that an
    allow pattern covers whole ("Article 8 § 1")."""
    found = find_rule_matches(text, _patterns())
    # the identifier layer's names are prefixed as privacy_ner prefixes them ("id:phone" vs "rule:phone")
    found += [RuleMatch(m.start, m.end, m.label, f"id:{m.name}") for m in find_identifiers(text, phone_regions)]
    return [m for m in found if not is_allowed(text[m.start : m.end].strip(), _allow_patterns())]


def add_rule_layer(
    doc: Doc, spans_key: str = SPANS_KEY, phone_regions: Sequence[str] = DEFAULT_PHONE_REGIONS
) -> SpanGroup:
    """Write ``doc.spans[spans_key]``: the host pipeline's entities
    (``doc.ents``, label and offsets as they are, source
    ``ner:doc.ents:<label>``) and the matches of :func:`find_rule_layer` on
    the doc's detection copy (:mod:`.normalize`), one span per stretch of text.

    An identifier or a code wins over a host entity it overlaps (``555`` of a
    phone number tagged CARDINAL, ``ada.lee`` of an e-mail tagged PERSON); the
    other patterns (dates, amounts, ages...) only add what the host's NER
    missed. Mentions of one entity share an ``entity_id``, as privacy_ner's do.
    """
    norm = normalise(doc_text(doc))
    cands = [
        Candidate(
            *norm.from_original(e.start_char, e.end_char), e.label_, f"ner:{DOC_ENTS}:{e.label_}", PRIORITY_DEFAULT
        )
        for e in doc.ents
    ]
    for m in find_rule_layer(norm.text, phone_regions):
        code = m.label == "CODE" or m.name.startswith("id:")
        source = m.name if m.name.startswith("id:") else f"rule:{m.name}"
        cands.append(Candidate(m.start, m.end, m.label, source, PRIORITY_CODE if code else PRIORITY_PROPAGATED))
    chosen = resolve_overlaps(cands)
    ranges = [norm.to_original(c.start, c.end) for c in chosen]
    split_tokens_at(doc, {b for r in ranges for b in r})
    spans, sources, seen = [], [], set()
    for c, (start, end) in zip(chosen, ranges, strict=True):
        span = doc.char_span(start, end, label=c.label, alignment_mode="expand")
        if span is None or not len(span) or (span.start, span.end) in seen:
            continue
        seen.add((span.start, span.end))
        spans.append(span)
        sources.append(c.source)
    ids = assign_entity_ids([(s.text, s.label_) for s in spans])
    group = SpanGroup(doc, name=spans_key)
    for span, source, entity_id in zip(spans, sources, ids, strict=True):
        span._.entity_id = entity_id
        span._.source = source
        span._.identifier_type = UNKNOWN
        group.append(span)
    doc.spans[spans_key] = group
    return group
