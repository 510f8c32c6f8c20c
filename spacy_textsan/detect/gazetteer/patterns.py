"""Rule proposals of ``wikidata_gazetteer`` next to the KB's surface forms.

* :class:`InstitutionFinder`: institutions a person is tied to (prisons,
  hospitals, schools, universities, care homes, police stations) as ORG
  candidates, whether or not the NER found them: a capitalised name before a
  head word (``Wakefield Prison``, ``St Mary's Hospital``, ``Lincoln High
  School``), ``<head> of <Name>`` (``University of Leeds``) and ``HMP <Name>``.
  Heads are listed in ``data/institutions.txt``; a name made of generic words
  only (``the State Hospital``, ``High School``) is no name.
* :func:`extend_condition`: a health condition takes the body part it is of
  (``fracture of the left kneecap``, ``loss of vision in his left eye``) and a
  degree before it (``37 % of loss of sight``, ``40% disability``); body parts
  are listed in ``data/body_parts.txt``.
* :func:`harm_words`: a word for harm to the body (``burns``, ``bruises``,
  ``complications``) that a preposition ties to a body part (``burns to his
  hands``, ``bruises on her arms``): a health condition by what it affects,
  never one on its own (``damage to the car``, ``legal complications``); the
  words are listed in ``data/bodily_harm.txt``.
* :func:`condition_words`: words with a clinical ending (``gonarthrosis``,
  ``discopathy``, ``periarthritis``, ``amblyopia``) that no dictionary lists.

Every rule is meant for clinical notes, HR letters and CVs as much as for
court decisions.
"""

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from pathlib import Path

from spacy.lang.en.stop_words import STOP_WORDS

from ...word_lists import read_list, word_set
from .lexicon import pluralize
from .paths import DATA_DIR

__all__ = [
    "INSTITUTIONS_PATH",
    "BODY_PARTS_PATH",
    "HARM_WORDS_PATH",
    "InstitutionFinder",
    "extend_condition",
    "condition_words",
    "HEALTH_ROOTS",
    "is_condition",
    "body_parts",
    "harm_heads",
    "harm_words",
]

INSTITUTIONS_PATH = DATA_DIR / "institutions.txt"
BODY_PARTS_PATH = DATA_DIR / "body_parts.txt"
HARM_WORDS_PATH = DATA_DIR / "bodily_harm.txt"

#: chain items that make a KB entry a health condition (WordNet roots and curated categories)
HEALTH_ROOTS = frozenset(
    {"ill health", "disorder", "mental illness", "addiction", "symptom", "injury", "disability", "health care"}
)


def is_condition(chain: Sequence[str]) -> bool:
    return any(c in HEALTH_ROOTS for c in chain)


# --------------------------------------------------------------------------- #
# Institutions
# --------------------------------------------------------------------------- #

#: A capitalised word of a name, at most 60 characters: a name may start after any hyphen ("al-Shifa
#: Hospital"), and an unbounded word scanned a run of "A-A-A-..." to its end from each of them.
_NAME = r"(?:St\.|[A-Z][\w'’\-]{0,58}[\w'’]|[A-Z])"
_GAP = r"[ \t]+"
#: capitalised words that do not make a name on their own ("the State Hospital", "High School"):
#: ``data/generic_words.txt``
GENERIC = word_set("detect/gazetteer/data/generic_words.txt")


class InstitutionFinder:
    def __init__(self, heads: Iterable[str]):
        heads = sorted({h.strip() for h in heads if h.strip()}, key=len, reverse=True)
        head = "|".join(re.escape(h).replace(r"\ ", _GAP) for h in heads)
        self._head_words = {w.lower() for h in heads for w in h.split()}
        self._patterns = [
            re.compile(
                rf"\b(?:HMP{_GAP}(?:&|and){_GAP}YOI|HMP/YOI|HMYOI|HMP|HM{_GAP}Prison){_GAP}"
                rf"{_NAME}(?:{_GAP}{_NAME})?\b"
            ),
            re.compile(rf"\b(?:{head}){_GAP}of{_GAP}(?:the{_GAP})?{_NAME}(?:{_GAP}{_NAME}){{0,3}}\b"),
            # the head word in any case: "Wakefield Prison", "Ila prison"
            re.compile(rf"(?<![\w'’])(?:{_NAME}{_GAP}){{1,4}}(?i:{head})\b"),
        ]

    def _named(self, words: list[str]) -> bool:
        return any(w.lower() not in GENERIC and w.lower() not in self._head_words for w in words)

    def __call__(self, text: str) -> list[tuple[int, int]]:
        """Character offsets of the institutions named in ``text``, longest first on overlaps, in text order."""
        found = []
        for kind, pattern in enumerate(self._patterns):
            for m in pattern.finditer(text):
                start, end = m.start(), m.end()
                if kind == 2:
                    # leading function words are no part of the name ("The", "At", "His")
                    words = list(re.finditer(r"\S+", text[start:end]))
                    while words and words[0].group().lower() in STOP_WORDS:
                        words.pop(0)
                    if not words:
                        continue
                    start = start + words[0].start()
                    name = text[start:end].split()
                    if not self._named(name[:-1]) and not self._named(name):
                        continue
                    if not self._named([w for w in name if w.lower() not in self._head_words]):
                        continue
                elif kind == 1:
                    tail = re.split(r"\bof\b", text[start:end], maxsplit=1)[1].split()
                    if not self._named([w for w in tail if w != "the"]):
                        continue
                found.append((start, end))
        # non-overlapping, in text order: a span overlaps one of them only if it overlaps its neighbour on
        # either side (comparing it with every chosen span was quadratic in the institutions of a text)
        chosen: list[tuple[int, int]] = []
        for s, e in sorted(found, key=lambda x: (x[0] - x[1], x[0])):
            i = bisect_left(chosen, (s, e))
            if (i == 0 or chosen[i - 1][1] <= s) and (i == len(chosen) or e <= chosen[i][0]):
                chosen.insert(i, (s, e))
        return chosen


