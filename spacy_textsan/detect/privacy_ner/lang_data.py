"""privacy_ner's word lists, one folder per language, and their one reader.

The lists live in ``detect/privacy_ner/data/``:

* ``data/<name>``: the shared lists, read by every language first: lists that
  hold the words of many languages already (``national_ids.txt``,
  ``log_keys.txt``, ``code_cues.txt``, ``contact_cues.txt``,
  ``greetings.txt``, ``street_types_before.txt``...);
* ``data/<lang>/<name>``: a language's own list (``data/fr/titles.txt``), read
  after the shared one, if any;
* a list that a language's folder lacks is read from ``data/en/`` (the
  package's first language, whose lists hold words of several languages): a
  new language's folder holds what it changes, not a copy of every list.

:func:`read_list` joins the shared list and the language's (or English's)
list, in that order, each item once; neither existing is an error naming the
list. The format is :mod:`spacy_textsan.word_lists`'s (one item per line,
``#`` starts a comment). :func:`languages` are the languages with a folder:
the recognizers that read lists declare them as theirs, so that a language
is added by a folder of data (``docs/add-a-language.md``).
"""

from functools import cache
from pathlib import Path

from ...word_lists import PACKAGE_DIR, word_list

__all__ = ["DATA_DIR", "FALLBACK", "languages", "list_path", "read_list", "read_set"]

#: The folder of privacy_ner's lists.
DATA_DIR = PACKAGE_DIR / "detect" / "privacy_ner" / "data"
#: The language whose list is read where a language's folder lacks one.
FALLBACK = "en"


def _relative(path: Path) -> str:
    return path.relative_to(PACKAGE_DIR).as_posix()


def list_path(lang: str, name: str) -> str | None:
    """The package-relative path of the language's own list ``name``: its folder's, else
    :data:`FALLBACK`'s; None when neither has one."""
    for folder in (lang, FALLBACK):
        path = DATA_DIR / folder / name
        if path.is_file():
            return _relative(path)
    return None


@cache
def read_list(lang: str, name: str) -> tuple[str, ...]:
    """The items of list ``name`` for language ``lang``: the shared list ``data/<name>``, then
    ``data/<lang>/<name>`` (else ``data/en/<name>``), in file order, each once; read once.

    RAISES (FileNotFoundError): no such list, shared or of a language.
    """
    shared = DATA_DIR / name
    paths = [_relative(shared)] if shared.is_file() else []
    own = list_path(lang, name)
    if own is not None:
        paths.append(own)
    if not paths:
        raise FileNotFoundError(f"privacy_ner: no word list {name!r} in {_relative(DATA_DIR)} (shared, {lang}, en)")
    if len(paths) == 1:
        return word_list(paths[0])  # the one reader's tuple itself: read once, shared with its other readers
    return tuple(dict.fromkeys(item for path in paths for item in word_list(path)))


@cache
def read_set(lang: str, name: str) -> frozenset[str]:
    """:func:`read_list` as a set."""
    return frozenset(read_list(lang, name))


@cache
def languages() -> tuple[str, ...]:
    """The languages with a folder of lists, sorted."""
    return tuple(sorted(p.name for p in DATA_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))))
