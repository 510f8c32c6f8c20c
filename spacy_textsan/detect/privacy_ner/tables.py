"""Delimited records written inside a text (``;``, ``|`` or tab separated)
and ``Field: value`` lines: the header or the field name says which values
identify a person, and with which label.

A pure function over a string returning :class:`~.rules.RuleMatch` objects
with exact character offsets.
"""

import re
from functools import lru_cache
from typing import NamedTuple

from ...word_lists import table_rows
from .rules import RuleMatch

#: The field and column names that announce personal data, the label of their values and their readers
#: (``text``: this module; ``columns``: :mod:`spacy_textsan.run.personal_columns`), relative to the package.
PERSONAL_FIELDS_FILE = "detect/privacy_ner/data/personal_fields.txt"


class PersonalField(NamedTuple):
    """A row of :data:`PERSONAL_FIELDS_FILE`."""

    name: str
    label: str
    readers: frozenset[str]


@lru_cache(maxsize=1)
def personal_fields() -> tuple[PersonalField, ...]:
    """The rows of :data:`PERSONAL_FIELDS_FILE`, in file order, read once."""
    return tuple(
        PersonalField(name, label, frozenset(readers.split()))
        for name, label, readers in table_rows(PERSONAL_FIELDS_FILE)
    )


#: Field names whose values identify a person (lower case), and the label of those values.
FIELD_LABELS: dict[str, str] = {f.name: f.label for f in personal_fields() if "text" in f.readers}

_DELIMITERS = (";", "|", "\t")


def _field_label(name: str) -> str | None:
    """The label of a field's values: ``"Date of birth"``, ``"user_id"``, ``"E-mail:"``."""
    name = name.strip().rstrip(":").strip().lower()
    return FIELD_LABELS.get(name) or FIELD_LABELS.get(" ".join(re.findall(r"[^\W_]+", name.replace(".", ""))))


def _cells(line: str, delimiter: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each cell of a line, spaces around it excluded."""
    out, pos = [], 0
    for part in line.split(delimiter):
        start = pos + len(part) - len(part.lstrip())
        end = pos + len(part.rstrip())
        out.append((start, max(start, end)))
        pos += len(part) + 1
    return out


def find_table_cells(text: str) -> list[RuleMatch]:
    """Cells of delimited records written inside a text (``;``, ``|`` or
    tab): under a header line whose column names are identifying fields
    (``Name;Email;user id``), every cell of those columns is a candidate with
    the field's label; a two-cell line ``Field<delimiter>value`` or
    ``Field: value`` (a known field at the start of a line, a value of at most
    80 characters) is read the same way without a header; in a record
    without a header (three or more short fields), the fields of 1-4
    capitalised words are candidates (MISC)."""
    out: list[RuleMatch] = []
    lines = []
    pos = 0
    for line in text.split("\n"):
        lines.append((pos, line))
        pos += len(line) + 1
    header: list[str | None] | None = None
    header_delim = None
    for start, line in lines:
        delim = next((d for d in _DELIMITERS if line.count(d) >= 1), None)
        if delim is None:
            header = None
            key, colon, value = line.partition(":")
            label = _field_label(key) if colon and len(key) <= 30 else None
            if label and value.strip() and len(value.strip()) <= 80:
                a = len(key) + 1 + len(value) - len(value.lstrip())
                b = len(line.rstrip())
                b = _name_end(line, a, b) if label == "PERSON" else b
                out.append(RuleMatch(start + a, start + b, label, "field_value"))
            continue
        cells = _cells(line, delim)
        names = [_field_label(line[a:b]) for a, b in cells]
        if sum(n is not None for n in names) >= max(2, len(cells) // 2) and len(cells) >= 3:
            header, header_delim = names, delim  # a header line
            continue
        if header is not None and delim == header_delim and len(cells) == len(header):
            for (a, b), label in zip(cells, header, strict=False):
                if label and b > a:
                    out.append(RuleMatch(start + a, start + b, label, "table_cell"))
            continue
        header = None
        if len(cells) == 2 and names[0] and cells[1][1] > cells[1][0]:
            a, b = cells[1]
            out.append(RuleMatch(start + a, start + b, names[0], "field_value"))
        elif len(cells) >= 3 and delim != "\t" and all(len(line[a:b].split()) <= 6 for a, b in cells):
            # a record without a header: its capitalised fields are names, places, employers...
            for a, b in cells:
                if _RECORD_NAME.fullmatch(line[a:b]):
                    out.append(RuleMatch(start + a, start + b, "MISC", "record_field"))
    return out


#: A comma that more of a name follows: 1-3 capitalised words up to the next comma or the end
#: ("Name: Halvorsen, Peder").
_NAME_PART_AFTER = re.compile(r",[ \t]*(?:[A-Z][\w'’.\-]*[ \t]*){1,3}(?:,|$)")


def _name_end(line: str, start: int, end: int) -> int:
    """Where the person's name of a ``Field: value`` line that starts at ``start`` ends: at a comma
    that no part of the name follows ("Contact: Sven, tel 070-123 45 67" is "Sven")."""
    comma = line.find(",", start, end)
    while comma != -1 and _NAME_PART_AFTER.match(line, comma, end):
        comma = line.find(",", comma + 1, end)
    return end if comma == -1 else len(line[:comma].rstrip())


#: A record field of 1-4 capitalised words (any script), without digits: each word's letters, then a
#: separator (one of ``.'’-``, a space, or both). The separator is not optional between two words:
#: ``(?:X[^\W\d_]*[.'’-]?[ ]?){1,4}`` let a long word split into four in every way before failing
#: (a cell of 300 capitals and a digit took seconds).
_RECORD_WORD = r"[^\W\d_a-z][^\W\d_]*"
_RECORD_SEP = r"(?:[.'’-][ ]?|[ ])"
_RECORD_NAME = re.compile(rf"{_RECORD_WORD}(?:{_RECORD_SEP}{_RECORD_WORD}){{0,3}}{_RECORD_SEP}?")
