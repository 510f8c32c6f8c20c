"""The generalizer's words in the document's language: generalizations and the pseudonyms' Faker locale.

The ``generalize`` strategy (and ``pseudonym``'s fallback to it) writes phrases in English: the ancestors of a
span's knowledge-base chain (``span._.kb_chain``: ``national capital``, ``city in Norway``, ``court in
Turkey``), ``date in the 1990s``, ``DATE``. In a document of another language (the pipeline's, ``nlp.lang``)
each is written in that language (:func:`translate_phrase`):

* the phrases are data, ``render/data/phrases.txt``: an English phrase and its French, Spanish and German
  forms, or a template of one (``{phrase} in {territory}`` → ``{phrase}, {territory}``: ``city in Norway`` →
  ``ville, Norvège``, ``ciudad, Noruega``, ``Stadt, Norwegen``);
* a country or continent is CLDR's name in the language, through babel (its English name → its territory
  code → :attr:`babel.Locale.territories`); the English names CLDR does not know (GeoNames' ``Ivory Coast``,
  ``Turkey``) are in ``render/data/territories.txt``.

A phrase the table cannot write in the language (a rare WordNet class, a subdivision type it does not name)
is not written: the generalizer goes on up the chain to the next, more general, ancestor that the table
writes and that is safe (``drummer`` → ``percussionist``, ``musician``: ``musicien``), as it goes on past an
unsafe one in English; the generalization is then never more specific than the English one would be, and a
French output never shows an English phrase. With no such ancestor, the entity gets the mask (``[LOC 1]``,
in ``label_language`` when set). An English pipeline (and one of a language the table does not have) keeps
the English phrases, as they always were.

Pseudonyms of names, places and organisations come from Faker's locale of the language
(:func:`faker_locale`: ``fr_FR``, ``es_ES``, ``de_DE``; ``en_US`` for English and any other).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from re import Pattern

from babel import Locale

from ..text_folding import fold, strip_marks
from ..word_lists import table_rows

__all__ = [
    "PHRASES_FILE",
    "TERRITORIES_FILE",
    "FAKER_LOCALES",
    "faker_locale",
    "phrase_languages",
    "translates",
    "translate_phrase",
    "territory_name",
    "phrase_translator",
    "echoes",
]

PHRASES_FILE = "render/data/phrases.txt"
TERRITORIES_FILE = "render/data/territories.txt"
#: Faker's locale of each language the pipelines speak (any other: ``en_US``).
FAKER_LOCALES = {"en": "en_US", "fr": "fr_FR", "es": "es_ES", "de": "de_DE"}

#: What a template's slots match: a phrase of the table or a territory (the shortest first, then the longest),
#: four digits, a unit.
_SLOTS = {
    "phrase": (r"(?P<phrase>.+?)", r"(?P<phrase>.+)"),
    "territory": (r"(?P<territory>.+?)", r"(?P<territory>.+)"),
    "decade": (r"(?P<decade>\d{4})",) * 2,
    "year": (r"(?P<year>\d{4})",) * 2,
    "unit": (r"(?P<unit>\S.*)",) * 2,
}
_SLOT = re.compile(r"\{(\w+)\}")
_SAINT = re.compile(r"\bst\.?\s")
_WORDS = re.compile(r"\w+")
_NOT_WORD = re.compile(r"[^\w\s]")


def faker_locale(lang: str | None) -> str:
    """Faker's locale of the pipeline's language ``lang``: ``fr`` → ``fr_FR``; English and others: ``en_US``."""
    return FAKER_LOCALES.get(lang or "en", "en_US")


def phrase_languages() -> tuple[str, ...]:
    """The languages the phrase table writes (English, the phrases themselves, first)."""
    return tuple(table_rows(PHRASES_FILE)[0])


def translates(lang: str | None) -> bool:
    """Whether the generalizations of a document in ``lang`` are translated (not English, and in the table)."""
    return lang is not None and lang != "en" and lang in phrase_languages()


def _phrase_key(phrase: str) -> str:
    return fold(phrase, compat=False)


def _territory_key(name: str) -> str:
    """A country's name as it is looked up: case, accents and punctuation set aside, "&" read as "and",
    "St." as "Saint", without a leading "the" ("the Netherlands", "St. Kitts & Nevis", "Côte d’Ivoire")."""
    text = _SAINT.sub("saint ", strip_marks(fold(name)).replace("&", " and "))
    words = _NOT_WORD.sub(" ", text).split()
    return " ".join(words[1:] if words[:1] == ["the"] else words)


@cache
def _territory_codes() -> dict[str, str]:
    """English name → territory code: CLDR's English names, and those of ``territories.txt``."""
    codes = {_territory_key(name): code for code, name in Locale.parse("en").territories.items()}
    for name, code in table_rows(TERRITORIES_FILE):
        codes[_territory_key(name)] = code
    return codes


