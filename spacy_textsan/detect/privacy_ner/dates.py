"""Dates written with month names, by language: the DATETIME patterns of the ``dates`` recognizer.

English reads the package's own DATETIME patterns (:data:`.rules.DEFAULT_PATTERNS`: "3 April 1985",
"April 3, 1985", "03-Apr-85", and the month names of other languages in "3 avril 1985"). Another language
reads its own month and weekday names, CLDR's through babel
(:func:`spacy_textsan.calendar_names.month_names`, wide and abbreviated, and the forms typed without
accents: ``fevrier``), so that "le lundi 12 mars 1961", "1er janvier 2000", "el 3 de mayo de 2004" and
"mayo de 2004" are each one DATETIME span (the article before the day stays outside, as "on" stays
outside "on 3 April 1985"), and the patterns that name no month (numeric and ISO dates, decades, years,
times of day) as English does.

``article=True`` (the ``dates`` recognizer's ``article`` setting) takes the language's definite article
before the day into the span (:data:`DATE_ARTICLES`: "le 12 mars 1961", "el 3 de mayo de 2004"), as the
hand-annotated French and Spanish ECHR judgments mark a date; a language without one is unchanged.
"""

import re
from collections.abc import Iterable
from functools import lru_cache

from babel.core import UnknownLocaleError

from ...calendar_names import TYPED_MONTH_FORMS, day_names, month_names
from .rules import _YEAR, DEFAULT_PATTERNS

__all__ = ["DATE_ARTICLES", "NUMERIC_DATE_PATTERNS", "date_patterns", "month_forms"]

#: The DATETIME patterns that name no month: read in every language.
NUMERIC_DATE_PATTERNS = ("date_roman_month", "date_numeric", "date_iso", "decade", "year", "time")
#: An ordinal first day: French "1er", Spanish "1º"/"1.º".
_FIRST = r"1er|1re|1\.?[ºo]"
#: The definite article that ``article=True`` takes into a date with a day ("le 12 mars", "el 3 de mayo").
DATE_ARTICLES = {"fr": ("le",), "es": ("el",)}


def _alternation(forms: Iterable[str]) -> str:
    return "|".join(sorted({re.escape(f) for f in forms}, key=len, reverse=True))


@lru_cache(maxsize=16)
def month_forms(lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The month names of ``lang`` that a date is read with: ``(wide, abbreviated)``, CLDR's and the
    typed forms without accents (:data:`~spacy_textsan.calendar_names.TYPED_MONTH_FORMS`); the
    abbreviations without their final period (the pattern reads it)."""
    wide = tuple(month_names(lang)) + tuple(TYPED_MONTH_FORMS.get(lang, {}))
    short = tuple(dict.fromkeys(f.rstrip(".") for f in month_names(lang, "abbreviated")))
    return wide, tuple(f for f in short if f.lower() not in {w.lower() for w in wide})


@lru_cache(maxsize=16)
def date_patterns(lang: str, article: bool = False) -> tuple[dict, ...]:
    """The DATETIME pattern dicts of language ``lang`` (:mod:`.rules`' shape); ``article``: the
    language's article before the day (:data:`DATE_ARTICLES`) is part of the date."""
    own = [p for p in DEFAULT_PATTERNS if p["label"] == "DATETIME"]
    if lang == "en":
        return tuple(own)
    numeric = tuple(p for p in own if p["name"] in NUMERIC_DATE_PATTERNS)
    try:
        wide, short = month_forms(lang)
        days = day_names(lang) + day_names(lang, "abbreviated")
    except (UnknownLocaleError, ValueError):  # no CLDR calendar: the dates without month names only
        return numeric
    months = rf"(?:{_alternation(wide)}|(?:{_alternation(short)})\.?)"
    weekday = rf"(?:(?:{_alternation(d.rstrip('.') for d in days)})\.?,?\s+)?"
    of = r"(?:de\s+|del\s+)?"  # Spanish and Portuguese "3 de mayo de 2004", "mayo del 2004"
    the = DATE_ARTICLES.get(lang, ()) if article else ()
    lead = rf"(?:(?:{_alternation(the)})\s+)?" if the else ""
    words = sorted({w.lower() for f in wide + short for w in re.findall(r"\w+", f)})
    return (
        {
            "name": f"date_{lang}",
            "label": "DATETIME",
            "flags": "i",
            "requires": words,
            "pattern": rf"\b{lead}{weekday}(?:{_FIRST}|[12]\d|3[01]|0?[1-9])\.?\s+{of}{months}(?:,?\s+{of}{_YEAR})?(?![\w])",
        },
        {
            "name": f"date_{lang}_my",
            "label": "DATETIME",
            "flags": "i",
            "requires": words,
            "pattern": rf"\b(?:{_alternation(wide)})\s+{of}{_YEAR}\b",
        },
        *numeric,
    )
