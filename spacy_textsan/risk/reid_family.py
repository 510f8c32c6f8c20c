"""The attacker family's views of a text, and their term postings over the background.

One attacker tokenises, stems and weighs as the defence does; the attackers
that matter are the others. The defence therefore scores the background with
a *family* of analysers, each an attacker that differs from the others the way
real ones differ, and takes the worst (:mod:`.reid_attack`):

``stem``    folded words without the language's stop words, Snowball stems (:class:`.reid_words.Analyser`)
``word``    the same words unstemmed: an attacker that matches surface forms (``eels`` is not ``eel``)
``prefix``  the first four letters of each word: an attacker of character n-grams or a cruder stemmer
            (``Norwegian`` and ``Norway`` meet in ``norw``, ``Golovin`` and ``Golovina`` in ``golo``)
``pair``    adjacent words (``born in``, ``golden seals``; never two stop words, never across a sentence
            end): an attacker that scores phrases

Every feature of a text stands on one or two words (:class:`Feature`); a
feature is visible while all its words are. The postings of each analyser
(:class:`TermPostings`) hold raw term frequencies, not scores: the weights are
computed per document from the records that compete (:mod:`.reid_attack`), so
that records which share nothing with the document never change its risk.

The words are read in the background's language (its :class:`~.reid_words.Analyser`, passed as
``analyser``; without one, that of the build in progress, :func:`~.reid_words.current_analyser`, else
English).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal, NamedTuple

import numpy as np

from .reid_words import _WORD, Analyser, _fold, current_analyser, word_of

__all__ = [
    "ANALYSERS",
    "FAMILY_DIR",
    "Feature",
    "TermPostings",
    "Word",
    "family_features",
    "record_terms",
    "text_hash",
    "words_of",
]

#: the analysers of the attacker family, in the order they are built and reported
ANALYSERS = ("stem", "word", "prefix", "pair")
FAMILY_DIR = "family"
PREFIX = 4
# a sentence or clause ends between two words: no pair across it
_BREAK = re.compile(r"[.!?;:\n\[\]()]")


class Word(NamedTuple):
    """A written word: where it stands, its folded form, whether it is a stop word (or a lone letter), and
    its index term (its stem; None for a stop word). A named tuple: a document makes one per word."""

    start: int
    end: int
    folded: str
    stop: bool
    term: str | None


class Feature(NamedTuple):
    """One feature of a text for one analyser: its term and the words (indexes) it stands on (a named
    tuple: a document makes four per word)."""

    term: str
    words: tuple[int, ...]


def words_of(text: str, analyser: Analyser | None = None) -> list[Word]:
    """Every word of ``text`` (letters and digits, as ``analyser`` reads them)."""
    term_of = (analyser or current_analyser()).term
    out = []
    for m in _WORD.finditer(text):
        word = word_of(m)
        term = term_of(word)
        out.append(Word(m.start(), m.end(), _fold(word), term is None, term))
    return out


def _prefix(folded: str) -> str:
    return folded[:PREFIX] if folded.isalpha() else folded


def family_features(
    text: str, words: Sequence[Word] | None = None, analyser: Analyser | None = None
) -> dict[str, list[Feature]]:
    """The features of ``text`` (its ``words``, else read by ``analyser``) for every analyser of :data:`ANALYSERS`."""
    words = words_of(text, analyser) if words is None else words
    out: dict[str, list[Feature]] = {name: [] for name in ANALYSERS}
    for i, word in enumerate(words):
        # a pair of adjacent words (a stop word may be one of them: "born in", "of Oslo"), never two stop
        # words, never across a sentence or clause end
        if i and not (word.stop and words[i - 1].stop) and not _BREAK.search(text, words[i - 1].end, word.start):
            out["pair"].append(Feature(f"{words[i - 1].folded} {word.folded}", (i - 1, i)))
        if word.stop:
            continue
        assert word.term is not None
        out["stem"].append(Feature(word.term, (i,)))
        out["word"].append(Feature(word.folded, (i,)))
        out["prefix"].append(Feature(_prefix(word.folded), (i,)))
    return out


def record_terms(text: str, analyser: Analyser | None = None) -> dict[str, list[str]]:
    """Per analyser of the family, the terms a background record is indexed with (its words read by
    ``analyser``, else by that of the build in progress)."""
    return {name: [f.term for f in features] for name, features in family_features(text, None, analyser).items()}


def text_hash(text: str) -> str:
    """The hash that says two texts are the same document: NFC, white space collapsed, SHA-256 (hex, 32)."""
    normal = " ".join(unicodedata.normalize("NFC", text).split())
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:32]


class TermPostings:
    """Per term, the records that hold it and how often (CSR by term), and each record's length.

    ``vocab`` maps a term to its row; ``indptr[t]:indptr[t + 1]`` slices ``records`` (ascending) and
    ``tf``. Saved as ``.npy`` files and a ``vocab.json``, loaded memory-mapped.
    """

    def __init__(self, vocab: dict[str, int], indptr: np.ndarray, records: np.ndarray, tf: np.ndarray, lengths):
        self.vocab = vocab
        self.indptr = np.asarray(indptr, dtype=np.int64)
        self.records = records
        self.tf = tf
        self.lengths = lengths
        self._df = np.diff(self.indptr)
        self._repeated: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def n_records(self) -> int:
        return len(self.lengths)

    @classmethod
    def from_term_lists(cls, term_lists: Iterable[Sequence[str]]) -> TermPostings:
        """The postings of records whose terms are ``term_lists`` (one list per record, in order)."""
        vocab: dict[str, int] = {}
        tokens: list[int] = []
        lengths: list[int] = []
        for terms in term_lists:
            tokens.extend(vocab.setdefault(t, len(vocab)) for t in terms)
            lengths.append(len(terms))
        return cls.from_term_ids(vocab, np.asarray(tokens, dtype=np.int64), np.asarray(lengths, dtype=np.int64))

    @classmethod
    def from_term_ids(cls, vocab: dict[str, int], tokens: np.ndarray, lengths: np.ndarray) -> TermPostings:
        """The postings of records whose term ids (``vocab``'s values) follow one another in ``tokens``
        (record ``i`` has ``lengths[i]`` of them): one sort of ``(term, record)`` keys, no list per record."""
        lengths = np.asarray(lengths, dtype=np.int64)
        n_docs = len(lengths)
        record_of = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
        keys = (np.asarray(tokens, dtype=np.int64) << 32) | record_of
        keys, tf = np.unique(keys, return_counts=True)
        terms = keys >> 32
        indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum(np.bincount(terms, minlength=len(vocab)), out=indptr[1:])
        return cls(
            dict(vocab),
            indptr,
            (keys & 0xFFFFFFFF).astype(np.int32),
            np.minimum(tf, np.iinfo(np.uint16).max).astype(np.uint16),
            lengths.astype(np.int32),
        )

    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        np.save(path / "indptr.npy", self.indptr)
        np.save(path / "records.npy", np.asarray(self.records, dtype=np.int32))
        np.save(path / "tf.npy", np.asarray(self.tf, dtype=np.uint16))
        np.save(path / "lengths.npy", np.asarray(self.lengths, dtype=np.int32))
        terms = sorted(self.vocab, key=self.vocab.__getitem__)
        (path / "vocab.json").write_text(json.dumps(terms, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path, mmap: bool = True) -> TermPostings:
        path = Path(path)
        mode: Literal["r"] | None = "r" if mmap else None
        terms = json.loads((path / "vocab.json").read_text(encoding="utf-8"))
        return cls(
            {t: i for i, t in enumerate(terms)},
            np.load(path / "indptr.npy"),
            np.load(path / "records.npy", mmap_mode=mode),
            np.load(path / "tf.npy", mmap_mode=mode),
            np.load(path / "lengths.npy", mmap_mode=mode),
        )

    def term_id(self, term: str) -> int | None:
        return self.vocab.get(term)

    def repeated(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(indptr, records, tf)`` of the postings whose record holds the term more than once (CSR by
        term, as the postings): the attack's scores correct a single occurrence's weight for these alone
        (:func:`.reid_kernels.repeated_sums`), without a test per posting. Found on first use and kept."""
        if self._repeated is None:
            tf = np.asarray(self.tf)
            at = np.flatnonzero(tf != 1)
            self._repeated = (np.searchsorted(at, self.indptr).astype(np.int64), np.asarray(self.records)[at], tf[at])
        return self._repeated

    def df(self, term_id: int) -> int:
        return int(self._df[term_id])

    def postings(self, term_id: int) -> tuple[np.ndarray, np.ndarray]:
        """``(records, tf)`` of a term: the records that hold it (ascending) and how often."""
        lo, hi = self.indptr[term_id], self.indptr[term_id + 1]
        return np.asarray(self.records[lo:hi], dtype=np.int64), np.asarray(self.tf[lo:hi], dtype=np.float64)


def build_family(texts: Iterable[str], analyser: Analyser | None = None) -> tuple[dict[str, TermPostings], list[str]]:
    """The postings of every analyser over ``texts`` (one record each, its words read by ``analyser``) and
    the records' :func:`text_hash` (term ids kept in flat integer arrays: no Python list per record)."""
    analyser = analyser or current_analyser()
    vocabs: dict[str, dict[str, int]] = {name: {} for name in ANALYSERS}
    tokens = {name: array("q") for name in ANALYSERS}
    lengths = {name: array("q") for name in ANALYSERS}
    hashes: list[str] = []
    for text in texts:
        for name, terms in record_terms(text, analyser).items():
            vocab = vocabs[name]
            tokens[name].extend(vocab.setdefault(t, len(vocab)) for t in terms)
            lengths[name].append(len(terms))
        hashes.append(text_hash(text))
    family = {
        name: TermPostings.from_term_ids(
            vocabs[name], np.frombuffer(tokens[name], dtype=np.int64), np.frombuffer(lengths[name], dtype=np.int64)
        )
        for name in ANALYSERS
    }
    return family, hashes


def save_family(path: str | Path, family: dict[str, TermPostings], hashes: Sequence[str]) -> None:
    """Write ``family/<analyser>/`` and ``family/hashes.json`` into background folder ``path``."""
    root = Path(path) / FAMILY_DIR
    for name, postings in family.items():
        postings.save(root / name)
    (root / "hashes.json").write_text(json.dumps(list(hashes)), encoding="utf-8")


def load_family(path: str | Path) -> tuple[dict[str, TermPostings], list[str]] | None:
    """The family of background folder ``path`` (None: it has none)."""
    root = Path(path) / FAMILY_DIR
    if not (root / "hashes.json").is_file():
        return None
    hashes = json.loads((root / "hashes.json").read_text(encoding="utf-8"))
    return {name: TermPostings.load(root / name) for name in ANALYSERS if (root / name).is_dir()}, hashes
