"""Surrogates of the ``pseudonym`` and ``hash`` strategies, as pure functions.

Every random choice is drawn from a seed that is a keyed HMAC-SHA256 of the
entity (:func:`entity_seed`), so the same key and the same entity give the
same surrogate in every document and on every run, and nobody without the key
can recompute or invert it.

* ``hash``: ``[PERSON 3f9a1c2b7d]``, the first hex digits of
  HMAC(key, label + canonical text) (:func:`hash_token`);
* ``pseudonym``: a fake but plausible value of the same kind:
  PERSON → a name, LOC → a city (a country when the span's KB chain says
  it is one), ORG → a company (Faker, in the locale of the document's
  language: ``en_US``, ``fr_FR``, ``es_ES``, ``de_DE``; seeded by the
  entity); DATETIME → the date shifted by a per-document offset of
  400 to 3,650 days, forwards or backwards (:func:`document_shift`), so the
  intervals between the dates of one document are kept and the format is
  kept ("14 March 2009" → "2 June 2013", "3rd of March, 1979" → "15th of July,
  1980", "03-Apr-1985", "3.IV.1985" alike; a lone year moves by whole years;
  a date in a form not understood keeps none of its parts: its years, moved);
  CODE → the same shape with other digits and letters ("48213/09" →
  "70536/17"); QUANTITY → another number with the known unit only
  ("EUR 15,000" → "EUR 62,809", "12,500 Turkish liras" → "37,215 liras"). DEM and MISC
  have no plausible surrogate (a made-up job would mislead the reader): the
  component generalizes them instead.

A surrogate drawn from lists of names (PERSON, LOC, ORG: :data:`NAME_LABELS`)
shows no word of a name it hides: :func:`name_words` folds the words of the
document's masked names ("N'Golo Kanté" → ``golo``, ``kante``, ``ngolo``) and
:func:`shares_word` refuses a candidate holding one of them ("Russell Li" for
"D'Angelo Russell"); the component draws again.
"""

import calendar
import datetime
import hashlib
import hmac
import random
import re

from ..calendar_names import SURROGATE_LOCALES, day_names, month_names
from ..text_folding import fold, strip_marks
from .options import NUMBER, find_unit

__all__ = [
    "entity_seed",
    "hash_token",
    "canonical_text",
    "document_shift",
    "shift_dates",
    "scramble",
    "fake_value",
    "quantity_surrogate",
    "name_words",
    "shares_word",
    "PSEUDONYM_LABELS",
    "NAME_LABELS",
]

