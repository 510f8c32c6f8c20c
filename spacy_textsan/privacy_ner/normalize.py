"""A normalised copy of a text for detection, with offsets back to the original.

Identifiers are hidden from detectors by characters a reader does not see or
reads the same: soft hyphens, zero-width spaces and joiners, word joiners,
bidi controls (``Pe\u00adder``, ``Hal\u200bvorsen``), full-width and other
compatibility forms (``Ｐｅｄｅｒ``, ligatures), and Cyrillic or Greek letters
that look like Latin ones inside a Latin word (``Реder``: homoglyphs).
:func:`normalise` removes or folds them (NFKC per character, invisible
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

#: Characters that render as nothing (or as a break opportunity) inside a word.
INVISIBLE = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u200b\u200c\u200d\u200e\u200f"
    "\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b"
    "\u206c\u206d\u206e\u206f\u3164\ufe00\ufe01\ufe02\ufe03\ufe04\ufe05\ufe06\ufe07\ufe08\ufe09\ufe0a"
    "\ufe0b\ufe0c\ufe0d\ufe0e\ufe0f\ufeff\uffa0"
)

#: Cyrillic and Greek letters that are read as Latin ones (Unicode confusables, the one-to-one subset).
CONFUSABLES = {
    "а": "a",
    "в": "b",
    "е": "e",
    "к": "k",
    "м": "m",
    "н": "h",
    "о": "o",
    "р": "p",
    "с": "c",
    "т": "t",
    "у": "y",
    "х": "x",
    "ѕ": "s",
    "і": "i",
    "ј": "j",
    "ԁ": "d",
    "ԛ": "q",
    "ԝ": "w",
    "һ": "h",
    "ӏ": "l",
    "А": "A",
    "В": "B",
    "Е": "E",
    "К": "K",
    "М": "M",
    "Н": "H",
    "О": "O",
    "Р": "P",
    "С": "C",
    "Т": "T",
    "У": "Y",
    "Х": "X",
    "Ѕ": "S",
    "І": "I",
    "Ј": "J",
    "Ԁ": "D",
    "Ԛ": "Q",
    "Ԝ": "W",
    "Һ": "H",
    "Ӏ": "I",
    "Α": "A",
    "Β": "B",
    "Ε": "E",
    "Ζ": "Z",
    "Η": "H",
    "Ι": "I",
    "Κ": "K",
    "Μ": "M",
    "Ν": "N",
    "Ο": "O",
    "Ρ": "P",
    "Τ": "T",
    "Υ": "Y",
    "Χ": "X",
    "ο": "o",
    "ν": "v",
    "ι": "i",
    "κ": "k",
    "ρ": "p",
    "τ": "t",
    "υ": "u",
    "χ": "x",
    "α": "a",
    "ϲ": "c",
    "ϳ": "j",
}
_CONFUSABLE_CHARS = "".join(CONFUSABLES)
_MIXED_WORD = re.compile(rf"\w*(?:[A-Za-z]\w*[{_CONFUSABLE_CHARS}]|[{_CONFUSABLE_CHARS}]\w*[A-Za-z])\w*")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_ANY_CONFUSABLE = re.compile(f"[{_CONFUSABLE_CHARS}]")


@lru_cache(maxsize=4096)
def _fold(ch: str) -> str:
    """The normalised form of one non-ASCII character ('' for an invisible one)."""
    if ch in INVISIBLE or unicodedata.category(ch) == "Cf":
        return ""
    folded = unicodedata.normalize("NFKC", ch)
    # NFKC turns some characters into spaces or brackets around several characters: keep
    # those only when they stay letters/digits (ligatures, full-width forms, superscripts)
    return folded if folded.strip() else " "


@dataclass
class NormalisedText:
    """A detection copy of ``original``: ``text`` plus, for each of its
    characters, the start of the original character it came from
    (``starts``, one entry more: ``len(original)``). ``starts is None``: the
    copy is the original."""

    original: str
    text: str
    starts: list[int] | None = None

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
        # every character of the copy comes from exactly one original character
        return self.starts[start], self.starts[end - 1] + 1

    def from_original(self, start: int, end: int) -> tuple[int, int]:
        """The copy's range covering the original ``[start, end)``."""
        if self.starts is None:
            return start, end
        s = bisect_left(self.starts, start)
        e = bisect_left(self.starts, end, lo=s)
        return s, e


def normalise(text: str) -> NormalisedText:
    """The detection copy of ``text``. Pure ASCII text is its own copy."""
    if text.isascii():
        return NormalisedText(text, text)
    pieces: list[str] = []
    starts: list[int] = []
    pos = 0
    for m in _NON_ASCII.finditer(text):
        if m.start() > pos:
            pieces.append(text[pos : m.start()])
            starts.extend(range(pos, m.start()))
        for i in range(m.start(), m.end()):
            folded = _fold(text[i])
            if folded:
                pieces.append(folded)
                starts.extend([i] * len(folded))
        pos = m.end()
    pieces.append(text[pos:])
    starts.extend(range(pos, len(text)))
    copy = "".join(pieces)
    if _ANY_CONFUSABLE.search(copy):
        copy = _MIXED_WORD.sub(lambda w: "".join(CONFUSABLES.get(c, c) for c in w.group(0)), copy)
    if copy == text:
        return NormalisedText(text, text)
    starts.append(len(text))
    return NormalisedText(text, copy, starts)


_CAPS_RUN = re.compile(r"\b[A-ZÀ-ÖØ-Þ][A-ZÀ-ÖØ-Þ'’-]+(?:[ \t]+(?:['’][A-Z][ \t]+)?[A-ZÀ-ÖØ-Þ][A-ZÀ-ÖØ-Þ'’-]+)+\b")


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
