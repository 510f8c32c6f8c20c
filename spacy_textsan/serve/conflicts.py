"""How ``/anonymize`` resolves the conflicts among the results it is given,
so that every character of the text belongs to one result at most and each
operator sees only the characters of its own result.

The steps of Presidio's anonymizer, with its conflict resolution
``REMOVE_INTERSECTIONS`` (:func:`resolve`):

1. results of one entity type that overlap become one: their union, the
   highest score;
2. a result inside another (of any score) is dropped; of results with the
   same offsets the highest score stays (the later one on a tie);
3. results that overlap partly are cut, left to right: of two overlapping
   results the one with the higher score keeps the shared characters (the
   earlier one on a tie) and the other is cut to what is left; a result cut
   to nothing is dropped, and so is a result that covers no character;
4. results of one entity type with only spaces between them become one (the
   later one's score).

Presidio's default (``MERGE_SIMILAR_OR_CONTAINED``) stops after step 2 and
gives the earlier of two partly overlapping results its whole text: a ``mask``
or ``keep`` on it would bring back characters of the other. The text of the
answer is otherwise the same.
"""

import heapq
import re
from collections.abc import Iterable
from dataclasses import dataclass

from .work import Deadline

#: How many steps go by between two looks at the deadline.
CHECK_EVERY = 512
#: Presidio's "only spaces between": ``$`` also matches before a final newline.
_SPACES = re.compile(r"^( )+$")


@dataclass
class Hit:
    """A result on its way through the conflict resolution."""

    start: int
    end: int
    score: float
    kind: str


def resolve(text: str, hits: Iterable[Hit], deadline: Deadline) -> list[Hit]:
    """The results of ``hits`` without conflicts (see the module doc): disjoint, non-empty, by position."""
    ordered = sorted((Hit(h.start, h.end, h.score, h.kind) for h in hits), key=_position)
    kept = _without_intersections(_without_contained(_merged_by_type(ordered, deadline)), deadline)
    return _joined_by_spaces(text, kept)


def _position(hit: Hit) -> tuple[int, int]:
    return hit.start, hit.end


def _merged_by_type(hits: list[Hit], deadline: Deadline) -> list[Hit]:
    """Overlapping hits of one type become one (their union, the highest score).
    ``hits`` come by position; the merged ones stay in the order of the last
    hit each absorbed (which decides ties among equal offsets later)."""
    current: dict[str, tuple[int, Hit]] = {}  # the hit of each type being grown, and its place
    kept: list[tuple[int, Hit]] = []
    for i, hit in enumerate(hits):
        if i % CHECK_EVERY == 0:
            deadline.check()
        found = current.get(hit.kind)
        if found is not None and min(found[1].end, hit.end) > max(found[1].start, hit.start):  # share a character
            grown = found[1]
            grown.start, grown.end, grown.score = (
                min(grown.start, hit.start),
                max(grown.end, hit.end),
                max(grown.score, hit.score),
            )
            current[hit.kind] = (i, grown)
            continue
        if found is not None:
            kept.append(found)
        current[hit.kind] = (i, hit)
    kept.extend(current.values())
    return [hit for _, hit in sorted(kept, key=lambda placed: placed[0])]


def _without_contained(hits: list[Hit]) -> list[Hit]:
    """Hits inside another dropped; of hits with equal offsets the highest score stays (the last on a tie)."""
    order = sorted(range(len(hits)), key=lambda i: (hits[i].start, -hits[i].end))
    dropped: set[int] = set()
    largest_end: int | None = None
    g = 0
    while g < len(order):
        first = hits[order[g]]
        h = g
        while h < len(order) and _position(hits[order[h]]) == _position(first):
            h += 1
        group = order[g:h]
        if largest_end is not None and largest_end >= first.end:
            dropped.update(group)
        else:
            keep = max(group, key=lambda i: (hits[i].score, i))
            dropped.update(i for i in group if i != keep)
        largest_end = first.end if largest_end is None else max(largest_end, first.end)
        g = h
    return [hit for i, hit in enumerate(hits) if i not in dropped]


def _without_intersections(hits: list[Hit], deadline: Deadline) -> list[Hit]:
    """Partly overlapping hits cut, left to right: the higher score keeps the
    shared characters (the earlier hit on a tie), the other is cut to what is
    left; empty hits dropped. The hits not yet settled wait in a heap by
    position, where a cut one goes back (Presidio sorts its list again)."""
    waiting = [(h.start, h.end, i, h) for i, h in enumerate(sorted(hits, key=_position))]
    heapq.heapify(waiting)
    settled: list[Hit] = []
    steps = 0
    while waiting:
        if len(settled) % CHECK_EVERY == 0:
            deadline.check()
        cur = heapq.heappop(waiting)[3]
        while waiting and waiting[0][3].start < cur.end:  # a cut `cur` ends where the next one starts
            steps += 1
            if steps % CHECK_EVERY == 0:
                deadline.check()
            _, _, i, nxt = heapq.heappop(waiting)
            if cur.score >= nxt.score:
                nxt.start = cur.end
            else:
                cur.end = nxt.start
            heapq.heappush(waiting, (nxt.start, nxt.end, i, nxt))
        settled.append(cur)
    return [hit for hit in settled if hit.start < hit.end]


def _joined_by_spaces(text: str, hits: list[Hit]) -> list[Hit]:
    """Hits of one type with only spaces between them become one (the later one's score)."""
    out: list[Hit] = []
    for hit in hits:
        if out and out[-1].kind == hit.kind and _SPACES.search(text[out[-1].end : hit.start]):
            hit = Hit(out.pop().start, hit.end, hit.score, hit.kind)
        out.append(hit)
    return out
