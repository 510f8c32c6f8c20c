"""BIO token files (``token TAG`` per line) -> documents with TAB's entity types -> spaCy DocBins.

The format is the one of the French and Spanish ECHR corpora (Sierro 2023): one token and its BIO
tag per line, separated by a single space (the tag is what follows the *last* space of the line);
a blank line between sentences; a document starts at its ``PROCÉDURE`` / ``PROCEDURE`` /
``PROCEDIMIENTO`` heading (a sentence whose first token is the heading, :data:`DOC_HEADINGS`).

Tags are mapped onto the 8 TAB types by one of two documented schemes:

* ``projected`` (:data:`PROJECTED_TO_TAB`): the files whose annotations were projected from TAB's
  English ones already use TAB's types, with ``PER`` for ``PERSON``.
* ``manual`` (:data:`MANUAL_TO_TAB`): the hand-annotated files' finer scheme. ``PER`` and
  ``LEGAL_PROFESSIONAL`` (judges, lawyers, agents: people) -> PERSON; ``DATE``, ``TIME`` ->
  DATETIME; ``NATIONALITY``, ``ETHNIC_CATEGORY`` -> DEM (TAB's demographic attributes);
  ``CURRENCY`` -> QUANTITY (an amount of money is a TAB QUANTITY); ``CODE``, ``ORG``, ``LOC``,
  ``QUANTITY`` keep their names. TAB's own names (``PERSON``, ``DEM``, ``DATETIME``, ``MISC``) are
  accepted too (a few ``DATETIME`` tags occur in the French file).

A tag outside the scheme is an error (fail closed: a new label must be mapped, never dropped).

The text of a document is rebuilt from its tokens (:func:`token_gaps`): one space between tokens,
none before closing punctuation (``, . ; : ? ! ) ] } %``) or after opening punctuation (``( [ { ¿
¡``), none around an apostrophe, ``-`` or ``/`` between two words or numbers (``l'homme``,
``Royaume-Uni``, ``18949/91``), quotes ``"`` paired within a sentence; a line break between
sentences. Every token keeps its character offsets, so the text reads like the original and a
tokenizer sees ``18949/91`` as the court wrote it.

:func:`to_spacy_doc` makes a ``Doc`` whose tokens are the file's tokens (plus one ``"\\n"``
whitespace token between two sentences), with the spans as ``doc.ents`` and sentence starts set;
:func:`write_docbin` writes such Docs to a ``.spacy`` file.

Errors (:class:`BioFormatError`) are one line naming the file and line, and never quote the text.
"""

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from spacy.tokens import Doc, DocBin, Span
from spacy.vocab import Vocab

__all__ = [
    "DOC_HEADINGS",
    "MANUAL_TO_TAB",
    "PROJECTED_TO_TAB",
    "SCHEMES",
    "BioDocument",
    "BioFormatError",
    "BioSpan",
    "parse_bio_lines",
    "read_bio_tsv",
    "scheme_for",
    "split_documents",
    "to_spacy_doc",
    "token_gaps",
    "write_docbin",
]

#: The first token of the first sentence of every document.
DOC_HEADINGS = frozenset({"PROCÉDURE", "PROCEDURE", "PROCEDIMIENTO"})

#: Tags of the projected files (TAB's types, ``PER`` for PERSON) -> TAB type.
PROJECTED_TO_TAB: Mapping[str, str] = {
    "PER": "PERSON",
    "CODE": "CODE",
    "LOC": "LOC",
    "ORG": "ORG",
    "DEM": "DEM",
    "DATETIME": "DATETIME",
    "QUANTITY": "QUANTITY",
    "MISC": "MISC",
}

#: Tags of the hand-annotated files' finer scheme -> TAB type (see the module's docstring).
MANUAL_TO_TAB: Mapping[str, str] = {
    "PER": "PERSON",
    "LEGAL_PROFESSIONAL": "PERSON",
    "PERSON": "PERSON",
    "CODE": "CODE",
    "DATE": "DATETIME",
    "TIME": "DATETIME",
    "DATETIME": "DATETIME",
    "ORG": "ORG",
    "LOC": "LOC",
    "NATIONALITY": "DEM",
    "ETHNIC_CATEGORY": "DEM",
    "DEM": "DEM",
    "CURRENCY": "QUANTITY",
    "QUANTITY": "QUANTITY",
    "MISC": "MISC",
}

SCHEMES: Mapping[str, Mapping[str, str]] = {"projected": PROJECTED_TO_TAB, "manual": MANUAL_TO_TAB}

_TAG = re.compile(r"(?:O|([BI])-([A-Z][A-Z_]*))")
_NO_SPACE_BEFORE = frozenset({",", ".", ";", ":", "?", "!", ")", "]", "}", "%", "...", "…"})
_NO_SPACE_AFTER = frozenset({"(", "[", "{", "¿", "¡"})
_JOINERS = frozenset({"'", "’", "-", "/"})
_QUOTE = '"'


