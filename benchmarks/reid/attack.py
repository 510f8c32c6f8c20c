"""The re-identification attack of issue 16, as pure functions (no pipeline, no file access).

The adversary knows, for every person of a population, the strings that identify them (in TAB: the
DIRECT and QUASI mentions of the person's case). Given a sanitized document, they rank the population
by the summed IDF of each person's strings still visible in it and name the top candidate. The attack
succeeds when the document's own person is *strictly* first: a tie at the top is a failure, because the
adversary cannot tell the tied people apart.

* :func:`normalize`: the string normalisation both sides share (case-folded, whitespace collapsed).
* :class:`Population` / :func:`build_population`: the people, their strings and the strings' IDF,
  ``idf(s) = log(N / df(s))`` with ``df(s)`` the number of people who have ``s``.
* :func:`visible_strings`: which known strings occur in a text (on word boundaries).
* :func:`attack`: the ranking and its :class:`Outcome` for one document.
* :func:`chars_kept`: how many characters of a text a masking leaves in clear.
* :func:`people_from_tab`, :func:`gold_masking`, :func:`mask_text`: TAB helpers for the population and
  the reference points (nothing masked, the gold masking).

Scores are compared exactly: ``sum(log(N / df))`` is monotonic in ``prod(N / df)``, which is a
fraction of integers, so two people tie only when their products are equal, not when rounding happens
to make two float sums equal (or unequal).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

#: The identifier types whose strings the adversary knows (TAB's masking targets).
KNOWN_TYPES = ("DIRECT", "QUASI")


def normalize(text: str) -> str:
    """Case-fold and collapse runs of whitespace to one space (what is compared on both sides)."""
    return " ".join(text.casefold().split())


@lru_cache(maxsize=65536)
def _pattern(string: str) -> re.Pattern[str]:
    """``string`` as a literal that must not touch a word character on either side.

    Look-arounds instead of ``\\b``: a string that starts or ends with punctuation (``j.``, ``(pkk)``)
    still needs only its edges to be free of adjacent letters and digits.
    """
    return re.compile(r"(?<!\w)" + re.escape(string) + r"(?!\w)")


def visible_strings(text: str, strings: Iterable[str]) -> set[str]:
    """The ``strings`` (already normalised) that occur in ``text`` on word boundaries.

    ``text`` is normalised here, so ``"John  SMITH"`` shows ``"john smith"``, while ``"johnsmith"``
    or ``"johnny"`` do not show ``"john"``. A plain substring test filters before the regex.
    """
    haystack = normalize(text)
    return {s for s in strings if s and s in haystack and _pattern(s).search(haystack)}


@dataclass(frozen=True)
class Population:
    """The people the adversary knows: each one's strings, and each string's document frequency."""

    strings: dict[str, frozenset[str]]
    df: dict[str, int]

    @property
    def size(self) -> int:
        return len(self.strings)

    def idf(self, string: str) -> float:
        """``log(N / df)``: 0 for a string everyone has, ``log N`` for a string of one person."""
        return math.log(self.size / self.df[string])

    def weight(self, string: str) -> Fraction:
        """``N / df`` as an exact fraction: its log is :meth:`idf`, products of it rank exactly."""
        return Fraction(self.size, self.df[string])


def build_population(people: Mapping[str, Iterable[str]]) -> Population:
    """The population of ``people`` (person id -> known strings), strings normalised, empty ones dropped."""
    strings = {person: frozenset(s for s in map(normalize, known) if s) for person, known in people.items()}
    df = Counter(s for known in strings.values() for s in known)
    return Population(strings=strings, df=dict(df))


@dataclass(frozen=True)
class Outcome:
    """The attack on one document.

    ``rank`` is 1 + the number of people scored strictly higher than the true person; ``n_tied`` the
    number of people sharing the true person's score (the true person included); ``success`` means
    rank 1 with no one tied; ``p_top1_random`` is the chance that the adversary names the true person
    when they break ties uniformly at random (1 / n_tied at rank 1, else 0): the expectation, so no
    seed is involved. ``score_true`` / ``score_best`` are the summed IDFs; ``best`` are the people with
    the top score, sorted.
    """

    person: str
    rank: int
    n_tied: int
    success: bool
    p_top1_random: float
    score_true: float
    score_best: float
    best: tuple[str, ...]
    n_visible_true: int
    n_known_true: int


def score(population: Population, visible: set[str], person: str) -> tuple[Fraction, float]:
    """The person's exact ranking key (product of ``N / df``) and summed IDF over their visible strings."""
    mine = sorted(population.strings[person] & visible)
    key = Fraction(1)
    for s in mine:
        key *= population.weight(s)
    return key, math.fsum(population.idf(s) for s in mine)


