"""Which unselected columns (CSV/TSV) or keys (JSONL) look like personal data,
and which hold text at all: the warning of ``textsan sanitize`` about what it
copies in clear, and the columns of ``--all-columns``.

Pure functions over a sample of each column's values (the caller collects a
few hundred while reading). No spaCy model is loaded: a value costs a few
regular expressions and dictionary look-ups, and libphonenumber only parses
digit groups shaped like a phone number. The value detectors are
those of ``privacy_ner`` (phones through libphonenumber, checksummed numbers
through python-stdnum, names through the name lexicon), so a warned column
holds what ``sanitize`` would have found had it been selected:

* :func:`personal_data_columns`: ``{column: reason}`` for the columns whose
  values hold e-mail addresses, phone numbers, identity or account numbers
  or person names, or whose name says they do ("surname", "Vorname",
  "téléphone", "date of birth"...);
* :func:`text_columns`: the columns holding a value that is not a number, a
  date or a boolean;
* :func:`flatten_string_keys`: the string values of a JSON object by key, with
  nested ones under a dotted path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import phonenumbers
from stdnum import iban

from ..calendar_names import english_month_forms
from ..detect.privacy_ner.names import COMMON, FIRST, LAST, find_lexicon_names, name_lexicon
from ..detect.privacy_ner.phones import DEFAULT_PHONE_REGIONS
from ..detect.privacy_ner.rules import DATE_LIKE
from ..detect.privacy_ner.standard_numbers import find_standard_numbers
from ..detect.privacy_ner.tables import personal_fields
from ..text_folding import strip_marks

__all__ = [
    "DEFAULT_MIN_SHARE",
    "HEADER_TERMS",
    "flatten_string_keys",
    "header_term",
    "is_person_name",
    "personal_data_columns",
    "text_columns",
]

#: Share of a column's non-empty sampled values that must hold a phone number,
#: an identity number or a person name for the column to be reported.
DEFAULT_MIN_SHARE = 0.3
#: Only the start of a long value is examined.
MAX_VALUE_CHARS = 1000

# ---------------------------------------------------------------------------
# value shapes: empty, number, date, boolean
# ---------------------------------------------------------------------------

_MISSING = frozenset({"", "-", "--", "?", "na", "n/a", "nan", "null", "none", "nil", "#n/a"})
_BOOLEANS = frozenset({"true", "false", "yes", "no", "y", "n", "t", "f", "on", "off"})
_CURRENCY = "$€£¥₹"
_NUMBER = re.compile(
    rf"[-+]?[{_CURRENCY}]?\s?(?:\d{{1,3}}(?:([,.'\u00a0\u202f ])\d{{3}})+|\d+)?(?:(?!\1)[.,]\d+)?"
    rf"(?:[eE][-+]?\d+)?\s?(?:%|[{_CURRENCY}])?"
)
_LEADING_ZERO = re.compile(r"0\d+")  # "02139", "0612345678": codes, not quantities
_MONTH = rf"(?:{'|'.join(sorted(english_month_forms(), key=len, reverse=True))})\.?"  # any case: "5 JAN 2023"
_TIME = r"\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s?[ap]\.?m\.?)?"
_DATE_OR_TIME = re.compile(
    rf"(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}[./-]\d{{1,2}}[./-]\d{{2,4}}|\d{{1,2}}[ -]{_MONTH}[ ,-]*\d{{2,4}}"
    rf"|{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}})?"
    rf"(?:(?:[tT]|\s+)?{_TIME}(?:\s?(?:[zZ]|[-+]\d{{2}}:?\d{{2}}|utc|gmt))?)?",
    re.IGNORECASE,
)


_DIGIT = re.compile(r"\d")


def _count_digits(text: str) -> int:
    return len(_DIGIT.findall(text))


def _is_number(value: str) -> bool:
    """An amount, a count or a measure: ``12``, ``-3.5``, ``1,234.50``,
    ``$12``, ``15%``, ``1e-3``. Not a digit string with a leading zero
    (``02139``) and nothing that starts with ``+`` and many digits (a phone)."""
    if not any(ch.isdigit() for ch in value) or not _NUMBER.fullmatch(value):
        return False
    return not (_LEADING_ZERO.fullmatch(value) or (value.startswith("+") and _count_digits(value) >= 7))


def _is_date(value: str) -> bool:
    """A date, a time or both: ISO 8601, ``5/1/2023``, ``05.01.23``,
    ``5 Jan 2023``, ``January 5, 2023``, ``12:30 pm``, a year."""
    return bool(DATE_LIKE.match(value)) or (any(ch.isdigit() for ch in value) and bool(_DATE_OR_TIME.fullmatch(value)))


def _is_plain(value: str) -> bool:
    """A number, a date or a boolean: a value that is not text."""
    return value.casefold() in _BOOLEANS or _is_number(value) or _is_date(value)


def text_columns(values_by_column: Mapping[str, Sequence[str]]) -> list[str]:
    """The columns that hold text, in the order of ``values_by_column``.

    A column holds text when at least one of its values is not empty (blank,
    ``NA``, ``N/A``, ``null``, ``None``, ``NaN``, ``-``), not a number
    (``12``, ``-3.5``, ``1,234.50``, ``$12``, ``15%``), not a date or time
    (``2023-01-05``, ``05/01/2023``, ``5 Jan 2023``, ``12:30``, ISO date-times)
    and not a boolean (``true``/``false``, ``yes``/``no``, ``y``/``n``,
    ``t``/``f``, ``on``/``off``, any case). Digit strings with a leading zero
    (``02139``) and numbers written with ``+`` and seven digits or more are
    codes and phone numbers, so they count as text; a column of bare digits
    (``2125550199``) does not."""
    return [
        column
        for column, values in values_by_column.items()
        if any(v.strip().casefold() not in _MISSING and not _is_plain(v.strip()) for v in values)
    ]


# ---------------------------------------------------------------------------
# column names
# ---------------------------------------------------------------------------

#: Column-name terms that announce personal data, in English, French, German,
#: Spanish, Italian, Portuguese and Dutch (accents and case do not matter;
#: ``first name`` also matches ``first_name``, ``FirstName``, ``firstname``): the
#: names of ``detect/privacy_ner/data/personal_fields.txt`` read by ``columns``.
HEADER_TERMS: tuple[str, ...] = tuple(f.name for f in personal_fields() if "columns" in f.readers)
#: Terms that still name personal data in a column of dates (a column of
#: dates is not reported for "contact" or "employee").
_BIRTH_STEMS = ("birth", "dob", "naissance", "geburt", "nacimiento", "nascita", "nascimento", "geboorte")
#: "name" in several languages: a column name made of it alone, or of it and a
#: word for a person ("customer name", "nom du client"), announces names.
_NAME_WORDS = frozenset("name nom nombre nome naam navn namn nimi imie isim".split())
_PERSON_WORDS = frozenset(
    """first last full given family middle maiden sur user customer client patient employee contact person owner
    author sender recipient holder member applicant student buyer seller nick display real legal famille complet
    salarie employe personne titulaire kunde kunden mitarbeiter inhaber completo cliente paciente empleado persona
    titular dipendente""".split()
)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


def _header_tokens(name: str) -> list[str]:
    """Lower-case ASCII words of a column name: ``"PrénomClient"`` ->
    ``["prenom", "client"]``, ``"e-mail_2"`` -> ``["e", "mail", "2"]``."""
    ascii_only = strip_marks(_CAMEL.sub(" ", name).casefold(), "NFKD")
    return [t for t in _NOT_ALNUM.split(ascii_only) if t]


_TERMS: dict[str, str] = {}
for _term in HEADER_TERMS:
    _TERMS.setdefault("".join(_header_tokens(_term)), _term)  # "email" before "e mail"


def header_term(name: str) -> str | None:
    """The term of :data:`HEADER_TERMS` that the most words of the column
    name ``name`` spell (``"Date_of_Birth"`` -> ``"date of birth"``,
    ``"e-mail address"`` -> ``"email address"``), or a "name" phrase
    (``"customer name"``, ``"nom du client"``); None when the name does not
    suggest personal data."""
    tokens = _header_tokens(name)
    best: tuple[int, int, str] | None = None
    for size in range(len(tokens), 0, -1):
        for start in range(len(tokens) - size + 1):
            term = _TERMS.get("".join(tokens[start : start + size]))
            if term and (best is None or len(term) > best[0]):
                best = (len(term), start, term)
        if best:
            return best[2]
    if any(t in _NAME_WORDS for t in tokens):
        words = [t for t in tokens if not t.isdigit()]
        if len(words) == 1 or any(t in _PERSON_WORDS for t in words):
            return " ".join(words)
    return None


# ---------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------

_EMAIL = re.compile(
    r"(?<![\w.%+-])[\w%+-]+(?:\.[\w%+-]+)*@(?:[^\W_](?:[\w-]*[^\W_])?\.)+[^\W\d_]{2,24}(?![\w-]|\.[^\W_])"
)
_PLACE_PREFIXES = frozenset("san santa santo são sao saint sainte st ste sankt fort port mount lake new".split())
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_IDENTIFIER_LABELS = {"iban": "IBANs", "payment_card": "payment card numbers"}


def _is_single_name(value: str) -> bool:
    """One capitalised word (``"Maria"``, ``"DUPONT"``, ``"Jean-Pierre"``) whose
    parts are all known first names or surnames, at least one of them not a
    common English word."""
    if not _NAME_WORD.fullmatch(value) or not value[0].isupper():
        return False
    lexicon = name_lexicon()
    flags = [lexicon.get(part.casefold(), 0) for part in re.split(r"['’\-]", value)]
    return all(f & (FIRST | LAST) for f in flags) and any(not f & COMMON for f in flags)


_WORDS = re.compile(r"[^\W\d_]{2,}")


def _has_name(value: str) -> bool:
    """A person name: the whole value is one (:func:`_is_single_name`), or
    :func:`find_lexicon_names` finds one of 2-4 words, which it only can
    around a known first name (checked first, so that most free text costs a
    dictionary look-up per word)."""
    if _is_single_name(value):
        return True
    lexicon = name_lexicon()
    if not any(lexicon.get(w.casefold(), 0) & (FIRST | COMMON) == FIRST for w in _WORDS.findall(value)):
        return False
    first = value.split(maxsplit=1)[0].rstrip(".").casefold()
    return first not in _PLACE_PREFIXES and bool(find_lexicon_names(value))


def is_person_name(value: str) -> bool:
    """Whether ``value`` holds a person name (a known first name or surname
    alone, or a name of 2-4 words around a known first name)."""
    return _has_name(value)


#: A phone number: an optional country code (``+44``, ``0044``, ``+49 (0)``)
#: or area code in parentheses, then digit groups separated by single spaces,
#: dots or dashes.
_PHONE = re.compile(
    r"(?<![\w+/.,:@-])(?:(?:\+|00)\d{1,3}[ .\-]?(?:\(0\)[ .\-]?)?|\(\d{1,5}\)[ .\-]?)?"
    r"\d{1,14}(?:[ .\-]\d{1,12}){0,5}(?![\w/@]|[.,\-]\d)"
)
_NOT_PHONE = re.compile(r"\d{1,3}(?:([ .,])\d{3})+|\d{1,3}(?:\.\d{1,3}){3}")  # 1 234 567, an IPv4 address
_MIN_PHONE_DIGITS, _MAX_PHONE_DIGITS = 8, 15


def _is_international_phone(number: str) -> bool:
    """Written with a country code (``+`` or ``00``) and valid for that country."""
    try:
        parsed = phonenumbers.parse("+" + number[2:] if number.startswith("00") else number, None)
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_valid_number(parsed)


def _national_format(region: str) -> tuple[str, str | None, frozenset[int]]:
    """``(region, trunk prefix, possible lengths)`` of a region's numbers."""
    metadata = phonenumbers.PhoneMetadata.metadata_for_region(region)
    assert metadata is not None and metadata.general_desc is not None, region
    prefix = metadata.national_prefix
    lengths = frozenset(metadata.general_desc.possible_length or ())
    return region, prefix if prefix and prefix != "1" else None, lengths  # NANP numbers are written without "1"


