"""Later mentions of detected persons: a given name or surname alone,
"P. Halvorsen", "P.H.", possessives and inflections, in any case where the
word is no common English word.

Pure functions over a string returning ``(start, end, label, rule_name)``
tuples (:data:`.names.NameCandidate`).
"""

import re
from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate

from wordfreq import zipf_frequency

from .names import COMMON, FIRST, LAST, LATIN_LETTERS, PARTICLES, PERSON, NameCandidate, is_common_word, name_lexicon
from .rules import TITLES

_L = LATIN_LETTERS
_WORD = re.compile(rf"[{_L}]+(?:['’\-][{_L}]+)*|[{_L}]\.")
#: a suffix after an apostrophe ("Yalman'ın", "Peder's") or a genitive "s"
_SUFFIX = r"(?:['’][a-zçğıöşüäë]{1,5}|s)?"


def name_variants(full_name: str) -> list[str]:
    """Forms by which ``full_name`` is mentioned later, longest first: the
    name without a title, each given name and surname word alone (capitalised
    unless the whole name is lower case; not particles, initials, one-letter
    words or common English words that are no name anywhere), "P. Halvorsen",
    "P Halvorsen", and dotted initials "P.H." (two or more words). Original
    case."""
    words = _WORD.findall(full_name)
    while words and words[0].rstrip(".").lower() in TITLES and len(words) > 1:
        words = words[1:]
    if not words:
        return []
    variants = [" ".join(words)]
    cased = any(ch.isupper() for ch in full_name)
    parts = [
        w
        for w in words
        if len(w) > 1
        and not w.endswith(".")
        and w.lower() not in PARTICLES
        and (w[0].isupper() or not cased)
        and not _plain_word(w)
    ]
    variants.extend(parts)
    if len(words) >= 2 and words[-1] in parts:
        initial = words[0][0].upper()
        variants += [f"{initial}. {words[-1]}", f"{initial} {words[-1]}"]
        initials = [w[0].upper() for w in words if w.lower() not in PARTICLES]
        variants.append(".".join(initials) + ".")
    seen, out = set(), []
    for v in sorted(variants, key=lambda v: (-len(v), variants.index(v))):
        if v not in seen:
            seen.add(v)
            out.append(v)
    return out


def _plain_word(word: str) -> bool:
    """A common English word that no Faker locale lists as a name ("Chancellor")."""
    flags = name_lexicon().get(word.casefold(), 0)
    return bool(flags & COMMON) and not flags & (FIRST | LAST)


def find_name_mentions(text: str, person_spans: Sequence[tuple[int, int]]) -> list[NameCandidate]:
    """Mentions of the persons in ``person_spans`` anywhere in ``text`` outside
    those spans: full name, a given name or surname alone, "P. Halvorsen",
    "P.H.", in any case for uncommon words of 4+ letters. A one-word variant
    that is a common English word ("Will", "White") or has at most 3 letters
    ("Li", "Ali") matches only in its original case or in ALL CAPS (not a
    common given name: "WILL" is no mention), and a common given name not at
    the start of a sentence; dotted initials only as written. Possessive and
    apostrophe suffixes ("HALVORSEN's", "Yalman'ın") and a genitive "s" are
    matched but left outside the span. Returns ``(s, e, "PERSON",
    "name_mention")``."""
    exact, folded, given, caps = set(), set(), set(), set()
    for s, e in person_spans:
        variants = name_variants(text[s:e])
        surname = _WORD.findall(text[s:e])[-1:]
        for v in variants:
            one_word = " " not in v
            common = one_word and is_common_word(v)
            if one_word and "." in v:
                exact.add(v)  # "P.H."
            elif common or (one_word and len(v) <= 3):
                exact.add(v)
                if common and [v] != surname:
                    given.add(v)
                else:
                    caps.add(v.casefold())
            else:
                folded.add(v.casefold())
    if not exact and not folded:
        return []
    forms = sorted(exact | folded, key=lambda v: (-len(v), v))
    body = "|".join(re.escape(v).replace(r"\ ", r"\s+") for v in forms)
    regex = re.compile(rf"(?<![{_L}\w.])(?P<name>{body})(?P<suffix>{_SUFFIX})(?![{_L}\w])", re.IGNORECASE)
    spans = sorted(person_spans)
    starts = [ps for ps, _ in spans]
    reach = list(accumulate((pe for _, pe in spans), max))  # the furthest end among the first i spans
    out = []
    for m in regex.finditer(text):
        s, e = m.span("name")
        found = re.sub(r"\s+", " ", m.group("name"))
        if (
            found not in exact
            and found.casefold() not in folded
            and not (found.isupper() and len(found) > 2 and found.casefold() in caps)
        ):
            continue
        if (
            found in exact
            and found in given
            and _sentence_initial(text, s)
            and zipf_frequency(found.lower(), "en") >= 4.5
        ):
            continue  # "Grace was late", "Will you": a very common word opening a sentence
        if m.group("suffix") == "s" and found.casefold() not in folded:
            continue
        before = bisect_left(starts, e)  # the spans that start before the mention ends
        if before and reach[before - 1] > s:  # one of them ends after it starts: they overlap
            continue
        out.append((s, e, PERSON, "name_mention"))
    return out


def _sentence_initial(text: str, start: int) -> bool:
    before = text[max(0, start - 20) : start].rstrip()
    return not before or before[-1] in '.!?:;"“(\n' or text[max(0, start - 2) : start].count("\n") > 0
