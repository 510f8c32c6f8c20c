"""The leak sweep: masked strings that occur again outside every masked span.

A masked name can come back where no detector looked: inside another word
("Yalmanlar", "Ankara-based"), in capitals ("YALMAN"), in a heading. The
generalizer masks those occurrences too, with the replacement of the entity
they repeat, so that no masked string survives in the sanitized text.

Rules (pure function, :func:`find_leaks`): a masked string of at least
``min_chars`` characters is looked for anywhere, case-insensitively, inside
words too; a shorter one only as a whole word and only when it holds a
letter (``Lee``, ``AB``; a bare ``12`` would hide every "Article 12").
Whitespace is compared loosely (``Ada  Lee`` and ``Ada\nLee`` repeat
``Ada Lee``). Occurrences inside a masked range are not leaks.
"""

import re
from bisect import bisect_right
from collections.abc import Sequence
from functools import lru_cache

__all__ = ["find_leaks"]


@lru_cache(maxsize=4096)
def _pattern(string: str, whole_word: bool):
    """The occurrences of one masked string; any run of whitespace matches a space."""
    body = r"\s+".join(re.escape(w) for w in string.split(" "))
    return re.compile(rf"(?<!\w){body}(?!\w)" if whole_word else body, re.IGNORECASE)


def find_leaks(text: str, masked: Sequence[tuple[int, int]], min_chars: int = 4) -> list[tuple[int, int, int]]:
    """``(start, end, i)`` for every occurrence in ``text`` of the string of
    masked range ``masked[i]`` that is not inside one masked range, sorted by
    start (the longest string at a position; occurrences inside an earlier
    one are left out, overlapping ones are kept: the renderer merges them)."""
    ranges = sorted((s, e) for s, e in masked if e > s)
    owner = {}
    long_, short = [], []
    for i, (start, end) in enumerate(masked):
        string = " ".join(text[start:end].split())
        if len(string) < 2 or string.casefold() in owner:
            continue
        if len(string) >= min_chars:
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

    # one search per string (a literal search each, linear in the text); strings are searched
    # separately so that overlapping occurrences of different strings are all found
    # ("EUR 15,000" inside "3.000EUR 15,000" right after a masked "€ 3.000EUR")
    found: list[tuple[int, int, int]] = []
    for strings, whole_word in ((long_, False), (short, True)):
        for string in strings:
            for m in _pattern(string, whole_word).finditer(text):
                if not covered(m.start(), m.end()):
                    found.append((m.start(), m.end(), owner[string.casefold()]))
    found.sort(key=lambda f: (f[0], -f[1]))
    out: list[tuple[int, int, int]] = []
    for f in found:
        if out and f[1] <= out[-1][1]:
            continue  # inside the previous occurrence
        out.append(f)
    return out
