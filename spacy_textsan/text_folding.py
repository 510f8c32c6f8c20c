"""Text folding: the steps the package's normalizers share, in one place.

Each normalizer composes these and keeps only what is its own:

* :func:`spacy_textsan.detect.privacy_ner.normalize.normalize` (the detection
  copy): :func:`nfkc` per character with its marks (:func:`is_mark`);
  invisible characters and confusables are its own;
* :func:`spacy_textsan.detect.privacy_ner.entity_ids.normalize`: the
  detection copy's words, case-folded one by one; titles and articles are its
  own;
* :func:`spacy_textsan.risk.kanon_index.normalize_term`: :func:`fold` with
  ``renormalize`` and its apostrophes, then :func:`strip_punctuation`; the
  leading title or article is its own;
* :func:`spacy_textsan.detect.gazetteer.kb.normalize_surface`: :func:`fold`
  with its apostrophes and dashes;
* :func:`spacy_textsan.http.cache.normalize_query`: :func:`fold`;
* :func:`spacy_textsan.entities.clean_term`: :func:`collapse_whitespace`
  (double quotes are its own).

Whitespace is what :meth:`str.isspace` says (``str.split()`` and the ``\\s``
of :mod:`re` agree on it).
"""

import unicodedata
from collections.abc import Mapping
from typing import Literal

__all__ = [
    "collapse_whitespace",
    "fold",
    "is_mark",
    "is_punctuation",
    "nfkc",
    "strip_marks",
    "strip_punctuation",
    "translation",
]


def nfkc(text: str) -> str:
    """Unicode NFKC: compatibility forms folded (``Ｐｅｄｅｒ`` → ``Peder``, ``ﬁ`` → ``fi``)
    and a letter with its combining marks composed (``e`` + U+0301 → ``é``)."""
    return unicodedata.normalize("NFKC", text)


def collapse_whitespace(text: str) -> str:
    """Runs of whitespace as one space, none at either end."""
    return " ".join(text.split())


def translation(chars: Mapping[str, str]) -> dict[int, str]:
    """A :meth:`str.translate` table of single characters (``{"’": "'"}``)."""
    return str.maketrans(dict(chars))


def fold(text: str, table: Mapping[int, str] | None = None, *, compat: bool = True, renormalize: bool = False) -> str:
    """``text`` NFKC-normalized (unless not ``compat``), case-folded (and
    NFKC-normalized again with ``renormalize``: case folding may undo it),
    characters replaced by ``table`` (:func:`translation`), whitespace collapsed.

    ``"  Ｍｒ.\\u00a0YALMAN "`` → ``"mr. yalman"``."""
    if compat:
        text = nfkc(text)
    text = text.casefold()
    if renormalize:
        text = nfkc(text)
    if table:
        text = text.translate(table)
    return collapse_whitespace(text)


def is_mark(char: str) -> bool:
    """A combining mark (categories Mn, Mc, Me): part of the character before it."""
    return unicodedata.category(char)[0] == "M"


def is_punctuation(char: str) -> bool:
    """A punctuation character (categories Pc, Pd, Ps, Pe, Pi, Pf, Po)."""
    return unicodedata.category(char).startswith("P")


def strip_punctuation(text: str) -> str:
    """``text`` without the punctuation and whitespace at either end: ``"(1961)."`` → ``"1961"``."""
    start, end = 0, len(text)
    while start < end and (is_punctuation(text[start]) or text[start].isspace()):
        start += 1
    while end > start and (is_punctuation(text[end - 1]) or text[end - 1].isspace()):
        end -= 1
    return text[start:end]


def strip_marks(text: str, form: Literal["NFD", "NFKD"] = "NFKD") -> str:
    """``text`` decomposed (``form``: ``"NFKD"`` or ``"NFD"``) without its
    combining characters: ``"Prénom"`` → ``"Prenom"``."""
    return "".join(ch for ch in unicodedata.normalize(form, text) if not unicodedata.combining(ch))
