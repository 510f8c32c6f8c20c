"""The mask labels in the document's language (the generalizer's ``label_language``): ``[PERSONNE 1]``
rather than ``[PERSON 1]``. The names are data (``render/data/label_names.txt``); a label the table does not
name keeps its own."""

from __future__ import annotations

from ..word_lists import table_rows

__all__ = ["LABEL_NAMES_FILE", "label_languages", "label_names"]

LABEL_NAMES_FILE = "render/data/label_names.txt"


def label_languages() -> tuple[str, ...]:
    """The languages the table names labels in (``en``: the labels themselves)."""
    header = table_rows(LABEL_NAMES_FILE)[0]
    return ("en", *header[1:])


def label_names(lang: str | None) -> dict[str, str]:
    """``{label: its name in lang}`` (empty for ``None`` or ``en``: the labels as they are).

    RAISES (ValueError): a language the table does not have, listing those it has."""
    if lang is None or lang == "en":
        return {}
    header, *rows = table_rows(LABEL_NAMES_FILE)
    if lang not in header[1:]:
        raise ValueError(f"no mask labels in {lang!r}: label_language is one of {', '.join(label_languages())}")
    column = header.index(lang)
    return {row[0]: row[column] for row in rows}
