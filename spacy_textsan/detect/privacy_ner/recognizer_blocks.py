"""The package's recognizers (:mod:`.recognizers`), each registered as ``spacy_textsan.recognizer.<name>.v1``.

Thin blocks over the pure finders of :mod:`.rules`, :mod:`.dates`, :mod:`.identifiers` and the name
modules. Each keeps the sources its detections always had: ``rule:<pattern>`` for the package's
patterns, ``id:<detector>`` for the identifier layer, ``name:<rule>`` for the name layer, ``cue:<rule>``
for the cue words before them. IBANs and phone numbers are each one recognizer's (``iban``, ``phone``):
the pattern of their shape and the library that validates them (python-stdnum, libphonenumber) are two
readings of one recognizer, and where both read the same characters one candidate is made (the
pattern's: ``rule:iban``, ``rule:phone``).
"""

from collections.abc import Mapping, Sequence
from functools import lru_cache

import spacy

from . import (
    citations,  # noqa: F401 (registers case_citations and initials)
    german_case_numbers,  # noqa: F401 (registers german_case_numbers)
)
from .addresses import find_addresses
from .combine import PRIORITY_CODE, PRIORITY_DEFAULT, Candidate
from .cued_names import find_cued_names_and_cues, find_names_after_ids
from .dates import date_patterns
from .lang_data import languages as data_languages
from .log_fields import find_log_fields
from .lone_names import find_lone_names
from .names import find_lexicon_names
from .national_ids import find_national_ids
from .network import find_network_ids
from .noun_names import common_noun
from .phones import find_phones
from .places import find_cued_places
from .recognizers import (
    ANY,
    DEFAULT_RECOGNIZERS,
    Context,
    Recognizer,
    code_priority,
    cue_candidates,
    rule_candidates,
    supports,
)
from .rules import DEFAULT_PATTERNS, RuleMatch, compile_patterns, find_rule_matches
from .script_names import find_mixed_script_tokens, find_script_names
from .standard_numbers import find_cued_codes, find_long_numbers, find_mixed_codes, find_standard_numbers
from .tables import find_table_cells

__all__ = ["PatternRecognizer", "default_recognizers", "recognizer_blocks"]

#: The patterns of :data:`.rules.DEFAULT_PATTERNS` that a recognizer of their own reads.
_OWN_PATTERNS = frozenset({"iban", "phone"})
_QUANTITIES = ("money_code_first", "money_amount_first", "age", "percent", "measure")


@lru_cache(maxsize=64)
def _compiled(names: tuple[str, ...]) -> list[tuple]:
    return compile_patterns(p for p in DEFAULT_PATTERNS if p["name"] in names)


def _names(label: str | None = None, only: Sequence[str] = ()) -> tuple[str, ...]:
    return tuple(
        dict.fromkeys(
            p["name"]
            for p in DEFAULT_PATTERNS
            if (p["name"] in only if only else p["label"] == label and p["name"] not in _OWN_PATTERNS)
        )
    )


def _ids(matches: Sequence[RuleMatch]) -> list[Candidate]:
    return rule_candidates(matches, "id", lambda _: PRIORITY_CODE)


def _names_of(found: Sequence[tuple[int, int, str, str]]) -> list[Candidate]:
    return [Candidate(s, e, label, f"name:{rule}", PRIORITY_DEFAULT) for s, e, label, rule in found]


class PatternRecognizer(Recognizer):
    """Named patterns of :data:`.rules.DEFAULT_PATTERNS` (source ``rule:<pattern>``)."""

    def __init__(self, name: str, patterns: Sequence[str], types: Sequence[str], languages: Sequence[str] = (ANY,)):
        self.name = name
        self.patterns = tuple(patterns)
        self.types = tuple(types)
        self.languages = tuple(languages)

    def find(self, text: str, context: Context) -> list[Candidate]:
        return rule_candidates(find_rule_matches(text, _compiled(self.patterns)), "rule", code_priority)


@spacy.registry.misc("spacy_textsan.recognizer.codes.v1")
def codes() -> Recognizer:
    """E-mail addresses, URLs, IPv4, SSN, NINO, licence plates, application and file numbers..."""
    return PatternRecognizer("codes", _names("CODE"), ("CODE",))


@spacy.registry.misc("spacy_textsan.recognizer.quantities.v1")
def quantities() -> Recognizer:
    """Amounts of money, percentages, measures (QUANTITY) and ages (DEM)."""
    return PatternRecognizer("quantities", _QUANTITIES, ("QUANTITY", "DEM"))


@spacy.registry.misc("spacy_textsan.recognizer.family_status.v1")
def family_status() -> Recognizer:
    """ "married with three children", "is divorced", and a role in apposition to a name ("Mr Jan Kowalski, a
    tax inspector,"): English only."""
    return PatternRecognizer("family_status", ("family_status", "role_apposition"), ("DEM",), ("en",))