def attack(population: Population, text: str, person: str) -> Outcome:
    """Rank the population on ``text`` (a sanitized document) and judge the guess for ``person``."""
    if person not in population.strings:
        raise KeyError(f"{person!r} is not in the population")
    visible = visible_strings(text, population.df)
    scores = {p: score(population, visible, p) for p in population.strings}
    key_true, idf_true = scores[person]
    key_best = max(key for key, _ in scores.values())
    higher = sum(1 for key, _ in scores.values() if key > key_true)
    tied = sum(1 for key, _ in scores.values() if key == key_true)
    best = tuple(sorted(p for p, (key, _) in scores.items() if key == key_best))
    return Outcome(
        person=person,
        rank=higher + 1,
        n_tied=tied,
        success=higher == 0 and tied == 1,
        p_top1_random=1.0 / tied if higher == 0 else 0.0,
        score_true=idf_true,
        score_best=scores[best[0]][1],
        best=best,
        n_visible_true=len(population.strings[person] & visible),
        n_known_true=len(population.strings[person]),
    )


def merge_spans(spans: Iterable[Sequence[int]], length: int | None = None) -> list[tuple[int, int]]:
    """Sorted, non-overlapping ``(start, end)`` covering the same characters (clipped to ``length``)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted((int(s), int(e)) for s, e, *_ in spans):
        if length is not None:
            start, end = max(0, start), min(length, end)
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def chars_kept(masked: Iterable[Sequence[int]], length: int) -> int:
    """How many of ``length`` characters no masked span covers (overlaps counted once)."""
    return length - sum(end - start for start, end in merge_spans(masked, length))


def mask_text(text: str, masked: Iterable[Sequence[int]], placeholder: str = "[MASKED]") -> str:
    """``text`` with every (merged) masked span replaced by ``placeholder``: a sanitized text for the
    reference points that have offsets but no pipeline output."""
    out, pos = [], 0
    for start, end in merge_spans(masked, len(text)):
        out += [text[pos:start], placeholder]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def people_from_tab(documents: Iterable, types: Sequence[str] = KNOWN_TYPES) -> dict[str, list[str]]:
    """One person per TAB document (a document is one case): doc_id -> the ``span_text`` of its
    mentions of ``types``, over all annotators. ``documents`` are ``TabDocument`` objects."""
    people: dict[str, list[str]] = {}
    for doc in documents:
        if doc.doc_id in people:
            raise ValueError(f"doc_id {doc.doc_id!r} appears twice in the population")
        people[doc.doc_id] = [m.text for ms in doc.annotations.values() for m in ms if m.identifier_type in types]
    return people


def gold_masking(document, types: Sequence[str] = KNOWN_TYPES, annotator: str | None = None) -> list[list[int]]:
    """The ``[start, end]`` of one annotator's mentions of ``types`` in a ``TabDocument`` (its first
    annotator unless named; ``[]`` when it has none)."""
    if annotator is None:
        annotator = next(iter(document.annotations), None)
    mentions = document.annotations.get(annotator, []) if annotator is not None else []
    return [[m.start, m.end] for m in mentions if m.identifier_type in types]