def territory_name(english: str, lang: str) -> str | None:
    """CLDR's name in ``lang`` of the country or continent named ``english`` ("Norway", "fr" → "Norvège",
    "Turkey", "de" → "Türkei", "Europe", "es" → "Europa"); ``None`` for a name that is none."""
    code = _territory_codes().get(_territory_key(english))
    return None if code is None else Locale.parse(lang).territories.get(code)


def _template(english: str) -> tuple[Pattern, ...]:
    """The patterns of a template (its phrase and territory slots shortest first, then longest)."""
    out = []
    for variant in (0, 1):
        parts, pos = [], 0
        for m in _SLOT.finditer(english):
            if m[1] not in _SLOTS:
                raise ValueError(f"{PHRASES_FILE}: unknown slot {{{m[1]}}} in {english!r}")
            parts += [re.escape(english[pos : m.start()]), _SLOTS[m[1]][variant]]
            pos = m.end()
        parts.append(re.escape(english[pos:]))
        out.append(re.compile("".join(parts), re.IGNORECASE))
    return tuple(out)


@cache
def _table(lang: str) -> tuple[dict[str, str], tuple[tuple[tuple[Pattern, ...], str], ...]]:
    """The phrases of ``lang`` (folded English → translation) and its templates, in file order.

    RAISES (ValueError): a language the table does not have, a row without a translation."""
    header, *rows = table_rows(PHRASES_FILE)
    if lang not in header[1:]:
        raise ValueError(f"no phrases in {lang!r}: the table writes {', '.join(header[1:])}")
    column = header.index(lang)
    exact: dict[str, str] = {}
    templates: list[tuple[tuple[Pattern, ...], str]] = []
    for row in rows:
        if len(row) != len(header) or not all(row):
            raise ValueError(f"{PHRASES_FILE}: {row[0]!r} needs one phrase in each of {', '.join(header)}")
        if _SLOT.search(row[0]):
            templates.append((_template(row[0]), row[column]))
        else:
            exact[_phrase_key(row[0])] = row[column]
    return exact, tuple(templates)


def translate_phrase(phrase: str, lang: str) -> str | None:
    """``phrase`` (an English generalization) in ``lang``, or ``None`` when the table cannot write it
    ("city in Norway", "fr" → "ville, Norvège"; "percussionist", "fr" → ``None``). English: the phrase itself.

    RAISES (ValueError): a language the table does not have."""
    if lang == "en":
        return phrase
    exact, templates = _table(lang)
    phrase = phrase.strip()
    found = exact.get(_phrase_key(phrase))
    if found is not None:
        return found
    for patterns, target in templates:
        for pattern in patterns:
            m = pattern.fullmatch(phrase)
            values = _slot_values(m.groupdict(), lang, exact) if m is not None else None
            if values is not None:
                return target.format(**values)
    return None


def _slot_values(groups: dict[str, str], lang: str, exact: dict[str, str]) -> dict[str, str] | None:
    """The slots of a matched template written in ``lang`` (None: one of them cannot be)."""
    out: dict[str, str] = {}
    for name, value in groups.items():
        if name == "phrase":
            written = exact.get(_phrase_key(value))
        elif name == "territory":
            written = territory_name(value, lang)
        else:
            written = value  # digits, a unit: kept
        if written is None:
            return None
        out[name] = written
    return out


def phrase_translator(lang: str | None) -> Callable[[str], str | None] | None:
    """:func:`translate_phrase` into ``lang``, or ``None`` where the English phrases stay (:func:`translates`)."""
    if not translates(lang):
        return None
    assert lang is not None
    return lambda phrase: translate_phrase(phrase, lang)


def echoes(written: str, original: str) -> bool:
    """Whether a written generalization echoes the original: a capitalised word of it starts with the first
    three letters (case and accents aside) of a word of 4+ letters of the original. The English rule
    (:func:`.options.safe_options`: four letters, accents kept) misses countries whose names share only
    three letters with their adjectives in other languages ("nacionalidad, Turquía" for "turca",
    "nationalité, Grèce" for "grecque")."""
    stems = {strip_marks(fold(w))[:3] for w in _WORDS.findall(original) if len(w) >= 4}
    return any(w[:1].isupper() and strip_marks(fold(w))[:3] in stems for w in _WORDS.findall(written))