#: ``(region, trunk prefix, possible lengths)`` of the regions a phone number
#: written without a country code is tried in: :data:`DEFAULT_PHONE_REGIONS`
#: but Luxembourg, whose numbers of 4 to 11 digits make almost any digit
#: string valid.
_NATIONAL_REGIONS = tuple(_national_format(r) for r in DEFAULT_PHONE_REGIONS if r != "LU")


def _valid_in(number: str, digits: str, national: tuple[str, str | None, frozenset[int]]) -> bool:
    """Valid in a region as written there: with the region's trunk prefix
    (``030 12345678`` in Germany, whose numbers without it are too loosely
    checked to tell a phone from a digit string) unless the area code is in
    parentheses (``(11) 91234-5678``). The length is checked first, as
    parsing costs."""
    region, trunk, lengths = national
    if trunk:
        if not number.startswith(("(", trunk)):
            return False
        if len(digits) not in lengths and len(digits) - len(trunk) not in lengths:
            return False
    elif len(digits) not in lengths:
        return False
    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(number, region))
    except phonenumbers.NumberParseException:
        return False


_DATES_IN_TEXT = re.compile(
    r"(?<![\d.,/-])(?:\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?|\d{1,2}[./]\d{1,2}[./]\d{4}|\d{1,2}:\d{2})(?![\d.,/-])"
)
#: Checksummed numbers need nine characters or more, six of them digits.
_ID_CANDIDATE = re.compile(r"(?:[A-Z0-9][ .\-/]?){9,}")
_MAX_IBAN_CHARS = 42


