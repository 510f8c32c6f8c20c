"""Names of columns and keys in messages, without document content.

A table's first row is read as its header. In a file without one that row is
the first record, so its cells are data: a message that listed them
("available columns: 'Mr Galip Yalman lives in Ankara'") would print personal
data on a terminal and into logs. The keys of a JSON object in a data file
are data just as well (``{"Ada Lee": "+44 20 7946 0958"}``). A message
therefore names columns and keys only when they look like names
(:func:`looks_like_name`: short, a letter first, no run of three digits, no
``@``, no word of a person's name), all of them or none: a first row or an
object with one cell that is data is counted, a duplicate key numbered.

The person-name lexicon is that of ``privacy_ner``; it is loaded when a
message first needs it, so that reading a file does not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = [
    "MAX_NAME_CHARS",
    "column_listing",
    "duplicate_key",
    "header_shown",
    "key_listing",
    "looks_like_name",
    "name_list",
]

#: A name of a column or key: a letter first, at most four words, no @ (an e-mail address).
_NAME = re.compile(r"[^\W\d][\w.\-/#%()\[\]']*(?: [\w.\-/#%()\[\]']+){0,3}")
#: A run of three digits: a date, a number, an identifier.
_DIGITS = re.compile(r"\d{3}")
_WORDS = re.compile(r"[^\W\d_]+")
#: The longest name shown.
MAX_NAME_CHARS = 32
#: Why names are left out of a message.
NOT_SHOWN = "not shown: they may be data"


def looks_like_name(cell: str) -> bool:
    """A short name such as ``note``, ``first_name``, ``E-mail``, ``Date of birth``:
    not a sentence, a number, a date, an address or a person's name."""
    return (
        len(cell) <= MAX_NAME_CHARS
        and _NAME.fullmatch(cell) is not None
        and _DIGITS.search(cell) is None
        and not _holds_a_person_name(cell)
    )


def _holds_a_person_name(cell: str) -> bool:
    """Whether a word of ``cell`` is a known first name or surname that is not
    also a common English word (``Galip``, ``DUPONT``, ``Lee``; not ``Date``,
    ``Mark``), in any case: stricter than the name finders, since a name
    left out of a message costs only the listing."""
    from ..detect.privacy_ner.names import COMMON, FIRST, LAST, name_lexicon

    lexicon = name_lexicon()
    for word in _WORDS.findall(cell):
        flags = lexicon.get(word.casefold(), 0)
        if flags & (FIRST | LAST) and not flags & COMMON:
            return True
    return False


def header_shown(header: Sequence[str] | None) -> bool:
    """Whether a first row looks like a header: every cell a name (:func:`looks_like_name`)."""
    return bool(header) and all(looks_like_name(cell) for cell in header or ())


def column_listing(header: Sequence[str]) -> str:
    """``available columns: 'id', 'note'``, or the number of fields of a first
    row that does not look like a header."""
    if header_shown(header):
        return "available columns: " + ", ".join(repr(name) for name in header)
    return (
        f"its first row, read as the header, has {len(header)} field(s) that do not look like column names "
        f"({NOT_SHOWN}); does the file lack a header row?"
    )


def key_listing(keys: Iterable[str]) -> str:
    """``fields: 'id', 'body'`` (``fields: none``), or the number of keys of
    a JSON object whose keys do not all look like names."""
    names = list(keys)
    if not names:
        return "fields: none"
    if all(looks_like_name(name) for name in names):
        return "fields: " + ", ".join(repr(name) for name in names)
    count = f"the object has {len(names)} field(s)"
    return f"{count}, not shown: their names do not all look like field names and may be data"


def duplicate_key(key: str, first: int, again: int) -> str:
    """``duplicate key 'id'``, or the positions (1-based) of a key that does
    not look like a name in its object."""
    if looks_like_name(key):
        return f"duplicate key {key!r}"
    return f"duplicate key: keys {first} and {again} of an object are the same (not shown: it may be data)"


def name_list(names: Sequence[str]) -> str:
    """``['id', 'text']``, or ``3 (not shown: they may be data)`` when a name does not look like one."""
    if all(looks_like_name(name) for name in names):
        return repr(list(names))
    return f"{len(names)} ({NOT_SHOWN})"
