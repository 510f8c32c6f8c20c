"""A normalized copy of a text for detection, with offsets back to the original.

Identifiers are hidden from detectors by characters a reader does not see or
reads the same: soft hyphens, zero-width spaces and joiners, word joiners,
bidi controls (``Pe\u00adder``, ``Hal\u200bvorsen``), full-width and other
compatibility forms (``Ｐｅｄｅｒ``, ligatures), and Cyrillic or Greek letters
that look like Latin ones inside a Latin word (``Реder``: homoglyphs).
:func:`normalize` removes or folds them (NFKC per character, invisible
characters dropped, confusables mapped to Latin in mixed-script words) and
keeps, for every character of the copy, the original range it came from, so
that what is detected on the copy masks the original characters.

:func:`caps_runs` and :func:`restore_case` title-case runs of ALL-CAPS words
(same length, same offsets) for a statistical NER that only knows names by
their capital letter.
"""

import re
import unicodedata
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

from ...text_folding import is_mark, nfkc
from .names import COMMON, FIRST, LAST, name_lexicon

#: Characters that render as nothing (or as a break opportunity) inside a word.
INVISIBLE = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u200b\u200c\u200d\u200e\u200f"
    "\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b"
    "\u206c\u206d\u206e\u206f\u3164\ufe00\ufe01\ufe02\ufe03\ufe04\ufe05\ufe06\ufe07\ufe08\ufe09\ufe0a"
    "\ufe0b\ufe0c\ufe0d\ufe0e\ufe0f\ufeff\uffa0"
)

#: Cyrillic and Greek letters read as Latin ones inside a Latin word; their Latin letters are Unicode's
#: (:func:`confusables`) but for :data:`EXTRA_CONFUSABLES`.
CONFUSABLE_LETTERS = "аеорсухѕіјԁԛԝһАВЕКМНОРСТУХЅЈԜΑΒΕΖΗΚΜΝΟΡΤΥΧονιρυαϲϳ" + "вкмнтӏІԀԚҺӀΙκτχ"
#: The letters of :data:`CONFUSABLE_LETTERS` whose Latin reading Unicode's confusables do not give:
#: their prototype is no ASCII letter (small capitals ``ʙ ᴛ ʍ ʜ``, ``ĸ``, ``ꭓ``), another letter (``l``
#: for ``І Ι Ӏ``, Unicode's prototype of ``I`` too; ``i`` for ``ӏ``) or none (``Ԁ Ԛ Һ``).
EXTRA_CONFUSABLES = {
    "в": "b",
    "к": "k",
    "м": "m",
    "н": "h",
    "т": "t",
    "ӏ": "l",
    "І": "I",
    "Ԁ": "D",
    "Ԛ": "Q",
    "Һ": "H",
    "Ӏ": "I",
    "Ι": "I",
    "κ": "k",
    "τ": "t",
    "χ": "x",
}


@lru_cache(maxsize=1)
def confusables() -> dict[str, str]:
    """Each letter of :data:`CONFUSABLE_LETTERS` and the Latin letter it is read as: the one ASCII
    letter Unicode's confusables (``confusables.txt``, through confusable-homoglyphs) give it, or
    :data:`EXTRA_CONFUSABLES`. Read once."""
    from confusable_homoglyphs.confusables import confusables_data

    table = {}
    for letter in CONFUSABLE_LETTERS:
        if letter in EXTRA_CONFUSABLES:
            table[letter] = EXTRA_CONFUSABLES[letter]
            continue
        (latin,) = {g["c"] for g in confusables_data.get(letter, ()) if len(g["c"]) == 1 and g["c"].isascii()}
        table[letter] = latin
    return table


