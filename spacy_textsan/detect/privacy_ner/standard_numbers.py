"""Identifying numbers and codes: numbers whose checksum validates as a
standard number (``python-stdnum``: IBAN, payment cards, national identity,
tax and health numbers of many countries), numbers and codes announced by a
context word (``Passport KX4410983``), long digit runs, numbers standing
alone and codes mixing capitals and digits.

Pure functions over a string returning :class:`~.rules.RuleMatch` objects
(``label`` CODE, ``name`` the detector) with exact character offsets.
Candidates are found by cheap regular expressions and then validated, so that
a long document costs one regex pass plus a validation of each candidate.
"""

import re
from collections.abc import Callable
from functools import lru_cache

from stdnum import iban, luhn
from stdnum.be import nn as be_nn
from stdnum.br import cpf
from stdnum.ca import sin
from stdnum.ch import ssn as ch_ssn
from stdnum.cn import ric
from stdnum.de import idnr
from stdnum.dk import cpr
from stdnum.es import dni, nie
from stdnum.fi import hetu
from stdnum.fr import nir
from stdnum.gb import nhs
from stdnum.in_ import aadhaar, pan
from stdnum.it import codicefiscale
from stdnum.nl import bsn
from stdnum.no import fodselsnummer
from stdnum.pl import pesel
from stdnum.se import personnummer
from stdnum.tr import tckimlik

from .lang_data import read_list
from .rules import DATE_LIKE, RuleMatch, count_digits


def _is_payment_card(number: str) -> bool:
    digits = re.sub(r"\D", "", number)
    return 13 <= len(digits) <= 19 and digits[0] in "3456" and luhn.is_valid(digits)


#: ``(name, is_valid, compact lengths)`` of the standard numbers tried on every
#: candidate of a matching length, in this order. Only numbers with a checksum
#: are here: a number without one is recognised through its context word.
STANDARD_NUMBERS: list[tuple[str, Callable[[str], bool], tuple[int, ...]]] = [
    ("iban", iban.is_valid, tuple(range(15, 35))),
    ("payment_card", _is_payment_card, tuple(range(13, 20))),
    ("nhs_number", nhs.is_valid, (10,)),
    ("aadhaar", aadhaar.is_valid, (12,)),
    ("in_pan", pan.is_valid, (10,)),
    ("fr_nir", nir.is_valid, (15,)),
    ("nl_bsn", bsn.is_valid, (9,)),
    ("pl_pesel", pesel.is_valid, (11,)),
    ("it_codice_fiscale", codicefiscale.is_valid, (16,)),
    ("es_dni", dni.is_valid, (9,)),
    ("es_nie", nie.is_valid, (9,)),
    ("tr_tckimlik", tckimlik.is_valid, (11,)),
    ("br_cpf", cpf.is_valid, (11,)),
    ("no_fodselsnummer", fodselsnummer.is_valid, (11,)),
    ("dk_cpr", cpr.is_valid, (10,)),
    ("se_personnummer", personnummer.is_valid, (10, 12)),
    ("fi_hetu", hetu.is_valid, (10, 11)),
    ("de_idnr", idnr.is_valid, (11,)),
    ("ca_sin", sin.is_valid, (9,)),
    ("ch_ssn", ch_ssn.is_valid, (13,)),
    ("cn_ric", ric.is_valid, (18,)),
    ("be_nn", be_nn.is_valid, (11,)),
]

#: Runs of digit/letter groups separated by single spaces, dots, dashes or slashes, from a group with a
#: digit or a short group of capitals before one ("X-2482300-W", a Spanish NIE).
_NUMBER_RUN = re.compile(
    r"\b(?<![@/.+-])(?=[A-Z0-9]*\d|[A-Z]{1,3}[ \u00a0.\-/]\d)"
    r"[A-Z0-9]{1,19}(?:(?:[ \u00a0]|[.\-/](?=[A-Z0-9]))[A-Z0-9]{1,19}){0,8}"
    r"(?![\w@]|[.,]\d|-\w)"
)
_COMPACT = re.compile(r"[ \u00a0.\-/]")
#: Numbers validated as written, not compact: a Finnish henkilötunnus's century sign is a dash
#: (``131052-308T``) or a letter.
_AS_WRITTEN = frozenset({"fi_hetu"})


def _best_standard_number(run: str) -> tuple[int, int, str] | None:
    """The longest stretch of whole groups of ``run`` that validates as a
    standard number: ``(start, end, name)`` within ``run``."""
    groups = [m.span() for m in re.finditer(r"[A-Z0-9]+", run)]
    best = None
    for i in range(len(groups)):
        for j in range(len(groups), i, -1):
            s, e = groups[i][0], groups[j - 1][1]
            if best and e - s <= best[1] - best[0]:
                break
            compact = _COMPACT.sub("", run[s:e])
            if count_digits(compact) < 6:
                continue
            for name, is_valid, lengths in STANDARD_NUMBERS:
                if len(compact) in lengths and is_valid(run[s:e] if name in _AS_WRITTEN else compact):
                    best = (s, e, name)
                    break
    return best


def find_standard_numbers(text: str) -> list[RuleMatch]:
    """Numbers whose checksum validates as an IBAN, a payment card or a
    national identity, tax or health number (python-stdnum)."""
    out = []
    for m in _NUMBER_RUN.finditer(text):
        run = m.group(0)
        if count_digits(run) < 6:
            continue
        found = _best_standard_number(run)
        if found:
            out.append(RuleMatch(m.start() + found[0], m.start() + found[1], "CODE", found[2]))
    return out


