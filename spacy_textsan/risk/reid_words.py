"""How the re-identification attack reads words: letters and digits, case- and accent-folded, the
language's stop words dropped, Snowball-stemmed in that language (:class:`Analyser`). The background's
records are indexed the same way (:mod:`.reid_index`), and the attacker family's views start from these
words (:mod:`.reid_family`). A background folder names the language its records were read in (its
manifest's ``analyser``): the attack reads a document with that background's analyser
(:func:`analyser_of`). English is the default (:data:`ENGLISH`, and the module's :func:`analyse`,
:func:`analyse_terms`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "ENGLISH",
    "LANGUAGES",
    "WORD_CACHE",
    "Analyser",
    "Token",
    "analyse",
    "analyse_terms",
    "analyser",
    "analyser_of",
    "analysing",
    "current_analyser",
]

# words: letters and digits, with inner apostrophes and hyphens split off (o'connor -> o, connor); letters
# written with dots (U.H.T., J.R.R.) are one word, read without its dots (uht, as UHT is): a lone letter is no
# term, and the initials of a name or a band are what an attacker that keeps letters matches on
_WORD = re.compile(r"[^\W\d_](?:\.[^\W\d_](?![^\W_]))+\.?|[^\W_]+", re.UNICODE)


def word_of(match: re.Match[str]) -> str:
    """The word a :data:`_WORD` match reads (initials without their dots)."""
    word = match.group()
    return word.replace(".", "") if "." in word else word


#: The languages the attack reads: code -> Snowball's name of the language (PyStemmer's stemmer; bm25s's
#: stop words, Snowball's lists).
LANGUAGES = {"en": "english", "fr": "french", "es": "spanish", "de": "german"}
#: English stop words beyond bm25s's short list: words of every biography that name nobody.
_ENGLISH_EXTRA = frozenset({"also", "born", "one", "two", "first", "would", "could", "may"})


@dataclass(frozen=True)
class Token:
    """A word of a text: its index term and where it stands."""

    term: str
    start: int
    end: int


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN) | _ENGLISH_EXTRA


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
    """The English index term of a word, or None for a stop word or a lone letter."""
    folded = _fold(word)
    if len(folded) < 2 and not folded.isdigit():
        return None
    if folded in _stopwords():
        return None
    return _stemmer().stemWord(folded) if folded.isalpha() else folded


def _language_stopwords(lang: str) -> frozenset[str]:
    """The stop words of ``lang``, folded as the words are (``été`` -> ``ete``): bm25s's list (Snowball's)
    and spaCy's (``spacy.lang.<lang>.stop_words``: the function words Snowball's short list leaves out, ``si``,
    ``ainsi``, ``comme``, ``plus``; and the numbers written out, as English drops ``one``, ``two``)."""
    import importlib

    import bm25s.stopwords

    snowball = getattr(bm25s.stopwords, f"STOPWORDS_{LANGUAGES[lang].upper()}")
    spacy_words = importlib.import_module(f"spacy.lang.{lang}.stop_words").STOP_WORDS
    return frozenset(_fold(w) for w in (*snowball, *spacy_words))


class Analyser:
    """How the attack reads the words of one language: :meth:`term` of a word (folded, the language's
    stop words and lone letters dropped, Snowball-stemmed: English's folded word, another language's word
    with its accents, the stem then folded), :meth:`analyse` and :meth:`analyse_terms` of a text. One per language (:func:`analyser`), each with its own cache of terms; English's is the
    module's :func:`_term`."""

    def __init__(self, lang: str) -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"the attack reads {', '.join(LANGUAGES)}, not {lang[:20]!r}")
        self.lang = lang
        self.term: Callable[[str], str | None]
        if lang == "en":
            self.term = _term
        else:
            import Stemmer  # PyStemmer

            self._stopwords = _language_stopwords(lang)
            self._stem = Stemmer.Stemmer(LANGUAGES[lang]).stemWord
            self.term = lru_cache(maxsize=WORD_CACHE)(self._term)

    def _term(self, word: str) -> str | None:
        folded = _fold(word)
        if len(folded) < 2 and not folded.isdigit():
            return None
        if folded in self._stopwords:
            return None
        # Snowball's French, Spanish and German stemmers read the accents (présentèrent -> présent, not the
        # presenterent of the folded word): the lower-case word is stemmed, then folded
        return _fold(self._stem(word.casefold())) if folded.isalpha() else folded

    def __repr__(self) -> str:
        return f"Analyser({self.lang!r})"

    def family_zipf(self, frequencies: Mapping[str, float], floor: float = 2.5) -> Callable[[str], float]:
        """A folded word's Zipf frequency in the language of ``frequencies`` (word -> frequency, wordfreq's
        list, most frequent first): that of the most frequent word of its stem family (0: no word of the list
        folds to it). A French verb form (``présentèrent``, ``souligna``) is rare in the list, yet its family
        (``présente``, ``souligne``) is common: the form says nothing of whom a text is about. Only the words
        at least ``floor`` frequent are stemmed up front (a rarer one lifts no word over the attack's
        thresholds, 2.5 and up); a word asked for is stemmed when asked (the most frequent word that folds
        to it, accents and all)."""
        fold = _fold.__wrapped__
        min_freq = 10 ** (floor - 9)

        def family(word: str) -> str:
            lower = word.casefold()
            if not lower.isalpha():
                return fold(lower)
            return fold(self._stem(lower)) if self.lang != "en" else _stemmer().stemWord(fold(lower))

        forms: dict[str, tuple[str, float]] = {}  # folded form -> its most frequent word and that frequency
        best: dict[str, float] = {}  # stem -> the frequency of its most frequent word
        for word, freq in frequencies.items():
            folded = fold(word)
            if folded not in forms or freq > forms[folded][1]:
                forms[folded] = (word, freq)
            if freq >= min_freq:
                key = family(word)
                if freq > best.get(key, 0.0):
                    best[key] = freq

        @lru_cache(maxsize=WORD_CACHE)
        def zipf(folded: str) -> float:
            found = forms.get(folded)
            if found is None:
                return 0.0
            word, freq = found
            return round(math.log10(max(freq, best.get(family(word), 0.0))) + 9, 2)

        return zipf

    @property
    def manifest(self) -> dict[str, str]:
        """What a background's manifest says of the analyser its records were read with."""
        return {
            "fold": "casefold+nfkd",
            "stopwords": self.lang,
            "stemmer": f"snowball-{LANGUAGES[self.lang]}",
            "initials": "joined",
        }

    def analyse(self, text: str) -> list[Token]:
        """The index terms of ``text`` with their character offsets."""
        term = self.term
        out = []
        for m in _WORD.finditer(text):
            t = term(word_of(m))
            if t is not None:
                out.append(Token(t, m.start(), m.end()))
        return out

    def analyse_terms(self, text: str) -> list[str]:
        """The index terms of ``text`` in order (what a record is indexed with)."""
        term = self.term
        return [t for m in _WORD.finditer(text) if (t := term(word_of(m))) is not None]