class _Counts:
    """What the sampled values of one column hold."""

    def __init__(self) -> None:
        self.values = 0
        self.emails = 0
        self.phones = 0
        self.international_phones = 0
        self.identifiers: dict[str, int] = {}
        self.ibans = 0
        self.names = 0
        self.dates = 0
        self.short_numbers = 0  # plain numbers and booleans of under seven digits
        #: the regions national phone numbers are tried in: those that
        #: validated a number of this column first
        self.regions = list(_NATIONAL_REGIONS)

    def add(self, raw: str) -> None:
        value = raw.strip()
        if value.casefold() in _MISSING:
            return
        self.values += 1
        if _is_plain(value):
            if _is_date(value):
                self.dates += 1
            elif _count_digits(value) < 7:
                self.short_numbers += 1
            return
        value = value[:MAX_VALUE_CHARS]
        if "@" in value and _EMAIL.search(value):
            self.emails += 1
        phones: list[tuple[int, int]] = []
        numbers = _DATES_IN_TEXT.sub(lambda m: " " * len(m.group()), value)  # a date is neither
        if _count_digits(numbers) >= _MIN_PHONE_DIGITS:
            phones = self._add_phones(numbers)
        if any(
            _count_digits(m.group()) >= 6 and not any(s <= m.start() and m.end() <= e for s, e in phones)
            for m in _ID_CANDIDATE.finditer(numbers)
        ):
            self._add_identifiers(numbers, phones)
        if _has_name(value):
            self.names += 1

    def _add_phones(self, value: str) -> list[tuple[int, int]]:
        """The spans of the phone numbers of ``value``, counted: written with
        a country code and valid for it, or grouped (or a bare number with a
        trunk ``0``) and valid in one of :data:`_NATIONAL_REGIONS`."""
        spans, international = [], False
        for m in _PHONE.finditer(value):
            number = m.group()
            if not _MIN_PHONE_DIGITS <= _count_digits(number) <= _MAX_PHONE_DIGITS:
                continue
            if number.startswith(("+", "00")):
                if _is_international_phone(number):
                    spans.append(m.span())
                    international = True
                continue
            grouped = not number.isdigit() or number.startswith("0")
            if not grouped or DATE_LIKE.match(number) or _NOT_PHONE.fullmatch(number):
                continue
            digits = "".join(_DIGIT.findall(number))
            for i, national in enumerate(self.regions):
                if _valid_in(number, digits, national):
                    self.regions.insert(0, self.regions.pop(i))
                    spans.append(m.span())
                    break
        if spans:
            self.phones += 1
            self.international_phones += international
        return spans

    def _add_identifiers(self, value: str, phones: list[tuple[int, int]]) -> None:
        # the digits of a phone number may pass a checksum too: they count as the phone only
        kinds = {
            m.name
            for m in find_standard_numbers(value)
            if not any(m.start < end and start < m.end for start, end in phones)
        }
        if not kinds and len(value) <= _MAX_IBAN_CHARS and iban.is_valid(value):
            kinds = {"iban"}  # an IBAN written without spaces, too long for find_standard_numbers
        if kinds:
            kind = kinds.pop() if len(kinds) == 1 else "mixed"
            self.identifiers[kind] = self.identifiers.get(kind, 0) + 1
            self.ibans += kind == "iban"

    def findings(self, min_share: float) -> Iterator[str]:
        """``"<what> in <k> of <n> values"`` for each kind of personal data
        found often enough: in one value for e-mail addresses, IBANs and
        phone numbers with a country code, in ``min_share`` of the values for
        the rest."""
        enough = max(1.0, min_share * self.values)
        of = f"of {self.values} value{'s' if self.values != 1 else ''}"
        if self.emails:
            yield f"e-mail addresses in {self.emails} {of}"
        if self.international_phones or self.phones >= enough:
            yield f"phone numbers in {self.phones} {of}"
        count = sum(self.identifiers.values())
        if self.ibans or count >= enough:
            kinds = set(self.identifiers)
            label = (
                _IDENTIFIER_LABELS.get(kinds.pop(), "national identity numbers")
                if len(kinds) == 1
                else "identity or account numbers"
            )
            yield f"{label} in {count} {of}"
        if self.names >= enough:
            yield f"person names in {self.names} {of}"

    def header_applies(self, term: str) -> bool:
        """A suggestive column name is believed unless every value is a
        boolean or a short number (``email_verified``, ``employee_count``),
        or a date and the term is not about birth (``contact_date``)."""
        if self.values and self.short_numbers == self.values:
            return False
        if self.values and self.dates == self.values:
            folded = "".join(_header_tokens(term))
            return any(stem in folded for stem in _BIRTH_STEMS)
        return True


