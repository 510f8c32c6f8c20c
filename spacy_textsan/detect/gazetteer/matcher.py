"""Matching knowledge-base surface forms in a tokenized text.

A dictionary matcher over token sequences, so that a knowledge base of
100k+ surface forms is ready as soon as it is loaded (spaCy's PhraseMatcher
would tokenize every pattern first: seconds for such a KB).

For every token the matcher builds the normalised text of the token
sequences starting there (tokens joined by their own whitespace,
:func:`~.kb.normalize_surface`), one token longer at a time, and looks each up
in the surface dictionary. A token is only tried as a start when its first
word starts some surface, and the extension stops at the longest surface
with that first word, so the cost per document is O(n · t) dictionary
lookups for n tokens and t ≤ ``max_tokens`` tokens per surface, most tokens
costing one set lookup.

Case: a surface whose every spelling in the KB starts with a capital letter
(``Turkish``, ``Oslo``) only matches a text that starts with a capital, so
that ``turkish delight`` in lower case or the noun ``bath`` do not match;
lower-case surfaces (``lawyer``) match in any case.

On a spaCy ``Doc`` (:meth:`SurfaceMatcher.__call__`) the matcher reads the
token ids (``ORTH``) and whitespace as arrays and keeps, per token string, its
normalised text and whether it starts a surface, across documents: no
``Token`` object is created and a known word is never normalised again.
"""

import re
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from spacy.attrs import ORTH, SPACY

from .kb import GazetteerKB, KBEntry, normalize_surface

__all__ = ["SurfaceMatcher", "Match", "longest_non_overlapping", "expand_match"]

_FIRST_WORD = re.compile(r"\w+|[^\w\s]")

#: (start token, end token, entries of the surface, normalised surface)
Match = tuple[int, int, list[KBEntry], str]


def _first_word(norm: str) -> str:
    m = _FIRST_WORD.search(norm)
    return m.group(0) if m else ""


class SurfaceMatcher:
    def __init__(
        self, kb: GazetteerKB, *, types: Iterable[str] | None = None, max_tokens: int = 8, skip: Iterable[int] = ()
    ):
        """``types``: TAB types of the entries matched (None: all); ``skip``:
        KB positions of entries never matched."""
        self.kb = kb
        self.max_tokens = max_tokens
        allowed = set(types) if types is not None else None
        skipped = set(skip)
        self._ids: dict[str, Sequence[int]] = {}  # surface -> KB positions of the entries kept
        self._cased: dict[str, bool] = {}
        self._max_len: dict[str, int] = {}
        for norm, ids in kb.surface_ids():
            if allowed is not None:
                ids = [i for i in ids if kb.entry_type(i) in allowed]
            if skipped:
                ids = [i for i in ids if i not in skipped]
            if not norm or not ids:
                continue
            self._ids[norm] = ids
            self._cased[norm] = kb.is_cased(norm)
            fw = _first_word(norm)
            self._max_len[fw] = max(self._max_len.get(fw, 0), len(norm))
        self._words: dict[int, tuple[str, int | None, bool]] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def match_tokens(self, words: Sequence[str], spaces: Sequence[bool]) -> list[Match]:
        """All matches (overlapping ones included) in a token sequence given as
        its texts and whether each is followed by a space."""
        norms = [normalize_surface(w) for w in words]
        info = [
            (norm, self._max_len.get(_first_word(norm)) if norm else None, word[:1].isupper())
            for norm, word in zip(norms, words, strict=False)
        ]
        return self._scan(info, list(spaces))

    def _scan(self, info: Sequence[tuple[str, int | None, bool]], spaces: Sequence[bool]) -> list[Match]:
        """The matches over tokens given as (normalised text, longest surface it
        starts or None, starts with a capital) and whether a space follows each."""
        out: list[Match] = []
        n = len(info)
        for i in range(n):
            key, limit, starts_upper = info[i]
            if limit is None:
                continue
            for j in range(i, min(n, i + self.max_tokens)):
                if j > i:
                    norm = info[j][0]
                    if not norm:
                        break  # a whitespace token: no match across line breaks
                    key = key + (" " if spaces[j - 1] else "") + norm
                if len(key) > limit:
                    break
                ids = self._ids.get(key)
                if ids is not None and (starts_upper or not self._cased[key]):
                    out.append((i, j + 1, [self.kb._entry(k) for k in ids], key))
        return out

    #: per-string cache of at most this many token strings (cleared when full: a
    #: service's memory stays flat over any number of new names; the words of a
    #: corpus that recur stay found)
    MAX_CACHED = 16_384

    def _word(self, orth: int, strings) -> tuple[str, int | None, bool]:
        """(normalised text, longest surface it starts or None, starts with a capital) of a token string."""
        text = strings[orth]
        norm = normalize_surface(text)
        limit = self._max_len.get(_first_word(norm)) if norm else None
        if len(self._words) >= self.MAX_CACHED:
            self._words.clear()
        out = self._words[orth] = (norm, limit, text[:1].isupper())
        return out

    def __call__(self, doc) -> list[Match]:
        """:meth:`match_tokens` on a ``Doc``, from its token arrays (same matches)."""
        if not len(doc):
            return []
        arr = doc.to_array([ORTH, SPACY]).tolist()
        strings = doc.vocab.strings
        cache, word = self._words, self._word
        info = [cache.get(o) or word(o, strings) for o, _ in arr]
        return self._scan(info, [bool(space) for _, space in arr])


#: a match or proposal: (start token, end token, anything, anything)
M = TypeVar("M", bound=tuple[int, int, Any, Any])


def longest_non_overlapping(matches: Iterable[M]) -> list[M]:
    """Longest first, then leftmost; a match overlapping a chosen one is
    dropped. Returned in text order."""
    chosen: list[M] = []
    taken: set[int] = set()
    for m in sorted(matches, key=lambda m: (m[0] - m[1], m[0])):
        if any(t in taken for t in range(m[0], m[1])):
            continue
        chosen.append(m)
        taken.update(range(m[0], m[1]))
    return sorted(chosen, key=lambda m: m[0])


_HYPHENS = ("-", "‑")


def expand_match(
    words: Sequence[str], spaces: Sequence[bool], is_stop: Sequence[bool], start: int, end: int, *, modifiers: int = 0
) -> tuple[int, int]:
    """Widen a match to the whole hyphenated word (``Marxist`` →
    ``Marxist-Leninist``) and, with ``modifiers`` > 0, over up to that many
    lower-case words before it that are not stop words or ``-ly`` adverbs
    (``teacher`` → ``primary school teacher``, ``security guard`` → ``private
    security guard``): the noun phrase names the attribute more precisely."""
    n = len(words)
    while (
        end + 1 < n and words[end] in _HYPHENS and not spaces[end - 1] and not spaces[end] and words[end + 1].isalpha()
    ):
        end += 2
    while (
        start >= 2
        and words[start - 1] in _HYPHENS
        and not spaces[start - 2]
        and not spaces[start - 1]
        and words[start - 2].isalpha()
    ):
        start -= 2
    for _ in range(modifiers):
        i = start - 1
        if i < 0 or not spaces[i]:
            break
        w = words[i]
        if not (w.isalpha() and w.islower() and len(w) > 2) or is_stop[i] or w.endswith("ly"):
            break
        start = i
    return start, end
