"""Names after a title in a language that writes every noun with a capital (German).

In English a run of capitalised words after a title is the name ("Mr John Smith"); in German the
nouns after it are capitalised too ("Frau Anna Schmidt Beschwerde erhoben", "Herr Müller Klage"). For
such a language a word after the first one of a titled name continues the name only when it reads as
a name: a given name or surname of the name lexicon, the word after a given name or an initial ("Anna
Schulze", "H. Weber"), or a word that is rare in the language (wordfreq's Zipf frequency below
:data:`RARE_ZIPF`); the name lexicon's reading of names takes no common word of the language
(:func:`common_noun`) as a name part. Titles chain there too ("Herr Prof. Dr. med. Hans Müller"): the words inside the
chain are the language's ``title_parts.txt`` (:mod:`.lang_data`).
"""

from collections.abc import Callable
from functools import cache

from wordfreq import zipf_frequency

from .lang_data import list_path, read_set
from .names import FIRST, LAST, name_lexicon

__all__ = [
    "COMMON_ZIPF",
    "NAME_PARTICLES",
    "NOUN_CAPITALISING",
    "RARE_ZIPF",
    "common_noun",
    "name_continues",
    "name_particles",
    "title_parts",
]

#: The languages that capitalise their nouns.
NOUN_CAPITALISING = frozenset({"de", "lb"})
#: Lower-case words inside a German, Dutch or Austrian name: "Gordon van der Dussen", "Karl von Weber".
NAME_PARTICLES = frozenset({"von", "van", "der", "den", "de", "zu", "zur", "vom", "ter", "te", "da", "di"})
#: Below this Zipf frequency in the language a capitalised word is rare enough to be a surname.
RARE_ZIPF = 2.5
#: From this Zipf frequency in the language an unknown capitalised word is a noun, not a name part of the
#: name lexicon's reading (:func:`.names.find_lexicon_names`): "Beschwerde" (4.0), "Klage", "Urteil" are
#: nouns; "Schulze" (3.9) is still read as a surname.
COMMON_ZIPF = 4.0


def title_parts(lang: str) -> frozenset[str]:
    """The words inside a chain of titles of ``lang`` (``data/<lang>/title_parts.txt``); none for a
    language without the list (its titles do not chain)."""
    return read_set(lang, "title_parts.txt") if list_path(lang, "title_parts.txt") else frozenset()


@cache
def name_continues(lang: str) -> Callable[[str, str], bool] | None:
    """``continues(previous, word)`` for a titled name of ``lang`` (see the module); None for a
    language that does not capitalise its nouns (any capitalised word continues the name)."""
    if lang not in NOUN_CAPITALISING:
        return None
    lexicon = name_lexicon()

    def continues(previous: str, word: str) -> bool:
        head, dash, rest = word.partition("-")
        if dash and head in NAME_PARTICLES:
            word = rest  # "van-Hahn": the name after the particle
        if lexicon.get(word.casefold(), 0) & (FIRST | LAST):
            return True
        if lexicon.get(previous.casefold(), 0) & FIRST or (len(previous) == 2 and previous.endswith(".")):
            return True
        return zipf_frequency(word.lower(), lang) < RARE_ZIPF

    return continues


@cache
def common_noun(lang: str) -> Callable[[str], bool] | None:
    """``common(word)``: whether a word unknown to the name lexicon is a common word of ``lang``
    (Zipf frequency from :data:`COMMON_ZIPF`); None for a language that does not capitalise its nouns."""
    if lang not in NOUN_CAPITALISING:
        return None

    def common(word: str) -> bool:
        return zipf_frequency(word.lower(), lang) >= COMMON_ZIPF

    return common


def name_particles(lang: str) -> frozenset[str]:
    """The particles inside a titled name of ``lang`` (:data:`NAME_PARTICLES`); none for a language
    that does not capitalise its nouns (its titled names are read as before)."""
    return NAME_PARTICLES if lang in NOUN_CAPITALISING else frozenset()
