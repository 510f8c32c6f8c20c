"""Entity ids: mentions of the same entity in a document share one id.

Pure function over (text, label) pairs. Two mentions of one label are linked
when their normalized forms are equal (case-folded, titles and leading
articles dropped), when one PERSON mention is the surname or an initialled
form of a longer name ("Yalman", "G. Yalman" -> "Galip Yalman"), or when their
fuzzy similarity (rapidfuzz ratio) reaches ``fuzzy_threshold``. Numbers,
codes and dates are linked by exact match only: one character changes them.
Ids are "<LABEL>-<n>", numbered per label in order of first appearance.
"""

import re
from collections.abc import Sequence

from rapidfuzz import fuzz

from .normalize import normalize as detection_copy
from .rules import ARTICLES, TITLES

EXACT_ONLY_LABELS = frozenset({"CODE", "DATETIME", "QUANTITY"})
_WORD = re.compile(r"\w+", re.UNICODE)


def normalize(text: str) -> tuple[str, ...]:
    """Case-folded word tokens without titles and leading articles, read on
    the detection copy (``Pe\u00adder`` and ``Ｐｅｄｅｒ`` are ``peder``)."""
    text = detection_copy(text).text
    matches = list(_WORD.finditer(text))
    words = [m.group().casefold() for m in matches]
    skip = 0
    while skip < len(words):
        word, end = words[skip], matches[skip].end()
        initial = len(word) == 1 and text[end : end + 1] == "."  # "A. Yalman": an initial, not an article
        if word in TITLES or (word in ARTICLES and not initial):
            skip += 1
        else:
            break
    words = words[skip:]
    # possessive "'s" leaves a trailing "s" token
    if len(words) > 1 and words[-1] == "s" and re.search(r"['’]s\s*$", text):
        words = words[:-1]
    return tuple(words)


def _name_compatible(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    """``short`` names the same person as ``long``: its last word is the
    surname (last word of ``long``) and its other words are the same given
    names or their initials, in order; or it is the first given name alone."""
    if not short or len(short) > len(long):
        return False
    if len(short) == 1 and len(long) >= 2 and short[0] == long[0] and len(short[0]) > 1:
        return True  # the given name alone: "Peder" -> "Peder Halvorsen"
    if short[-1] != long[-1]:
        return False
    given_long = list(long[:-1])
    for word in short[:-1]:
        while given_long and not (given_long[0] == word or (len(word) == 1 and given_long[0].startswith(word))):
            given_long.pop(0)
        if not given_long:
            return False
        given_long.pop(0)
    return True


def assign_entity_ids(mentions: Sequence[tuple[str, str]], fuzzy_threshold: float = 90.0) -> list[str]:
    """One id per mention; mentions are ``(text, label)`` in document order."""
    n = len(mentions)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(i: int, j: int) -> None:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)

    norms = [normalize(text) for text, _ in mentions]
    by_label: dict[str, list[int]] = {}
    for i, (_, label) in enumerate(mentions):
        by_label.setdefault(label, []).append(i)

    for label, idx in by_label.items():
        # exact normalized match
        first_of: dict[tuple[str, ...], int] = {}
        for i in idx:
            key = norms[i] or (mentions[i][0].casefold(),)
            if key in first_of:
                join(first_of[key], i)
            else:
                first_of[key] = i
        if label in EXACT_ONLY_LABELS:
            continue
        reps = list(first_of.values())
        # longer forms first so that a surname joins the first full name with it
        reps_by_len = sorted(reps, key=lambda i: (-len(norms[i]), i))
        for a_pos, a in enumerate(reps_by_len):
            for b in reps_by_len[:a_pos]:
                if find(a) == find(b):
                    continue
                if label == "PERSON":
                    if _name_compatible(norms[a], norms[b]):
                        join(a, b)
                        break
                    if len(norms[a]) < len(norms[b]):
                        continue
                ta, tb = " ".join(norms[a]), " ".join(norms[b])
                if ta and tb and fuzz.ratio(ta, tb) >= fuzzy_threshold:
                    join(a, b)
                    break

    counters: dict[str, int] = {}
    root_id: dict[int, str] = {}
    ids = []
    for i, (_, label) in enumerate(mentions):
        root = find(i)
        if root not in root_id:
            counters[label] = counters.get(label, 0) + 1
            root_id[root] = f"{label}-{counters[label]}"
        ids.append(root_id[root])
    return ids
