"""Combining candidate spans from several sources on character offsets.

Pure functions over :class:`Candidate` tuples, testable without a pipeline.
``union`` keeps every source's spans; ``intersect`` keeps only the characters
that every source tagged (anonymization-tool's intersection on character indices), with
the label of the first source. ``resolve_overlaps`` then picks one span per
stretch of text.
"""

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

#: Candidate priorities, highest first in :func:`resolve_overlaps`: a deny-list
#: entry, a code, any other detection, another mention of a detected string.
PRIORITY_DENY, PRIORITY_CODE, PRIORITY_DEFAULT, PRIORITY_PROPAGATED = 3, 2, 1, 0
#: The label of a cue word of the rule layer: the label or greeting before a name ("Kontakt:",
#: "Dear"), the key of a log value ("user" of "user=bob"). It names no one: no candidate of a
#: statistical NER or of the name lexicon keeps its characters, and :func:`claim_names` drops it.
CUE = "CUE"
#: The sources of a field's value whose label the field's name gives ("Contact: ...", a table's column):
#: a PERSON of theirs is a person only outside the codes of other detectors in it.
FIELD_VALUES = frozenset({"id:field_value", "id:table_cell"})


@dataclass(frozen=True)
class Candidate:
    start: int
    end: int
    label: str
    source: str
    priority: int = 1
    #: the recognizer that found it (:mod:`.recognizers`; "" for a source NER's or a mention's); not
    #: part of its identity (two recognizers' equal candidates are one)
    recognizer: str = field(default="", compare=False)
    #: it was read as a direct identifier (a PERSON or a CODE) before its label was settled as another
    #: (:mod:`.label_settling`: a firm named after persons, a date of birth read as a code): it stays one
    #: (``span._.identifier_type`` DIRECT), so that settling a label never unmasks it
    direct: bool = field(default=False, compare=False)

    @property
    def length(self) -> int:
        return self.end - self.start


def union(sources: Sequence[Sequence[Candidate]]) -> list[Candidate]:
    return [c for spans in sources for c in spans]


def _merged_intervals(spans: Sequence[Candidate]) -> list[tuple]:
    out: list[list] = []
    for c in sorted(spans, key=lambda c: (c.start, c.end)):
        if out and c.start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], c.end)
        else:
            out.append([c.start, c.end])
    return [tuple(iv) for iv in out]


def _intersect_intervals(a: Sequence[tuple], b: Sequence[tuple]) -> list[tuple]:
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if start < end:
            out.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def intersect(sources: Sequence[Sequence[Candidate]]) -> list[Candidate]:
    """Character ranges tagged by every source; label and source of the first
    source's span that overlaps each range."""
    if not sources:
        return []
    common = _merged_intervals(sources[0])
    for spans in sources[1:]:
        common = _intersect_intervals(common, _merged_intervals(spans))
    first = sorted(sources[0], key=lambda c: (c.start, c.end))
    out = []
    for start, end in common:
        owner = next(c for c in first if c.start < end and c.end > start)
        names = "+".join(sorted({c.source for spans in sources for c in spans if c.start < end and c.end > start}))
        out.append(Candidate(start, end, owner.label, names, owner.priority))
    return out


def combine(sources: Sequence[Sequence[Candidate]], how: str) -> list[Candidate]:
    if how == "union":
        return union(sources)
    if how == "intersection":
        return intersect(sources)
    raise ValueError(f"combine must be 'union' or 'intersection', not {how!r}")


def _source_rank(source: str) -> int:
    """At equal priority and length: rules, then the name layer, then statistical sources."""
    return 0 if source.startswith("rule:") else 1 if source.startswith("name:") else 2


