"""k-anonymity over the postings of an inverted index: Algorithm 1 of
Papadopoulou et al. 2022b ("Bootstrapping Text Anonymization Models with Distant
Supervision", §3.2).

Pure functions of the terms of a document and an
:class:`~spacy_textsan.risk.kanon_index.InvertedIndex`, without spaCy or files:

* :func:`risky_terms` lists the terms with fewer than ``k`` postings: each of
  them alone narrows the individual down to fewer than ``k`` candidates.
* :func:`risky_combinations` lists the minimal combinations of 2 to
  ``max_arity`` terms (each fine alone) whose postings intersect in 1 to
  ``k - 1`` records: together they break k-anonymity.
* :func:`terms_to_mask` is Algorithm 1: mask the risky terms, then repeatedly
  find the first combination that breaks k-anonymity among the terms still
  in clear, mask one of its terms (``greedy``: the one with the shortest
  posting list; ``random``: a seeded random one) and restart.

Terms absent from the index have 0 postings, so they are risky alone (fail
closed: nothing is known about how many people share them). When the
document being sanitized is itself one of the records (e.g. the index was
built from the collection being sanitized), a term unique to it has exactly
1 posting. A combination whose postings do not intersect at all (0 records)
is *not* risky: no known individual matches it, which is also how Algorithm 1
treats it (``1 <= |∩ postings| < k``).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Sequence

from .kanon_index import InvertedIndex, intersection_count

__all__ = [
    "SELECTIONS",
    "CombinationBudgetExceeded",
    "risky_terms",
    "risky_combinations",
    "terms_to_mask",
    "select_terms",
]

#: Term selection strategies of Algorithm 1.
SELECTIONS = ("greedy", "random")


class CombinationBudgetExceeded(RuntimeError):
    """:func:`terms_to_mask` evaluated ``max_combinations`` intersections
    without finishing. ``partial`` holds the terms selected so far; a caller
    must treat every remaining term as risky (fail closed); ``chosen`` the
    same with their evidence, as :func:`select_terms` returns it."""

    def __init__(self, max_combinations: int, chosen: list[tuple[str, tuple[str, ...] | None, int]]) -> None:
        super().__init__(f"combination budget of {max_combinations} intersections exhausted")
        self.max_combinations = max_combinations
        self.chosen = chosen
        self.partial = [term for term, _, _ in chosen]


def _unique(terms: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(terms))


def risky_terms(terms: Iterable[str], index: InvertedIndex, k: int) -> list[str]:
    """Terms with fewer than ``k`` postings (unknown terms have 0), in input
    order, without duplicates."""
    return [t for t in _unique(terms) if index.count(t) < k]


def risky_combinations(
    terms: Iterable[str],
    index: InvertedIndex,
    k: int,
    max_arity: int = 2,
    max_combinations: int = 100_000,
) -> tuple[list[tuple[str, ...]], bool]:
    """Minimal combinations of 2..``max_arity`` terms that break k-anonymity.

    Only terms that are not risky alone are combined (a risky term is masked
    anyway). A combination is risky when its terms' postings intersect in 1
    to ``k - 1`` records. Only minimal ones are returned: a combination that
    contains a risky combination, or one whose postings do not intersect
    (0 records; no superset can match anyone either), is not evaluated.

    Order is deterministic: by arity, then :func:`itertools.combinations`
    order of the (deduplicated) input; each tuple keeps input order.

    Returns ``(combinations, complete)``: ``complete`` is False when
    ``max_combinations`` intersections were evaluated before the enumeration
    ended; the list then holds what was found so far and the caller must fail
    closed.
    """
    terms = _unique(terms)
    bitmaps = [index.postings(t) for t in terms]
    safe = [i for i, b in enumerate(bitmaps) if len(b) >= k]
    found: list[tuple[str, ...]] = []
    pruned: set[frozenset[int]] = set()  # risky or empty combinations (by term position)
    evaluated = 0
    for arity in range(2, max_arity + 1):
        for combo in itertools.combinations(safe, arity):
            if arity > 2 and _has_pruned_subset(combo, pruned):
                continue
            if evaluated >= max_combinations:
                return found, False
            evaluated += 1
            count = intersection_count([bitmaps[i] for i in combo], index.n_records)
            if count < k:
                pruned.add(frozenset(combo))
                if count >= 1:
                    found.append(tuple(terms[i] for i in combo))
    return found, True


def _has_pruned_subset(combo: tuple[int, ...], pruned: set[frozenset[int]]) -> bool:
    if not pruned:
        return False
    for size in range(2, len(combo)):
        for sub in itertools.combinations(combo, size):
            if frozenset(sub) in pruned:
                return True
    return False


def _greedy_select(combo: Sequence[str], index: InvertedIndex, rng: random.Random) -> str:
    """The term with the shortest posting list; ties: the smallest term."""
    return min(combo, key=lambda t: (index.count(t), t))


def _random_select(combo: Sequence[str], index: InvertedIndex, rng: random.Random) -> str:
    return rng.choice(list(combo))


_SELECTORS: dict[str, Callable[[Sequence[str], InvertedIndex, random.Random], str]] = {
    "greedy": _greedy_select,
    "random": _random_select,
}


def select_terms(
    terms: Iterable[str],
    index: InvertedIndex,
    k: int,
    max_arity: int = 2,
    selection: str = "greedy",
    seed: int = 0,
    max_combinations: int | None = None,
) -> list[tuple[str, tuple[str, ...] | None, int]]:
    """Algorithm 1 with its evidence: ``[(term, combination, count), ...]``
    in selection order. ``combination`` is None for a term risky alone
    (``count`` its postings), else the combination it was selected from
    (``count`` the size of the combination's intersection).

    See :func:`terms_to_mask`. Raises :class:`CombinationBudgetExceeded` when
    ``max_combinations`` (None: unlimited) intersections were evaluated.
    """
    if selection not in _SELECTORS:
        raise ValueError(f"selection must be one of {SELECTIONS}, got {selection!r}")
    select = _SELECTORS[selection]
    rng = random.Random(seed)
    terms = _unique(terms)
    bitmaps = {t: index.postings(t) for t in terms}
    chosen: list[tuple[str, tuple[str, ...] | None, int]] = []
    masked: set[str] = set()
    # lines 11-14: terms associated with < k individuals
    for term in terms:
        if len(bitmaps[term]) < k:
            chosen.append((term, None, len(bitmaps[term])))
            masked.add(term)
    cache: dict[tuple[str, ...], int] = {}  # restarts re-check the same tuples
    evaluated = 0
    while len(masked) < len(terms):
        remaining = [t for t in terms if t not in masked]
        breach = None
        for arity in range(2, max_arity + 1):
            for combo in itertools.combinations(remaining, arity):
                count = cache.get(combo)
                if count is None:
                    if max_combinations is not None and evaluated >= max_combinations:
                        raise CombinationBudgetExceeded(max_combinations, list(chosen))
                    evaluated += 1
                    count = cache[combo] = intersection_count([bitmaps[t] for t in combo], index.n_records)
                if 1 <= count < k:
                    breach = (combo, count)
                    break
            if breach:
                break
        if breach is None:  # every combination satisfies k-anonymity
            break
        term = select(breach[0], index, rng)
        chosen.append((term, breach[0], breach[1]))
        masked.add(term)
    return chosen


def terms_to_mask(
    terms: Iterable[str],
    index: InvertedIndex,
    k: int,
    max_arity: int = 2,
    selection: str = "greedy",
    seed: int = 0,
    max_combinations: int | None = None,
) -> list[str]:
    """Algorithm 1 of Papadopoulou et al. 2022b: the terms to mask so that
    every combination of up to ``max_arity`` terms left in clear matches 0 or
    at least ``k`` records.

    1. Every term with fewer than ``k`` postings is masked.
    2. Combinations of the terms still in clear are enumerated, pairs first,
       then triples… (input order, deduplicated); at the first one whose
       postings intersect in 1 to ``k - 1`` records, one of its terms is
       selected — ``"greedy"``: the shortest posting list (ties: the smallest
       term); ``"random"``: ``random.Random(seed).choice`` — masked, and the
       enumeration restarts.
    3. It stops when no combination breaks k-anonymity or every term is masked.

    Returns the selected terms in selection order. Raises
    :class:`CombinationBudgetExceeded` after ``max_combinations`` (None:
    unlimited) distinct intersections.
    """
    return [t for t, _, _ in select_terms(terms, index, k, max_arity, selection, seed, max_combinations)]
