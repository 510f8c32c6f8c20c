"""Replacement options of Olstad et al. 2023 (WikiReplace), as pure functions.

Each function returns the options for one span, most specific first; the
generalizer takes the first one that is safe (:func:`safe_options`) and
falls back to ``***``:

* DATETIME: the year, then the decade, then ``DATE`` ("March 12, 1994" →
  ``1994``, ``date in the 1990s``, ``DATE``; "the following day" → ``DATE``);
* QUANTITY: ``X`` and the unit ("23 €" → ``X €``, "EUR 15,000" → ``X EUR``,
  "5 %" → ``X %``); no unit, no option;
* LOC / ORG / DEM / MISC: the ancestors of the span's knowledge-base entry
  (``span._.kb_chain`` from ``wikidata_gazetteer``: instance of, subclass
  of, metaclass, part of, in that order);
* PERSON is numbered by the component (``PERSON 1``), CODE has no option.

An option is unsafe when it would itself reveal something masked: it names
one of the document's masked strings or a capitalised word of one ("city in
Turkey" while "Republic of Turkey" is masked), echoes the original ("nationality
of Turkey" for "Turkish"), or is listed in ``risky_terms`` (e.g. terms that
kanon_risk found in fewer than k records).
"""

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from re import Pattern

__all__ = ["datetime_options", "quantity_options", "chain_options", "safe_options", "STAR"]

STAR = "***"
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d|'?s\b)")
_DECADE = re.compile(r"(?<!\d)(1[5-9]\d0|20\d0)'?s\b")
NUMBER = r"\d[\d\s.,']*\d|\d"
#: Units kept by the QUANTITY option, longest first when matched.
UNITS = [
    "per cent",
    "percent",
    "%",
    "€",
    "$",
    "£",
    "¥",
    "euros",
    "euro",
    "EUR",
    "USD",
    "GBP",
    "CHF",
    "TRY",
    "TRL",
    "RUB",
    "UAH",
    "PLN",
    "HUF",
    "CZK",
    "SEK",
    "NOK",
    "DKK",
    "BGN",
    "RON",
    "HRK",
    "ISK",
    "dollars",
    "pounds",
    "francs",
    "lira",
    "liras",
    "lire",
    "roubles",
    "rubles",
    "hryvnias",
    "zlotys",
    "forints",
    "korunas",
    "kronor",
    "kroner",
    "lei",
    "levs",
    "kuna",
    "kilometres",
    "kilometers",
    "km",
    "metres",
    "meters",
    "m",
    "centimetres",
    "cm",
    "kilograms",
    "kg",
    "grams",
    "g",
    "hectares",
    "ha",
    "square metres",
    "sq. m",
    "years",
    "months",
    "weeks",
    "days",
    "hours",
    "minutes",
    "litres",
    "liters",
]


def datetime_options(text: str) -> list[str]:
    """Year → decade → ``DATE`` (Olstad et al. 2023, §3.1)."""
    out: list[str] = []
    years = _YEAR.findall(text)
    if len(set(years)) == 1:  # one year named: "14 March 2009", "2009"
        year = years[0]
        out += [year, f"date in the {year[:3]}0s"]
    else:
        decades = _DECADE.findall(text)
        if len(set(decades)) == 1:
            out.append(f"date in the {decades[0]}s")
        elif years and len({y[:3] for y in years}) == 1:  # "1994-1996": one decade
            out.append(f"date in the {years[0][:3]}0s")
    out.append("DATE")
    return out


def find_unit(text: str) -> str | None:
    """The longest known unit (:data:`UNITS`) in ``text``, or ``None``."""
    lowered = f" {text.lower()} "
    for unit in sorted(UNITS, key=len, reverse=True):
        u = unit.lower()
        if u.isalpha() or " " in u or "." in u:
            if re.search(rf"(?<![a-z]){re.escape(u)}(?![a-z])", lowered):
                return unit
        elif u in lowered:
            return unit
    return None


def quantity_options(text: str) -> list[str]:
    """``X`` + the unit when the quantity has a number and a known unit."""
    found = find_unit(text)
    out = []
    if found is not None and re.search(NUMBER, text):
        out.append(f"X {'%' if found in ('per cent', 'percent') else found}")
    return out


def chain_options(chain: Sequence[str] | None) -> list[str]:
    """The knowledge-base ancestors, most specific first, without repeats."""
    seen, out = set(), []
    for item in chain or []:
        item = (item or "").strip()
        if item and item.lower() not in seen:
            seen.add(item.lower())
            out.append(item)
    return out


@lru_cache(maxsize=16)
def _masked_index(masked: tuple[str, ...]) -> tuple[Pattern | None, frozenset[str]]:
    """For one document's masked strings, built once (the generalizer asks for every
    span): a pattern of them (case-insensitive; strings of 4+ characters anywhere, as the
    leak sweep finds them, shorter ones as whole words; one alternation finds what any
    one of them would), and their capitalised words ("Turkey" of
    "Republic of Turkey"), which may not reappear either."""
    strings = sorted({m.strip() for m in masked if len(m.strip()) >= 2}, key=lambda t: (-len(t), t))
    # as the leak sweep reads them: 4+ characters anywhere ("1990" in "the 1990s"), shorter ones as whole words
    long_ = [re.escape(t) for t in strings if len(t) >= 4]
    short = [re.escape(t) for t in strings if len(t) < 4]
    parts = ([f"(?:{'|'.join(long_)})"] if long_ else []) + ([rf"(?<!\w)(?:{'|'.join(short)})(?!\w)"] if short else [])
    pattern = re.compile("|".join(parts), re.IGNORECASE) if parts else None
    words = frozenset(w.lower() for m in masked for w in re.findall(r"\w{3,}", m) if w[:1].isupper())
    return pattern, words


def safe_options(
    options: Iterable[str],
    masked_texts: Iterable[str],
    risky_terms: Iterable[str] = (),
    original: str = "",
    names: bool = True,
) -> list[str]:
    """The options that name no masked string of the document (case-insensitive;
    4+ characters anywhere, shorter ones as whole words), are not risky terms themselves and, with ``names``
    (knowledge-base options), hold no capitalised word of a masked string and
    do not echo the original (a capitalised word sharing its first four
    letters with one of the original's words: "nationality of Turkey" for
    "Turkish"). Structured options (a year, ``X EUR``) keep the part of the
    original they are built from by design, so ``names`` is off for them."""
    risky = {t.lower() for t in risky_terms}
    pattern, masked_words = _masked_index(tuple(masked_texts))
    stems = {w[:4].lower() for w in re.findall(r"\w+", original) if len(w) >= 4} if names else set()
    words = masked_words if names else frozenset()
    out = []
    for option in options:
        if option.lower() in risky or (pattern is not None and pattern.search(option)):
            continue
        if any(w[:1].isupper() and w.lower() in words for w in re.findall(r"\w{3,}", option)):
            continue
        if any(w[:1].isupper() and w[:4].lower() in stems for w in re.findall(r"\w{4,}", option)):
            continue
        out.append(option)
    return out