class BioFormatError(ValueError):
    """Malformed BIO input: ``<file>:<line>: <what is wrong>`` (one line, no document text)."""


@dataclass(frozen=True)
class BioSpan:
    """An entity: character offsets in the document's text, TAB type, the file's own tag, and the
    token range ``[token_start, token_end)``."""

    start: int
    end: int
    label: str
    source_label: str
    token_start: int
    token_end: int


@dataclass(frozen=True)
class BioDocument:
    """One document: its rebuilt text, the character offsets of its tokens (the file's tokens, in
    order), its entities, the index of the first token of each sentence, and the file line of
    its heading."""

    doc_id: str
    text: str
    tokens: tuple[tuple[int, int], ...]
    spans: tuple[BioSpan, ...]
    sentence_starts: tuple[int, ...]
    line: int

    def token_labels(self) -> list[str | None]:
        """The TAB type of each token (``None`` outside every entity)."""
        labels: list[str | None] = [None] * len(self.tokens)
        for span in self.spans:
            for i in range(span.token_start, span.token_end):
                labels[i] = span.label
        return labels


def scheme_for(path: str | Path) -> str:
    """The tag scheme of a file from its name: ``manual`` or ``projected`` (an error otherwise)."""
    name = Path(path).name.lower()
    found = [scheme for scheme in SCHEMES if scheme in name]
    if len(found) != 1:
        raise BioFormatError(f"{path}: cannot tell the tag scheme from the file name; pass one of {sorted(SCHEMES)}")
    return found[0]


def token_gaps(words: Sequence[str]) -> list[str]:
    """What follows each token of one sentence when the text is rebuilt: ``" "`` or ``""`` (the
    last token's gap is ``""``)."""
    gaps = [" "] * len(words)
    open_quote = False
    for i, word in enumerate(words):
        if word == _QUOTE:
            if open_quote:
                if i > 0:
                    gaps[i - 1] = ""
            else:
                gaps[i] = ""
            open_quote = not open_quote
        if word in _NO_SPACE_BEFORE and i > 0:
            gaps[i - 1] = ""
        if word in _NO_SPACE_AFTER:
            gaps[i] = ""
        if word in _JOINERS and 0 < i < len(words) - 1 and words[i - 1][-1].isalnum() and words[i + 1][0].isalnum():
            gaps[i - 1] = gaps[i] = ""
    if gaps:
        gaps[-1] = ""
    return gaps


def _parse_line(raw: str, where: str) -> tuple[str, str]:
    token, sep, tag = raw.rpartition(" ")
    if not sep or not token or token.isspace():
        raise BioFormatError(f"{where}: expected 'TOKEN TAG' (a token, one space, a BIO tag)")
    if not _TAG.fullmatch(tag):
        raise BioFormatError(f"{where}: the tag is not O, B-LABEL or I-LABEL")
    return token, tag


def parse_bio_lines(lines: Iterable[str], source: str, scheme: str, doc_prefix: str | None = None) -> list[BioDocument]:
    """Parse the lines of a BIO token file into documents (see the module's docstring).

    ``source`` names the input in errors; ``scheme`` is ``projected`` or ``manual``; documents are
    named ``<doc_prefix>-<n>`` (n from 1, three digits; default prefix: ``source``'s file stem).
    """
    if scheme not in SCHEMES:
        raise BioFormatError(f"{source}: unknown tag scheme {scheme!r}; expected one of {sorted(SCHEMES)}")
    label_map = SCHEMES[scheme]
    prefix = doc_prefix if doc_prefix is not None else Path(source).stem
    # sentences: [(line of the first token, [(token, tag, line), ...]), ...] per document
    documents: list[tuple[int, list[list[tuple[str, str, int]]]]] = []
    sentence: list[tuple[str, str, int]] = []

    def close_sentence() -> None:
        if not sentence:
            return
        if sentence[0][0] in DOC_HEADINGS:
            documents.append((sentence[0][2], []))
        elif not documents:
            raise BioFormatError(
                f"{source}:{sentence[0][2]}: text before the first document heading (PROCÉDURE, PROCEDURE or PROCEDIMIENTO)"
            )
        documents[-1][1].append(list(sentence))
        sentence.clear()

    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        where = f"{source}:{number}"
        if line == "":
            close_sentence()
            continue
        token, tag = _parse_line(line, where)
        if tag != "O":
            kind, label = tag.split("-", 1)
            if label not in label_map:
                raise BioFormatError(
                    f"{where}: label {label!r} is not in the {scheme} scheme ({', '.join(sorted(label_map))})"
                )
            if kind == "I" and (not sentence or sentence[-1][1] == "O" or sentence[-1][1][2:] != label):
                raise BioFormatError(f"{where}: I-{label} does not continue a {label} entity")
        sentence.append((token, tag, number))
    close_sentence()
    if not documents:
        raise BioFormatError(f"{source}: no document (no PROCÉDURE, PROCEDURE or PROCEDIMIENTO heading)")
    return [
        _build_document(f"{prefix}-{n:03d}", line, sents, label_map) for n, (line, sents) in enumerate(documents, 1)
    ]


