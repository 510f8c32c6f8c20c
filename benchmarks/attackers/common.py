"""What every attacker shares: placeholder stripping, the outcome of a ranking, characters kept.

An attacker scores every background record for a sanitized text; the attack succeeds when the text's own
record is *strictly* first: a record tied with it at the top is a failure (the attacker cannot tell them
apart). Placeholders are stripped from the query first: an attacker knows that ``[PERSON 1]``, ``[MASK]``,
``<LOCATION>`` or ``[REDACTED: ...]`` are masks, not words of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

#: ``[PERSON 1]``, ``[MISC 3]``, ``[DATETIME 2]``, ``[MASK]``, ``[PERSON 3f9a1c2b7d]`` (an upper-case label,
#: optionally a number or key); ``[REDACTED...]``; Presidio's ``<PERSON>``, ``<DATE_TIME>``.
PLACEHOLDER = re.compile(
    r"\[[A-Z][A-Z0-9_]*(?:[ _-][0-9a-f]+)?\]"
    r"|\[REDACTED[^\]]*\]"
    r"|<[A-Z][A-Z0-9_]*>"
)


def strip_placeholders(text: str) -> str:
    """``text`` with every placeholder replaced by a space."""
    return PLACEHOLDER.sub(" ", text)


@dataclass(frozen=True)
class Outcome:
    """One attacked text: ``rank`` = 1 + the records scored strictly higher than the true one (None when
    the true record is not in the background); ``n_tied`` = records with the true record's score, itself
    included; ``success`` = rank 1 and no tie; ``top`` = the best-scored record (the first of them in
    background order when several tie)."""

    true_id: str
    rank: int | None
    n_tied: int
    success: bool
    top: str

    def as_dict(self) -> dict:
        return {"rank": self.rank, "n_tied": self.n_tied, "success": self.success, "top": self.top}


def outcome(scores: Sequence[float] | np.ndarray, ids: Sequence[str], true_id: str) -> Outcome:
    """The outcome of one scored background (``scores[i]`` for ``ids[i]``, higher is better)."""
    scores = np.asarray(scores, dtype=float)
    top = ids[int(np.argmax(scores))]
    try:
        i = list(ids).index(true_id)
    except ValueError:
        return Outcome(true_id=true_id, rank=None, n_tied=0, success=False, top=top)
    mine = scores[i]
    rank = 1 + int(np.sum(scores > mine))
    n_tied = int(np.sum(scores == mine))
    return Outcome(true_id=true_id, rank=rank, n_tied=n_tied, success=rank == 1 and n_tied == 1, top=top)


def ranking(scores: Sequence[float] | np.ndarray, ids: Sequence[str]) -> list[str]:
    """``ids`` best first (a stable sort: tied records keep the background's order)."""
    order = np.argsort(-np.asarray(scores, dtype=float), kind="stable")
    return [ids[int(i)] for i in order]


def masked_chars(intervals: Iterable[Sequence[int]], length: int) -> int:
    """The characters of a text of ``length`` covered by the union of ``[start, end)`` intervals
    (clipped to the text; overlapping and nested intervals counted once)."""
    covered = 0
    last = 0
    for start, end in sorted((max(0, int(s)), min(length, int(e))) for s, e in intervals):
        start = max(start, last)
        if end > start:
            covered += end - start
            last = end
    return covered


def chars_kept(texts: Sequence[str], masks: Sequence[Iterable[Sequence[int]]]) -> float:
    """1 - masked / total characters, summed over the texts (micro); 1.0 for no characters."""
    total = sum(len(t) for t in texts)
    if not total:
        return 1.0
    return 1.0 - sum(masked_chars(m, len(t)) for t, m in zip(texts, masks, strict=True)) / total
