"""Phrases that describe a person, beyond the detectors' candidates (pure functions).

Papadopoulou et al. (2022b) look up the terms of a document in an inverted index of background
records; what singles a person out is often not a name but a short phrase: an
occupation (``worked as a taxi driver``), a health condition (``suffering from
multiple sclerosis``), a family situation (``three children``), a count of
offences or of plots. :func:`find_phrases` finds such phrases by their cue, so
that ``kanon_risk`` can look them up like any candidate; a phrase rare in the
background becomes a risky quasi-identifier.

:func:`english_count` is the general-English side of the background: how many
of ``n_records`` documents of ordinary English would contain a term, from its
wordfreq frequency, so that text from another domain does not make every
common phrase "rare".
"""

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..word_lists import word_list

__all__ = [
    "Phrase",
    "find_phrases",
    "find_words",
    "word_term",
    "english_count",
    "english_word_count",
    "is_common_lowercase",
    "is_ordinary_form",
    "is_rare_word",
    "PHRASE_KINDS",
]

#: Tokens in a typical background document (TAB judgments: ~3,000 words).
DOCUMENT_TOKENS = 3000

_WORD = r"[A-Za-z][A-Za-z'’-]*"
_STOP = (
    r"(?!(?:and|or|but|in|on|at|to|for|from|with|by|of|since|until|when|while|which|who|that|the|a|an|"
    r"his|her|their|its|he|she|they|was|were|is|are|had|has|have|been|being|before|after|during)\b)"
)
# up to three words after the cue, none of them a function word (the phrase stops there)
_TAIL = rf"(?:an?\s+|the\s+)?((?:{_STOP}{_WORD}\s+){{0,2}}{_STOP}{_WORD})"
_NUMBER = (
    r"(?:\d{1,4}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|three|four|five|six|"
    r"seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|several)"
)
_COUNTED = (
    r"children|sons|daughters|brothers|sisters|grandchildren|siblings|wives|husbands|"
    r"counts?|offences|offenses|convictions|charges|previous\s+convictions|"
    r"plots?|parcels?|hectares|acres|head\s+of\s+cattle|cattle|sheep|goats|cows|horses|houses|flats|apartments"
)

_NOT_COMMON_COUNT = (
    r"(?!(?:year|month|week|day|hour|minute|second|time|occasion|person|people|other|case|applicant|judge|"
    r"article|paragraph|part|point|member|party|parties|state|count|way|thing|reason|question|ground|"
    r"step|stage|issue|decision|judgment|instance)s?\b)"
)

#: (kind, TAB label, pattern with the phrase in group 1)
_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "occupation",
        "DEM",
        re.compile(
            rf"\b(?:work(?:s|ed|ing)?|employed|hired|served|trained|qualified|practis(?:ed|ing)|practic(?:ed|ing))"
            rf"\s+as\s+{_TAIL}",
            re.I,
        ),
    ),
    (
        "occupation",
        "DEM",
        re.compile(rf"\b(?:by\s+profession|occupation|profession|job\s+title)\s*(?:was|is|:)?\s+{_TAIL}", re.I),
    ),
    (
        "condition",
        "DEM",
        re.compile(
            rf"\b(?:suffer(?:s|ed|ing)?\s+from|diagnosed\s+with|treated\s+for|diagnosis\s+of|"
            rf"disabled\s+by|living\s+with)\s+{_TAIL}",
            re.I,
        ),
    ),
    ("count", "QUANTITY", re.compile(rf"\b({_NUMBER}\s+(?:{_COUNTED}))\b", re.I)),
    # any other counted thing ("79 packages", "14 stab wounds"), but not the counts every text has
    (
        "count",
        "QUANTITY",
        re.compile(rf"\b({_NUMBER}\s+(?:{_STOP}[A-Za-z][\w-]*\s+){{0,2}}{_NOT_COMMON_COUNT}[a-z]{{3,}}s)\b"),
    ),
)
PHRASE_KINDS = tuple(dict.fromkeys(kind for kind, _, _ in _PATTERNS))


@dataclass(frozen=True)
class Phrase:
    """A phrase of the text that may describe a person."""

    start: int
    end: int
    text: str
    label: str
    kind: str


def find_phrases(text: str) -> list[Phrase]:
    """The cued phrases of ``text``, in text order, without overlaps (the first
    pattern to claim a stretch keeps it)."""
    found: list[Phrase] = []
    taken: list[tuple[int, int]] = []
    for kind, label, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span(1)
            phrase = text[start:end].rstrip(".,;:")
            end = start + len(phrase)
            if len(phrase) < 3 or any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            found.append(Phrase(start, end, phrase, label, kind))
    return sorted(found, key=lambda p: p.start)


#: answers of wordfreq kept by wordfreq itself (see :func:`_wordfreq`)
WORDFREQ_CACHE = 16_384


@lru_cache(maxsize=1)
def _wordfreq() -> Any:
    """wordfreq (its frequency lists load on first use), with its answer cache
    bounded once: wordfreq keeps 100,000 answers before it clears them, tens of
    MB that a service filled over hours of new names."""
    import wordfreq

    wordfreq.CACHE_SIZE = min(wordfreq.CACHE_SIZE, WORDFREQ_CACHE)
    return wordfreq