# --------------------------------------------------------------------------- #
# Health conditions
# --------------------------------------------------------------------------- #

_PREPS = frozenset({"of", "in", "on", "to", "affecting", "involving"})
_DETS = frozenset({"the", "his", "her", "their", "its", "a", "an", "both", "my", "your", "our"})
_ORDINAL = re.compile(r"^(?:\d+(?:st|nd|rd|th)|[A-Z]\d+(?:[-‑–][A-Z]?\d+)?)$")
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)?%?$")


def body_parts(path: Path = BODY_PARTS_PATH) -> set[str]:
    """The body parts of ``path`` and their plurals, lower case."""
    out = set()
    for part in read_list(path):
        out.add(part.lower())
        out.update(p.lower() for p in pluralize(part))
    return out


def _part_at(words: Sequence[str], i: int, parts: set[str]) -> int:
    """End (exclusive) of the body part starting at token ``i``, or -1."""
    n = len(words)
    if i + 1 < n and f"{words[i]} {words[i + 1]}".lower() in parts:
        return i + 2
    return i + 1 if i < n and words[i].lower() in parts else -1


def _part_after(words: Sequence[str], i: int, parts: set[str], max_skip: int = 4) -> int:
    """End of a body part reached from token ``i`` over up to ``max_skip``
    determiners and lower-case modifiers (``the left``, ``the 4th sacral``), or -1."""
    n = len(words)
    for j in range(i, min(n, i + max_skip + 1)):
        end = _part_at(words, j, parts)
        if end > 0:
            return end
        w = words[j]
        if not (w.lower() in _DETS or (w.isalpha() and w.islower()) or _ORDINAL.match(w)):
            return -1
    return -1


def extend_condition(words: Sequence[str], start: int, end: int, parts: set[str]) -> tuple[int, int]:
    """Widen a health condition at tokens ``[start, end)`` over the body part
    it is of (``fracture`` → ``fracture of the left kneecap``; ``... eyes and
    ears``) and over a degree before it (``37 % of``, ``40 per cent``)."""
    n = len(words)
    if end < n and words[end].lower() in _PREPS:
        reached = _part_after(words, end + 1, parts)
        if reached > 0:
            end = reached
            if end + 1 < n and words[end].lower() in ("and", "or"):
                more = _part_after(words, end + 1, parts, max_skip=2)
                if more > 0:
                    end = more
    k = start - 1 if start >= 1 and words[start - 1].lower() == "of" else start
    if k >= 2 and words[k - 1].lower() in ("%", "percent") and _NUMBER.match(words[k - 2]):
        start = k - 2
    elif k >= 3 and [w.lower() for w in words[k - 2 : k]] == ["per", "cent"] and _NUMBER.match(words[k - 3]):
        start = k - 3
    return start, end


def harm_heads(path: Path = HARM_WORDS_PATH) -> frozenset[str]:
    """The words for harm to the body of ``path`` and their plurals, lower case."""
    out = set()
    for word in read_list(path):
        out.add(word.lower())
        out.update(p.lower() for p in pluralize(word))
    return frozenset(out)


def harm_words(
    words: Sequence[str], parts: set[str], heads: frozenset[str], candidates: Iterable[int] | None = None
) -> list[int]:
    """Positions of the words for harm to the body (``heads``) that a preposition ties to a body part
    (``burns to his hands``, ``complications affecting her ears``), not to a part of a thing
    (``damage to the back of the house``: the part is followed by ``of``)."""
    positions = range(len(words)) if candidates is None else candidates
    out = []
    for i in positions:
        if words[i].lower() not in heads:
            continue
        end = extend_condition(words, i, i + 1, parts)[1]
        if end > i + 1 and not (end < len(words) and words[end].lower() == "of"):
            out.append(i)
    return out


_ENDING = re.compile(r"^[a-z][a-z]{3,}(?:itis|osis|pathy|algia|plegia|aemia|emia|opia|trophy)$")
#: common words with those endings that name no condition: ``data/not_conditions.txt``
NOT_CONDITIONS = word_set("detect/gazetteer/data/not_conditions.txt")


def condition_words(words: Sequence[str], candidates: Iterable[int] | None = None) -> list[int]:
    """Positions of the words with a clinical ending (``-itis``, ``-osis``,
    ``-pathy``, ``-algia``, ``-plegia``, ``-(a)emia``, ``-opia``, ``-trophy``)
    that are not common words (``diagnosis``, ``sympathy``, ``utopia``)."""
    positions = range(len(words)) if candidates is None else candidates
    return [i for i in positions if _ENDING.match(words[i]) and words[i] not in NOT_CONDITIONS]
