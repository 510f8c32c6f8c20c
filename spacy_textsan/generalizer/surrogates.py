"""Surrogates of the ``pseudonym`` and ``hash`` strategies, as pure functions.

Every random choice is drawn from a seed that is a keyed HMAC-SHA256 of the
entity (:func:`entity_seed`), so the same key and the same entity give the
same surrogate in every document and on every run, and nobody without the key
can recompute or invert it.

* ``hash``: ``[PERSON 3f9a1c2b7d]``, the first hex digits of
  HMAC(key, label + canonical text) (:func:`hash_token`);
* ``pseudonym``: a fake but plausible value of the same kind:
  PERSON → a name, LOC → a city (a country when the span's KB chain says
  it is one), ORG → a company (Faker, ``en_US``, seeded
  by the entity); DATETIME → the date shifted by a per-document offset of
  400 to 3,650 days, forwards or backwards (:func:`document_shift`), so the
  intervals between the dates of one document are kept and the format is
  kept ("14 March 2009" → "2 June 2013"; a lone year moves by whole years);
  CODE → the same shape with other digits and letters ("48213/09" →
  "70536/17"); QUANTITY → another number with the known unit only
  ("EUR 15,000" → "EUR 62,809", "12,500 Turkish liras" → "37,215 liras"). DEM and MISC
  have no plausible surrogate (a made-up job would mislead the reader): the
  component generalizes them instead.
"""

import calendar
import datetime
import hashlib
import hmac
import random
import re

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
    "PSEUDONYM_LABELS",
]

#: Labels that get a surrogate of their own kind.
PSEUDONYM_LABELS = ("PERSON", "LOC", "ORG", "DATETIME", "CODE", "QUANTITY")

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
#: Month names of other languages (as privacy_ner reads them), January first: a date keeps its language.
FOREIGN_MONTHS = {
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "de": "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
    "it": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
    "pt": "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro",
    "nl": "januari februari maart april mei juni juli augustus september oktober november december",
    "tr": "Ocak Şubat Mart Nisan Mayıs Haziran Temmuz Ağustos Eylül Ekim Kasım Aralık",
    "pl": "stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia",
    "no": "januar februar mars april mai juni juli august september oktober november desember",
}
_FOREIGN = {lang: names.split() for lang, names in FOREIGN_MONTHS.items()}
for _names in _FOREIGN.values():
    for _i, _name in enumerate(_names, 1):
        _MONTHS.setdefault(_name.lower(), _i)
_MONTH_NAMES = "|".join(sorted((re.escape(m) for m in _MONTHS), key=len, reverse=True))
_DMY_WORDS = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\.?\s+(?:de\s+)?((?:{_MONTH_NAMES})\.?)\s+(?:de\s+)?(\d{{4}})\b", re.IGNORECASE
)
_MDY_WORDS = re.compile(rf"\b((?:{_MONTH_NAMES})\.?)\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE)
_MY_WORDS = re.compile(rf"\b((?:{_MONTH_NAMES})\.?)\s+(\d{{4}})\b", re.IGNORECASE)
_DMY_NUM = re.compile(r"\b(\d{1,2})([./-])(\d{1,2})\2(\d{4})\b")
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


def entity_seed(key: bytes, *parts: str) -> int:
    """A 64-bit seed: HMAC-SHA256(key, parts joined by U+001F)."""
    digest = hmac.new(key, "\x1f".join(parts).encode("utf-8"), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def canonical_text(text: str) -> str:
    """Case-folded, whitespace-collapsed: the identity of a mention across documents."""
    return " ".join(text.split()).casefold()


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
    try:
        return datetime.date(year, month, day) + datetime.timedelta(days=days)
    except (ValueError, OverflowError):
        return None


def _month_number(name: str) -> int:
    return _MONTHS[name.rstrip(".").lower()]


def _month_name(original: str, month: int) -> str:
    """The new month in the style of the original ("Mar." → "Jun.", "MARCH" → "JUNE",
    "avril" → "juillet")."""
    bare = original.rstrip(".")
    if bare.lower() not in {m.lower() for m in calendar.month_name if m} | {
        m.lower() for m in calendar.month_abbr if m
    }:
        for names in _FOREIGN.values():
            if bare.lower() in (n.lower() for n in names):
                name = names[month - 1]
                return (name.upper() if bare.isupper() else name) + original[len(bare) :]
    name = calendar.month_abbr[month] if len(bare) == 3 else calendar.month_name[month]
    name = name.upper() if bare.isupper() else name
    return name + original[len(bare) :]


def shift_dates(text: str, days: int, years: int) -> str | None:
    """Every date in ``text`` moved by ``days`` (lone years by ``years``) in
    its own format; ``None`` when ``text`` has no date this understands."""

    def dmy_words(m: re.Match) -> str:
        d = _shift(int(m[1]), _month_number(m[2]), int(m[3]), days)
        return m[0] if d is None else f"{d.day} {_month_name(m[2], d.month)} {d.year}"

    def mdy_words(m: re.Match) -> str:
        d = _shift(int(m[2]), _month_number(m[1]), int(m[3]), days)
        return m[0] if d is None else f"{_month_name(m[1], d.month)} {d.day}, {d.year}"

    def my_words(m: re.Match) -> str:
        d = _shift(15, _month_number(m[1]), int(m[2]), days)
        return m[0] if d is None else f"{_month_name(m[1], d.month)} {d.year}"

    def dmy_num(m: re.Match) -> str:
        d = _shift(int(m[1]), int(m[3]), int(m[4]), days)
        if d is None:
            return m[0]
        width = len(m[1])
        return f"{d.day:0{width}d}{m[2]}{d.month:0{len(m[3])}d}{m[2]}{d.year}"

    def iso(m: re.Match) -> str:
        d = _shift(int(m[3]), int(m[2]), int(m[1]), days)
        return m[0] if d is None else d.isoformat()

    edits: list[tuple[int, int, str]] = []  # on the original text, the first pattern wins
    for pattern, fn in (
        (_DMY_WORDS, dmy_words),
        (_MDY_WORDS, mdy_words),
        (_DMY_NUM, dmy_num),
        (_ISO, iso),
        (_MY_WORDS, my_words),
    ):
        for m in pattern.finditer(text):
            if not any(m.start() < e and s < m.end() for s, e, _ in edits):
                edits.append((m.start(), m.end(), fn(m)))
    if not edits:
        edits = [(m.start(), m.end(), str(int(m[1]) + years)) for m in _YEAR.finditer(text)]
        # a date in a form not understood here ("25 décembre 1957"): moving its year alone would
        # keep its day and month in clear, so it is not a surrogate (the caller generalizes it)
        if re.search(r"\d", _YEAR.sub("", text)):
            return None
    if not edits:
        return None
    out, pos = [], 0
    for start, end, new in sorted(edits):
        out += [text[pos:start], new]
        pos = end
    return "".join(out) + text[pos:]


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


def fake_value(label: str, seed: int, faker=None, country: bool = False) -> str | None:
    """A Faker value for PERSON, LOC (a country with ``country``) or ORG
    (``None`` for other labels)."""
    if label not in ("PERSON", "LOC", "ORG"):
        return None
    if faker is None:
        from faker import Faker

        faker = Faker("en_US")
    faker.seed_instance(seed)
    if label == "PERSON":
        return f"{faker.first_name()} {faker.last_name()}"
    if label == "LOC":
        return faker.country() if country else faker.city()
    return faker.company()
