"""Postal addresses of at least eight countries (UK, US, FR, DE, NL, PL, IT,
ES and neighbours): street addresses, PO boxes and postcodes with their city
or state; the parts of one address and the short lines of an address block
above a postcode join into one span.

Street words are hand-listed (``data/street_types_*.txt``, shared, and a language's
``data/<lang>/street_types_*.txt``: :mod:`.lang_data`) and completed with the street types of Faker's
address providers (USPS, Royal Mail, Italian DUG...). Pure functions over a
string returning :class:`~.rules.RuleMatch` objects (``label`` LOC, ``name``
"address").
"""

import importlib
import re
from collections.abc import Iterable
from functools import lru_cache

from babel.core import UnknownLocaleError

from ...calendar_names import english_month_forms, month_names
from .lang_data import read_list
from .rules import Compiled, RuleMatch, compile_prefiltered, find_prefiltered, titles

#: A capitalised word of at most 60 characters ("Llanfairpwllgwyngyll..." has 58). It ends where the word
#: ends, before a digit (``Mayor5``) or before a hyphen and a digit (``New Delhi-110001``), never inside
#: letters or at an inner hyphen or apostrophe: the words of "Jean-Baptiste-de-la-Salle" read as one,
#: not in every way that the patterns' ``[ -]`` between up to five words could split them (a street
#: of 40 hyphenated capitals that failed at its end took a fifth of a second, and the time grew with the
#: fifth power of its length), and a match that may start at any capital ("postcode_in") tries at most
#: 60 characters from each.
_CAP = r"[A-ZÀ-ÖØ-ÞŁŚŻŹĆŃÓĘĄİŞĞŐŰ][\w'’-]{0,59}(?![^\W\d_]|['’]|-(?!\d))"
_HOUSE = r"\d{1,5}(?:[ -]?[A-Za-z]\b)?(?:[-–/]\d{1,5}[A-Za-z]?)?"
#: The hand-listed street words (:func:`.lang_data.read_list`): English types written after the name
#: ("Baker Street"), types written before it (Romance languages, Polish: "rue", "Via", "ul."), words that end
#: a compound name (German, Dutch, Scandinavian: "Hauptstraße", "Keizersgracht").
_STREET_TYPES_FILES = ("street_types_after.txt", "street_types_before.txt", "street_types_compound.txt")


def _faker_street_words() -> tuple[list[str], list[str], list[str]]:
    """Street types of Faker's address providers (real lists: USPS, Royal Mail,
    Italian DUG...), added to the hand-written ones above."""
    english: list[str] = []
    prefixes: list[str] = []
    compounds: list[str] = []
    for locale, kind, attr in (
        ("en_US", english, "street_suffixes"),
        ("en_GB", english, "street_suffixes"),
        ("en_AU", english, "street_suffixes"),
        ("it_IT", prefixes, "street_suffixes"),
        ("fr_FR", prefixes, "street_prefixes"),
        ("es_ES", prefixes, "street_prefixes"),
        ("pt_BR", prefixes, "street_prefixes"),
        ("pt_PT", prefixes, "street_prefixes"),
        ("nl_NL", compounds, "street_suffixes"),
        ("nl_BE", compounds, "street_suffixes"),
        ("no_NO", compounds, "street_suffixes"),
        ("sv_SE", compounds, "street_suffixes"),
        ("da_DK", compounds, "street_suffixes"),
    ):
        try:
            provider = importlib.import_module(f"faker.providers.address.{locale}").Provider
        except ImportError:  # pragma: no cover - an older Faker without the locale
            continue
        kind.extend(w.strip() for w in getattr(provider, attr, ()) if w.strip() and w.strip() != "Street")
    return english, prefixes, compounds


def _first_words(street_words: Iterable[str]) -> list[str]:
    """The first word of each street word as :func:`.rules.text_words` reads it ("v.le" -> "v", "C/" -> "c")."""
    return [re.findall(r"\w+", w.lower())[0] for w in street_words if re.search(r"\w", w)]


def _alternation(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))


