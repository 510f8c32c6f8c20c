"""Column names in messages, without document content.

A table's first row is read as its header. In a file without one that row is
the first record, so its cells are data, and a JSON key of a data file is
data as well. The rule of what looks like a name is
:mod:`spacy_textsan.io.field_names`, where the readers word their own errors
(an unknown column lists the header only when it looks like one); here it
names one column or key of a file in the messages of a run: by its name when
the whole first row (the key itself) looks like names, else by its position.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..io import InputFile
from ..io.field_names import header_shown, looks_like_name

TABLE_FORMATS = ("csv", "tsv")


def shown_column(header: Sequence[str] | None, name: str) -> str:
    """``'note'`` when the header is shown, else ``column 3`` (1-based)."""
    if header_shown(header):
        return repr(name)
    if header is not None and name in header:
        return f"column {list(header).index(name) + 1}"
    return "a column"


def shown_key(name: str) -> str:
    """A JSON key: ``'email'``, or ``a key`` when it does not look like a name (a key that is data)."""
    return repr(name) if looks_like_name(name) else "a key"


def shown_field(f: InputFile, name: str) -> str:
    """A field of ``f`` in a message: ``column 'note'``, ``column 3``, ``field 'text'``, ``a key``."""
    if f.fmt in TABLE_FORMATS:
        shown = shown_column(f.header, name)
        return shown if shown.startswith(("column", "a ")) else f"column {shown}"
    shown = shown_key(name)
    return shown if shown.startswith("a ") else f"field {shown}"