def _build_document(
    doc_id: str, line: int, sentences: list[list[tuple[str, str, int]]], label_map: Mapping[str, str]
) -> BioDocument:
    parts: list[str] = []
    offsets: list[tuple[int, int]] = []
    tags: list[str] = []
    sentence_starts: list[int] = []
    pos = 0
    for k, sent in enumerate(sentences):
        if k:
            parts.append("\n")
            pos += 1
        sentence_starts.append(len(offsets))
        words = [token for token, _, _ in sent]
        for (token, tag, _), gap in zip(sent, token_gaps(words), strict=True):
            offsets.append((pos, pos + len(token)))
            tags.append(tag)
            parts.append(token + gap)
            pos += len(token) + len(gap)
    spans: list[BioSpan] = []
    begin: int | None = None
    for i, tag in enumerate([*tags, "O"]):
        if begin is not None and not tag.startswith("I-"):
            source_label = tags[begin][2:]
            spans.append(BioSpan(offsets[begin][0], offsets[i - 1][1], label_map[source_label], source_label, begin, i))
            begin = None
        if tag.startswith("B-"):
            begin = i
    return BioDocument(doc_id, "".join(parts), tuple(offsets), tuple(spans), tuple(sentence_starts), line)


def read_bio_tsv(path: str | Path, scheme: str = "auto") -> list[BioDocument]:
    """Read a BIO token file (UTF-8) into documents; ``scheme="auto"`` takes it from the file name
    (:func:`scheme_for`)."""
    path = Path(path)
    if scheme == "auto":
        scheme = scheme_for(path)
    try:
        with path.open(encoding="utf-8", newline="\n") as f:
            return parse_bio_lines(f, str(path), scheme)
    except UnicodeDecodeError:
        raise BioFormatError(f"{path}: not UTF-8 text") from None


def split_documents(docs: Sequence[BioDocument], holdout_every: int, part: str) -> list[BioDocument]:
    """Documents 1, 1 + n, 1 + 2n, ... (in file order) are held out: ``part="only"`` returns them,
    ``"exclude"`` the others; ``holdout_every = 0`` keeps every document."""
    if part not in ("only", "exclude"):
        raise ValueError(f"holdout part must be 'only' or 'exclude', not {part!r}")
    if holdout_every == 0:
        return list(docs)
    if holdout_every < 2:
        raise ValueError(f"holdout_every must be 0 or 2 or more, not {holdout_every}")
    return [doc for i, doc in enumerate(docs) if (i % holdout_every == 0) == (part == "only")]


def to_spacy_doc(bio_doc: BioDocument, vocab: Vocab) -> Doc:
    """A ``Doc`` with the file's tokens (and a ``"\\n"`` token between sentences), its text equal to
    ``bio_doc.text``, the spans as ``doc.ents`` and the sentence starts set."""
    words: list[str] = []
    spaces: list[bool] = []
    index: list[int] = []  # Doc token index of each file token
    starts = set(bio_doc.sentence_starts)
    sent_flags: list[bool | int | None] = []
    for i, (start, end) in enumerate(bio_doc.tokens):
        following = bio_doc.tokens[i + 1][0] if i + 1 < len(bio_doc.tokens) else len(bio_doc.text)
        gap = bio_doc.text[end:following]
        index.append(len(words))
        words.append(bio_doc.text[start:end])
        spaces.append(gap == " ")
        sent_flags.append(i in starts)
        if gap == "\n":
            words.append("\n")
            spaces.append(False)
            sent_flags.append(False)
    doc = Doc(vocab, words=words, spaces=spaces, sent_starts=sent_flags)
    doc.ents = [Span(doc, index[s.token_start], index[s.token_end - 1] + 1, label=s.label) for s in bio_doc.spans]
    doc.user_data["doc_id"] = bio_doc.doc_id
    return doc


def write_docbin(docs: Iterable[BioDocument], path: str | Path, vocab: Vocab) -> int:
    """Write the documents (:func:`to_spacy_doc`) to a ``.spacy`` DocBin; returns how many."""
    docbin = DocBin(store_user_data=True)
    n = 0
    for bio_doc in docs:
        docbin.add(to_spacy_doc(bio_doc, vocab))
        n += 1
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    docbin.to_disk(path)
    return n
