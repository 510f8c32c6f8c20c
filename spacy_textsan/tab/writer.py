"""Write system output in TAB's formats.

* :func:`write_masked_spans`: ``{doc_id: [[start, end], ...]}``, the input of
  TAB's evaluation script (and of :func:`spacy_textsan.tab.metrics.evaluate`).
* :func:`predictions_to_tab`: full TAB documents whose only annotator is the
  system, re-readable by :func:`spacy_textsan.tab.reader.parse_tab`.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import srsly

from ..extensions import QUASI, UNKNOWN
from ..io import atomic_path
from .reader import TAB_IDENTIFIER_TYPES, TabDocument


def _span(raw: Sequence[Any], where: str) -> tuple[int, int]:
    """Validate one ``(start, end)`` span: two integers, ``0 <= start < end``."""
    try:
        start, end = (operator.index(value) for value in raw)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: a span must be two integers, got {raw!r}") from None
    if not 0 <= start < end:
        raise ValueError(f"{where}: invalid span [{start}, {end}]")
    return start, end


def masked_spans_json(pred: Mapping[str, Iterable[Sequence[int]]]) -> dict[str, list[list[int]]]:
    """Normalise masked spans to ``{doc_id: [[start, end], ...]}``.

    Spans are kept exactly (overlapping or adjacent spans are not merged) but
    sorted, deduplicated and converted to plain ints. Document order is kept.
    Raises ``ValueError`` for a span that is not two integers with
    ``0 <= start < end``.
    """
    return {
        str(doc_id): [list(span) for span in sorted({_span(raw, f"document {doc_id}") for raw in spans})]
        for doc_id, spans in pred.items()
    }


def write_masked_spans(path: str | Path, pred: Mapping[str, Iterable[Sequence[int]]]) -> Path:
    """Write :func:`masked_spans_json` of ``pred`` to ``path`` atomically.

    The JSON goes to a temporary file in the same directory, which then
    replaces ``path``: readers never see a half-written file. The file is
    readable by its owner only (0600).
    """
    path = Path(path)
    data = masked_spans_json(pred)
    with atomic_path(path, owner_only=True) as temp:
        srsly.write_json(temp, data)
    return path


DocsOrPairs = Iterable[TabDocument] | Iterable[tuple[str, str]]


def predictions_to_tab(
    tab_docs_or_pairs: DocsOrPairs,
    predictions: Mapping[str, Iterable[Mapping[str, Any]]],
    annotator: str = "textsan",
) -> list[dict[str, Any]]:
    """TAB-format documents whose annotator ``annotator`` holds the predictions.

    ``tab_docs_or_pairs``: :class:`TabDocument` objects (their doc_id, text,
    dataset_type and meta are kept, their annotations dropped) or
    ``(doc_id, text)`` pairs. ``predictions``: doc_id -> spans, each a dict with
    ``start``, ``end``, ``label`` and optionally ``entity_id`` (default: one
    entity per span) and ``identifier_type`` (default, and for ``None`` or
    UNKNOWN: QUASI). Documents without predictions get an empty mention list;
    a doc_id of ``predictions`` that is not among the documents raises
    ``KeyError``. Mentions are sorted by offsets and numbered from 1:
    ``{doc_id}_{annotator}_em{i}``.
    """
    output: list[dict[str, Any]] = []
    seen = set()
    for item in tab_docs_or_pairs:
        if isinstance(item, TabDocument):
            doc_id, text = item.doc_id, item.text
            dataset_type: str | None = item.dataset_type
            meta: dict[str, Any] = dict(item.meta)
        else:
            doc_id, text = item
            dataset_type, meta = None, {}
        seen.add(doc_id)
        mentions = _mentions(doc_id, text, predictions.get(doc_id, ()), annotator)
        output.append(
            {
                "doc_id": doc_id,
                "text": text,
                "dataset_type": dataset_type,
                "meta": meta,
                "annotations": {annotator: {"entity_mentions": mentions}},
            }
        )
    unknown = [doc_id for doc_id in predictions if doc_id not in seen]
    if unknown:
        raise KeyError(f"predictions for documents not given: {', '.join(map(str, unknown))}")
    return output


def _mentions(doc_id: str, text: str, spans: Iterable[Mapping[str, Any]], annotator: str) -> list[dict[str, Any]]:
    """TAB mention dicts for the predicted spans of one document."""
    checked = []
    for span in spans:
        where = f"document {doc_id}"
        missing = [key for key in ("start", "end", "label") if key not in span]
        if missing:
            raise ValueError(f"{where}: prediction {span!r} lacks {', '.join(missing)}")
        start, end = _span((span["start"], span["end"]), where)
        if end > len(text):
            raise ValueError(f"{where}: span end {end} beyond text length {len(text)}")
        identifier_type = span.get("identifier_type") or QUASI
        if identifier_type == UNKNOWN:
            identifier_type = QUASI
        if identifier_type not in TAB_IDENTIFIER_TYPES:
            raise ValueError(f"{where}: invalid identifier_type {identifier_type!r}")
        checked.append((start, end, span, identifier_type))
    checked.sort(key=lambda item: (item[0], item[1]))

    mentions = []
    for i, (start, end, span, identifier_type) in enumerate(checked, start=1):
        entity_id = span.get("entity_id")
        mentions.append(
            {
                "entity_type": str(span["label"]),
                "entity_mention_id": f"{doc_id}_{annotator}_em{i}",
                "start_offset": start,
                "end_offset": end,
                "span_text": text[start:end],
                "edit_type": "check",
                "identifier_type": identifier_type,
                "entity_id": str(entity_id) if entity_id is not None else f"{doc_id}_{annotator}_e{i}",
                "confidential_status": "NOT_CONFIDENTIAL",
            }
        )
    return mentions