class Dates(Recognizer):
    """Dates and times; month and weekday names of the language (:mod:`.dates`); ``article``: the
    language's article before the day is part of the date ("le 12 mars 1961")."""

    name = "dates"
    types = ("DATETIME",)

    def __init__(self, article: bool = False) -> None:
        self.article = article

    def find(self, text: str, context: Context) -> list[Candidate]:
        compiled = _compiled_dates(context.lang, self.article)
        return rule_candidates(find_rule_matches(text, compiled), "rule", code_priority)


@lru_cache(maxsize=16)
def _compiled_dates(lang: str, article: bool = False) -> list[tuple]:
    return compile_patterns(date_patterns(lang, article))


@spacy.registry.misc("spacy_textsan.recognizer.dates.v1")
def dates(article: bool = False) -> Recognizer:
    return Dates(article)


def _standard_numbers(text: str, context: Context) -> list[RuleMatch]:
    """The checksummed numbers of a text, found once for ``iban`` and ``standard_numbers``."""
    found: list[RuleMatch] = context.once("standard_numbers", lambda: find_standard_numbers(text))
    return found


class Iban(Recognizer):
    """IBANs: the pattern of their shape (``rule:iban``) and, with the identifier layer, the numbers that
    python-stdnum validates as one (``id:iban``); one candidate where both read the same characters."""

    name = "iban"
    types = ("CODE",)

    def find(self, text: str, context: Context) -> list[Candidate]:
        shapes = rule_candidates(find_rule_matches(text, _compiled(("iban",))), "rule", code_priority)
        if not context.identifiers:
            return shapes
        taken = {(c.start, c.end) for c in shapes}
        valid = [m for m in _standard_numbers(text, context) if m.name == "iban"]
        return shapes + [c for c in _ids(valid) if (c.start, c.end) not in taken]


class Phone(Recognizer):
    """Phone numbers: the pattern (``rule:phone``, 8 digits or more) and, with the identifier layer,
    libphonenumber's (``id:phone``, :mod:`.phones`); one candidate where both read the same characters."""

    name = "phone"
    types = ("CODE",)

    def find(self, text: str, context: Context) -> list[Candidate]:
        shapes = rule_candidates(find_rule_matches(text, _compiled(("phone",))), "rule", code_priority)
        if not context.identifiers:
            return shapes
        taken = {(c.start, c.end) for c in shapes}
        return shapes + [c for c in _ids(find_phones(text, context.phone_regions)) if (c.start, c.end) not in taken]


@spacy.registry.misc("spacy_textsan.recognizer.iban.v1")
def iban() -> Recognizer:
    return Iban()


@spacy.registry.misc("spacy_textsan.recognizer.phone.v1")
def phone() -> Recognizer:
    return Phone()


class Finder(Recognizer):
    """A finder of the identifier layer (source ``id:<detector>``)."""

    layer = "identifiers"
    types: tuple[str, ...] = ("CODE",)

    def matches(self, text: str, context: Context) -> list[RuleMatch]:  # pragma: no cover - abstract
        raise NotImplementedError

    def find(self, text: str, context: Context) -> list[Candidate]:
        return _ids(self.matches(text, context))


class NationalIds(Finder):
    """National identification numbers after their label, label and number as one span."""

    name = "national_ids"

    def matches(self, text: str, context: Context) -> list[RuleMatch]:
        return find_national_ids(text)


class StandardNumbers(Finder):
    """Checksummed standard numbers (python-stdnum) other than IBANs (the ``iban`` recognizer's)."""

    name = "standard_numbers"

    def matches(self, text: str, context: Context) -> list[RuleMatch]:
        return [m for m in _standard_numbers(text, context) if m.name != "iban"]


class NetworkIds(Finder):
    name = "network_ids"

    def matches(self, text: str, context: Context) -> list[RuleMatch]:
        return find_network_ids(text)


class Addresses(Finder):
    """Postal addresses; street words of the language (``data/<lang>/street_types_*.txt``)."""

    name = "addresses"
    types = ("LOC",)

    def __init__(self) -> None:
        self.languages = data_languages()

    def matches(self, text: str, context: Context) -> list[RuleMatch]:
        return find_addresses(text, context.lang)


class CuedCodes(Finder):
    """A number or code after a word that announces it (``data/<lang>/code_cues.txt``)."""

    name = "cued_codes"

    def __init__(self) -> None:
        self.languages = data_languages()

    def matches(self, text: str, context: Context) -> list[RuleMatch]:
        return find_cued_codes(text, lang=context.lang)


class MixedCodes(Finder):
    name = "mixed_codes"

    def matches(self, text: str, context: Context) -> list[RuleMatch]:
        return find_mixed_codes(text)


class LongNumbers(Finder):
    name = "long_numbers"

    def matches(self, text: str, context: Context) -> list[RuleMatch]:
        return find_long_numbers(text)


class TableCells(Finder):
    name = "table_cells"
    types = ("PERSON", "LOC", "ORG", "DATETIME", "DEM", "CODE")

    def matches(self, text: str, context: Context) -> list[RuleMatch]:
        return find_table_cells(text)


