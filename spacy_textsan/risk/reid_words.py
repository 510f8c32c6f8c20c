"""How the re-identification attack reads words: letters and digits, case- and accent-folded, English stop
words dropped, Snowball-stemmed (:func:`analyse`). The background's records are indexed the same way
(:mod:`.reid_index`), and the attacker family's views start from these words (:mod:`.reid_family`)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["WORD_CACHE", "Token", "analyse", "analyse_terms"]

# words: letters and digits, with inner apostrophes and hyphens split off (o'connor -> o, connor)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Token:
    """A word of a text: its index term and where it stands."""

    term: str
    start: int
    end: int


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN) | {"also", "born", "one", "two", "first", "would", "could", "may"}


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer  # PyStemmer

    return Stemmer.Stemmer("english")


#: words whose index term is kept (a service's memory stays flat over any number of
#: new names; the words that recur stay cached)
WORD_CACHE = 16_384


@lru_cache(maxsize=WORD_CACHE)
def _fold(word: str) -> str:
    """Lower case without accents (``Ödön`` -> ``odon``)."""
    word = word.casefold()
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


@lru_cache(maxsize=WORD_CACHE)
def _term(word: str) -> str | None:
    """The index term of a word, or None for a stop word or a lone letter."""
    folded = _fold(word)
    if len(folded) < 2 and not folded.isdigit():
        return None
    if folded in _stopwords():
        return None
    return _stemmer().stemWord(folded) if folded.isalpha() else folded


def analyse(text: str) -> list[Token]:
    """The index terms of ``text`` with their character offsets."""
    out = []
    for m in _WORD.finditer(text):
        term = _term(m.group())
        if term is not None:
            out.append(Token(term, m.start(), m.end()))
    return out


def analyse_terms(text: str) -> list[str]:
    """The index terms of ``text`` in order (what a record is indexed with)."""
    return [t for m in _WORD.finditer(text) if (t := _term(m.group())) is not None]