def resolve_overlaps(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Non-overlapping selection: higher priority first, then longer, then
    rules and the name layer before statistical sources, then earlier.
    Returned sorted by offset."""
    chosen: list[Candidate] = []
    starts: list[int] = []  # the taken intervals, disjoint, sorted by start
    ends: list[int] = []
    order = sorted(
        candidates, key=lambda c: (-c.priority, -c.length, _source_rank(c.source), c.start, c.label, c.source)
    )
    for c in order:
        if c.length <= 0:
            continue
        i = bisect_right(starts, c.start)
        # disjoint intervals: only the one starting at or before c.start and the next can overlap
        if (i > 0 and ends[i - 1] > c.start) or (i < len(starts) and starts[i] < c.end):
            continue
        chosen.append(c)
        starts.insert(i, c.start)
        ends.insert(i, c.end)
    return sorted(chosen, key=lambda c: (c.start, c.end))


_WORD_CHAR = re.compile(r"\w")


def _pieces(text: str, c: Candidate, holes: Sequence[Candidate]) -> list[Candidate]:
    """``c`` less the characters of ``holes``: its pieces that hold a word
    character, trimmed to their first and last word character."""
    edges = [(c.start, c.end)]
    for h in sorted(holes, key=lambda h: h.start):
        last_start, last_end = edges.pop()
        edges += [(last_start, min(last_end, h.start)), (max(last_start, h.end), last_end)]
    out = []
    for start, end in edges:
        words = list(_WORD_CHAR.finditer(text, start, end))
        if words:
            out.append(replace(c, start=words[0].start(), end=words[-1].end()))
    return out


def claim_names(text: str, candidates: Sequence[Candidate]) -> list[Candidate]:
    """What a statistical NER misreads keeps no name or number of another
    kind: a candidate of a source NER (``ner:``) that is not a PERSON loses
    the characters of the person names of the name layer (``name:``) it
    overlaps ("Jana Nováková ID" read as MISC), and a PERSON that overlaps a
    code or an identifier keeps what is outside it ("Ayşe Demir TC
    10000000146" read as one PERSON: "Ayşe Demir TC" stays a PERSON instead
    of losing to the number whole); so does the value of a field that
    announces a person (:data:`FIELD_VALUES`: "Contact: 0121 4960300 /
    kerry98@hotmail.com" keeps the phone and the e-mail address CODEs, and
    nothing of the PERSON but what lies outside them). Pieces without a word character go. A
    place or an organisation keeps a name with words around it ("the Idre
    Nya Sami village", "Nowa Sól Detention Centre"): only what is left of it
    without a small letter ("ID", a number) gives the name up. The cue words
    (:data:`CUE`) go, and a candidate of a source NER, of the name layer or
    of a rule loses their characters ("Dear Sven" read as one ORG keeps
    "Sven", ``user.email=ada@example.org`` read as one e-mail address keeps
    the address)."""
    names = _Overlaps([c for c in candidates if c.label == "PERSON" and c.source.startswith("name:")])
    codes = _Overlaps([c for c in candidates if c.priority >= PRIORITY_CODE])
    cues = _Overlaps([c for c in candidates if c.label == CUE])
    out: list[Candidate] = []
    for c in candidates:
        if c.label == CUE:
            continue
        holes: list[Candidate] = []
        if c.source.startswith("ner:") and c.label != "PERSON":
            holes = names.of(c)
            if holes and c.label in ("LOC", "ORG"):
                rest = "".join(text[p.start : p.end] for p in _pieces(text, c, holes))
                holes = [] if any(ch.islower() for ch in rest) else holes
        elif c.label == "PERSON" and c.priority < PRIORITY_CODE:
            holes = codes.of(c)
        elif c.label == "PERSON" and c.source in FIELD_VALUES:
            holes = [k for k in codes.of(c) if k.label == "CODE"]
        if c.source.startswith(("ner:", "name:", "rule:")):
            holes += cues.of(c)
        out.extend(_pieces(text, c, holes) if holes else [c])
    return out


class _Overlaps:
    """Candidates sorted by start, to find those overlapping a span without a loop over all of them
    (a document naming a person thousands of times would make that quadratic)."""

    def __init__(self, spans: Sequence[Candidate]) -> None:
        self.spans = sorted(spans, key=lambda c: (c.start, c.end))
        self.starts = [c.start for c in self.spans]
        self.longest = max((c.end - c.start for c in self.spans), default=0)

    def of(self, c: Candidate) -> list[Candidate]:
        """The spans overlapping ``c``, in text order."""
        lo = bisect_left(self.starts, c.start - self.longest)  # none before ``lo`` reaches ``c``
        hi = bisect_left(self.starts, c.end)
        return [k for k in self.spans[lo:hi] if k.end > c.start]


def yield_to_amounts(candidates: Sequence[Candidate]) -> list[Candidate]:
    """``candidates`` less a source NER's bare number (its CARDINAL, read as a CODE) that overlaps an amount of
    the rule layer: ``approximately 80,000`` of ``approximately 80,000 euros (EUR)`` is the amount's number, a
    QUANTITY, not a code (it would win the overlap by the length of ``approximately``)."""
    amounts = _Overlaps([c for c in candidates if c.label == "QUANTITY" and c.source.startswith("rule:")])
    return [c for c in candidates if not (c.source.endswith(":CARDINAL") and amounts.of(c))]
