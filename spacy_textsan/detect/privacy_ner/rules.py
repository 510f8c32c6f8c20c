"""Rule layer of privacy_ner: regular expressions for what generic NER misses.

Everything here is a pure function over strings so that it can be tested
without a pipeline. A pattern is a dict ``{"name", "label", "pattern"}`` with
an optional ``"flags"`` string ("i" for case-insensitive) and ``"group"`` (the
regex group holding the span, default 0). User patterns have the same shape.
"""

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ...calendar_names import DATE_LOCALES, TYPED_MONTH_FORMS, english_month_forms, month_names
from ...user_regex import compile_pattern as compile_user_pattern
from .lang_data import read_set


def _alternation(forms: Iterable[str]) -> str:
    """A regex alternation of ``forms``, the longest first: of two that match at one place
    (``Sept``, ``Sep``), the longer is read."""
    return "|".join(sorted((re.escape(f) for f in forms), key=len, reverse=True))


#: English month names, wide and abbreviated, CLDR's (:mod:`spacy_textsan.calendar_names`).
_MONTHS = rf"(?:{_alternation(english_month_forms())})\.?"
#: CLDR month names of the locales of :data:`~spacy_textsan.calendar_names.DATE_LOCALES` that the
#: patterns do not read as a month of another language (as the hand-written list before CLDR's did
#: not): English spellings, read by the English patterns in their case, Danish "marts", Swedish
#: "augusti", and Portuguese "novembro".
_NOT_FOREIGN = frozenset({"august", "september", "november", "novembro", "marts", "augusti"})
#: Month names of other languages (French, German, Dutch, Spanish, Portuguese, Italian, Turkish,
#: Polish genitive, Norwegian/Danish/Swedish) and their typed forms without accents, any case:
#: "né le 3 avril 1985", "3 Nisan 1985", "3 Subat 1985".
_FOREIGN_FORMS = [
    form
    for form in {  # each once in any case: "Mai" (German), "mai" (French, Norwegian)
        form.lower(): form
        for form in reversed(
            [name for locale in DATE_LOCALES for name in month_names(locale)]
            + [form for forms in TYPED_MONTH_FORMS.values() for form in forms]
        )
    }.values()
    if form.lower() not in _NOT_FOREIGN
]
_FOREIGN_MONTHS = rf"(?:{_alternation(_FOREIGN_FORMS)})"
#: the words that make the foreign-date patterns worth running (not those spelt as in English)
_FOREIGN_MONTH_WORDS = sorted(
    {w.lower() for w in _FOREIGN_FORMS} - {"april", "august", "september", "november", "december"}
)
_WORD = re.compile(r"\w+")


def text_words(text: str) -> set[str]:
    """The lower-case words of a text: what the ``requires`` of a pattern is checked against."""
    return set(_WORD.findall(text.lower()))


def first_words(phrases: Iterable[str]) -> frozenset[str]:
    """The first word of each phrase, lower case, as :data:`_WORD` reads it ("z. hd." -> "z"), also
    with a dotless i as "i" ("SAYIN" is "sayin" in lower case, as a case-insensitive pattern reads it)."""
    words = {m.group() for m in (_WORD.search(p.lower()) for p in phrases) if m}
    return frozenset(words | {w.replace("ı", "i") for w in words})


def matches_at_words(pattern: re.Pattern[str], text: str, starts: frozenset[str]) -> Iterator[re.Match[str]]:
    """The non-overlapping matches of ``pattern`` that begin at a word of ``starts`` (lower case,
    :func:`first_words`), in text order: a pattern of many alternatives (a hundred labels) is tried
    where one of them can begin, not at every character of the text."""
    end = 0
    for word in _WORD.finditer(text):
        if word.start() < end or word.group().lower() not in starts:
            continue
        m = pattern.match(text, word.start())
        if m is not None:
            end = m.end()
            yield m


