"""The leak sweep: masked strings that occur again outside every masked span.

A masked name can come back where no detector looked: inside another word
("Yalmanlar", "Ankara-based"), in capitals ("YALMAN"), in a heading. The
generalizer masks those occurrences too, with the replacement of the entity
they repeat, so that no masked string survives in the sanitized text.

Rules (pure function, :func:`find_leaks`): a masked string of at least
``min_chars`` characters is looked for anywhere, case-insensitively, inside
words too; a shorter one only as a whole word and only when it holds a
letter (``Lee``, ``AB``; a bare ``12`` would hide every "Article 12"); so is
a string the caller's ``whole_word`` picks (the generalizer: a common word of the
language written in lower case, ``widow``, whose masked mention says what one
person is, while ``widows`` or ``widowers`` elsewhere is a group a rule is
about; ``Widow`` still repeats it). A
neighbour that is masked itself counts as no word character: in
``निTR-06`` with ``TR-06`` masked, ``नि`` stands alone in the sanitized text.
Whitespace is compared loosely (``Ada  Lee`` and ``Ada\nLee`` repeat
``Ada Lee``). Occurrences inside a masked range are not leaks.
"""

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence

__all__ = ["find_leaks"]

_WHITESPACE_RUN = re.compile(r"\s+")


def _lower(text: str) -> str:
    """``text`` lower-cased character for character (a character whose lower
    case is longer, like "İ", is kept; a final sigma is a sigma)."""
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    return lowered.replace("ς", "σ")


def _folded(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased with every run of whitespace as one space, and the
    offset in ``text`` of each character of it: one string to search every
    masked string in with ``str.find``, instead of one regular expression
    compiled per masked string and document."""
    lowered = _lower(text)
    parts: list[str] = []
    offsets: list[int] = []
    last = 0
    for m in _WHITESPACE_RUN.finditer(lowered):
        parts.append(lowered[last : m.start()])
        offsets.extend(range(last, m.start()))
        parts.append(" ")
        offsets.append(m.start())
        last = m.end()
    parts.append(lowered[last:])
    offsets.extend(range(last, len(lowered)))
    return "".join(parts), offsets


def _is_word(char: str) -> bool:
    """What ``\\w`` matches: a letter, a digit or "_"."""
    return char.isalnum() or char == "_"


def _occurrences(folded: str, string: str, whole_word: bool, masked: Callable[[int], bool]) -> list[tuple[int, int]]:
    """``(start, end)`` in ``folded`` of the occurrences of ``string`` (folded
    too), left to right without overlap, as ``re.finditer`` would find them;
    ``whole_word``: not preceded or followed by a word character, where a
    character that will be masked (``masked(k)``) is no word character: it
    will not be there next to the occurrence in the sanitized text."""

    def edge(k: int) -> bool:
        return k < 0 or k >= len(folded) or not _is_word(folded[k]) or masked(k)

    out = []
    n, i = len(string), folded.find(string)
    while i >= 0:
        j = i + n
        if not whole_word or (edge(i - 1) and edge(j)):
            out.append((i, j))
            i = folded.find(string, j)
        else:
            i = folded.find(string, i + 1)
    return out


def find_leaks(
    text: str,
    masked: Sequence[tuple[int, int]],
    min_chars: int = 4,
    whole_word: Callable[[str], bool] | None = None,
) -> list[tuple[int, int, int]]:
    """``(start, end, i)`` for every occurrence in ``text`` of the string of
    masked range ``masked[i]`` that is not inside one masked range, sorted by
    start (the longest string at a position; occurrences inside an earlier
    one are left out, overlapping ones are kept: the renderer merges them).
    ``whole_word(string)``: true for a string of ``min_chars`` or more that is
    looked for only as a whole word, as shorter ones are."""
    ranges = sorted((s, e) for s, e in masked if e > s)
    owner = {}
    long_, short = [], []
    for i, (start, end) in enumerate(masked):
        string = " ".join(text[start:end].split())
        if len(string) < 2 or string.casefold() in owner:
            continue
        if len(string) >= min_chars and not (whole_word is not None and whole_word(string)):
            long_.append(string)
        elif any(c.isalpha() for c in string):
            short.append(string)
        else:
            continue
        owner[string.casefold()] = i
    starts = [s for s, _ in ranges]
    ends_max: list[int] = []  # the furthest end of the ranges up to each index
    for _, e in ranges:
        ends_max.append(max(e, ends_max[-1]) if ends_max else e)

    def covered(start: int, end: int) -> bool:
        k = bisect_right(starts, start) - 1
        while k >= 0 and ends_max[k] > start:
            if ranges[k][0] <= start and ranges[k][1] >= end:
                return True
            k -= 1
        return False

    # one search per string (str.find in the folded text, linear in the text); strings are searched
    # separately so that overlapping occurrences of different strings are all found
    # ("EUR 15,000" inside "3.000EUR 15,000" right after a masked "€ 3.000EUR")
    found: list[tuple[int, int, int]] = []
    folded, offsets = _folded(text) if long_ or short else ("", [])
    for strings, as_word in ((long_, False), (short, True)):
        for string in strings:
            # a neighbour at folded index k is masked if its one character is covered by a masked range
            for i, j in _occurrences(folded, _lower(string), as_word, lambda k: covered(offsets[k], offsets[k] + 1)):
                start, end = offsets[i], offsets[j - 1] + 1
                if not covered(start, end):
                    found.append((start, end, owner[string.casefold()]))
    found.sort(key=lambda f: (f[0], -f[1]))
    out: list[tuple[int, int, int]] = []
    for f in found:
        if out and f[1] <= out[-1][1]:
            continue  # inside the previous occurrence
        out.append(f)
    return out
