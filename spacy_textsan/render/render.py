"""Rendering a sanitized text from replacements, with an offset map.

Pure functions. The offset map is a list of segments
``[sanitized_start, sanitized_end, original_start, original_end]`` covering
both texts completely and in order: kept stretches have equal lengths,
replacements map a replacement string onto the original span.
"""

from bisect import bisect_right
from collections.abc import Sequence

Replacement = tuple[int, int, str]


def merge_replacements(replacements: Sequence[Replacement]) -> list[Replacement]:
    """Sort and merge overlapping ranges (the earliest range's replacement wins)."""
    out: list[list] = []
    for start, end, rep in sorted(replacements, key=lambda r: (r[0], -r[1])):
        if start >= end:
            continue
        if out and start < out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end, rep])
    return [tuple(r) for r in out]


def render(text: str, replacements: Sequence[Replacement]) -> tuple[str, list[list[int]]]:
    """Apply replacements; returns ``(sanitized_text, offset_map)``."""
    pieces: list[str] = []
    offset_map: list[list[int]] = []
    pos = san = 0
    for start, end, rep in merge_replacements(replacements):
        if start > pos:
            pieces.append(text[pos:start])
            offset_map.append([san, san + start - pos, pos, start])
            san += start - pos
        pieces.append(rep)
        offset_map.append([san, san + len(rep), start, end])
        san += len(rep)
        pos = end
    if pos < len(text) or not offset_map:
        pieces.append(text[pos:])
        offset_map.append([san, san + len(text) - pos, pos, len(text)])
    return "".join(pieces), offset_map


def to_original(offset_map: Sequence[Sequence[int]], position: int) -> tuple[int, int]:
    """The original character range that sanitized ``position`` comes from:
    one character in kept text, the whole span inside a replacement."""
    starts = [seg[0] for seg in offset_map]
    i = max(0, bisect_right(starts, position) - 1)
    s_start, s_end, o_start, o_end = offset_map[i]
    if not s_start <= position < max(s_end, s_start + 1):
        raise IndexError(f"position {position} outside the sanitized text")
    if s_end - s_start == o_end - o_start:
        p = o_start + position - s_start
        return p, p + 1
    return o_start, o_end