#: A whole word holding both a Latin letter and a confusable: it starts where the word starts, and the
#: lookaheads read the word once (``\w*[A-Za-z]\w*[...]`` tried every split of it, from every start).
_MIXED_WORD = re.compile(rf"(?<!\w)(?=\w*[A-Za-z])(?=\w*[{CONFUSABLE_LETTERS}])\w+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_ANY_CONFUSABLE = re.compile(f"[{CONFUSABLE_LETTERS}]")
#: Letters spelt out one by one: ``J o h n``, ``J.O.H.N``, ``J. O. H. N``, ``J-o-h-n`` (one separator).
_SPACED = re.compile(r"(?<![\w.\-])[^\W\d_](?P<sep>\. ?|[ \-_·])[^\W\d_](?:(?P=sep)[^\W\d_])+(?!\w)")
#: The gap between two spelt-out words: two spaces or more (one after a dot or a hyphen).
_SPACED_GAP = re.compile(r"[ \t]{2,}|[.\-_·]?[ \t]+")


@lru_cache(maxsize=4096)
def _fold(cluster: str) -> str:
    """The normalized form of a non-ASCII character with its combining marks
    ('' for an invisible character): NFKC, so ``e`` + U+0301 is ``é``."""
    kept = "".join(ch for ch in cluster if ch not in INVISIBLE and unicodedata.category(ch) != "Cf")
    if not kept:
        return ""
    folded = nfkc(kept)
    # NFKC turns some characters into spaces or brackets around several characters: keep
    # those only when they stay letters/digits (ligatures, full-width forms, superscripts)
    return folded if folded.strip() else " "


@dataclass
class NormalizedText:
    """A detection copy of ``original``: ``text`` plus, for each of its
    characters, the start of the original characters it came from
    (``starts``, one entry more: ``len(original)``) and their end (``ends``;
    ``None``: one character each, ``starts[i] + 1``). A character and its
    combining marks (``e`` + U+0308) give one character of the copy (``ë``).
    ``starts is None``: the copy is the original."""

    original: str
    text: str
    starts: list[int] | None = None
    ends: list[int] | None = None

    @property
    def changed(self) -> bool:
        return self.starts is not None

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """The original range of the copy's ``[start, end)``."""
        if self.starts is None:
            return start, end
        if end <= start:
            o = self.starts[start]
            return o, o
        last = self.ends[end - 1] if self.ends is not None else self.starts[end - 1] + 1
        return self.starts[start], last

    def from_original(self, start: int, end: int) -> tuple[int, int]:
        """The copy's range covering the original ``[start, end)``."""
        if self.starts is None:
            return start, end
        s = bisect_left(self.starts, start)
        e = bisect_left(self.starts, end, lo=s)
        return s, e


def _fold_text(text: str) -> tuple[str, list[int], list[int]]:
    """The text with every non-ASCII character and its combining marks folded
    (:func:`_fold`), and each copy character's original range."""
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for m in _NON_ASCII.finditer(text):
        a = m.start()
        if is_mark(text[a]) and a > pos:
            a -= 1  # an ASCII letter and the combining marks after it: "e" + U+0301
        if a > pos:
            pieces.append(text[pos:a])
            starts.extend(range(pos, a))
            ends.extend(range(pos + 1, a + 1))
        i = a
        while i < m.end():
            j = i + 1
            while j < m.end() and is_mark(text[j]):
                j += 1
            folded = _fold(text[i:j])
            pieces.append(folded)
            starts.extend([i] * len(folded))
            ends.extend([j] * len(folded))
            i = j
        pos = m.end()
    pieces.append(text[pos:])
    starts.extend(range(pos, len(text)))
    ends.extend(range(pos + 1, len(text) + 1))
    return "".join(pieces), starts, ends


def _collapse_spaced(text: str) -> list[int] | None:
    """The indices of ``text`` to keep when letters spelt out one by one are
    joined (``J o h n  S m i t h`` → ``John Smith``, ``J.O.H.N.`` → ``JOHN.``):
    the separators go, the gap between two such words is one space, and a run
    of single-spaced letters is split where a capital follows a small letter.
    ``None`` when there is none."""
    runs = [m for m in _SPACED.finditer(text) if _spelt_out(m)]
    if not runs:
        return None
    drop: set[int] = set()
    for k, m in enumerate(runs):
        sep = m.group("sep")
        letters = [i for i in range(m.start(), m.end()) if text[i].isalpha()]
        splits = _word_starts(text, letters) if sep == " " else set()
        for prev, nxt in zip(letters, letters[1:], strict=False):
            if nxt in splits:
                drop.update(range(prev + 2, nxt))  # a new word: one space stays
            else:
                drop.update(range(prev + 1, nxt))
        if k + 1 < len(runs) and runs[k + 1].group("sep") == sep:
            gap = _SPACED_GAP.fullmatch(text, m.end(), runs[k + 1].start())
            if gap is not None and (sep != " " or len(gap.group()) > 1):
                space = m.end() + len(gap.group()) - len(gap.group().lstrip(".-_·"))
                drop.update(i for i in range(m.end(), runs[k + 1].start()) if i != space)
    return [i for i in range(len(text)) if i not in drop]


#: Letters of the longest spelt-out given name and surname that :func:`_word_starts` splits.
_MAX_SPELT_NAME = 60


def _word_starts(text: str, letters: list[int]) -> set[int]:
    """Where single-spaced letters start a new word: a capital after a small
    letter (``J o h n S m i t h``), else, in one case, where a given name of
    the name lexicon ends and a surname begins (``J O H N S M I T H``)."""
    starts = {b for a, b in zip(letters, letters[1:], strict=False) if text[a].islower() and text[b].isupper()}
    if starts or len(letters) < 5 or len(letters) > _MAX_SPELT_NAME:
        return starts  # a run longer than a name is not split (each split costs a copy of the run)
    word = "".join(text[i] for i in letters).casefold()
    lexicon = name_lexicon()
    for k in range(len(word) - 2, 1, -1):
        first, last = lexicon.get(word[:k], 0), lexicon.get(word[k:], 0)
        if first & FIRST and not first & COMMON and last & (FIRST | LAST):
            return {letters[k]}
    return starts


def _spelt_out(m: re.Match) -> bool:
    """Single-spaced letters are read as one word from three letters on; with
    a dot, hyphen or underscore (``U.S.A.``, ``A-B-C``: abbreviations and
    codes) from four."""
    n = sum(ch.isalpha() for ch in m.group())
    return n >= (3 if m.group("sep") == " " else 4)


def normalize(text: str) -> NormalizedText:
    """The detection copy of ``text``. Pure ASCII text without spelt-out
    letters is its own copy."""
    if text.isascii():
        keep = _collapse_spaced(text)
        if keep is None:
            return NormalizedText(text, text)
        copy, starts, ends = text, list(range(len(text))), list(range(1, len(text) + 1))
    else:
        copy, starts, ends = _fold_text(text)
        if _ANY_CONFUSABLE.search(copy):
            table = confusables()
            copy = _MIXED_WORD.sub(lambda w: "".join(table.get(c, c) for c in w.group(0)), copy)
        keep = _collapse_spaced(copy)
    if keep is not None:
        copy = "".join(copy[i] for i in keep)
        starts, ends = [starts[i] for i in keep], [ends[i] for i in keep]
    if copy == text:
        return NormalizedText(text, text)
    starts.append(len(text))
    return NormalizedText(text, copy, starts, ends)


#: Two or more ALL-CAPS words of at most 40 characters each: a match may start after an apostrophe or a
#: hyphen, and an unbounded word would scan a run of "O'O'O'..." to its end from each of them.
_CAPS_WORD = r"[A-ZÀ-ÖØ-Þ][A-ZÀ-ÖØ-Þ'’-]{1,39}"
_CAPS_RUN = re.compile(rf"\b{_CAPS_WORD}(?:[ \t]+(?:['’][A-Z][ \t]+)?{_CAPS_WORD})+\b")


def caps_runs(text: str, min_words: int = 2) -> list[tuple]:
    """``(start, end, title-cased run)`` of the runs of at least ``min_words``
    ALL-CAPS words, for a case-sensitive NER to read apart from their text."""
    out = []
    for m in _CAPS_RUN.finditer(text):
        run = m.group(0)
        cased = run.title()
        if len(run.split()) >= min_words and len(cased) == len(run):
            out.append((m.start(), m.end(), cased))
    return out


def restore_case(text: str, min_words: int = 2) -> str:
    """``SIGNED: PEDER HALVORSEN`` → ``SIGNED: Peder Halvorsen``: runs of at
    least ``min_words`` ALL-CAPS words (two letters or more each) title-cased,
    the text's length and offsets unchanged."""
    out, pos = [], 0
    for start, end, cased in caps_runs(text, min_words):
        out += [text[pos:start], cased]
        pos = end
    return "".join(out) + text[pos:]
