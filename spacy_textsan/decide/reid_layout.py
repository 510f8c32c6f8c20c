"""The words of a document as reid_risk reads them: the groups they are masked in (a kept candidate is one
group, every other word its own), what each costs, which are hidden already and which belong to a direct
identifier (:class:`~spacy_textsan.risk.reid_scores.DocWords`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
from spacy.attrs import IDX, LENGTH
from spacy.tokens import Doc

from ..entities import group_entities
from ..extensions import DIRECT, covered_chars, doc_text, get_candidates
from ..risk.reid_family import words_of
from ..risk.reid_scores import DocWords
from ..risk.reid_words import Analyser

__all__ = ["Layout", "merge_words", "uncovered", "word_around"]

#: a masked word grows to the whole written word around it (Montreal-based, O'Connor)
_WORD_RUN = re.compile(r"[\w'’\-]+")


class Layout:
    """The words of a doc (read by the background's ``analyser``; English by default), the groups they are
    masked in, and the attack's view of them (:class:`DocWords`)."""

    def __init__(self, doc: Doc, spans_key: str, direct_labels: Iterable[str] = (), analyser: Analyser | None = None):
        direct_labels = set(direct_labels)
        self.text = doc_text(doc)
        candidates = get_candidates(doc, spans_key)
        masked = [s for s in candidates if s._.masked is not False]  # undecided counts as masked
        hidden = covered_chars(doc, masked)
        self.entities = group_entities([s for s in candidates if s._.masked is False])
        owner = np.full(len(self.text) + 1, -1, dtype=np.int32)
        for e, entity in enumerate(self.entities):
            for span in entity.spans:
                owner[span.start_char : span.end_char] = e
        group_cost: list[int] = [sum(len(s.text) for s in entity.spans) for entity in self.entities]
        self.free: dict[int, tuple[int, int]] = {}  # group -> the word's offsets
        self.hidden = [(s.start_char, s.end_char) for s in masked]
        direct_chars = covered_chars(
            doc, [s for s in candidates if s._.identifier_type == DIRECT or s.label_ in direct_labels]
        )
        words = words_of(self.text, analyser)
        # where tokens start and end: a written word that starts and ends on them is whole tokens already
        bounds = doc.to_array([IDX, LENGTH]).astype(np.int64)  # no Token object per token
        token_starts = set(bounds[:, 0].tolist())
        token_ends = set((bounds[:, 0] + bounds[:, 1]).tolist())
        groups: list[int] = []
        direct: list[bool] = []
        run_group: dict[tuple[int, int], int] = {}
        for word in words:
            direct.append(direct_chars.find(1, word.start, word.end) != -1)
            if hidden.find(1, word.start, word.end) != -1:
                groups.append(-1)
                continue
            e = int(owner[word.start])
            if e < 0:
                # a free word is masked with the written word around it, grown to whole tokens (reid_risk's
                # _apply): the words of one written word or token (`Montreal-based`, an IPA `ˈkaɪ̯tl̩` read as
                # two words) are one group, so the attack never counts as visible a part the mask hides
                run = word_around(self.text, word.start, word.end)
                if run[0] not in token_starts or run[1] not in token_ends:
                    token = doc.char_span(*run, alignment_mode="expand")
                    if token is not None and len(token):
                        run = (min(run[0], token.start_char), max(run[1], token.end_char))
                e = run_group.get(run, -1)
                if e < 0:
                    e = run_group[run] = len(group_cost)
                    group_cost.append(run[1] - run[0])
                    self.free[e] = run
            groups.append(e)
        self.words = DocWords(self.text, words, groups, group_cost, direct)


def word_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The written word that holds ``[start, end)`` (letters, digits, inner apostrophes and hyphens)."""
    left = start
    while left > 0 and _WORD_RUN.fullmatch(text[left - 1]):
        left -= 1
    right = end
    while right < len(text) and _WORD_RUN.fullmatch(text[right]):
        right += 1
    while left < start and text[left] in "'’-":
        left += 1
    while right > end and text[right - 1] in "'’-":
        right -= 1
    return left, right


def merge_words(text: str, words: list[tuple[int, int, str]]) -> list[tuple[int, int, list[str]]]:
    """Masked words that only white space separates, as one stretch (with all their reasons)."""
    out: list[tuple[int, int, list[str]]] = []
    for start, end, reason in sorted(words):
        if out and (start <= out[-1][1] or not text[out[-1][1] : start].strip()):
            s, e, reasons = out[-1]
            out[-1] = (s, max(e, end), reasons + [reason] if reason not in reasons else reasons)
        else:
            out.append((start, end, [reason]))
    return out


def uncovered(text: str, covered: bytearray, start: int, end: int) -> list[tuple[int, int]]:
    """The stretches of ``[start, end)`` that no candidate covers, without the punctuation at their edges
    (``Timor-Leste`` with ``Timor`` masked already: ``Leste``)."""
    out: list[tuple[int, int]] = []
    i = start
    while i < end:
        while i < end and covered[i]:
            i += 1
        j = i
        while j < end and not covered[j]:
            j += 1
        a, b = i, j
        while a < b and not text[a].isalnum():
            a += 1
        while b > a and not text[b - 1].isalnum():
            b -= 1
        if a < b:
            out.append((a, b))
        i = j
    return out