@lru_cache(maxsize=8)
def analyser(lang: str = "en") -> Analyser:
    """The analyser of language ``lang`` (one per process). RAISES (ValueError): a language it does not read."""
    return Analyser(lang)


#: The English analyser: every background built before the language was a setting.
ENGLISH = analyser("en")


def analyser_of(manifest: dict | None) -> Analyser:
    """The analyser a background's manifest names (its ``analyser``'s stop words; English when it names none).

    RAISES (ValueError): it names a language the attack does not read.
    """
    lang = ((manifest or {}).get("analyser") or {}).get("stopwords") or "en"
    if not isinstance(lang, str) or lang not in LANGUAGES:
        raise ValueError(
            f"the background's records were read in {str(lang)[:20]!r}; this spacy-textsan reads "
            f"{', '.join(LANGUAGES)} (rebuild it with textsan background build --lang)"
        )
    return analyser(lang)


_CURRENT: ContextVar[Analyser | None] = ContextVar("spacy_textsan_reid_analyser", default=None)


def current_analyser() -> Analyser:
    """The analyser of the background being built (:func:`analysing`); English outside one."""
    return _CURRENT.get() or ENGLISH


@contextmanager
def analysing(lang: str) -> Iterator[Analyser]:
    """Within the block, the records are read in ``lang`` where no analyser is passed (a background's
    chunked build, :mod:`spacy_textsan.cli.background_chunks`)."""
    token = _CURRENT.set(analyser(lang))
    try:
        yield _CURRENT.get() or ENGLISH
    finally:
        _CURRENT.reset(token)


def analyse(text: str) -> list[Token]:
    """The English index terms of ``text`` with their character offsets."""
    return ENGLISH.analyse(text)


def analyse_terms(text: str) -> list[str]:
    """The English index terms of ``text`` in order (what a record is indexed with)."""
    return ENGLISH.analyse_terms(text)
