"""Names and text in non-Latin scripts inside mostly-Latin text, which an
English NER cannot read: runs of words in Arabic, Hebrew, CJK, Kana, Hangul,
Indic, Thai, Cyrillic, Greek, Georgian or Armenian script, and tokens mixing
CJK, Kana or Hangul with Latin letters or digits.

Pure functions over a string returning ``(start, end, label, rule_name)``
tuples (:data:`.names.NameCandidate`).
"""

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache

from .names import LATIN_LETTERS, PERSON, NameCandidate

#: Blocks of the scripts whose letters mark a foreign-script name.
_SCRIPT_BLOCKS = (
    (0x0370, 0x03FF),
    (0x1F00, 0x1FFF),  # Greek
    (0x0400, 0x052F),
    (0x1C80, 0x1C8F),
    (0x2DE0, 0x2DFF),
    (0xA640, 0xA69F),  # Cyrillic
    (0x0530, 0x058F),  # Armenian
    (0x0590, 0x05FF),
    (0xFB1D, 0xFB4F),  # Hebrew
    (0x0600, 0x06FF),
    (0x0750, 0x077F),
    (0x08A0, 0x08FF),
    (0xFB50, 0xFDFF),
    (0xFE70, 0xFEFF),  # Arabic
    (0x0900, 0x0DFF),  # Devanagari .. Sinhala
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x10A0, 0x10FF),
    (0x1C90, 0x1CBF),  # Georgian
    (0x1100, 0x11FF),
    (0x3130, 0x318F),
    (0xAC00, 0xD7AF),  # Hangul
    (0x3040, 0x30FF),
    (0x31F0, 0x31FF),  # Hiragana, Katakana
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),  # CJK ideographs
)
#: Scripts written without spaces between words: a "word" longer than
#: ``_MAX_DENSE_WORD`` characters is running text, not a name.
_DENSE_BLOCKS = (
    (0x0E00, 0x0EFF),
    (0x1000, 0x109F),
    (0x3040, 0x30FF),
    (0x31F0, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
)
_MAX_DENSE_WORD = 6
_MAX_WORD = 15
_MAX_NAME_WORDS = 4
#: Characters inside a word: ZWNJ/ZWJ, the katakana prolonged sound mark, the
#: CJK iteration mark. The katakana middle dot separates words (_INNER_PUNCT).
_JOINERS = "\u200c\u200d\u30fc\u3005"
#: Sentence punctuation of those scripts: a run containing one is text.
_SENTENCE_MARKS = "\u3001\u3002\uff0c\uff01\uff1f\u060c\u061b\u061f\u06d4\u0964\u0965\u0589"
#: Latin punctuation that may join two foreign-script words into one run
#: ("Иван Петров, Анна Смирнова"); ".!?;:" make the run text, not a name.
_INNER_PUNCT = ",;:.!?\\-\u2013\u2014\u30fb"


def _ranges_of(blocks: Iterable[tuple[int, int]], keep: Callable[[str], bool]) -> str:
    """A regex character class body of the code points in ``blocks`` that
    ``keep`` accepts, as compact ranges."""
    out: list[tuple[int, int]] = []
    run_start: int | None = None
    prev = -1
    for lo, hi in blocks:
        for cp in range(lo, hi + 1):
            if keep(chr(cp)):
                if run_start is None:
                    run_start = cp
                elif cp != prev + 1:
                    out.append((run_start, prev))
                    run_start = cp
                prev = cp
    if run_start is not None:
        out.append((run_start, prev))
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" if b <= 0xFFFF else "" for a, b in out)


@lru_cache(maxsize=1)
def _any_script_letter():
    return re.compile(f"[{_ranges_of(_SCRIPT_BLOCKS, lambda ch: unicodedata.category(ch)[0] in 'LM')}]")


@lru_cache(maxsize=1)
def _script_regexes():
    letters = _ranges_of(_SCRIPT_BLOCKS, lambda ch: unicodedata.category(ch)[0] in "LM")
    word = f"[{_JOINERS}]*[{letters}][{letters}{_JOINERS}]*"
    # a gap of one character at least: an empty one let a word split into words in every way, which a
    # run that fails at its end (a Latin letter after 30 CJK characters) tried, exponentially
    space = "[ \\t\\u00a0\\u3000]"
    gap = f"(?:{space}+(?:[{_SENTENCE_MARKS}{_INNER_PUNCT}]{space}*)?|[{_SENTENCE_MARKS}{_INNER_PUNCT}]{space}*)"
    # whole words only: a word mixing scripts ("Иvan") is no run
    edge = f"[{LATIN_LETTERS}{letters}{_JOINERS}]"
    block = re.compile(f"(?<!{edge}){word}(?:{gap}{word})*(?!{edge})")
    dense = re.compile(f"[{_ranges_of(_DENSE_BLOCKS, lambda ch: unicodedata.category(ch)[0] in 'LM')}]")
    words = re.compile(word)
    latin = re.compile(f"[^{LATIN_LETTERS}]+")
    return block, words, dense, latin


def find_script_names(text: str, max_foreign_share: float = 0.5, min_foreign_letters: int = 200) -> list[NameCandidate]:
    """Runs of non-Latin-script words in mostly-Latin text.

    A run of 1-4 words (at least 2 letters, no sentence punctuation of its
    script, no over-long word) is ``(s, e, "PERSON", "foreign_script_name")``;
    any longer run is ``(s, e, "MISC", "foreign_script_text")``. Returns []
    when there are more than ``min_foreign_letters`` such characters and
    their share among all letters exceeds ``max_foreign_share`` (the text is
    not mostly Latin: the NER's job)."""
    if text.isascii():
        return []
    block_re, word_re, dense_re, latin_re = _script_regexes()
    if not _any_script_letter().search(text):  # one character class scan before the costly run regex
        return []
    blocks = list(block_re.finditer(text))
    if not blocks:
        return []
    foreign = sum(m.end() - m.start() for m in blocks)
    latin = len(latin_re.sub("", text))
    if foreign > min_foreign_letters and foreign > max_foreign_share * (foreign + latin):
        return []
    out = []
    for m in blocks:
        chunk = m.group()
        words = word_re.findall(chunk)
        letters = sum(len(w) for w in words)
        is_name = (
            len(words) <= _MAX_NAME_WORDS
            and letters >= 2
            and not any(ch in _SENTENCE_MARKS or ch in ".!?;:" for ch in chunk)
            and all(len(w) <= (_MAX_DENSE_WORD if dense_re.match(w) else _MAX_WORD) for w in words)
        )
        if is_name:
            out.append((m.start(), m.end(), PERSON, "foreign_script_name"))
        elif letters >= 2:
            out.append((m.start(), m.end(), "MISC", "foreign_script_text"))
    return out


#: A token that mixes CJK, Kana or Hangul with Latin letters or digits (``上海路l座``, ``数字100科技``).
#: Each alternative starts only where its first run starts (the lookbehinds): a match that fails from the
#: start of a run fails from inside it too, and trying every position of a long run would be quadratic.
_MIXED_CJK = re.compile(
    r"(?:(?<![\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3])[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]+[A-Za-z0-9]+"
    r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3A-Za-z0-9]*"
    r"|(?<![A-Za-z0-9])[A-Za-z0-9]+[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]+[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3A-Za-z0-9]*)"
)


def find_mixed_script_tokens(text: str) -> list[NameCandidate]:
    """Tokens mixing CJK/Kana/Hangul with Latin letters or digits, which
    :func:`find_script_names` leaves out: in an English document they are
    names, addresses or codes (MISC)."""
    return [(m.start(), m.end(), "MISC", "mixed_script_token") for m in _MIXED_CJK.finditer(text)]