def _not_a_month(lang: str) -> str:
    """A lookahead that refuses a month name of language ``lang`` ("Im Februar 2010" is a date, not a
    street); nothing for English (its patterns stay as they were)."""
    if lang == "en":
        return ""
    try:
        months = month_names(lang)
    except (UnknownLocaleError, ValueError):  # no CLDR calendar for the language
        return ""
    return rf"(?!(?:{_alternation(months)})\b)"


_US_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|"
    "OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR|AA|AE|AP|AS|GU|MP|VI|FM|MH|PW"
)


@lru_cache(maxsize=8)
def address_patterns(lang: str = "en") -> list[dict]:
    """The address patterns (pattern dicts with prefilters) of language ``lang``'s street words, built
    once: the street types of Faker's address providers join the hand-listed ones."""
    english, prefixes, compounds = _faker_street_words()
    hand_after, hand_before, hand_compound = (list(read_list(lang, f)) for f in _STREET_TYPES_FILES)
    en_types = _alternation(hand_after + english)
    core_prefix_types = _alternation(w for w in hand_before if len(w.rstrip(".")) > 1)
    prefix_types = _alternation(w for w in hand_before + prefixes if len(w.rstrip(".")) > 1)
    compound_types = _alternation(hand_compound + compounds)
    particles = r"(?:de la|de l['’]|de los|de las|del|des|du|de|d['’]|di|da|do|dos|das|della|dei|degli|delle|dello|la|le|les|l['’]|y)"
    unit = (
        r"(?:,?\s*(?:Apt\.?|Apartment|Appartamento|Suite|Ste\.?|Unit|Flat|Studio|Floor|Fl\.?|Piano|Piso|Puerta|Room"
        r"|Rm\.?|#)\s*[\w@]{1,6})?"
    )
    return [
        # UK/US/IE/AU: "14 Baker Street", "221B Baker St.", "0487 Hopkins Mount Suite 853", "Flat 3, 12 High Road"
        {
            "name": "street_en",
            "pattern": rf"(?:(?:Flat|Apartment|Apt\.?|Unit|Suite|Studio)\s*\w{{1,5}},?\s+(?:{_HOUSE}\s+)?|\b{_HOUSE}\s+)"
            rf"(?:(?:{_CAP}|[NSEW]{{1,2}}|[^\W\d_A-Za-z\u00c0-\u024f]+)\s+){{0,3}}(?:{en_types}|street|road|avenue|lane)\b\.?{unit}",
        },
        {
            "name": "po_box",
            "flags": "i",
            "pattern": r"\b(?:P\.?\s?O\.?\s?Box|Postfach|Boîte postale|BP|Apartado)\s*\d{1,6}\b",
        },
        # FR/IT/ES/PT/PL: "14 rue des Lilas", "Via Roma 12", "Calle Mayor, 5", "ul. Długa 5/7"
        {
            "name": "street_prefix",
            "requires": _first_words(hand_before + prefixes),
            "pattern": rf"(?:\b\d{{1,4}}(?:\s?(?:bis|ter|quater|[A-D]))?,?\s+)?(?<![\w.])(?i:{prefix_types})\s+(?:{particles}\s*)?"
            rf"{_CAP}(?:[ -](?:{particles}|{_CAP}|[IVX]+)){{0,4}}"
            rf",?\s*(?:n[ºo°]\.?\s*|n\.\s*|núm\.\s*)?\d{{1,4}}(?:\s?/\s?[A-Za-z0-9]{{1,3}}|[A-Za-z]\b)?"
            rf"(?:,?\s*\d{{1,2}}[ºª°]\s*[A-Za-z]?)?(?:\s+m\.\s*\d{{1,4}})?{unit}",
        },
        # the same with the number first or without one, for the usual street words only: "14 rue des Lilas"
        {
            "name": "street_prefix_nonumber",
            "requires": _first_words(hand_before),
            "pattern": rf"(?:\b\d{{1,4}}(?:\s?(?:bis|ter|quater|[A-D]))?,?\s+)?(?<![\w.])(?i:{core_prefix_types})\s+(?:{particles}\s*)?"
            rf"{_CAP}(?:[ -](?:{particles}|{_CAP}|[IVX]+)){{0,4}}",
        },
        # DE/AT/CH/NL/DK/NO/SE: "Hauptstraße 5", "Magnus-Kramer-Platz 1", "Keizersgracht 123", "Storgata 12 B"
        {
            "name": "street_compound",
            "endings": [w.lower().rstrip(".") for w in hand_compound + compounds],
            # a name of at most 70 characters before its space, checked first by a cheap lookahead: a match
            # may start after any hyphen of "A-A-A-...", and each start tried the street words at every
            # position to the end of the run
            "pattern": rf"\b[A-ZÄÖÜÅÆØ](?=[\wäöüßåæøé.-]{{0,70}}\s)[\wäöüßåæøé-]*(?i:{compound_types})\s+\d{{1,5}}"
            rf"(?:\s?[a-zA-Z]\b)?(?:[-/]\d{{1,4}}[a-z]?)?",
        },
        {
            "name": "street_compound_words",
            "pattern": r"\b(?:Am|An der|Auf der|Im|In der|Zum|Zur|Unter den)\s+"
            + _not_a_month(lang)
            + r"[A-ZÄÖÜ][\wäöüß-]+\s+\d{1,4}[a-z]?\b",
        },
        # postcodes (with their city or state)
        {
            "name": "postcode_uk",
            "pattern": r"(?:\b"
            + _CAP
            + r",?\s+)?\b(?:GIR ?0AA|[A-PR-UWYZ](?:\d[\dA-HJKPS-UW]?|[A-HK-Y]\d[\dABEHMNPRV-Y]?) ?"
            r"\d[ABD-HJLNP-UW-Z]{2})\b",
        },
        {
            "name": "postcode_us",
            "pattern": r"\b(?:" + _CAP + r"\s+){0,2}" + _CAP + r",?\s+(?:" + _US_STATES + r")\s+\d{5}(?:-\d{4})?\b",
        },
        {
            "name": "postcode_nl",
            "pattern": r"\b[1-9]\d{3}\s?(?!SA|SD|SS)[A-Z]{2}\b(?:\s+" + _CAP + r"(?:\s+" + _CAP + r")?)?",
        },
        {"name": "postcode_pl", "pattern": r"\b\d{2}-\d{3}\s+" + _CAP + r"(?:[ -]" + _CAP + r")?"},
        {
            "name": "postcode_city",
            "pattern": r"(?<![\w/.,-])(?:(?:[A-Z]{1,2}|CH|FR|DE|IT|ES|AT|F|D|I|E|A)-)?(?:\d{5}|(?!(?:1[6-9]|20)\d\d)\d{4}),?\s+"
            rf"(?!(?:Mr|Mrs|Ms|Dr|Mme|Herr|Frau|Sr|Sra|{_alternation(english_month_forms())})\b)"
            + _CAP
            + r"(?:(?:[ -](?:am|an|der|de|la|le|sur|sous|en|del|di|im|in|bei)?[ -]?)"
            + _CAP
            + r"){0,2}"
            r"(?:\s+(?:Cedex|CEDEX)(?:\s+\d{1,2})?)?(?:\s+\([A-Z]{2}\))?",
        },
        {
            "name": "postcode_br",
            "pattern": r"\b\d{5}-\d{3}\b(?:\s+"
            + _CAP
            + r"(?:\s+(?:do|da|de|dos|das|"
            + _CAP
            + r")){0,4}(?:\s*/\s*[A-Z]{2})?)?",
        },
        {"name": "postcode_in", "pattern": _CAP + r"(?:[ -]" + _CAP + r")?[ -]\d{6}\b"},
        {
            "name": "city_postcode",
            "pattern": r"(?m:^)[ \t]*(?!(?:Mr|Mrs|Ms|Dr|Prof|Sir|Dear)\b)"
            + _CAP
            + r"(?:[ -](?:de|del|la|le|sur|am|an)?[ -]?"
            + _CAP
            + r"){0,3},[ \t]*\d{4,5}(?:[ \t]*\([A-Z]{2}\))?[ \t]*(?m:$)",
        },
        # a postcode given in the line after a question for it (a chat: "date of birth and postcode?" -> "..., 7946",
        # "..., 43-995", "..., 684-8136")
        {
            "name": "postcode_answer",
            "group": 1,
            "flags": "i",
            "pattern": r"\b(?:post ?code|postal code|zip(?: ?code)?)\b[^\n]{0,80}\n[^\n]{0,80}(?<![\d/.:-])(\d{4,6}|\d{2,3}-\d{3,4})(?![\d/.:-])",
        },
        # a postcode announced by its name: "ZIP 90210", "postcode: 0150", "PLZ 10115"
        {
            "name": "postcode_cued",
            "group": 1,
            "flags": "i",
            "pattern": r"\b(?:post ?code|postal code|zip(?: ?code)?|PLZ|code postal|CAP|C\.P\.|CEP|kod pocztowy)\b\s*[:#]?\s*"
            r"((?=[A-Z0-9]*\d)[A-Z0-9]{2,5}(?:[ -][A-Z0-9]{2,4})?)\b",
        },
    ]