#: a family status in one word, read where the words around it say it is one (``is separated``)
_ONE_WORD_STATUSES = ("separated", "single", "divorced", "widowed", "engaged")
_ONE_WORD_STATUS = "|".join(_ONE_WORD_STATUSES)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?:1[6-9]\d\d|20\d\d)"
_CURRENCY_CODES = (
    r"(?:EUR|USD|GBP|CHF|TRY|TRL|YTL|PLN|ATS|DEM|FRF|ITL|ESP|GRD|CYP|NLG|BEF|FIM|IEP|PTE|LUF"
    r"|SEK|NOK|DKK|ISK|RUB|RUR|UAH|HUF|CZK|SKK|RON|ROL|BGN|HRK|SIT|MDL|GEL|AMD|AZN|LTL|LVL|EEK"
    r"|MKD|RSD|BAM|ALL|JPY|CNY|CAD|AUD)"
)
_CURRENCY_WORDS = (
    r"(?i:euros?|pounds?(?: sterling)?|dollars?|(?:new )?(?:Turkish )?liras?|(?:Polish )?zlotys?|zł"
    r"|(?:Austrian )?schillings?|(?:Deutsch|German|Deutsche) ?[Mm]arks?|(?:Swiss |French |Belgian )?francs?"
    r"|roubles?|rubles?|hryvnias?|forints?|korun[ay]?|lei|lev|kunas?|krona|kronor|kroner|drachmas?"
    r"|lire|pesetas?|escudos?|lats|litas|tolars?|denars?|dinars?|lari|drams?|manats?|cents?)"
)
#: An amount: thousands in groups (at most 8 groups: a run of "123 123 123 ..." is tried from each of its
#: groups, and an unbounded run would be scanned to its end from each) or plain digits.
_AMOUNT = r"\d{1,3}(?:[,.\u00a0 ]\d{3}){1,8}(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
#: RFC 5322's atext less letters and digits (a character class body), and a typographic apostrophe
_ATEXT = r"!#$%&'*+/=?^`{|}~\-’"
#: An e-mail address's local part: atext and single dots, from a letter or digit to one (``j.o'connor+x``),
#: at most 64 characters (RFC 5321): a match may start after any atext character, and an unbounded
#: local part would scan a long run of them ("O'O'O'...") to its end from each.
_LOCAL_PART = rf"\w(?:[\w{_ATEXT}]|\.(?=[\w{_ATEXT}])){{0,63}}"
#: A domain of an e-mail address: labels of at most 63 characters (RFC 1035).
_DOMAIN = r"[\w-]{1,63}(?:\.[\w-]{1,63})+"
_NUMBER_WORDS = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty"
    r"|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion)"
)

