"""No given name left beside its masked surname: a chosen PERSON span grows
over the given names next to it.

* ``Jana Nováková`` with only ``Nováková`` detected: the given names before
  it (``Jana``, ``Jana Marie``) join it;
* ``Nováková, Jana`` with only ``Nováková``: the given names after its comma;
* ``Jana Nováková`` with only ``Jana``: the surname after given names alone.

A given name is a first name of the name lexicon (:mod:`.names`); one that
is also a very common English word ("Will", "May") does not join at the
start of a sentence. A span grows only over candidates it covers whole, and
never over a code. A pure function over :class:`~.combine.Candidate` objects.
"""

import re
from collections.abc import Sequence

from wordfreq import zipf_frequency

from .combine import PRIORITY_CODE, Candidate
from .names import COMMON, FIRST, LAST, LATIN_LETTERS, NOT_PERSON_WORDS, PARTICLES, name_lexicon
from .rules import TITLES

_L = LATIN_LETTERS
_NAME_WORD = rf"[{_L}][{_L}'’]*(?:-[{_L}][{_L}'’]*)*"
_BEFORE = re.compile(rf"(?<![\w'’.-])(?P<word>{_NAME_WORD})[ \t\u00a0]+$")
#: (At most 40 spaces before the word: a word further away is no neighbour, and a search from every
#: space of a long run of them would read it to its end from each.)
_AFTER = re.compile(rf"[ \t\u00a0]{{1,40}}(?P<word>{_NAME_WORD})(?![\w'’-])")
_AFTER_COMMA = re.compile(rf",[ \t\u00a0]{{1,40}}(?P<word>{_NAME_WORD})(?![\w'’-])")
_WORDS = re.compile(rf"{_NAME_WORD}|\S+")
#: How far back a given name is looked for (characters).
_WINDOW = 60
#: A given name this frequent in English ("May", "Will") is a word at the start of a sentence.
_VERY_COMMON = 5.5


def _flags(word: str) -> int:
    return max(name_lexicon().get(word.casefold(), 0), 0)


def _cased_like(word: str, span: str) -> bool:
    """Title Case beside a Title Case name, ALL CAPS beside an ALL CAPS one."""
    if span.isupper():
        return word.isupper() and len(word) > 1
    return word[:1].isupper() and not (word.isupper() and len(word) > 1)


def _sentence_initial(text: str, start: int) -> bool:
    before = text[max(0, start - 20) : start].rstrip()
    return not before or before[-1] in '.!?:;"“(\n'


def is_given_name(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is a given name: a first name of the lexicon, not a
    title; a very common English word ("May") not at the start of a sentence."""
    word = text[start:end]
    flags = _flags(word)
    if not flags & FIRST or word.rstrip(".").lower() in TITLES or word.lower() in NOT_PERSON_WORDS:
        return False
    if flags & COMMON and zipf_frequency(word.lower(), "en") >= _VERY_COMMON:
        return not _sentence_initial(text, start)
    return True


def _is_surname(word: str) -> bool:
    """A word after given names that is a surname: a known one, or no common English word."""
    flags = _flags(word)
    if word.lower() in NOT_PERSON_WORDS or word.lower() in PARTICLES:
        return False
    if flags & LAST and not flags & COMMON:
        return True
    return not flags & COMMON and zipf_frequency(word.lower(), "en") < 3.0


def _grow(text: str, c: Candidate) -> tuple[int, int]:
    """The range of the PERSON ``c`` with the given names next to it."""
    span = text[c.start : c.end]
    start, end = c.start, c.end
    while True:  # given names before it
        m = _BEFORE.search(text, max(0, start - _WINDOW), start)
        if m is None or not _cased_like(m["word"], span) or not is_given_name(text, m.start("word"), m.end("word")):
            break
        start = m.start("word")
    words = _WORDS.findall(span)
    if len(words) == 1:  # "Nováková, Jana (Marie)"
        m = _AFTER_COMMA.match(text, end)
        while m is not None and _cased_like(m["word"], span) and is_given_name(text, m.start("word"), m.end("word")):
            end = m.end("word")
            m = _AFTER.match(text, end)
    if start == c.start and words and all(_flags(w) & FIRST and _cased_like(w, span) for w in words):
        m = _AFTER.match(text, end)  # "Jana" alone: the surname after it
        if m is not None and _cased_like(m["word"], span) and _is_surname(m["word"]):
            end = m.end("word")
    return start, end


def extend_person_names(text: str, chosen: Sequence[Candidate]) -> list[Candidate]:
    """``chosen`` (non-overlapping, in text order) with each PERSON grown over
    the given names next to it (:func:`_grow`); the candidates it then covers
    whole go, and it does not grow over part of one or over a code."""
    out = list(chosen)
    for c in chosen:
        if c.label != "PERSON":
            continue
        start, end = _grow(text, c)
        if (start, end) == (c.start, c.end):
            continue
        inside = [o for o in out if o is not c and o.start < end and start < o.end]
        if any(o.start < start or o.end > end or o.priority >= PRIORITY_CODE for o in inside):
            continue
        grown = Candidate(start, end, "PERSON", c.source + "+given", c.priority, c.recognizer)
        out = [grown if o is c else o for o in out if o not in inside]
    return sorted(out, key=lambda c: (c.start, c.end))
