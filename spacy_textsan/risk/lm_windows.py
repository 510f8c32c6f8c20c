"""How :class:`~.lm_backends.MaskedLMBackend` covers a document, as pure functions.

A document longer than the model's window is cut into overlapping windows
(:func:`make_windows`); each span is scored in the window where it has the
most context (:func:`best_window`), split into pieces if it is longer than a
window (:func:`split_span`); the pieces of one window are masked together in
as few sequences as possible, keeping unmasked tokens between them
(:func:`group_pieces`).
"""

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field

Offsets = tuple[int, int]


@dataclass
class Piece:
    """Subword tokens ``[start, end)`` (document token indices) of one span,
    scored together in one window. A span has one piece, or several if it is
    longer than a window, or none if it covers no token."""

    span_index: int
    start: int
    end: int


@dataclass
class Window:
    """Document tokens ``[start, end)`` fed to the model as one sequence, and the
    groups of pieces masked together (one sequence per group)."""

    start: int
    end: int
    groups: list[list[Piece]] = field(default_factory=list)


@dataclass
class DocPlan:
    """How one document is scored: its subword ids and windows."""

    input_ids: list[int]
    windows: list[Window]
    n_spans: int

    @property
    def n_sequences(self) -> int:
        return sum(len(w.groups) for w in self.windows)

    @property
    def n_span_tokens(self) -> int:
        return sum(p.end - p.start for w in self.windows for g in w.groups for p in g)


def token_range(offsets: Sequence[Offsets], token_ends: Sequence[int], start: int, end: int) -> tuple[int, int]:
    """Tokens ``[first, last)`` whose characters overlap ``[start, end)``.

    ``token_ends`` are the token end offsets made non-decreasing (for bisect).
    Tokens without characters (offsets ``(x, x)``) never start or end a
    range. An empty range means that the span covers no token."""
    first: int | None = None
    last = 0
    index = bisect.bisect_right(token_ends, start)  # first token ending after `start`
    while index < len(offsets) and offsets[index][0] < end:
        token_start, token_end = offsets[index]
        if token_start < token_end and token_end > start:
            first = index if first is None else first
            last = index + 1
        index += 1
    return (first, last) if first is not None else (0, 0)


def make_windows(n_tokens: int, length: int, stride: int) -> list[tuple[int, int]]:
    """Windows of at most ``length`` tokens starting every ``stride`` tokens;
    the last one ends at ``n_tokens``."""
    if n_tokens <= length:
        return [(0, n_tokens)]
    windows = []
    start = 0
    while start + length < n_tokens:
        windows.append((start, start + length))
        start += stride
    windows.append((n_tokens - length, n_tokens))
    return windows


def best_window(windows: Sequence[tuple[int, int]], start: int, end: int) -> int:
    """The window containing tokens ``[start, end)`` with the most context on
    its shorter side (ties: the earlier window)."""
    best, best_context = -1, -1
    for index, (w_start, w_end) in enumerate(windows):
        if w_start <= start and end <= w_end:
            context = min(start - w_start, w_end - end)
            if context > best_context:
                best, best_context = index, context
    return best


def split_span(windows: Sequence[tuple[int, int]], span_index: int, first: int, last: int) -> list[tuple[int, Piece]]:
    """(window index, piece) of a span covering tokens ``[first, last)``: one
    piece in the window where it has the most context, or, for a span longer
    than a window, consecutive pieces each in the window reaching furthest."""
    if first >= last:
        return []
    index = best_window(windows, first, last)
    if index >= 0:
        return [(index, Piece(span_index, first, last))]
    out = []
    current = first
    while current < last:
        index = max(
            (i for i, (w_start, w_end) in enumerate(windows) if w_start <= current < w_end),
            key=lambda i: windows[i][1],
        )
        end = min(last, windows[index][1])
        out.append((index, Piece(span_index, current, end)))
        current = end
    return out


def group_pieces(pieces: Sequence[Piece], min_gap: int = 1, max_group_size: int | None = None) -> list[list[Piece]]:
    """Split the pieces of one window into groups masked together.

    Two pieces of a group are separated by at least ``min_gap`` unmasked
    tokens; a group has at most ``max_group_size`` pieces (``None``: no limit;
    1: every span masked alone). First-fit on pieces sorted by position,
    which uses the fewest groups when there is no size limit."""
    groups: list[list[Piece]] = []
    group_ends: list[int] = []
    for piece in sorted(pieces, key=lambda p: (p.start, p.end, p.span_index)):
        for index, group in enumerate(groups):
            if piece.start - group_ends[index] >= min_gap and (max_group_size is None or len(group) < max_group_size):
                group.append(piece)
                group_ends[index] = piece.end
                break
        else:
            groups.append([piece])
            group_ends.append(piece.end)
    return groups
