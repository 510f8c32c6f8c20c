"""Other mentions of detected entities, so that no mention is left in clear:
every occurrence of a detected string, and the candidates of another type
that are a detected person's name.

Pure functions over a text and :class:`~.combine.Candidate` objects.
"""

import re
from collections.abc import Sequence

from .combine import PRIORITY_PROPAGATED, Candidate
from .rules import TITLES, is_name_token, words_pattern

_POSSESSIVE = re.compile(r"^(?:['’]s?|['’][^\W\d_]{1,5}|s)?$")


def relabel_name_mentions(text: str, chosen: Sequence[Candidate], mentions: Sequence[Candidate]) -> list[Candidate]:
    """A candidate of another type that is a detected person's name (with a
    possessive at most: ``HALVORSEN's`` tagged ORG by the NER) becomes PERSON,
    so that it joins the person's entity."""
    starts = {m.start: m for m in mentions}
    out = []
    for c in chosen:
        m = starts.get(c.start)
        if c.label != "PERSON" and m is not None and m.end <= c.end and _POSSESSIVE.match(text[m.end : c.end]):
            c = Candidate(c.start, m.end, "PERSON", c.source + "+name", c.priority, c.recognizer)
        out.append(c)
    return out


def propagate_mentions(text: str, chosen: Sequence[Candidate]) -> list[Candidate]:
    """Other occurrences of detected strings, so that no mention of a detected
    entity is left in clear: the exact surface form (without a title) and, for
    a PERSON with a first name, the surname alone. Case-sensitive, whole words."""
    terms: dict[str, Candidate] = {}
    for c in chosen:
        if c.priority == PRIORITY_PROPAGATED:
            continue
        words = text[c.start : c.end].split()
        if c.label == "PERSON" and words and words[0].rstrip(".").lower() in TITLES:
            words = words[1:]
        forms = [" ".join(words)]
        if (
            c.label == "PERSON"
            and len(words) >= 2
            and len(words[-1]) >= 3
            and is_name_token(words[-1])
            and "." not in words[-1]
        ):
            forms.append(words[-1])
        for form in forms:
            if len(form) >= 2 and any(ch.isalnum() for ch in form):
                terms.setdefault(form, c)
    if not terms:
        return []
    ordered = sorted(terms, key=lambda t: (-len(t), t))
    regex = re.compile(r"(?<!\w)(?:" + "|".join(words_pattern(t) for t in ordered) + r")(?!\w)")
    normalised = {re.sub(r"\s+", " ", t): c for t, c in terms.items()}
    out = []
    for m in regex.finditer(text):
        owner = normalised.get(re.sub(r"\s+", " ", m.group(0)))
        if owner is not None:
            out.append(Candidate(m.start(), m.end(), owner.label, f"propagated:{owner.source}", PRIORITY_PROPAGATED))
    return out