@lru_cache(maxsize=8192)
def english_count(term: str, n_records: int, lang: str = "en", doc_tokens: int = DOCUMENT_TOKENS) -> float:
    """How many of ``n_records`` ordinary English documents of ``doc_tokens``
    words would contain ``term``: ``n * (1 - (1 - f) ** doc_tokens)`` with
    ``f`` its wordfreq frequency (a multi-word term's frequency is wordfreq's
    estimate for the phrase). 0.0 for a term wordfreq does not know."""
    freq = _wordfreq().word_frequency(term, lang)
    if freq <= 0.0:
        return 0.0
    return n_records * -math.expm1(doc_tokens * math.log1p(-min(freq, 0.5)))


def english_word_count(term: str, n_records: int, lang: str = "en") -> int:
    """:func:`english_count` of a single word, rounded down; 0 for a phrase: wordfreq's estimate
    for a phrase is near that of its rarest word, far above the phrase's own. The general-English
    side of the background for a word the background does not know (``english_prior``); ``lang``:
    the pipeline's language instead (:func:`spacy_textsan.languages.word_frequency_language`)."""
    return 0 if " " in term else int(english_count(term, max(1, n_records), lang))


#: A word rarer than this in ordinary English (wordfreq Zipf scale: 3 = once per million words)
#: and in fewer than k background records is a rare word (``diamorphine``, a foreign job title).
RARE_WORD_ZIPF = 3.0
_WORDS = re.compile(r"(?<![\w-])[^\W\d_][^\W_]{4,}(?![\w-])")


#: English endings that make a word a manner, an act done or a quality, not a thing one could be
#: singled out by: adverbs, past participles, abstract nouns, adjectives of ability
_ORDINARY_ENDINGS = re.compile(r"(?:ly|ed|ments?|it(?:y|ies)|ness|[ae]nces?|[ai]ble)$")


def is_ordinary_form(word: str, lang: str = "en") -> bool:
    """A lower-case English word of the dictionary (wordfreq knows it) in one of the forms
    :data:`_ORDINARY_ENDINGS` names (``summarily``, ``annulled``, ``reinstatement``, ``invalidity``,
    ``appealable``): rare in ordinary English, yet the register of a ruling or a report, not a person's
    (``diamorphine``, ``myopic``, ``herding``, ``Husbandry`` are not). Other languages: never."""
    return (
        lang == "en"
        and word.islower()
        and _ORDINARY_ENDINGS.search(word) is not None
        and _wordfreq().zipf_frequency(word, lang) > 0.0
    )


def is_common_lowercase(text: str, lang: str = "en", zipf: float = RARE_WORD_ZIPF) -> bool:
    """Written in lower case, and every word of it common in ``lang`` (wordfreq, at least ``zipf``):
    ``widow``, ``landowner``, ``police officer``; not ``Widow``, ``yalman``, ``a1b2`` or a word of a
    language wordfreq does not read."""
    words = text.split()
    return (
        bool(words)
        and text == text.lower()
        and all(w.isalpha() and _wordfreq().zipf_frequency(w, lang) >= zipf for w in words)
    )


def find_words(text: str) -> list[tuple[int, int, str]]:
    """The words of five letters or more, ``(start, end, word)`` in text order."""
    return [(m.start(), m.end(), m.group()) for m in _WORDS.finditer(text)]


def word_term(word: str) -> str:
    """The background index term of a word (prefixed: words and candidate terms are counted apart)."""
    return "w:" + word.casefold()


#: the detector's cue lists: field labels, greetings and sign-offs that announce a name and name no one
CUE_LISTS = ("detect/privacy_ner/data/contact_cues.txt", "detect/privacy_ner/data/greetings.txt")


@lru_cache(maxsize=1)
def _cue_words() -> frozenset[str]:
    return frozenset(item.casefold() for path in CUE_LISTS for item in word_list(path) if " " not in item)


def is_cue_word(word: str) -> bool:
    """A one-word cue of the detector's lists (``Kontakt``, ``Hej``, ``Mvh``): rare in English, yet it
    says a name follows, not whose."""
    return word.casefold().rstrip(":,") in _cue_words()


@lru_cache(maxsize=16384)
def is_rare_word(word: str, lang: str = "en", zipf: float = RARE_WORD_ZIPF) -> bool:
    """Rarer than ``zipf`` in ordinary English (wordfreq)."""
    return _wordfreq().zipf_frequency(word, lang) < zipf


@lru_cache(maxsize=4)
def folded_zipfs(lang: str) -> dict[str, float]:
    """The Zipf frequency of each folded form (lower case without accents, as reid_risk's analysers
    index words) of ``lang``'s words in wordfreq's list: that of its most frequent word (``requerant``:
    ``requérant``'s). About 300,000 forms for French, a second to build, once per process."""
    from .reid_words import _fold

    best: dict[str, float] = {}
    for word, freq in _wordfreq().get_frequency_dict(lang).items():
        key = _fold(word)
        if freq > best.get(key, 0.0):
            best[key] = freq
    return {key: round(math.log10(freq) + 9, 2) for key, freq in best.items()}