_POSTCODES = frozenset(
    {
        "postcode_uk",
        "postcode_us",
        "postcode_nl",
        "postcode_pl",
        "postcode_city",
        "city_postcode",
        "postcode_br",
        "postcode_in",
    }
)
#: Parts of one address separated by a comma or a line break join into one span.
#: (A comma, a line break or both, and spaces; written so that a long run of spaces has one way to match:
#: ``[ \t]*,?[ \t]*\r?\n`` split it in two in every way before failing.)
_ADDRESS_GLUE = re.compile(r"^[ \t]*(?:,[ \t]*(?:\r?\n[ \t]*)?|\r?\n[ \t]*)$")
#: A short line of an address block above a postcode line: no sentence, at most six words.
_BLOCK_LINE = re.compile(r"^[ \t]*(?:[\w][\w'’.,/#º°-]*[ \t]+){0,5}[\w][\w'’.,/#º°-]*[ \t]*$")


@lru_cache(maxsize=8)
def _address_compiled(lang: str = "en") -> list[Compiled]:
    # the parts of an address pattern stay on one line (lines join in find_addresses)
    return compile_prefiltered(
        {**p, "pattern": p["pattern"].replace(r"\s", r"[ \t\u00a0]")} for p in address_patterns(lang)
    )


def _block_start(text: str, start: int, max_lines: int = 3, title_words: frozenset[str] = frozenset()) -> int:
    """The start of the address block that ends with the line holding
    ``start`` (a postcode): up to ``max_lines`` short lines above it that are
    not sentences; a ``Label:`` in front of the first line stays outside, and
    so does a line that starts with a title of ``title_words`` ("Mrs Nina
    Hagen" above her street: the addressee, a person, not part of the address)."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        return start
    block = line_start
    for _ in range(max_lines):
        if block == 0:
            break
        prev = text.rfind("\n", 0, block - 1) + 1
        line = text[prev : block - 1]
        label = re.match(r"^[ \t]*[A-Za-z][\w /]{0,30}:[ \t]*", line)
        body = line[label.end() :] if label else line
        if not body.strip() or not _BLOCK_LINE.match(body) or not re.match(r"[\s]*[\dA-ZÀ-Þ]", body):
            break
        first = body.split()[0]
        if first[:1].isupper() and first.rstrip(".").lower() in title_words:
            break
        block = prev + (label.end() if label else 0)
        if label:
            break
    return block + len(text[block:start]) - len(text[block:start].lstrip()) if block < start else start


def find_addresses(text: str, lang: str = "en") -> list[RuleMatch]:
    """Street addresses and postcodes of UK, US, FR, DE, NL, PL, IT, ES (and
    neighbours), with the street words of language ``lang``; the parts of one
    address separated by a comma or a line break, and the short lines of an
    address block above a postcode, are returned as one span."""
    parts = set()
    for m in find_prefiltered(text, _address_compiled(lang)):
        start = m.start
        if m.name in _POSTCODES:
            start = min(start, _block_start(text, start, title_words=titles(lang)))
        parts.add((start, m.end))
    merged: list[list[int]] = []
    for start, end in sorted(parts):
        if merged and (start <= merged[-1][1] or _ADDRESS_GLUE.match(text[merged[-1][1] : start])):
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [RuleMatch(s, e, "LOC", "address") for s, e in merged]