#: Words that announce an identifying number or code, in several languages: ``data/code_cues.txt`` (shared by
#: every language; a language adds its own in ``data/<lang>/code_cues.txt``: :func:`code_cues`).
CODE_CUES: tuple[str, ...] = read_list("en", "code_cues.txt")


def code_cues(lang: str = "en") -> tuple[str, ...]:
    """The words that announce a number in language ``lang`` ("requête", "demanda")."""
    return read_list(lang, "code_cues.txt")


@lru_cache(maxsize=8)
def _cue_pattern(lang: str) -> re.Pattern[str]:
    return re.compile(
        r"(?<!\w)(?:"
        + "|".join(sorted((re.escape(c).replace(r"\ ", r"[ \u00a0]") for c in code_cues(lang)), key=len, reverse=True))
        + r")"
        r"\.?(?:[ \u00a0]+(?:no\.?|nr\.?|number|num\.?|#|id))?[ \u00a0]*(?:[:#=]|is|n[°º]|№)?[ \u00a0]*",
        re.IGNORECASE,
    )


_CUE_PATTERN = _cue_pattern("en")
#: The value after a cue: up to 7 groups of at most 48 letters and digits each. The lookahead (a digit
#: before the value ends) looks no further than a value reaches: unbounded, it scanned a long run of
#: letters ("ID AAAA...") to its end from every cue in it.
_CUED_VALUE = re.compile(
    r"(?=[A-Za-z0-9./ \u00a0-]{0,342}?\d)[A-Z0-9][A-Za-z0-9]{0,47}"
    r"(?:(?:[ \u00a0]|[.\-/](?=[A-Za-z0-9]))[A-Z0-9][A-Za-z0-9]{0,47}){0,6}"
    r"(?![\w@]|[.,]\d)"
)
_WORDISH = re.compile(r"^[A-Z][a-z]+$")
#: four digits that no text dates to ("registrada con el número 5299"): after a cue, a number, not a year
_NOT_A_YEAR = re.compile(r"^(?:[03-9]\d{3}|2[1-9]\d\d)$")


def find_cued_codes(text: str, min_digits: int = 4, lang: str = "en") -> list[RuleMatch]:
    """A number or code right after a context word of language ``lang``
    (``Passport KX4410983``, ``NHS number 485 777 3456``, ``MRN 0044521``): a
    CODE whether or not its checksum validates. Groups that are ordinary words
    end the code."""
    out = []
    for cue in _cue_pattern(lang).finditer(text):
        m = _CUED_VALUE.match(text, cue.end())
        if not m:
            continue
        value = m.group(0)
        # keep whole groups while they hold digits or are short upper-case letter groups
        keep_end = 0
        for g in re.finditer(r"[A-Za-z0-9]+", value):
            word = g.group(0)
            if _WORDISH.match(word) or (word.isalpha() and not word.isupper()) or (word.isalpha() and len(word) > 4):
                break
            keep_end = g.end()
        value = value[:keep_end]
        digits = count_digits(value)
        if (digits >= min_digits or (digits >= 2 and digits < len(_COMPACT.sub("", value)))) and not (
            DATE_LIKE.match(value) and not _NOT_A_YEAR.match(value)
        ):
            out.append(RuleMatch(m.start(), m.start() + len(value), "CODE", "cued_code"))
    return out


#: Long digit runs (8+ digits in groups, not amounts nor the date of a time: "2024-05-01 12:03"): account,
#: reference and identity numbers.
_LONG_NUMBER = re.compile(r"(?<![\w.,/-])\d{2,}(?:[ \u00a0-]\d{2,}){0,6}(?![\w/-]|[.,:]\d)")
#: A number of 5-7 digits on its own (postcodes, reference and account numbers), or "NN-NNN" (Polish postcodes).
_BARE_NUMBER = re.compile(r"(?<![\w.,/:+-])(?:\d{5,7}|\d{2}-\d{3})(?![\w/:-]|[.,]\d|\s*(?:%|per ?cent))")
_YEAR_GROUPS = re.compile(r"^(?:(?:1[89]|20)\d\d[ -]?)+$")


def find_long_numbers(text: str, min_digits: int = 8) -> list[RuleMatch]:
    """Digit runs of ``min_digits`` or more digits in groups (not amounts,
    years or dates), and numbers of 5-7 digits standing alone."""
    out = [RuleMatch(m.start(), m.end(), "CODE", "bare_number") for m in _BARE_NUMBER.finditer(text)]
    for m in _LONG_NUMBER.finditer(text):
        value = m.group(0)
        if count_digits(value) >= min_digits and not _YEAR_GROUPS.match(value) and not DATE_LIKE.match(value):
            out.append(RuleMatch(m.start(), m.end(), "CODE", "long_number"))
    return out


#: Tokens that mix capital letters and digits (``KX4410983``, ``AB123456C``).
_MIXED_CODE = re.compile(r"(?<![\w@/.-])(?=[A-Z0-9]*\d[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6,20}(?![\w@/-])")


def find_mixed_codes(text: str, min_digits: int = 4) -> list[RuleMatch]:
    return [
        RuleMatch(m.start(), m.end(), "CODE", "mixed_code")
        for m in _MIXED_CODE.finditer(text)
        if count_digits(m.group(0)) >= min_digits
    ]
