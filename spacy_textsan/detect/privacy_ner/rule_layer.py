"""The rule layer of ``privacy_ner``: one config block, ``spacy_textsan.rule_layer.v1``.

Everything privacy_ner finds without a statistical NER, and what it never or
always proposes: the package's rules (:mod:`.rules`: codes, dates, amounts,
titled names), a user's patterns, allow and deny lists, the identifier layer
(:mod:`.identifiers`) and the name layer (:mod:`.names` and its neighbours).
The settings and their defaults are written once, in :class:`RuleLayer`'s
fields; a config names the block and changes what it needs::

    [components.privacy_ner.rule_layer]
    @misc = "spacy_textsan.rule_layer.v1"
    deny_list = ["PERSON:Peder Halvorsen"]

The block compiles its patterns when it is made (a bad pattern fails the
pipeline's construction, before any text is read) and finds its candidates
in a string (:meth:`RuleLayer.candidates`): pure, no ``Doc``.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

import spacy

from ...extensions import TAB_LABELS
from .combine import PRIORITY_DENY, Candidate
from .phones import DEFAULT_PHONE_REGIONS
from .recognizer_blocks import default_recognizers
from .recognizers import Context, Recognizer, code_priority, rule_candidates, run_recognizers
from .rules import (
    DEFAULT_ALLOW_PATTERNS,
    DEFAULT_PATTERNS,
    compile_allow_patterns,
    compile_patterns,
    find_rule_matches,
    is_allowed,
    words_pattern,
)

__all__ = ["RuleLayer"]


@spacy.registry.misc("spacy_textsan.rule_layer.v1")
@dataclass(frozen=True)
class RuleLayer:
    """The settings of privacy_ner's rule layer (``spacy_textsan.rule_layer.v1``).

    rules (bool): The package's rules (:data:`.rules.DEFAULT_PATTERNS`: CODE, DATETIME,
        QUANTITY; titled names); off, the identifier and name layers are off too and only
        ``patterns`` and ``deny_list`` add candidates.
    patterns (Sequence[dict]): A user's rules, ``{"name", "label", "pattern", "flags": "i",
        "min_digits", "requires"}``, compiled by RE2.
    allow_list (Sequence[str]): Texts never proposed (case-insensitive, whole span).
    allow_patterns (Sequence[dict]): Full-match regexes of texts that are no identifiers
        (default: legal provisions, Convention bodies, generic institution words, a state's government).
    deny_list (Sequence[str | dict]): Terms always proposed: ``"term"``, ``"LABEL:term"`` or
        ``{"text", "label"}``.
    merge_titles (bool): A title before a PERSON span joins it (``Mr Galip Yalman``).
    identifiers (bool): The identifier layer (phones, checksummed numbers, cued codes, network
        ids, addresses).
    names (bool): The name layer (other scripts, the name lexicon, cued names and places, given
        names beside a surname, later mentions of a person).
    phone_regions (Sequence[str]): Regions whose national phone formats are read without a
        country code.
    RAISES (ValueError): A pattern that does not compile, a deny-list entry without a term or
        with a label that is not a TAB label.
    """

    rules: bool = True
    patterns: Sequence[dict] = ()
    allow_list: Sequence[str] = ()
    allow_patterns: Sequence[dict] = tuple(DEFAULT_ALLOW_PATTERNS)
    deny_list: Sequence[str | dict[str, str]] = ()
    merge_titles: bool = True
    identifiers: bool = True
    names: bool = True
    phone_regions: Sequence[str] = DEFAULT_PHONE_REGIONS
    #: compiled when the block is made (:meth:`__post_init__`), not settings
    compiled: list[tuple] = field(init=False, repr=False, compare=False)
    user_compiled: list[tuple] = field(init=False, repr=False, compare=False)
    allowed: frozenset[str] = field(init=False, repr=False, compare=False)
    allow_compiled: list[tuple] = field(init=False, repr=False, compare=False)
    deny: tuple[tuple[str, str], ...] = field(init=False, repr=False, compare=False)
    deny_compiled: list[tuple] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("patterns", "allow_list", "allow_patterns", "deny_list", "phone_regions"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        deny = tuple(_deny_entry(d) for d in self.deny_list)
        user = compile_patterns(self.patterns, user=True)
        derived = {
            # the package's patterns and the user's, for a reader of patterns alone
            "compiled": compile_patterns(DEFAULT_PATTERNS if self.rules else []) + user,
            "user_compiled": user,
            "allowed": frozenset(a.casefold().strip() for a in self.allow_list),
            "allow_compiled": compile_allow_patterns(self.allow_patterns),
            "deny": deny,
            "deny_compiled": compile_patterns(
                [
                    {
                        "name": "deny_list",
                        "label": label,
                        "pattern": rf"(?<!\w){words_pattern(term)}(?!\w)",
                        "flags": "i",
                    }
                    for term, label in deny
                ]
            ),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    @property
    def runs_identifiers(self) -> bool:
        """Whether the identifier layer runs."""
        return self.identifiers and self.rules

    @property
    def runs_names(self) -> bool:
        """Whether the name layer runs."""
        return self.names and self.rules

    @property
    def merges_titles(self) -> bool:
        """Whether titles join PERSON spans and titled names are found."""
        return self.merge_titles and self.rules

    def candidates(
        self, text: str, recognizers: Sequence[Recognizer] | None = None, lang: str = "en"
    ) -> list[Candidate]:
        """The candidates of a user's patterns, of the recognizers (:mod:`.recognizers`; None: the
        default ones of ``lang``) and of the deny list in the detection copy ``text`` (what needs no
        source NER and no token), and the cue words and log keys that announce them (label
        :data:`.combine.CUE`: they name no one, :func:`.combine.claim_names` takes them out).
        Without ``rules`` no recognizer runs; without ``identifiers`` or ``names`` those of that
        layer do not."""
        cands = rule_candidates(find_rule_matches(text, self.user_compiled), "rule", code_priority)
        if self.rules:
            context = Context(lang, tuple(self.phone_regions), self.runs_identifiers, self.runs_names)
            cands += run_recognizers(text, default_recognizers(lang) if recognizers is None else recognizers, context)
        for m in find_rule_matches(text, self.deny_compiled):
            cands.append(Candidate(m.start, m.end, m.label, "deny_list", PRIORITY_DENY))
        return cands

    def is_allowed(self, text: str) -> bool:
        """Allow-listed text (exact, case-folded) or an allow pattern's full match."""
        text = text.strip()
        return text.casefold() in self.allowed or is_allowed(text, self.allow_compiled)


def _deny_entry(entry: str | dict[str, str]) -> tuple[str, str]:
    """Deny-list entries: "term", "LABEL:term" or {"text": ..., "label": ...}."""
    if isinstance(entry, dict):
        term, label = entry["text"], entry.get("label", "MISC")
    else:
        label, sep, term = str(entry).partition(":")
        if not sep or label not in TAB_LABELS:
            term, label = str(entry), "MISC"
    if label not in TAB_LABELS:
        raise ValueError(f"privacy_ner: deny_list label {label!r} is not a TAB label")
    if not term.strip():
        raise ValueError("privacy_ner: empty deny_list term")
    return term.strip(), label
