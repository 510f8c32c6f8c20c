"""The rule layer of privacy_ner on a host pipeline's own entities.

A decision component or the generalizer added to a pipeline that has no
spacy-textsan detector (``nlp.add_pipe("generalizer")`` on a stock spaCy
pipeline) would read ``doc.ents`` alone, and phone numbers, e-mail addresses
and codes that a statistical NER does not tag would stay in clear. What
privacy_ner finds without any statistical NER is added to them here:

* :func:`find_rule_layer` (pure, over a string): the patterns of privacy_ner's
  rule layer (:class:`.rule_layer.RuleLayer`, at its defaults unless told
  otherwise: the patterns of :mod:`.rules`, e-mails, URLs, IPv4, IBANs,
  phones, court file numbers, dates, amounts, ages...) and its identifier
  layer (:mod:`.identifiers`: network ids, postal addresses, checksummed
  standard numbers, cued and long numbers, table cells, phone numbers), less
  what its allow lists allow; not its name layer nor its deny list;
* :func:`add_rule_layer`: the host's entities, labels as they are, with those
  matches added, written to the candidate span group.
"""

from spacy.tokens import Doc, SpanGroup

from ...extensions import SPANS_KEY, doc_text
from .combine import CUE, PRIORITY_CODE, PRIORITY_DEFAULT, PRIORITY_PROPAGATED, Candidate, resolve_overlaps
from .mentions import Mentions
from .privacy_ner import DOC_ENTS
from .recognizer_blocks import default_recognizers
from .recognizers import Context, run_recognizers
from .rule_layer import RuleLayer
from .rules import RuleMatch, find_rule_matches
from .span_group import write_candidate_group

__all__ = ["find_rule_layer", "add_rule_layer"]


def find_rule_layer(text: str, rule_layer: RuleLayer = RuleLayer(), lang: str = "en") -> list[RuleMatch]:
    """What privacy_ner's patterns and identifier layer find in ``text`` (its
    recognizers of language ``lang``, :mod:`.recognizers`, less the name
    layer: no statistical NER, no name lexicon), less the matches that its
    allow lists allow whole ("Article 8 § 1"). A pattern's match is named as
    the pattern ("phone"), the identifier layer's as privacy_ner names it
    ("id:phone")."""
    found = find_rule_matches(text, rule_layer.user_compiled)
    if rule_layer.rules:
        context = Context(lang, tuple(rule_layer.phone_regions), rule_layer.runs_identifiers, names=False)
        found += [
            RuleMatch(c.start, c.end, c.label, c.source.removeprefix("rule:"))
            for c in run_recognizers(text, default_recognizers(lang), context)
            if c.label != CUE
        ]
    return [m for m in found if not rule_layer.is_allowed(text[m.start : m.end])]


def add_rule_layer(
    doc: Doc, spans_key: str = SPANS_KEY, rule_layer: RuleLayer = RuleLayer(), mentions: Mentions = Mentions()
) -> SpanGroup:
    """Write ``doc.spans[spans_key]``: the host pipeline's entities
    (``doc.ents``, label and offsets as they are, source
    ``ner:doc.ents:<label>``) and the matches of :func:`find_rule_layer` on
    the doc's detection copy (``mentions``: :meth:`.mentions.Mentions.detection_text`),
    one span per stretch of text; ``rule_layer``, ``mentions``: privacy_ner's
    blocks (their defaults unless told otherwise).

    An identifier or a code wins over a host entity it overlaps (``555`` of a
    phone number tagged CARDINAL, ``ada.lee`` of an e-mail tagged PERSON); the
    other patterns (dates, amounts, ages...) only add what the host's NER
    missed. Mentions of one entity share an ``entity_id``, as privacy_ner's do.
    """
    norm = mentions.detection_text(doc_text(doc))
    cands = [
        Candidate(
            *norm.from_original(e.start_char, e.end_char), e.label_, f"ner:{DOC_ENTS}:{e.label_}", PRIORITY_DEFAULT
        )
        for e in doc.ents
    ]
    for m in find_rule_layer(norm.text, rule_layer):
        code = m.label == "CODE" or m.name.startswith("id:")
        source = m.name if m.name.startswith("id:") else f"rule:{m.name}"
        cands.append(Candidate(m.start, m.end, m.label, source, PRIORITY_CODE if code else PRIORITY_PROPAGATED))
    chosen = resolve_overlaps(cands)
    return write_candidate_group(
        doc, chosen, norm, spans_key, lambda span, _: span if len(span) else None, mentions.fuzzy_threshold
    )
