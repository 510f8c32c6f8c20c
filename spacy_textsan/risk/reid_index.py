"""The background corpus of the re-identification attack: a BM25 index over
documents about people, as an attacker who searches public knowledge holds it.

One record per document (a person's page, a file of the user's archive); its
terms are the words of the background's :class:`~.reid_words.Analyser` (case-
and accent-folded, the language's stop words removed, Snowball-stemmed in that
language; English by default, :func:`analyse`), which the manifest names
(``analyser``) and :attr:`BackgroundIndex.analyser` reads a document with. The
index is `bm25s`_'s sparse matrix of per-term, per-record BM25 scores, saved as
``.npy`` arrays and loaded memory-mapped: a million records load in seconds
and only the postings a query reads are paged in. What :mod:`.reid_attack`
needs of it is the posting of a term (the records that hold it and its BM25
score in each), so that the part each visible word plays in ranking a record
is known exactly.

A background folder (``textsan background build``, or the one shipped in the
package) holds::

    background.json        {"format": "spacy-textsan-background", "version": 1, ...}
    bm25/                  the bm25s index, ids.json (record ids), lengths.npy
    index.msgpack, meta.json   (optional) kanon_risk's term index of the same records

.. _bm25s: https://github.com/xhluca/bm25s
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from .reid_family import FAMILY_DIR, TermPostings, build_family, load_family, save_family, text_hash
from .reid_words import Analyser, Token, analyse, analyse_terms, analyser_of, current_analyser

__all__ = [
    "BackgroundSearch",
    "FORMAT",
    "VERSION",
    "BackgroundIndex",
    "Token",
    "analyse",
    "analyse_terms",
    "is_background_dir",
    "load_background",
]

FORMAT = "spacy-textsan-background"
#: The version of the folder layout and of :func:`analyse`; an index of another version is refused
#: (2: the attacker family's postings and the records' text hashes, ``family/``).
VERSION = 2
MANIFEST = "background.json"
BM25_DIR = "bm25"
_BM25 = {"k1": 1.5, "b": 0.75, "method": "lucene"}


class BackgroundSearch(Protocol):
    """What the attack needs of a search engine over the background (:class:`BackgroundIndex` is one).

    Another engine plugs in by answering these: the records (``ids``, their ``position``), an index
    term's column (``term_id``, for terms made by :func:`analyse`), how many records hold it (``df``)
    and its inverse document frequency (``idf``), and its ``postings``: the records that hold it and
    the term's BM25 score in each. In Lucene, Elasticsearch or OpenSearch these are the term's postings
    with its per-document score; tantivy's searcher gives them per term query.
    """

    ids: list[str]

    @property
    def n_records(self) -> int: ...

    def position(self, record_id: str) -> int | None: ...

    def term_id(self, term: str) -> int | None: ...

    def df(self, term_id: int) -> int: ...

    def idf(self, term_id: int) -> float: ...

    def postings(self, term_id: int) -> tuple[np.ndarray, np.ndarray]: ...


def read_manifest(path: str | Path) -> dict:
    """The manifest of background folder ``path``.

    RAISES (ValueError): one line naming the file: no manifest, not readable, not
        a JSON object, another format or version.
    """
    manifest_path = Path(path) / MANIFEST
    if not manifest_path.is_file():
        raise ValueError(f"{path} is not a background folder (no {MANIFEST}; build one with textsan background build)")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        reason = "nested too deeply" if isinstance(e, RecursionError) else " ".join(str(e).split())
        raise ValueError(f"{manifest_path}: cannot read the manifest: {reason}") from None
    if not isinstance(manifest, dict):
        raise ValueError(
            f"{manifest_path}: the manifest is not a JSON object (rebuild it with textsan background build)"
        )
    if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise ValueError(
            f"{manifest_path}: format {str(manifest.get('format'))[:40]!r} version {str(manifest.get('version'))[:20]}; "
            f"this spacy-textsan reads {FORMAT!r} version {VERSION} (rebuild it with textsan background build)"
        )
    return manifest


def is_background_dir(path: str | Path) -> bool:
    """Whether ``path`` is a background folder (it has :data:`MANIFEST`)."""
    return (Path(path) / MANIFEST).is_file()


class BackgroundIndex:
    """BM25 over background records: ids, per-term postings, record lengths."""

    def __init__(
        self,
        retriever,
        ids: Sequence[str],
        lengths: np.ndarray,
        manifest: dict | None = None,
        family: dict[str, TermPostings] | None = None,
        hashes: Sequence[str] | None = None,
        analyser: Analyser | None = None,
    ):
        self.retriever = retriever
        #: the attacker family's postings (:mod:`.reid_family`) and each record's text hash
        self.family: dict[str, TermPostings] = dict(family or {})
        self.hashes: list[str] = list(hashes or [])
        self.ids = list(ids)
        self.lengths = lengths
        self.manifest = dict(manifest or {})
        #: how the records were read, and how a document is read against them (the manifest's; English)
        self.analyser: Analyser = analyser or analyser_of(self.manifest)
        scores = retriever.scores
        # plain arrays over the (memory-mapped) buffers: slicing a np.memmap costs a subclass per slice
        self._data = np.asarray(scores["data"]).view(np.ndarray)
        self._indices = np.asarray(scores["indices"]).view(np.ndarray)
        self._indptr = np.array(scores["indptr"], dtype=np.int64)  # one entry per term: read into memory
        self._df = np.diff(self._indptr)
        self._vocab: dict[str, int] = retriever.vocab_dict
        self._position = {rid: i for i, rid in enumerate(self.ids)}

    # -- building ---------------------------------------------------------------

    @classmethod
    def from_term_lists(cls, ids: Sequence[str], term_lists: Iterable[Sequence[str]]) -> BackgroundIndex:
        """The index of records ``ids`` whose terms (:func:`analyse_terms`) are ``term_lists``."""
        import bm25s

        vocab: dict[str, int] = {}
        token_ids: list[list[int]] = []
        lengths: list[int] = []
        for terms in term_lists:
            token_ids.append([vocab.setdefault(t, len(vocab)) for t in terms])
            lengths.append(len(terms))
        ids = list(ids)
        if len(ids) != len(token_ids):
            raise ValueError(f"{len(ids)} ids for {len(token_ids)} records")
        if not ids:
            raise ValueError("a background needs at least one record")
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise ValueError(f"record id {dup!r} is given twice")
        retriever = bm25s.BM25(**_BM25)
        retriever.index((token_ids, vocab), show_progress=False)
        return cls(retriever, ids, np.asarray(lengths, dtype=np.int32))

    @classmethod
    def from_term_ids(
        cls,
        ids: Sequence[str],
        vocab: Sequence[str],
        tokens: np.ndarray,
        lengths: np.ndarray,
        *,
        block: int = 1 << 22,
    ) -> BackgroundIndex:
        """The index of records ``ids`` whose terms are ``vocab[t]`` for the term ids ``t`` of ``tokens``.

        ``tokens`` holds every record's term ids one record after the other
        (record ``i`` has ``lengths[i]`` of them). With ``vocab`` in the order
        of the terms' first occurrence (as :meth:`from_term_lists` numbers them)
        the index is the same as :meth:`from_term_lists` gives, byte for byte
        once saved; it is built in a fraction of the memory (no Python list per
        record: the postings are sorted as one array of ``(term, record)``
        keys), which a background of millions of records needs. ``block``: the
        tokens scored at a time.
        """
        import math

        import bm25s

        ids = list(ids)
        n_docs, n_vocab = len(ids), len(vocab)
        lengths = np.asarray(lengths, dtype=np.int64)
        tokens = np.asarray(tokens)
        if len(lengths) != n_docs:
            raise ValueError(f"{n_docs} ids for {len(lengths)} records")
        if not ids:
            raise ValueError("a background needs at least one record")
        if int(lengths.sum()) != len(tokens) or (len(lengths) and int(lengths.min()) < 0):
            raise ValueError(f"record lengths add up to {int(lengths.sum())}, not to the {len(tokens)} tokens")
        if len(tokens) and (int(tokens.min()) < 0 or int(tokens.max()) >= n_vocab):
            raise ValueError(f"term ids out of the vocabulary of {n_vocab} terms")
        if max(n_docs, n_vocab) >= 2**31:
            raise ValueError("a background holds fewer than 2**31 records and terms")
        seen: set[str] = set()
        for rid in ids:
            if rid in seen:
                raise ValueError(f"record id {rid!r} is given twice")
            seen.add(rid)
        del seen
        # one key per token: term << 32 | record; sorted, the distinct keys are the postings in CSC order
        offsets = np.zeros(n_docs + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        keys = np.empty(len(tokens), dtype=np.int64)
        step = max(1, block // max(1, int(lengths.mean())))
        for start in range(0, n_docs, step):
            stop = min(n_docs, start + step)
            part = keys[offsets[start] : offsets[stop]]
            part[:] = tokens[offsets[start] : offsets[stop]]
            part <<= 32
            part |= np.repeat(np.arange(start, stop, dtype=np.int64), lengths[start:stop])
        keys.sort()
        new = np.empty(len(keys), dtype=bool)
        new[:1] = True
        np.not_equal(keys[1:], keys[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        del new
        nnz = len(starts)
        tf = np.empty(nnz, dtype=np.int32)
        np.subtract(starts[1:], starts[:-1], out=tf[:-1], casting="unsafe")
        tf[-1:] = len(keys) - starts[-1:]
        terms = np.empty(nnz, dtype=np.int32)
        indices = np.empty(nnz, dtype=np.int32)
        for lo in range(0, nnz, block):
            posting = keys[starts[lo : lo + block]]
            terms[lo : lo + block] = posting >> 32
            indices[lo : lo + block] = posting & 0xFFFFFFFF
        del keys, starts
        df = np.bincount(terms, minlength=n_vocab)
        indptr = np.zeros(n_vocab + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])
        # BM25 (Lucene) as bm25s computes it, operation for operation, so that the float32 scores are its own:
        # idf in Python floats, the length norm and the tf part in float64
        k1, b = float(_BM25["k1"]), float(_BM25["b"])  # type: ignore[arg-type]
        idf = np.zeros(n_vocab, dtype=np.float32)
        for t, n in enumerate(df.tolist()):
            if n:
                idf[t] = math.log(1 + (n_docs - n + 0.5) / (n + 0.5))
        norm = k1 * ((1 - b) + b * lengths.astype(np.float64) / lengths.mean()) if len(tokens) else lengths * 0.0
        data = np.empty(len(terms), dtype=np.float32)
        for lo in range(0, len(terms), block):
            hi = min(len(terms), lo + block)
            freq = tf[lo:hi].astype(np.float64)
            data[lo:hi] = idf[terms[lo:hi]].astype(np.float64) * (freq / (norm[indices[lo:hi]] + freq))
        del terms, tf
        retriever = bm25s.BM25(**_BM25)
        retriever.scores = {"data": data, "indices": indices, "indptr": indptr, "num_docs": n_docs}
        vocab_dict = {term: i for i, term in enumerate(vocab)}
        if len(vocab_dict) != n_vocab:
            raise ValueError("a term is given twice in the vocabulary")
        if "" not in vocab_dict:  # bm25s's empty token, past the last column
            vocab_dict[""] = n_vocab
        retriever.vocab_dict = vocab_dict
        retriever.unique_token_ids_set = set(vocab_dict.values())
        retriever.nonoccurrence_array = None
        return cls(retriever, ids, lengths.astype(np.int32))

    @classmethod
    def build(cls, records: Iterable[tuple[str, str]], analyser: Analyser | None = None) -> BackgroundIndex:
        """The index of ``(id, text)`` records, read by ``analyser`` (by default that of the build in
        progress, :func:`~.reid_words.analysing`, else English)."""
        ids: list[str] = []
        texts: list[str] = []
        analyser = analyser or current_analyser()
        analyse_text = analyser.analyse_terms

        def terms() -> Iterator[list[str]]:
            for rid, text in records:
                ids.append(str(rid))
                texts.append(text)
                yield analyse_text(text)

        index = cls.from_term_lists(ids, list(terms()))
        index.family, index.hashes = build_family(texts, analyser)
        index.analyser = analyser
        return index

    # -- disk --------------------------------------------------------------------

    def save(self, path: str | Path, extra: dict | None = None) -> None:
        """Write the index into folder ``path`` (:data:`MANIFEST` last, so a half-written folder is no index)."""
        path = Path(path)
        bm25_dir = path / BM25_DIR
        bm25_dir.mkdir(parents=True, exist_ok=True)
        self.retriever.save(str(bm25_dir), show_progress=False)
        (bm25_dir / "ids.json").write_text(json.dumps(self.ids, ensure_ascii=False), encoding="utf-8")
        np.save(bm25_dir / "lengths.npy", np.asarray(self.lengths, dtype=np.int32))
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "n_records": self.n_records,
            "n_terms": self.n_terms,
            "analyser": self.analyser.manifest,
            "bm25": dict(_BM25),
            **(extra or {}),
        }
        if self.family:
            save_family(path, self.family, self.hashes)
            manifest["family"] = sorted(self.family)
        (path / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        self.manifest = manifest

    @classmethod
    def load(cls, path: str | Path, mmap: bool = True) -> BackgroundIndex:
        """The index saved in folder ``path`` (memory-mapped by default)."""
        import bm25s

        path = Path(path)
        manifest = read_manifest(path)
        bm25_dir = path / BM25_DIR
        retriever = bm25s.BM25.load(str(bm25_dir), mmap=mmap, show_progress=False, verbosity=0)
        ids = json.loads((bm25_dir / "ids.json").read_text(encoding="utf-8"))
        lengths = np.load(bm25_dir / "lengths.npy", mmap_mode="r" if mmap else None)
        if len(ids) != len(lengths):
            raise ValueError(f"{bm25_dir}: {len(ids)} ids but {len(lengths)} record lengths")
        loaded = load_family(path)
        if loaded is None:
            raise ValueError(f"{path}: no attacker family ({FAMILY_DIR}/); rebuild it with textsan background build")
        family, hashes = loaded
        if len(hashes) != len(ids) or any(p.n_records != len(ids) for p in family.values()):
            raise ValueError(f"{path}: the family's records do not match the {len(ids)} ids; rebuild it")
        return cls(retriever, ids, lengths, manifest, family, hashes)

    # -- reading -----------------------------------------------------------------

    @property
    def n_records(self) -> int:
        return len(self.ids)

    @property
    def n_terms(self) -> int:
        return len(self._indptr) - 1

    def position(self, record_id: str) -> int | None:
        """The row of record ``record_id`` (None: not in the background)."""
        return self._position.get(record_id)

    def same_text(self, text: str) -> list[str]:
        """The records whose text is exactly ``text`` (:func:`.reid_family.text_hash`)."""
        digest = text_hash(text)
        return [rid for rid, h in zip(self.ids, self.hashes, strict=False) if h == digest]

    def term_id(self, term: str) -> int | None:
        """The column of an index term (None: no record holds it)."""
        tid = self._vocab.get(term)
        return tid if tid is not None and tid < self.n_terms else None

    def df(self, term_id: int) -> int:
        """How many records hold the term."""
        return int(self._df[term_id])

    def idf(self, term_id: int) -> float:
        """The term's inverse document frequency, as BM25 (Lucene) weighs it."""
        df = self.df(term_id)
        return float(np.log(1.0 + (self.n_records - df + 0.5) / (df + 0.5)))

    def postings(self, term_id: int) -> tuple[np.ndarray, np.ndarray]:
        """``(records, scores)``: the records that hold the term (ascending) and its BM25 score in each."""
        lo, hi = self._indptr[term_id], self._indptr[term_id + 1]
        return self._indices[lo:hi], self._data[lo:hi].astype(np.float64)

    def scores(self, term_ids: Iterable[int]) -> np.ndarray:
        """The BM25 score of every record for a query of ``term_ids`` (each counted once)."""
        out = np.zeros(self.n_records, dtype=np.float64)
        for tid in set(term_ids):
            records, scores = self.postings(tid)
            out[records] += scores
        return out


@lru_cache(maxsize=4)
def _load(path: str, mtime: float) -> BackgroundIndex:
    return BackgroundIndex.load(path)


def load_background(path: str | Path) -> BackgroundIndex:
    """The index of background folder ``path``, loaded once per process while its manifest is unchanged."""
    path = Path(path)
    manifest = path / MANIFEST
    return _load(str(path.resolve()), manifest.stat().st_mtime if manifest.exists() else 0.0)
