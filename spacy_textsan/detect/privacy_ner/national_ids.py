"""National identification numbers after the word that labels them, whole:
``Personnummer 811218-9876``, ``Henkilötunnus: 131052-308T``, ``CPR-nr.
211062-5629``, ``her SSN is 536-90-4399`` are each one CODE span from the
label to the number's last character, separators included, so that neither a
piece of the number nor its label is left for another detector (a postcode
read in ``Personnummer 811218``, a rare word).

The labels, in several languages, and the python-stdnum modules that validate
the numbers they announce are language data (``data/national_ids.txt``). The
number after a label is the longest run of its groups that a module of the
label validates, else that a module of any country validates, else the
groups that hold digits (a label announces a number even when its check
digit is wrong: a made-up example, a typo). Numbers without a label are the
checksummed standard numbers of :mod:`.standard_numbers`.

Pure functions over a string returning :class:`~.rules.RuleMatch` objects
(``label`` CODE, ``name`` :data:`NATIONAL_ID`) with exact character offsets.
"""

import importlib
import re
from collections.abc import Callable
from functools import cache, lru_cache

from ...word_lists import table_rows
from .rules import DATE_LIKE, RuleMatch, count_digits, first_words, matches_at_words

#: The ``name`` of the matches.
NATIONAL_ID = "national_id"
#: The labels and the modules that validate the numbers they announce.
NATIONAL_IDS_FILE = "detect/privacy_ner/data/national_ids.txt"
#: Every module of the file.
ANY = "*"
#: The UK National Insurance number: two letters (not D, F, I, Q, U, V; O not second), six digits, A-D.
_NINO = re.compile(r"(?i)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]")
#: The German social insurance number (Rentenversicherungsnummer, "SV-Nummer"): area, birth date, the initial
#: of the birth name, serial and check digit ("12 150389 M 123"); python-stdnum has no module for it.
_RVNR = re.compile(r"\d{2} ?\d{6} ?[A-Z] ?\d{3}")
#: The longest national number, compact (a Chinese resident identity number has 18 characters).
_MAX_COMPACT = 18


def _validator(module: str) -> Callable[[str], bool]:
    """``is_valid`` of the stdnum module ``module`` ("se.personnummer"); the NINO's and the German
    social insurance number's formats."""
    if module == "gb.nino":
        return lambda number: _NINO.fullmatch(number) is not None
    if module == "de.rvnr":
        return lambda number: _RVNR.fullmatch(number) is not None
    return importlib.import_module(f"stdnum.{module}").is_valid


@lru_cache(maxsize=1)
def _labels() -> dict[str, tuple[str, ...]]:
    """Label (lower case) -> the modules that validate its numbers, read once."""
    rows = [(label.lower(), modules.split()) for label, modules in table_rows(NATIONAL_IDS_FILE)]
    every = tuple(dict.fromkeys(m for _, modules in rows for m in modules if m != ANY))
    return {label: every if ANY in modules else tuple(modules) for label, modules in rows}


@cache
def _validators() -> dict[str, Callable[[str], bool]]:
    return {m: _validator(m) for modules in _labels().values() for m in modules}


def _label_alternation() -> str:
    forms = sorted(_labels(), key=len, reverse=True)
    return "|".join(re.escape(f).replace(r"\ ", r"[ \u00a0-]") for f in forms)


@lru_cache(maxsize=1)
def _label_starts() -> frozenset[str]:
    return first_words(_labels())


#: Words between a label and its number: "nr", "no.", "n°", a colon, "=", "is" (in a few languages).
_JOIN = (
    r"\.?(?:[ \u00a0-]{0,3}(?:nr|no|n[°º]|num|number|nummer|numer|numero|número|#|№)\.?)?"
    r"[ \u00a0]{0,3}(?:[:=#]|(?:is|was|är|var|er|ist|es|est|è|é|on|jest)(?=[ \u00a0]))?[ \u00a0]{0,3}"
)


@lru_cache(maxsize=1)
def _label_pattern() -> re.Pattern[str]:
    return re.compile(rf"(?<!\w)(?P<label>{_label_alternation()})(?!\w){_JOIN}", re.IGNORECASE)


#: The groups of a number after its label: letters and digits, joined by one space, dot, dash, slash
#: or plus (at most 8 groups of at most 20 characters: a longer run is no national number).
_VALUE = re.compile(r"[A-Za-z0-9]{1,20}(?:(?:[ \u00a0]|[.\-/+](?=[A-Za-z0-9]))[A-Za-z0-9]{1,20}){0,7}(?![\w@]|[.,]\d)")
_GROUP = re.compile(r"[A-Za-z0-9]+")
_SEPARATORS = re.compile(r"[ \u00a0.\-/+]")


def _is_code_group(group: str) -> bool:
    """A group of a number: it holds a digit, or is one to three capitals (``DE``, the ``K`` of a DNI)."""
    return any(ch.isdigit() for ch in group) or (group.isupper() and len(group) <= 3)


def _number_end(value: str, modules: tuple[str, ...]) -> int | None:
    """Where the number at the start of ``value`` ends: the end of the longest run of whole groups
    that a module of ``modules`` validates, else one of any label, else the end of the groups that
    hold digits when they are at least six digits and no date; None when there is no number."""
    ends = []
    for g in _GROUP.finditer(value):
        if not _is_code_group(g.group(0)):
            break
        ends.append(g.end())
    ends = [e for e in ends if len(_SEPARATORS.sub("", value[:e])) <= _MAX_COMPACT]
    if not ends:
        return None
    validators = _validators()
    others = tuple(m for m in validators if m not in modules)
    for tried in (modules, others):
        for end in reversed(ends):
            if count_digits(value[:end]) >= 6 and any(validators[m](value[:end]) for m in tried):
                return end
    end = ends[-1]
    return end if count_digits(value[:end]) >= 6 and not DATE_LIKE.match(value[:end]) else None


def find_national_ids(text: str) -> list[RuleMatch]:
    """National identification numbers after their label, label and number
    as one CODE span (``Personnummer 811218-9876``, ``BSN: 1112.22.333``,
    ``her fødselsnummer is 15108695088``)."""
    out = []
    for m in matches_at_words(_label_pattern(), text, _label_starts()):
        value = _VALUE.match(text, m.end())
        if value is None:
            continue
        end = _number_end(value.group(0), _modules_of(m.group("label")))
        if end is not None:
            out.append(RuleMatch(m.start(), value.start() + end, "CODE", NATIONAL_ID))
    return out


def _modules_of(label: str) -> tuple[str, ...]:
    """The modules of a label as written ("CPR-nummer" is the file's "cpr nummer"); every module
    for a label whose lower case the file does not spell (a dotted capital I: "TC KİMLİK")."""
    return _labels().get(re.sub(r"[ \u00a0-]", " ", label.lower())) or tuple(_validators())
