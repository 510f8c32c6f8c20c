"""Columns of a table: a column of names without context is still a column of
names. Cells the pipeline left untouched in a column whose other cells are
mostly one identifier are masked whole."""

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from spacy.language import Language

from ..extensions import UNKNOWN
from ..render.render import render
from .results import DocResult

#: ``column_votes`` settings: fields with at least ``MIN_CELLS`` non-empty cells, of
#: which at least ``MIN_SHARE`` are one identifier, mask their undetected short cells.
COLUMN_MIN_CELLS, COLUMN_MIN_SHARE, COLUMN_MAX_WORDS = 3, 0.5, 6


def _whole_cell_label(text: str, res: DocResult) -> str | None:
    """The label of the one masked span that covers (nearly) all of a cell."""
    body = len(text.strip())
    masked = [s for s in res.spans if s["masked"] is not False]
    if not body or len(masked) != 1:
        return None
    span = masked[0]
    return span["label"] if (span["end"] - span["start"]) >= 0.8 * body else None


class ColumnTally:
    """What the column votes of one table need, gathered cell by cell (so a
    table can be streamed): per field, its non-empty cells and the labels of
    those masked whole."""

    def __init__(self) -> None:
        self.cells: Counter[str] = Counter()
        self.labels: dict[str, Counter[str]] = {}

    def add(self, field_name: str, text: str, res: DocResult) -> None:
        if text and text.strip():
            self.cells[field_name] += 1
            labels = self.labels.setdefault(field_name, Counter())
            if (label := _whole_cell_label(text, res)) is not None:
                labels[label] += 1

    def votes(self, min_cells: int = COLUMN_MIN_CELLS, min_share: float = COLUMN_MIN_SHARE) -> dict[str, str]:
        """Field -> the label its undetected short cells are masked with: a
        field with at least ``min_cells`` non-empty cells of which at least
        ``min_share`` are one identifier each (a whole cell masked, whatever
        its label); the label is the field's most frequent one."""
        out = {}
        for name, n_cells in self.cells.items():
            labels = self.labels.get(name)
            if n_cells < min_cells or not labels or sum(labels.values()) < min_share * n_cells:
                continue
            out[name] = labels.most_common(1)[0][0]
        return out


def voted_cell(text: str, res: DocResult, max_words: int = COLUMN_MAX_WORDS) -> bool:
    """A cell of a voted column that is masked whole: nothing masked in it,
    short (at most ``max_words`` words), one line."""
    return (
        bool(text and text.strip())
        and res.ok
        and res.n_masked == 0
        and len(text.split()) <= max_words
        and ("\n" not in text.strip())
    )


def column_votes(
    cells: Sequence[tuple],
    min_cells: int = COLUMN_MIN_CELLS,
    min_share: float = COLUMN_MIN_SHARE,
    max_words: int = COLUMN_MAX_WORDS,
) -> dict[int, str]:
    """``cells`` are ``(field, text, DocResult)`` of one file, in order: the
    cells to mask whole, ``{position in cells: label}`` (see
    :class:`ColumnTally` and :func:`voted_cell`)."""
    tally = ColumnTally()
    for field_name, text, res in cells:
        tally.add(field_name, text, res)
    votes = tally.votes(min_cells, min_share)
    return {
        i: votes[name]
        for i, (name, text, res) in enumerate(cells)
        if name in votes and voted_cell(text, res, max_words)
    }


def mask_cell(text: str, res: DocResult, label: str, mask_format: str = "[{label} {n}]") -> DocResult:
    """``res`` with the whole cell masked as ``label`` (source ``column_vote``)."""
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    sanitized, offset_map = render(text, [(start, end, mask_format.format(label=label, n=1))])
    span = {
        "start": start,
        "end": end,
        "text": text[start:end],
        "label": label,
        "entity_id": f"{label}-1",
        "identifier_type": UNKNOWN,
        "source": "column_vote",
        "kb_id": None,
        "kb_chain": None,
        "risk": {},
        "info_content": None,
        "masked": True,
        "replacement": sanitized[start : len(sanitized) - (len(text) - end)],
        "reasons": [f"most cells of this column are {label}"],
    }
    return replace(res, sanitized=sanitized, masked=[[start, end]], spans=[span], offset_map=offset_map)


def mask_format_of(nlp: Language) -> str:
    """The mask format of the pipeline's generalizer (the default one without)."""
    for _, proc in nlp.pipeline:
        mask_format = getattr(proc, "mask_format", None)
        if isinstance(mask_format, str):
            return mask_format
    return "[{label} {n}]"
