"""Word lists and small tables shipped as data files, and their one reader.

The format (medspacy-style): one item per line, ``#`` starts a comment,
blank lines are skipped, surrounding spaces are stripped; a table's fields
are separated by ``|``. A list lives in the ``data/`` folder of the package
that uses it (``detect/privacy_ner/data/``, ``detect/gazetteer/data/``);
:func:`word_list` and :func:`table_rows` read a file of the package once.
"""

from collections.abc import Iterator
from functools import cache
from pathlib import Path

__all__ = ["PACKAGE_DIR", "data_rows", "read_list", "table_rows", "word_list", "word_set"]

#: The directory of the ``spacy_textsan`` package: :func:`word_list` paths are relative to it.
PACKAGE_DIR = Path(__file__).parent


def read_list(path: str | Path) -> list[str]:
    """One item per line; ``#`` starts a comment."""
    return [line for _, line, _ in data_rows(path)]


def data_rows(path: str | Path) -> Iterator[tuple[int, str, list[str]]]:
    """``(line number, line, its '|'-separated fields)`` of a data file; ``#`` starts a comment."""
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            yield lineno, line, [f.strip() for f in line.split("|")]


@cache
def word_list(relative: str) -> tuple[str, ...]:
    """The items of the package's list file ``relative`` (``"detect/privacy_ner/data/titles.txt"``),
    in file order, read once."""
    return tuple(read_list(PACKAGE_DIR / relative))


@cache
def word_set(relative: str) -> frozenset[str]:
    """The items of the package's list file ``relative``, as a set."""
    return frozenset(word_list(relative))


@cache
def table_rows(relative: str) -> tuple[tuple[str, ...], ...]:
    """The ``|``-separated fields of each row of the package's table file ``relative``, read once."""
    return tuple(tuple(fields) for _, _, fields in data_rows(PACKAGE_DIR / relative))