#: Labels that get a surrogate of their own kind.
PSEUDONYM_LABELS = ("PERSON", "LOC", "ORG", "DATETIME", "CODE", "QUANTITY")
#: Labels whose surrogates are drawn from lists of names: they show no word of a masked name.
NAME_LABELS = ("PERSON", "LOC", "ORG")
#: a word of a name: letters (and digits) between apostrophes, hyphens, dots and spaces
_WORD = re.compile(r"[^\W_]+")
#: what joins the parts of one word ("N'Golo", "Jean-Pierre", "O’Neil")
_JOINERS = re.compile(r"['’ʼ‘`´\-‐‑]")
#: letters that carry no combining mark to strip ("Ørsted" and "Orsted" are one word)
_LETTERS = str.maketrans({"ø": "o", "æ": "ae", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"})

#: English month names (CLDR's, :mod:`spacy_textsan.calendar_names`), wide and abbreviated, January first.
_ENGLISH, _ENGLISH_ABBR = month_names("en"), month_names("en", "abbreviated")
_ENGLISH_FORMS = frozenset(m.lower() for m in _ENGLISH + _ENGLISH_ABBR)
#: Month names of other languages, January first: a date keeps its language ("avril" → "juillet").
_FOREIGN = {locale: month_names(locale) for locale in SURROGATE_LOCALES}
#: Every month name (lower case, the British "sept" too) and its month.


def _month_key(name: str) -> str:
    """A month name as the date patterns match it: case-insensitively, where Turkish "ı", "İ" and
    "i" are one letter ("Mayis" and "MAYIS" are matches of "Mayıs", "NİSAN" of "Nisan"; ``lower``
    alone gives "i" + a combining dot for "İ")."""
    return name.lower().replace("i\u0307", "i").replace("ı", "i")


_MONTHS: dict[str, int] = {}
for _names in (_ENGLISH, _ENGLISH_ABBR, month_names("en_GB", "abbreviated"), *_FOREIGN.values()):
    for _i, _name in enumerate(_names, 1):
        _MONTHS.setdefault(_month_key(_name), _i)
_MONTH_NAMES = "|".join(sorted((re.escape(m) for m in _MONTHS), key=len, reverse=True))
_ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")
_ROMAN_NAMES = "|".join(sorted(_ROMAN, key=len, reverse=True))
_WEEKDAYS = [d.lower() for d in day_names("en")] + [d.lower() for d in day_names("en", "abbreviated")]
#: between the parts of a date: spaces, or a hyphen, slash or dot with optional spaces
_SEP = r"(?:\s+|\s*[-/.]\s*)"
_D = r"(?P<d>\d{1,2})(?P<o>st|nd|rd|th)?"
_Y = r"'?(?P<y>\d{4}|\d{2})"
_DATE_FORMS = (  # (pattern, has day, has year): tried in order, the first match of a stretch wins
    # 3 March 1979, 3rd of March, 1979, 03-Apr-1985, 3 de abril de 1985, 3. April 85
    (rf"\b{_D}\.?(?:\s+of)?{_SEP}(?:de\s+)?(?P<m>{_MONTH_NAMES})\.?,?{_SEP}(?:de\s+|del\s+)?{_Y}\b", True, True),
    # March 3rd, 1979, Apr-03-1985
    (rf"\b(?P<m>{_MONTH_NAMES})\.?{_SEP}{_D},?{_SEP}{_Y}\b", True, True),
    # 03APR1985, 1985-Apr-03
    (rf"\b{_D}(?P<m>{_MONTH_NAMES})(?P<y>\d{{4}}|\d{{2}})\b", True, True),
    (rf"\b(?P<y>\d{{4}}){_SEP}(?P<m>{_MONTH_NAMES})\.?{_SEP}{_D}\b", True, True),
    # 3.IV.1985, 03/XII/85
    (rf"\b{_D}(?P<s>\.\s?|[-/\s])(?P<m>{_ROMAN_NAMES})(?P=s)(?P<y>\d{{4}}|\d{{2}})\b", True, True),
    # 14.03.2009, 04/03/85 (day first; month first when the second number cannot be a month)
    (r"\b(?P<d>\d{1,2})(?P<s>[./-])(?P<m>\d{1,2})(?P=s)(?P<y>\d{4}|\d{2})\b", True, True),
    # 2009-03-14, 1985/04/03
    (r"\b(?P<y>\d{4})(?P<s>[./-])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})\b", True, True),
    # March 1979, MARCH 2009, 04/1985
    (rf"\b(?P<m>{_MONTH_NAMES})\.?,?\s+(?P<y>\d{{4}})\b", False, True),
    (r"\b(?P<m>0?[1-9]|1[0-2])(?P<s>[./-])(?P<y>\d{4})\b", False, True),
    # 3 March, March 3rd (no year)
    (rf"\b{_D}\.?(?:\s+of)?\s+(?P<m>{_MONTH_NAMES})\b\.?", True, False),
    (rf"\b(?P<m>{_MONTH_NAMES})\.?\s+{_D}\b", True, False),
)
_FORMS = [(re.compile(p, re.IGNORECASE), day, year) for p, day, year in _DATE_FORMS]
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
_DIGITS = re.compile(r"\d+")
_TIME = re.compile(
    r"\b(?:[01]?\d|2[0-3])(?:[:.h][0-5]\d(?::[0-5]\d)?(?:\s*[ap]\.?m\b\.?)?|\s*[ap]\.?m\b\.?)", re.IGNORECASE
)
_DECADE = re.compile(r"(?<!\d)(1[5-9]\d0|20\d0)'?s\b")
#: the first day of a range before a date ("3 and 4 May 1985", "3rd-5th June 2001")
_RANGE_DAY = re.compile(r"\b(?P<d>[12]\d|3[01]|0?[1-9])(?P<o>st|nd|rd|th)?\b", re.IGNORECASE)
_RANGE_GAP = re.compile(r"\.?\s*(?:-|–|—|/|&|to|and|or|until|till|through)\s*", re.IGNORECASE)
#: the year a date without one is moved in (a leap year: 29 February is a date)
_LEAP = 2000


def entity_seed(key: bytes, *parts: str) -> int:
    """A 64-bit seed: HMAC-SHA256(key, parts joined by U+001F)."""
    digest = hmac.new(key, "\x1f".join(parts).encode("utf-8"), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def canonical_text(text: str) -> str:
    """Case-folded, whitespace-collapsed: the identity of a mention across documents."""
    return fold(text, compat=False)


def name_words(text: str) -> set[str]:
    """The words of ``text``, case- and accent-folded: split at spaces,
    apostrophes and hyphens, each joined part too ("N'Golo Kanté" → ``golo``,
    ``ngolo``, ``kante``; "Jean-Pierre" → ``jean``, ``pierre``, ``jeanpierre``).
    A single letter (an initial, the "d" of "D'Angelo") is no word."""
    folded = strip_marks(fold(text, _LETTERS))
    words = set(_WORD.findall(folded)) | set(_WORD.findall(_JOINERS.sub("", folded)))
    return {w for w in words if len(w) >= 2}


def shares_word(candidate: str, words: set[str] | frozenset[str]) -> bool:
    """Whether ``candidate`` holds one of ``words`` (:func:`name_words` of a masked name) as a word."""
    return not name_words(candidate).isdisjoint(words)


def hash_token(key: bytes, label: str, text: str, length: int = 10) -> str:
    """The first ``length`` hex digits of HMAC-SHA256(key, label + canonical text)."""
    message = f"{label}\x1f{canonical_text(text)}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:length]


def document_shift(seed: int) -> tuple[int, int]:
    """``(days, years)``: the date offset of one document, 400 to 3,650 days
    either way, and the whole years lone years move by (never 0)."""
    rng = random.Random(seed)
    days = rng.randint(400, 3650) * rng.choice((-1, 1))
    years = round(days / 365.25) or (1 if days > 0 else -1)
    return days, years


def _shift(day: int, month: int, year: int, days: int) -> datetime.date | None:
    """The date moved by ``days``; a day past the month's end ("29 February 1987",
    "31 April") is read as its last day."""
    if not (1 <= month <= 12 and 1 <= year <= 9999 and day >= 1):
        return None
    day = min(day, calendar.monthrange(year, month)[1])
    try:
        return datetime.date(year, month, day) + datetime.timedelta(days=days)
    except (ValueError, OverflowError):
        return None


def _month_number(name: str) -> int:
    bare = name.rstrip(".")
    if bare.upper() in _ROMAN:
        return _ROMAN.index(bare.upper()) + 1
    return int(bare) if bare.isdigit() else _MONTHS[_month_key(bare)]


def _month_name(original: str, month: int) -> str:
    """The new month in the style of the original ("Mar." → "Jun.", "MARCH" → "JUNE",
    "avril" → "juillet", "IV" → "VII")."""
    bare = original.rstrip(".")
    if bare.upper() in _ROMAN:
        return _ROMAN[month - 1] + original[len(bare) :]
    if bare.lower() not in _ENGLISH_FORMS:
        for names in _FOREIGN.values():
            if _month_key(bare) in (_month_key(n) for n in names):
                name = names[month - 1]
                return (name.upper() if bare.isupper() else name) + original[len(bare) :]
    full = bare.lower() in {m.lower() for m in _ENGLISH}  # "May" is a full name
    name = _ENGLISH[month - 1] if full or len(bare) > 4 else _ENGLISH_ABBR[month - 1]
    name = name.upper() if bare.isupper() else name.lower() if bare.islower() else name
    return name + original[len(bare) :]


def _ordinal(day: int, original: str) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return suffix.upper() if original.isupper() else suffix


def _full_year(digits: str) -> int:
    """A year of two digits is of this century up to this year, else of the last."""
    if len(digits) == 4:
        return int(digits)
    this = datetime.date.today().year
    year = this // 100 * 100 + int(digits)
    return year if year <= this else year - 100


def _number(value: int, original: str, pad: bool) -> str:
    """``value`` as wide as ``original`` when that starts with a zero or ``pad``."""
    return f"{value:0{len(original)}d}" if pad or original.startswith("0") else str(value)


def _rewrite(m: re.Match, has_day: bool, has_year: bool, days: int) -> tuple[str, datetime.date] | None:
    """The match with its day, month and year replaced by those of the date
    ``days`` later, each in its own format, and that date; ``None`` when it is no date."""
    numeric = m["m"].isdigit()
    day = int(m["d"]) if has_day else 15
    month = _month_number(m["m"])
    swapped = has_day and numeric and month > 12 and day <= 12  # 04/23/2009: the month first
    if swapped:
        day, month = month, day
    new = _shift(day, month, _full_year(m["y"]) if has_year else _LEAP, days)
    if new is None:
        return None
    day_group, month_group = ("m", "d") if swapped else ("d", "m")
    parts: dict[str, str] = {}
    if has_day:
        parts[day_group] = _number(new.day, m[day_group], numeric)
        if m.re.groupindex.get("o") and m["o"]:
            parts["o"] = _ordinal(new.day, m["o"])
    if numeric:
        parts[month_group] = _number(new.month, m[month_group], True)
    else:
        parts["m"] = _month_name(m["m"], new.month)
    if has_year:
        parts["y"] = str(new.year) if len(m["y"]) == 4 else f"{new.year % 100:02d}"
    out, pos = [], m.start()
    for name in sorted(parts, key=m.start):
        out += [m.string[pos : m.start(name)], parts[name]]
        pos = m.end(name)
    return "".join(out) + m.string[pos : m.end()], new


def shift_dates(text: str, days: int, years: int) -> str | None:
    """Every date in ``text`` moved by ``days`` (lone years by ``years``),
    each part in its own format ("3rd of March, 1979", "03-Apr-1985",
    "3.IV.1985"; a day past the month's end, "1987-02-29", is its last day).
    What is left around the dates moves with them: the first day of a range
    ("3 and 4 May 1985"), a weekday. ``None`` when ``text`` has no date or
    year this understands; when it holds a number this does not understand
    ("Q3 1985"), only its years, moved ("1989"): nothing of a date is kept
    as it was."""
    edits: list[tuple[int, int, str]] = []  # on the original text, the first form wins
    dated: list[tuple[int, datetime.date, datetime.date | None]] = []  # (start, original, new) with day and year
    for regex, has_day, has_year in _FORMS:
        for m in regex.finditer(text):
            if any(m.start() < e and s < m.end() for s, e, _ in edits):
                continue
            rewritten = _rewrite(m, has_day, has_year, days)
            if rewritten is None:
                continue
            edits.append((m.start(), m.end(), rewritten[0]))
            if has_year:
                dated.append(
                    (m.start(), rewritten[1] - datetime.timedelta(days=days), rewritten[1] if has_day else None)
                )
    edits += _around(text, edits, dated, days, years)
    if not edits:
        return None
    if any(not any(s <= m.start() < e for s, e, _ in edits) for m in _DIGITS.finditer(text)):
        found = [str(int(m[1]) + years) for m in _YEAR.finditer(text)]
        return " ".join(found) if found else None
    out, pos = [], 0
    for start, end, new in sorted(edits):
        out += [text[pos:start], new]
        pos = end
    return "".join(out) + text[pos:]


def _around(text: str, edits: list, dated: list, days: int, years: int) -> list[tuple[int, int, str]]:
    """Edits of what is left around the dates: lone years (by ``years``), a day
    before a date ("3 and 4 May 1985": of its month), a weekday (of the one date)."""
    out: list[tuple[int, int, str]] = []

    def free(start: int, end: int) -> bool:
        return not any(start < e and s < end for s, e, _ in edits + out)

    for m in _TIME.finditer(text):
        if free(*m.span()):
            out.append((m.start(), m.end(), m[0]))  # a time of day is no part of the date: kept
    for m in _DECADE.finditer(text):
        if free(*m.span()):
            decades = max(1, round(abs(years) / 10)) * (1 if years > 0 else -1)  # a decade moves by one at least
            out.append((m.start(1), m.end(1), str(int(m[1]) + 10 * decades)))
    for m in _YEAR.finditer(text):
        if free(*m.span()):
            out.append((m.start(), m.end(), str(int(m[1]) + years)))
    for m in _RANGE_DAY.finditer(text):
        later = [(start, d) for start, d, _ in dated if start >= m.end()]
        if later and free(*m.span()) and _RANGE_GAP.fullmatch(text, m.end(), later[0][0]):
            new = _shift(int(m["d"]), later[0][1].month, later[0][1].year, days)
            if new is not None:
                out.append((m.start("d"), m.end("d"), _number(new.day, m["d"], False)))
                if m["o"]:
                    out.append((m.start("o"), m.end("o"), _ordinal(new.day, m["o"])))
    moved = [new for _, _, new in dated if new is not None]
    if len(moved) == 1:
        for m in re.finditer(r"[^\W\d_]+", text):
            if m[0].lower() in _WEEKDAYS and free(*m.span()):
                name = day_names("en", "wide" if len(m[0]) > 3 else "abbreviated")[moved[0].weekday()]
                out.append((m.start(), m.end(), name.upper() if m[0].isupper() else name))
    return out


def scramble(text: str, seed: int, letters: bool = True) -> str:
    """``text`` with every digit (and, with ``letters``, every ASCII letter) drawn anew (same case, a digit
    run keeps a non-zero first digit); other characters are kept. Never
    returns ``text`` itself when it holds something to draw."""
    rng = random.Random(seed)
    for _ in range(100):
        chars, prev_digit = [], False
        for ch in text:
            if ch.isdigit():
                low = 1 if not prev_digit and ch != "0" else 0
                chars.append(str(rng.randint(low, 9)))
                prev_digit = True
                continue
            prev_digit = False
            if letters and ch.isascii() and ch.isalpha():
                letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
                chars.append(letter.upper() if ch.isupper() else letter)
            else:
                chars.append(ch)
        out = "".join(chars)
        if out != text or not any(c.isdigit() or (letters and c.isascii() and c.isalpha()) for c in text):
            return out
    return out


def quantity_surrogate(text: str, seed: int) -> str | None:
    """Another number with the quantity's known unit only ("12,500 Turkish
    liras" → "37,215 liras": other words may identify); ``None`` without a number."""
    number = re.search(NUMBER, text)
    if number is None:
        return None
    unit = find_unit(text)
    new = scramble(number.group(), seed, letters=False)
    if unit is None:
        return new
    if unit in ("per cent", "percent", "%"):
        return f"{new}{'%' if unit == '%' else ' ' + unit}"
    at = text.lower().find(unit.lower())
    return f"{unit} {new}" if 0 <= at < number.start() else f"{new} {unit}"


def fake_value(label: str, seed: int, faker=None, country: bool = False, locale: str = "en_US") -> str | None:
    """A Faker value for PERSON, LOC (a country with ``country``) or ORG
    (``None`` for other labels), from ``faker`` (else a Faker of ``locale``:
    ``fr_FR`` gives French names, cities and companies)."""
    if label not in ("PERSON", "LOC", "ORG"):
        return None
    if faker is None:
        from faker import Faker

        faker = Faker(locale)
    faker.seed_instance(seed)
    if label == "PERSON":
        return f"{faker.first_name()} {faker.last_name()}"
    if label == "LOC":
        return faker.country() if country else faker.city()
    return faker.company()