DEFAULT_PATTERNS: list[dict] = [
    # --- CODE --------------------------------------------------------------
    # the local part is RFC 5322's atext and dots (Unicode letters too): j.o'connor+invoices@firm.co.uk
    {"name": "email", "label": "CODE", "pattern": rf"(?<![\w.]){_LOCAL_PART}@{_DOMAIN}\b"},
    {"name": "url", "label": "CODE", "pattern": r"\b(?:https?://|www\.)[^\s<>\"'()]+[^\s<>\"'().,;:!?]"},
    {
        "name": "ipv4",
        "label": "CODE",
        # with its port, if any: 172.16.254.1:8080
        "pattern": r"\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b(?::\d{1,5}\b(?![:.]\d))?",
    },
    {"name": "iban", "label": "CODE", "pattern": r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"},
    {
        "name": "phone",
        "label": "CODE",
        "min_digits": 8,
        "pattern": r"(?<![\w/.,])(?:\+\d{1,3}[ .-]?(?:\(0?\d{1,5}\)[ .-]?)?|\(0?\d{1,5}\)[ .-]?|0)\d{1,5}(?:[ -]\d{2,5}){1,4}(?![\w/]|[.,]\d)",
    },
    {"name": "us_ssn", "label": "CODE", "pattern": r"\b\d{3}-\d{2}-\d{4}\b"},
    {"name": "uk_nino", "label": "CODE", "pattern": r"\b[A-CEGHJ-PR-TW-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"},
    {"name": "uk_licence_plate", "label": "CODE", "pattern": r"\b[A-Z]{2}\d{2} ?[A-Z]{3}\b"},
    # (not the day and hour of an ISO date and time: "2024-05-01T12:03")
    {
        "name": "tr_licence_plate",
        "label": "CODE",
        "pattern": r"\b(?<!-)(?:0[1-9]|[1-7]\d|8[01]) ?[A-Z]{1,3} ?\d{2,4}\b(?!:\d)",
    },
    # ECHR application numbers (36110/97) and court file numbers (2001/123, 121/2/3, E.2001/45)
    {"name": "application_number", "label": "CODE", "pattern": r"\b\d{1,6}/(?:\d{2}|\d{4})\b(?!/)"},
    {"name": "file_number", "label": "CODE", "pattern": r"\b(?:[A-Z]{1,3}\. ?)?\d{1,6}(?:/\d{1,6}){1,3}\b"},
    {
        "name": "alphanumeric_code",
        "label": "CODE",
        # the lookaheads look as far as a code reaches (23 characters) and a little beyond, not to the end of
        # a run: from every start in "A-A-A-..." they would scan it whole
        # a code, not an ISO date and time ("2024-05-01T12:03:44Z", a DATETIME) nor a piece of one
        "pattern": r"\b(?<!\d\d\d\d-)(?!(?:1[6-9]|20)\d\d-[01]\d-[0-3]\dT)"
        r"(?=[A-Z0-9-]{0,40}\d)(?=[A-Z0-9-]{0,40}[A-Z])[A-Z0-9]{1,6}-\d[A-Z0-9-]{1,15}\b",
    },
    # --- DATETIME ----------------------------------------------------------
    {
        "name": "date_dmy",
        "label": "DATETIME",
        "pattern": rf"\b{_DAY}\.?(?: (?:and|or|to|-|–) {_DAY})? (?:of )?{_MONTHS},? {_YEAR}\b",
    },
    {"name": "date_mdy", "label": "DATETIME", "pattern": rf"\b{_MONTHS} {_DAY},? {_YEAR}\b"},
    {"name": "date_my", "label": "DATETIME", "pattern": rf"\b{_MONTHS},? {_YEAR}\b"},
    {"name": "date_dm", "label": "DATETIME", "pattern": rf"\b{_DAY} {_MONTHS}(?![\w])"},
    # other languages: "3 avril 1985", "3. April 1985", "3 de abril de 1985", "3 Nisan 1985", "1er mai 1990"
    {
        "name": "date_foreign",
        "label": "DATETIME",
        "flags": "i",
        "requires": _FOREIGN_MONTH_WORDS,
        "pattern": rf"\b(?:{_DAY}|1er)\.?\s+(?:de\s+)?{_FOREIGN_MONTHS}\s+(?:de\s+|del\s+)?{_YEAR}\b",
    },
    {
        "name": "date_foreign_my",
        "label": "DATETIME",
        "flags": "i",
        "requires": _FOREIGN_MONTH_WORDS,
        "pattern": rf"\b{_FOREIGN_MONTHS}\s+(?:de\s+|del\s+)?{_YEAR}\b",
    },
    # two-digit years after a month name: "3 Apr 85", "Apr 3, 85"
    {"name": "date_dmy_short", "label": "DATETIME", "pattern": rf"\b{_DAY}[ -]{_MONTHS}[ -]'?\d{{2}}\b(?![:.]\d)"},
    # a month name between separators, any case: "03-Apr-1985", "03/APR/85", "Apr-03-1985", "3 APRIL 1985"
    {
        "name": "date_dmy_sep",
        "label": "DATETIME",
        "pattern": rf"\b{_DAY}(?P<sep>[-/.])(?i:{_MONTHS})(?P=sep)(?:{_YEAR}|\d{{2}})\b(?![:.]\d)"
        rf"|\b{_DAY}\.? (?i:{_MONTHS}),? {_YEAR}\b",
    },
    # year first: "1985-Apr-03", "1985 April 3"
    {
        "name": "date_ymd_words",
        "label": "DATETIME",
        "pattern": rf"\b{_YEAR}(?P<sep>[-/. ])(?i:{_MONTHS})(?P=sep)(?:[12]\d|3[01]|0?[1-9])\b(?![:.]\d)",
    },
    {
        "name": "date_mdy_sep",
        "label": "DATETIME",
        "pattern": rf"\b(?i:{_MONTHS})(?P<sep>[-/.])(?:[12]\d|3[01]|0?[1-9])(?P=sep)(?:{_YEAR}|\d{{2}})\b(?![:.]\d)"
        rf"|\b(?i:{_MONTHS}) {_DAY},? {_YEAR}\b",
    },
    # a month in Roman numerals: "3.IV.1985", "3 IV 1985", "03/XII/85"
    {
        "name": "date_roman_month",
        "label": "DATETIME",
        "pattern": rf"\b(?:[12]\d|3[01]|0?[1-9])(?P<sep>\. ?|[-/ ])(?:XII|XI|X|IX|VIII|VII|VI|V|IV|III|II|I)(?P=sep)"
        rf"(?:{_YEAR}|(?<=[-/])\d{{2}})\b(?![:.]\d)",
    },
    {
        "name": "date_numeric",
        "label": "DATETIME",
        "pattern": r"\b(?:[12]\d|3[01]|0?[1-9])([./-])(?:1[0-2]|0?[1-9])\1(?:\d{4}|\d{2})\b",
    },
    {
        "name": "date_iso",
        "label": "DATETIME",
        # with its time of day, if any, as in logs: "2024-05-01T12:03:44Z", "2024-05-01 12:03:44,123"
        "pattern": r"\b(?:1[6-9]|20)\d\d-(?:1[0-2]|0[1-9])-(?:[12]\d|3[01]|0[1-9])"
        r"(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?\b",
    },
    {"name": "decade", "label": "DATETIME", "pattern": r"\b(?:1[6-9]|20)\d0s\b"},
    {"name": "year", "label": "DATETIME", "pattern": rf"(?<![\d/.,-]){_YEAR}(?![\d/]|[.,]\d)"},
    {
        "name": "time",
        "label": "DATETIME",
        "pattern": r"\b(?:[01]?\d|2[0-3])[:.][0-5]\d ?(?:a\.m\.|p\.m\.|(?:am|pm|hours|hrs|h)\b)"
        r"|\b(?:[01]?\d|2[0-3]):[0-5]\d\b",
    },
    # --- QUANTITY ----------------------------------------------------------
    {
        "name": "money_code_first",
        "label": "QUANTITY",
        "pattern": rf"(?:\b{_CURRENCY_CODES}|[€$£]) ?(?:{_AMOUNT})(?: (?:million|billion))?",
    },
    {
        "name": "money_amount_first",
        "label": "QUANTITY",
        "pattern": rf"\b(?:{_AMOUNT}|(?:{_NUMBER_WORDS}[ -]?){{1,8}})(?: (?:million|billion))? (?:{_CURRENCY_WORDS}|{_CURRENCY_CODES})\b(?: \({_CURRENCY_CODES}\))?",
    },
    # ages (DEM, as TAB annotates them: an age describes the person, it counts nothing): "aged 45", "45 years
    # old", "a 45-year-old", "age: 45", "at the age of 45", "his age is 45", "aged sixty-three", "45 y/o",
    # "45 ans", "45 Jahre alt", "45 años"
    {
        "name": "age",
        "label": "DEM",
        "flags": "i",
        "pattern": r"\b(?:aged|age[sd]?:?|age\s+of|age\s+(?:is|was)|âgée?\s+de|im\s+Alter\s+von|de\s+edad|di\s+anni|yaşında)"
        r"\s+\d{1,3}(?:\s+(?:years?|yrs?|ans|Jahren?|años|anni))?\b"
        rf"|\baged\s+{_NUMBER_WORDS}(?:[ -]{_NUMBER_WORDS})?\b"
        r"|\b\d{1,3}(?:[ -](?:years?|yrs?|months?)[ -]old|\s*(?:yo|y/o|y\.o\.)(?!\w)|\s+(?:Jahre\s+alt|años\s+de\s+edad|yaşında|jaar\s+oud))",
    },
    # family status: "married with three children", "recently married", "a father of four", "is separated"
    {
        "name": "family_status",
        "label": "DEM",
        "flags": "i",
        "requires": ["married", "divorced", "widowed", "remarried", "father", "mother", "parent"],
        "pattern": r"\b(?:(?:recently|newly|happily|legally|twice|once)\s+)?(?:married|divorced|widowed|remarried)"
        r"(?:\s+with\s+(?:one|two|three|four|five|six|seven|\d{1,2}|no)\s+(?:young\s+|grown-up\s+|adult\s+)?"
        r"(?:children|child|kids|sons?|daughters?))?(?=\s*(?:[,.;)]|$|and\b|with\b|since\b|for\b|woman|man|mother"
        r"|father|person|nurse|\w+(?:er|or|ist|ian)\b))"
        r"|\b(?:a\s+)?(?:single\s+)?(?:father|mother|parent)\s+of\s+(?:one|two|three|four|five|six|seven|\d{1,2})"
        r"(?:\s+(?:young\s+)?(?:children|kids|sons|daughters))?\b",
    },
    {
        "name": "family_status",
        "label": "DEM",
        "flags": "i",
        "group": 1,
        "requires": list(_ONE_WORD_STATUSES),
        "pattern": rf"\b(?:is|was|are|were|now|being|you\s+as|him\s+as|her\s+as)\s+({_ONE_WORD_STATUS})\b"
        r"(?!\s+(?:from|by|out|into|to|in)\b)",
    },
    # one attribute of a list or a field's value: "nurse, separated, presenting with", "Marital status: single"
    {
        "name": "family_status",
        "label": "DEM",
        "flags": "i",
        "group": 1,
        "requires": list(_ONE_WORD_STATUSES),
        "pattern": rf"(?:,[ \t]+|\bstatus:[ \t]*)({_ONE_WORD_STATUS})(?=[ \t]*(?:[,;.\n]|$))",
    },
    # a role in apposition to a name, its last word an agent noun: "Mr Jan Kowalski, a tax inspector, was",
    # "Ana Silva, 44, a warehouse operative," (not "Mr X, a result,")
    {
        "name": "role_apposition",
        "label": "DEM",
        "group": 1,
        "pattern": r"\b[A-Z][\w'’-]*[a-z](?:,[ \t]+\d{1,3})?,[ \t]+(?:a|an)[ \t]+((?:[a-z][a-z-]+[ \t]+){0,2}"
        r"(?:[a-z][a-z-]+(?:er|or|ist|ian|ant|ent|ive|man|woman|ess|eur|ee|wife)|nurse|chef|priest|imam|clerk|guard|cook))"
        r"(?=[ \t]*(?:,|;|\.|\bwho\b|\bliving\b|\bborn\b|\bfrom\b|\bbased\b|\bemployed\b|\bworking\b))",
    },
    {"name": "percent", "label": "QUANTITY", "pattern": r"\b\d+(?:[.,]\d+)? ?(?:%|per ?cent\b|percent\b)"},
    {
        "name": "measure",
        "label": "QUANTITY",
        "pattern": r"\b\d+(?:[.,]\d+)?(?: ?x ?\d+(?:[.,]\d+)?)? ?(?:km|m|cm|mm|kg|g|ha|hectares?|square metres|sq\. ?m|m2|m²|litres?|tonnes?)\b",
    },
]


#: Candidates whose whole text matches one of these are never identifiers:
#: references to legal provisions and generic institution words. Users extend
#: or replace them with ``allow_patterns`` (same shape, ``label`` optional).
DEFAULT_ALLOW_PATTERNS: list[dict] = [
    {
        "name": "legal_provision",
        "pattern": r"(?:Articles?|Rules?|Sections?|Paragraphs?|Chapters?|Protocols?|Annex(?:es)?|Regulations?"
        r"|Directives?|§§?)\s*(?:No\.?\s*)?[\dIVXLC][\s\S]*",
    },
    {
        "name": "convention_body",
        "pattern": r"(?:European\s+)?(?:Court|Commission|Convention)\s+(?:of|on|for\s+the\s+Protection\s+of)"
        r"\s+Human\s+Rights(?:\s+and\s+Fundamental\s+Freedoms)?"
        r"|(?:First|Second|Third|Fourth|Fifth)\s+Section(?:\s+of\s+the\s+Court)?|Grand\s+Chamber",
    },
    {
        "name": "generic_institution",
        "pattern": r"(?:Court|Government|Chamber|Commission|Council|Ministry|Registry|Registrar|Section|Convention"
        r"|Parliament|President|Agent|Applicant|Rules\s+of\s+Court|FACTS|PROCEDURE|(?:THE\s+)?LAW"
        r"|THE\s+FACTS)",
    },
    # a state's government names no person: "the Turkish Government", "United Kingdom Government",
    # "Government of the Republic of Poland"
    {
        "name": "national_government",
        "pattern": r"(?:[Tt]he\s+)?(?:[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,3}\s+)?Government"
        r"(?:\s+of\s+(?:the\s+)?[A-Z][a-z]+(?:\s+(?:of\s+)?[A-Z][a-z]+){0,3})?",
    },
]


def compile_allow_patterns(patterns: Iterable[dict]) -> list[tuple]:
    """Allow patterns need no label; they are matched against a whole span.
    The package's own (:data:`DEFAULT_ALLOW_PATTERNS`) are compiled with ``re``,
    a user's with RE2."""
    patterns = list(patterns)
    own = [p for p in patterns if p in DEFAULT_ALLOW_PATTERNS]
    users = [p for p in patterns if p not in DEFAULT_ALLOW_PATTERNS]
    return compile_patterns({"label": "ALLOW", **p} for p in own) + compile_patterns(
        ({"label": "ALLOW", **p} for p in users), user=True
    )


def is_allowed(text: str, compiled_allow: Sequence[tuple]) -> bool:
    return any(entry[2].fullmatch(text) for entry in compiled_allow)


@dataclass(frozen=True)
class RuleMatch:
    start: int
    end: int
    label: str
    name: str


def compile_user_regex(pattern: str, ignore_case: bool = False, what: str = "pattern") -> Any:
    """A user's regular expression compiled by RE2 (:func:`spacy_textsan.user_regex.compile_pattern`:
    linear-time matching, no backreferences or lookaround; ``\\w``, ``\\d``, ``\\b`` are ASCII, ``\\pL``
    the letters of every script).

    RAISES (ValueError): one line naming ``what``, the pattern and RE2's reason.
    """
    try:
        return compile_user_pattern(pattern, re.IGNORECASE if ignore_case else 0)
    except ValueError as e:
        raise ValueError(f"{what} {pattern!r}: {e}") from None


def compile_patterns(patterns: Iterable[dict], user: bool = False) -> list[tuple]:
    """Compile pattern dicts; raises ValueError naming the bad pattern.

    Optional keys: ``flags`` ("i"), ``group`` (regex group of the span),
    ``min_digits`` (matches with fewer digits are dropped) and ``requires``
    (words, one of which must occur in the text for the pattern to run).
    ``user``: the patterns come from a user (config, ``--pattern``) and are
    compiled with RE2 (:func:`compile_user_regex`); the package's own with
    Python's ``re``."""
    compiled = []
    for i, p in enumerate(patterns):
        try:
            name = p.get("name", f"user_{i}")
            label = p["label"]
            ignore_case = "i" in p.get("flags", "")
            if user:
                regex = compile_user_regex(p["pattern"], ignore_case, f"pattern {name!r}")
            else:
                regex = re.compile(p["pattern"], re.IGNORECASE if ignore_case else 0)
        except KeyError as e:
            raise ValueError(f"pattern {i} ({p!r}) lacks the key {e}") from None
        except re.error as e:
            raise ValueError(f"pattern {name!r} is not a valid regular expression: {e}") from None
        requires = frozenset(w.lower() for w in p.get("requires", ()))
        compiled.append((name, label, regex, int(p.get("group", 0)), int(p.get("min_digits", 0)), requires))
    return compiled


def find_rule_matches(text: str, compiled: Sequence[tuple]) -> list[RuleMatch]:
    """All matches of all patterns, in pattern order then text order."""
    out = []
    words: set[str] | None = None
    for name, label, regex, group, min_digits, requires in compiled:
        if requires:
            # a costly pattern runs only when one of its key words is in the text at all
            words = words if words is not None else text_words(text)
            if words.isdisjoint(requires):
                continue
        for m in regex.finditer(text):
            start, end = m.span(group)
            if end > start and (not min_digits or count_digits(text[start:end]) >= min_digits):
                out.append(RuleMatch(start, end, label, name))
    return out


#: A compiled detector pattern: name, regex, group, and its prefilters (see :func:`find_prefiltered`).
Compiled = tuple[str, "re.Pattern[str]", int, frozenset[str], tuple[str, ...], tuple[str, ...]]


def compile_prefiltered(patterns: Iterable[dict]) -> list[Compiled]:
    """Compile detector patterns (``name``, ``pattern``, optional ``flags``,
    ``group``) with their prefilters: ``requires`` (words), ``needs``
    (lower-case substrings) and ``endings`` (word endings)."""
    return [
        (
            p["name"],
            re.compile(p["pattern"], re.IGNORECASE if "i" in p.get("flags", "") else 0),
            int(p.get("group", 0)),
            frozenset(p.get("requires", ())),
            tuple(p.get("needs", ())),
            tuple(sorted(set(p.get("endings", ())))),
        )
        for p in patterns
    ]


def find_prefiltered(text: str, compiled: Sequence[Compiled], label: str = "CODE") -> Iterable[RuleMatch]:
    """The matches of each pattern whose prefilters pass: one of its ``requires``
    words is a word of the text ("rue" in "true" is none), one of its ``needs``
    substrings is in the text, a word of the text ends with one of its ``endings``
    ("Hauptstraße", "Keizersgracht"). Costly patterns run only where they can match."""
    lowered: str | None = None
    words: set[str] | None = None
    for name, regex, group, requires, needs, endings in compiled:
        if requires or endings:
            words = words if words is not None else text_words(text)
            if requires and words.isdisjoint(requires):
                continue
            if endings and not any(w.endswith(endings) for w in words):
                continue
        if needs:
            lowered = lowered if lowered is not None else text.lower()
            if not any(n in lowered for n in needs):
                continue
        for m in regex.finditer(text):
            start, end = m.span(group)
            if end > start:
                yield RuleMatch(start, end, label, name)


def words_pattern(term: str) -> str:
    """A regex of ``term`` whose words may be separated by any whitespace."""
    return r"\s+".join(re.escape(w) for w in term.split())


#: Titles before a name, lower case ("mr", "dr", "mme"): the English pipeline's ``data/en/titles.txt``;
#: a language's own: :func:`titles`.
TITLES = read_set("en", "titles.txt")


def titles(lang: str = "en") -> frozenset[str]:
    """The titles of language ``lang`` (``data/<lang>/titles.txt``: "m", "mme"; "sr", "d", "dña")."""
    return read_set(lang, "titles.txt")


#: Articles before a name ("the Ankara Court"), dropped from its key as titles are.
ARTICLES = frozenset({"the", "a", "an"})


def is_name_token(text: str) -> bool:
    """A capitalised word, an initial ("B.", "J.S.") or a hyphenated name part."""
    if not text or not text[0].isalpha() or not text[0].isupper():
        return False
    core = text.replace(".", "").replace("-", "").replace("’", "").replace("'", "")
    return core.isalpha()


def count_digits(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


#: A date or a year (range) written in digits: not an identifier number.
DATE_LIKE = re.compile(
    r"^(?:\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2})|\d{4}[./-]\d{1,2}[./-]\d{1,2}"
    r"|\d{4}(?:\s*[-–/]\s*\d{2,4})?|\d{1,2}[./]\d{4})$"
)


def find_titled_names(
    tokens: Sequence[str],
    max_name_tokens: int = 5,
    title_words: frozenset[str] = TITLES,
    title_parts: frozenset[str] = frozenset(),
    continues: Callable[[str, str], bool] | None = None,
    particles: frozenset[str] = frozenset(),
) -> list[tuple]:
    """Token ranges ``(start, end)`` of "Title Name..." sequences.

    ``tokens`` are token texts; a title of ``title_words`` ("Mr", "Mrs.",
    "Dr") optionally followed by "." and then 1..max_name_tokens name tokens.
    Returns the range including the title. With ``title_parts`` (German: "med", "rer", "nat"), the
    title is a chain: more titles and those words, each with an optional "." ("Herr Prof. Dr. med.
    Hans Müller"). With ``continues(previous, word)``, a name token after the first one continues the
    name only when it says so (a language that capitalises its nouns: "Frau Anna Schmidt Beschwerde"),
    and ``particles`` ("van", "von", "der") inside the name join it ("Herrn Gordon van der Dussen",
    "Herr Dussen van-Hahn"), never at its end.
    """
    spans = []
    i, n = 0, len(tokens)
    while i < n:
        if tokens[i].rstrip(".").lower() in title_words and tokens[i][:1].isupper():
            j = i + 1
            if j < n and tokens[j] == ".":
                j += 1
            if title_parts:
                j = _title_chain_end(tokens, j, title_words, title_parts)
            k = j
            while k < n and k - j < max_name_tokens:
                if particles and _is_particle(tokens[k], particles):
                    k += 1
                    continue
                if not (is_name_token(tokens[k]) or (particles and _is_particle_name(tokens[k], particles))):
                    break
                if continues is not None and k > j and not continues(tokens[k - 1], tokens[k]):
                    break
                k += 1
            while k > j and particles and _is_particle(tokens[k - 1], particles):
                k -= 1
            if k > j:
                spans.append((i, k))
                i = k
                continue
        i += 1
    return spans


def _is_particle(token: str, particles: frozenset[str]) -> bool:
    return token in particles


def _is_particle_name(token: str, particles: frozenset[str]) -> bool:
    """A particle joined to a name by a hyphen: "van-Hahn"."""
    head, dash, rest = token.partition("-")
    return bool(dash) and head in particles and is_name_token(rest)


def _title_chain_end(tokens: Sequence[str], j: int, title_words: frozenset[str], title_parts: frozenset[str]) -> int:
    """The end of a chain of titles and title parts (each with an optional ".") from token ``j``; the
    last word before a name stays a name when nothing follows it."""
    n = len(tokens)
    while j < n - 1:
        word = tokens[j].rstrip(".").lower()
        if not (word in title_parts or (word in title_words and tokens[j][:1].isupper())):
            break
        j += 2 if j + 1 < n and tokens[j + 1] == "." else 1
    return j


def title_start(
    tokens: Sequence[str], start: int, title_words: frozenset[str] = TITLES, title_parts: frozenset[str] = frozenset()
) -> int | None:
    """If a title of ``title_words`` (and optional ".") precedes token ``start``, the title's index; with
    ``title_parts``, the first title of the chain of titles and parts before it (:func:`find_titled_names`)."""
    j = start - 1
    if j >= 0 and tokens[j] == ".":
        j -= 1
    if not title_parts:
        if j >= 0 and tokens[j].rstrip(".").lower() in title_words and tokens[j][:1].isupper():
            return j
        return None
    found = None
    while j >= 0:
        word = tokens[j].rstrip(".").lower()
        if word in title_words and tokens[j][:1].isupper():
            found = j
        elif word not in title_parts:
            break
        j -= 2 if j >= 1 and tokens[j - 1] == "." else 1
    return found