def personal_data_columns(
    values_by_column: Mapping[str, Sequence[str]],
    header_names: Sequence[str] | None = None,
    *,
    min_share: float = DEFAULT_MIN_SHARE,
) -> dict[str, str]:
    """``{column: reason}`` for the columns (or keys) that look like personal
    data, given a sample of the values of each.

    ``header_names`` lists the columns to judge in order (by default those of
    ``values_by_column``); a column without sampled values is judged by its
    name only. Values that are empty, numbers, dates or booleans are not
    examined. A column is reported when its values hold

    * an e-mail address (in any value): ``"e-mail addresses in 37 of 50 values"``;
    * phone numbers: ``"phone numbers in 12 of 50 values"``, in at least
      ``min_share`` of the non-empty values, or in one when written with a
      country code;
    * checksummed identity or account numbers (``"IBANs"``, ``"payment card
      numbers"``, ``"national identity numbers"``), in ``min_share`` of the
      values, or one IBAN;
    * person names, in ``min_share`` of the values: a whole value that is a
      known first name or surname, or a name of 2-4 words anchored by a known
      first name anywhere in the value: ``"person names in 30 of 50 values"``;

    several findings joined by ``"; "``. A column without such values is
    reported when its name suggests personal data (:func:`header_term`):
    ``'column name suggests personal data ("surname")'``, unless all its
    values are booleans or short numbers, or dates and the name is not about
    birth."""
    columns = list(header_names) if header_names is not None else []
    columns += [c for c in values_by_column if c not in set(columns)]
    found: dict[str, str] = {}
    for column in columns:
        counts = _Counts()
        for value in values_by_column.get(column, ()):
            counts.add(value)
        findings = list(counts.findings(min_share))
        if findings:
            found[column] = "; ".join(findings)
            continue
        term = header_term(column)
        if term and counts.header_applies(term):
            found[column] = f'column name suggests personal data ("{term}")'
    return found


def flatten_string_keys(obj: Mapping[str, Any]) -> dict[str, str]:
    """The string values of a JSON object by key: top-level keys as they are,
    then strings inside nested objects under a dotted path (``"user.email"``)
    and strings inside lists under ``"key[]"`` (``"tags[]"``,
    ``"messages[].text"``), the strings of one list joined by newlines.

    Only top-level string keys can be sanitized (selected with ``--field``
    or ``--all-columns``); the nested paths are for the warning. A name that
    is a key of ``obj`` is a top-level key: a nested path that equals one is
    left out. Numbers, booleans and nulls are not text and are left out."""
    out: dict[str, str] = {k: v for k, v in obj.items() if isinstance(v, str)}
    nested: dict[str, list[str]] = {}
    for key, value in obj.items():
        if not isinstance(value, str):
            _collect(value, key, nested)
    for path, strings in nested.items():
        if path not in obj:
            out[path] = "\n".join(strings)
    return out


def _collect(value: Any, path: str, out: dict[str, list[str]]) -> None:
    if isinstance(value, str):
        out.setdefault(path, []).append(value)
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            _collect(inner, f"{path}.{key}", out)
    elif isinstance(value, list):
        for inner in value:
            _collect(inner, f"{path}[]", out)
