"""Case-law citations and lone initials, the identifiers of court judgments that the NER misses.

Two recognizers (:mod:`.recognizers`), neither among the English defaults: French and Spanish configs
name them (``configs/default_fr.cfg``, ``default_es.cfg``).

``case_citations`` (CODE, source ``rule:<pattern>``) reads the citations of a judgment's law reports:

* a report cited by volume, reporter and page, ``418 US 24``, ``2 SCR 438``, ``[2000] 2 CF`` (the
  reporters of :data:`REPORTERS`, or any reporter after a bracketed year);
* a volume of the Court's own reports, ``1996-V``, ``TEDH 2006-XII``, ``CEDH 2001-III``;
* a report cited by volume, title and page, ``vol. 3, Weekly Law Reports, p. 533``;
* a pinpoint after an application number, ``8186/78, §§ 61-62`` (the number and its paragraphs);
* the number of one of several cases of the same name, ``Sauvé c. Canada (no 2)`` (the ``2``);
* an application number after ``no``/``n°``/``núm.`` whose groups a conversion split apart,
  ``no 31 / / 1993 426/505`` (the parts a slash joins, and a further ``426/505`` after them).

``initials`` (PERSON, source ``rule:initial``) reads the initial that stands for a party, ``[L.]``,
``la déclaration de K., ...``: one capital letter and its period, in brackets, or followed by a comma
(a semicolon, colon, closing bracket) or a word in lower case; not a letter that is a title of the
language (``M.`` is "Monsieur", ``D.`` "Don": ``titles.txt``), not part of a longer abbreviation
(``U.S.``, ``J.-C.``).
"""

import re
from functools import lru_cache

import spacy

from .combine import PRIORITY_CODE, PRIORITY_DEFAULT, Candidate
from .recognizers import Context, Recognizer
from .rules import titles

__all__ = ["REPORTERS", "CaseCitations", "Initials", "find_case_citations", "find_initials"]

#: Law reporters cited as ``<volume> <reporter> <page>`` (US, Canadian, British, the Court's own).
REPORTERS = (
    r"U\.?\s?S\.?",
    r"S\.?\s?Ct\.?",
    r"L\.?\s?Ed\.?(?:\s?2d)?",
    r"F\.\s?(?:2d|3d|4th|Supp\.?)",
    r"S\.?C\.?R\.?",
    r"R\.?C\.?S\.?",
    r"D\.?L\.?R\.?(?:\s?\(\d+th\))?",
    r"W\.?L\.?R\.?",
    r"All\s?E\.?R\.?",
    r"E\.?H\.?R\.?R\.?",
    r"D\.?R\.?",
    r"A\.?C\.?",
    r"Q\.?B\.?",
)
_REPORTER = "|".join(REPORTERS)
_PAGE = r"\d{1,5}(?:\s*[-–]\s*\d{1,5})?"
#: (name, pattern, group): the span is the group's
_CITATIONS: tuple[tuple[str, str, int], ...] = (
    ("law_report", rf"\b\d{{1,4}}\s+(?:{_REPORTER})\s+{_PAGE}\b", 0),
    # after a bracketed year, any short capitalised reporter, with or without its page
    (
        "bracket_report",
        rf"\[\d{{4}}\]\s+(\d{{1,4}}\s+[A-Z][A-Za-z.]{{0,7}}(?:\s+[A-Z][A-Za-z.]{{0,7}}){{0,2}}(?:\s+{_PAGE})?)\b",
        1,
    ),
    ("reports_volume", r"\b(?:(?:CEDH|TEDH|ECHR)\s+)?(?:1[89]|20)\d{2}-[IVX]{1,5}\b(?![-\w])", 0),
    ("volume_page", rf"\bvol\.\s*\d{{1,4}},\s*[^,\n]{{1,60}}?,\s*pp?\.\s*{_PAGE}\b", 0),
    ("pinpoint", r"\b\d{1,6}/(?:\d{2}|\d{4}),\s*§§?\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?\b", 0),
    ("case_number", r"\((?:no|n°|nº|núm\.|no\.|No\.)\s*(\d{1,2})\)", 1),
    # groups joined by slashes with spaces around them (and empty groups): what the plain application-number
    # rule (``36110/97``, no spaces) leaves of a split one
    (
        "split_application",
        r"\b(?:[Nn]o|n°|nº|núm)\.?\s+(\d{1,6}(?:\s*/\s*\d{0,6})*?\s+/\s*\d{1,6}(?:\s+\d{1,6}/\d{1,6})*)(?![\w/])",
        1,
    ),
)
_INITIAL = re.compile(r"(?<![\w.\-])(\[)?([A-Z])\.(?(1)\]|(?=\s*[,;:)]|\s+[a-zà-ÿ]))")


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[str, "re.Pattern[str]", int], ...]:
    return tuple((name, re.compile(pattern), group) for name, pattern, group in _CITATIONS)


def find_case_citations(text: str) -> list[tuple[int, int, str]]:
    """The case-law citations of ``text`` (module docstring): ``(start, end, pattern name)``, in
    pattern order then text order."""
    out = []
    for name, regex, group in _compiled():
        for m in regex.finditer(text):
            start, end = m.span(group)
            if end > start:
                out.append((start, end, name))
    return out


def find_initials(text: str, lang: str) -> list[tuple[int, int]]:
    """The lone initials of ``text`` (module docstring), brackets included: ``(start, end)``."""
    skip = {t.upper() for t in titles(lang) if len(t) == 1}
    return [(m.start(), m.end()) for m in _INITIAL.finditer(text) if m.group(2) not in skip]


class CaseCitations(Recognizer):
    """Case-law citations (:func:`find_case_citations`): CODE, source ``rule:<pattern>``."""

    name = "case_citations"
    languages = ("fr", "es")
    types = ("CODE",)

    def find(self, text: str, context: Context) -> list[Candidate]:
        return [Candidate(s, e, "CODE", f"rule:{n}", PRIORITY_CODE) for s, e, n in find_case_citations(text)]


class Initials(Recognizer):
    """Lone initials standing for a person (:func:`find_initials`): PERSON, source ``rule:initial``."""

    name = "initials"
    languages = ("fr", "es")
    types = ("PERSON",)
    layer = "names"

    def find(self, text: str, context: Context) -> list[Candidate]:
        return [
            Candidate(s, e, "PERSON", "rule:initial", PRIORITY_DEFAULT) for s, e in find_initials(text, context.lang)
        ]


@spacy.registry.misc("spacy_textsan.recognizer.case_citations.v1")
def case_citations() -> Recognizer:
    return CaseCitations()


@spacy.registry.misc("spacy_textsan.recognizer.initials.v1")
def initials() -> Recognizer:
    return Initials()
