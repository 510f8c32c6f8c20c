"""Month and weekday names: Unicode CLDR's, through babel, computed once.

Every module that reads or writes a month or weekday name takes it from here:
privacy_ner's date patterns (:mod:`spacy_textsan.detect.privacy_ner.rules`,
``addresses``), the date surrogates (:mod:`spacy_textsan.render.surrogates`)
and the column sniffer of ``textsan sanitize``
(:mod:`spacy_textsan.run.personal_columns`).

CLDR has the names of each language as they are printed; what people also
type, without accents (``fevrier``, ``Subat``) or with ``ae`` for ``ä``
(``Maerz``), is :data:`TYPED_MONTH_FORMS`.
"""

from functools import cache, lru_cache
from typing import Literal

from babel.dates import get_day_names, get_month_names

__all__ = [
    "DATE_LOCALES",
    "SURROGATE_LOCALES",
    "TYPED_MONTH_FORMS",
    "day_names",
    "english_month_forms",
    "month_names",
]

#: The locales whose month names privacy_ner reads in dates of other languages ("3 avril 1985",
#: "3 Nisan 1985", "3 de setiembre de 1985"): French, German (and Austrian "Jänner"), Dutch, Spanish
#: (and Peruvian "setiembre"), Portuguese, Italian, Turkish, Polish (the genitive: "3 maja 1985"),
#: Norwegian, Danish, Swedish.
DATE_LOCALES = ("fr", "de", "de_AT", "nl", "es", "es_PE", "pt", "it", "tr", "pl", "nb", "da", "sv")
#: The locales of the month names a date surrogate keeps ("avril" → "juillet"), in the order they are
#: tried: a name two of them share ("mars") is read in the first.
SURROGATE_LOCALES = ("fr", "de", "es", "it", "pt", "nl", "tr", "pl", "nb")
#: Month names as they are typed but CLDR does not print them, by language, and their month:
#: without accents, or with "ae" for "ä".
TYPED_MONTH_FORMS: dict[str, dict[str, int]] = {
    "fr": {"fevrier": 2, "aout": 8, "decembre": 12},
    "de": {"Maerz": 3},
    "tr": {"Subat": 2, "Mayis": 5, "Agustos": 8, "Eylul": 9, "Kasim": 11, "Aralik": 12},
    "pl": {"wrzesnia": 9, "pazdziernika": 10},
}


@cache
def month_names(locale: str, width: Literal["wide", "abbreviated"] = "wide") -> tuple[str, ...]:
    """The 12 month names of ``locale``, January first, as used in a date
    (CLDR's format context: Polish "stycznia", not "styczeń"); ``width``:
    ``"wide"`` ("January") or ``"abbreviated"`` ("Jan")."""
    names = get_month_names(width, "format", locale)
    return tuple(names[month] for month in range(1, 13))


@cache
def day_names(locale: str, width: Literal["wide", "abbreviated"] = "wide") -> tuple[str, ...]:
    """The 7 weekday names of ``locale``, Monday first (:meth:`datetime.date.weekday`);
    ``width``: ``"wide"`` ("Monday") or ``"abbreviated"`` ("Mon")."""
    names = get_day_names(width, "format", locale)
    return tuple(names[day] for day in range(7))


@lru_cache(maxsize=1)
def english_month_forms() -> tuple[str, ...]:
    """The English month names, wide then abbreviated, the British "Sept"
    included: ``("January", ..., "December", "Jan", ..., "Sep", "Sept", ...)``,
    each once."""
    forms = [*month_names("en"), *month_names("en", "abbreviated"), *month_names("en_GB", "abbreviated")]
    return tuple(dict.fromkeys(forms))