class LogFields(Recognizer):
    """The values of personal keys of log lines (``id:log_value``) and the keys (``cue:log_key``)."""

    name = "log_fields"
    layer = "identifiers"
    types = ("PERSON", "CODE")

    def find(self, text: str, context: Context) -> list[Candidate]:
        values, keys = find_log_fields(text)
        return _ids(values) + cue_candidates(keys, "log_key")


for _cls, _registered in (
    (NationalIds, "national_ids"),
    (StandardNumbers, "standard_numbers"),
    (NetworkIds, "network_ids"),
    (Addresses, "addresses"),
    (CuedCodes, "cued_codes"),
    (MixedCodes, "mixed_codes"),
    (LongNumbers, "long_numbers"),
    (TableCells, "table_cells"),
    (LogFields, "log_fields"),
):
    spacy.registry.misc(f"spacy_textsan.recognizer.{_registered}.v1", func=_cls)


class ScriptNames(Recognizer):
    """Short runs of another script, and words mixing scripts: names an English pipeline cannot read."""

    name = "script_names"
    layer = "names"
    types = ("PERSON", "MISC")

    def find(self, text: str, context: Context) -> list[Candidate]:
        # an English pipeline cannot read other scripts: their short runs are names, whatever their share
        return _names_of(find_script_names(text, max_foreign_share=1.0) + find_mixed_script_tokens(text))


class LexiconNames(Recognizer):
    """Given names and surnames of the name lexicon: runs of them (``name:lexicon_name``...), and in English
    one alone as the subject of a sentence (``name:lone_name``, :mod:`.lone_names`)."""

    name = "lexicon_names"
    layer = "names"
    types = ("PERSON",)

    def find(self, text: str, context: Context) -> list[Candidate]:
        found = find_lexicon_names(text, common_noun(context.lang))
        if context.lang == "en":
            found = found + find_lone_names(text)
        return _names_of(found)


class CuedNames(Recognizer):
    """Names after a field label or a salutation of the language (``name:cued_name``) and the cue words
    (``cue:name_cue``)."""

    name = "cued_names"
    layer = "names"
    types = ("PERSON",)

    def __init__(self) -> None:
        self.languages = data_languages()

    def find(self, text: str, context: Context) -> list[Candidate]:
        found, cues = find_cued_names_and_cues(text, context.lang)
        return _names_of(found) + cue_candidates(cues, "name_cue")


class TitledNames(Recognizer):
    """A title and the capitalised words after it (``Mr Galip Yalman``, ``M. Jean Dupont``): read on the
    tokens by privacy_ner (``rule:titled_name``; a PERSON of another detector after a title takes it in),
    with the titles of the language (``data/<lang>/titles.txt``); it finds nothing in a bare string."""

    name = "titled_names"
    layer = "rules"
    types = ("PERSON",)

    def __init__(self) -> None:
        self.languages = data_languages()

    def find(self, text: str, context: Context) -> list[Candidate]:
        return []


def _holders(text: str, context: Context) -> list[tuple[int, int, str, str]]:
    found: list[tuple[int, int, str, str]] = context.once(
        "id_holders", lambda: find_names_after_ids(text, context.numbers)
    )
    return found


class IdHolders(Recognizer):
    """A given name right after a national or checksummed number: its holder."""

    name = "id_holders"
    layer = "names"
    types = ("PERSON",)
    needs_numbers = True

    def find(self, text: str, context: Context) -> list[Candidate]:
        return _names_of(_holders(text, context))


class CuedPlaces(Recognizer):
    """Places after a cue word of the language (``data/<lang>/place_cues.txt``), not the holder of a
    number ("... belongs to Oliver")."""

    name = "cued_places"
    layer = "names"
    types = ("LOC",)
    needs_numbers = True

    def __init__(self) -> None:
        self.languages = data_languages()

    def find(self, text: str, context: Context) -> list[Candidate]:
        holders = _holders(text, context)
        places = [
            p for p in find_cued_places(text, context.lang) if not any(p[0] < h[1] and h[0] < p[1] for h in holders)
        ]
        return _names_of(places)


for _named_cls, _registered in (
    (ScriptNames, "script_names"),
    (LexiconNames, "lexicon_names"),
    (CuedNames, "cued_names"),
    (TitledNames, "titled_names"),
    (IdHolders, "id_holders"),
    (CuedPlaces, "cued_places"),
):
    spacy.registry.misc(f"spacy_textsan.recognizer.{_registered}.v1", func=_named_cls)


def recognizer_blocks(blocks: Mapping[str, dict[str, str]] = DEFAULT_RECOGNIZERS) -> tuple[Recognizer, ...]:
    """The recognizers of config blocks (``{"@misc": "spacy_textsan.recognizer.iban.v1"}``), made by their
    registered functions, in order."""
    return tuple(
        spacy.registry.misc.get(b["@misc"])(**{k: v for k, v in b.items() if k != "@misc"}) for b in blocks.values()
    )


@lru_cache(maxsize=16)
def default_recognizers(lang: str = "en") -> tuple[Recognizer, ...]:
    """The default recognizers (:data:`.recognizers.DEFAULT_RECOGNIZERS`) that read language ``lang``."""
    return tuple(r for r in recognizer_blocks() if supports(r, lang))
