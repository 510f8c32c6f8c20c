"""The patterns a request brings (Presidio's ad-hoc recognizers, deny lists,
regex allow lists), compiled by RE2 (google-re2): matching takes time linear
in the text whatever the pattern, so ``(a+)+$`` cannot pin a core.

The patterns are compiled by :mod:`spacy_textsan.user_regex` (its doc says
what RE2 refuses and how Python's ``regex_flags`` map to RE2's options).

Matching runs over the text's UTF-8 bytes, encoded once (:class:`Utf8Text`),
and checks the request's deadline between matches.
"""

import re
from collections.abc import Iterator, Sequence

import numpy as np
import re2

from ..user_regex import compile_pattern as compile_user_pattern
from .work import Deadline

#: Presidio's default flags.
DEFAULT_FLAGS = re.DOTALL | re.MULTILINE | re.IGNORECASE
#: A word character as Python's ``\w`` on text (RE2's ``\w`` is ASCII).
WORD = r"\pL\pN_"
#: How many matches go by between two looks at the deadline.
CHECK_EVERY = 512


def compile_pattern(pattern: str, flags: int = DEFAULT_FLAGS) -> re2._Regexp:
    """``pattern`` compiled by RE2 with Python's ``flags`` (Presidio's by default), as
    :func:`spacy_textsan.user_regex.compile_pattern`."""
    return compile_user_pattern(pattern, flags)


def deny_list_pattern(terms: Sequence[str], flags: int = DEFAULT_FLAGS) -> re2._Regexp:
    """Presidio's deny-list pattern, ``(?:^|(?<=\\W))(terms)(?:(?=\\W)|$)``, without
    lookarounds: the characters around a term are matched (group 1 is the term)
    and :func:`deny_list_matches` goes on from the end of the term."""
    terms_alt = "|".join(re2.escape(t) for t in terms)
    return compile_pattern(f"(?:^|[^{WORD}])({terms_alt})(?:[^{WORD}]|$)", flags)


class Utf8Text:
    """A text as the UTF-8 bytes RE2 reads, with the character offset of any byte offset."""

    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8")
        self._chars: np.ndarray | None = None
        if len(self.data) != len(text):
            starts = (np.frombuffer(self.data, dtype=np.uint8) & 0xC0) != 0x80
            self._chars = np.concatenate([[0], np.cumsum(starts, dtype=np.int64)])

    def char(self, offset: int) -> int:
        return offset if self._chars is None else int(self._chars[offset])


def matches(pattern: re2._Regexp, text: Utf8Text, deadline: Deadline) -> Iterator[tuple[int, int]]:
    """The character offsets of the non-empty matches of ``pattern`` in ``text``."""
    deadline.check()
    for i, m in enumerate(pattern.finditer(text.data), 1):
        if i % CHECK_EVERY == 0:
            deadline.check()
        start, end = m.span()
        if start != end:
            yield text.char(start), text.char(end)


def deny_list_matches(pattern: re2._Regexp, text: Utf8Text, deadline: Deadline) -> Iterator[tuple[int, int]]:
    """The character offsets of the terms of :func:`deny_list_pattern` in ``text``."""
    pos, n = 0, 0
    while True:
        if n % CHECK_EVERY == 0:
            deadline.check()
        n += 1
        m = pattern.search(text.data, pos)
        if m is None:
            return
        start, end = m.span(1)
        if start != end:
            yield text.char(start), text.char(end)
        pos = max(end, pos + 1)
