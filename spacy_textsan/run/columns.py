"""Columns of a table: a column of names without context is still a column of
names. Cells the pipeline left untouched in a column whose other cells are
mostly one identifier are masked whole."""

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from spacy.language import Language

from ..extensions import UNKNOWN
from ..generalizer.render import render
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


def column_votes(
    cells: Sequence[tuple],
    min_cells: int = COLUMN_MIN_CELLS,
    min_share: float = COLUMN_MIN_SHARE,
    max_words: int = COLUMN_MAX_WORDS,
) -> dict[int, str]:
    """``cells`` are ``(field, text, DocResult)`` of one file, in order. For a
    field whose non-empty cells are mostly (``min_share``) one identifier each
    (a whole cell masked, whatever its label), the cells of that field where
    nothing was masked and that are short (at most ``max_words`` words, one
    line) are masked whole with the field's most frequent label: returns
    ``{position in cells: label}``."""
    by_field: dict[str, list[int]] = {}
    for i, (field_name, text, _) in enumerate(cells):
        if text and text.strip():
            by_field.setdefault(field_name, []).append(i)
    out: dict[int, str] = {}
    for positions in by_field.values():
        if len(positions) < min_cells:
            continue
        labels = Counter(label for i in positions if (label := _whole_cell_label(cells[i][1], cells[i][2])) is not None)
        if not labels:
            continue
        label = labels.most_common(1)[0][0]
        if sum(labels.values()) < min_share * len(positions):
            continue
        for i in positions:
            _, text, res = cells[i]
            if res.ok and res.n_masked == 0 and len(text.split()) <= max_words and "\n" not in text.strip():
                out[i] = label
    return out


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
