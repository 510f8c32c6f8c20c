"""The resumable, chunked build of a background folder (:mod:`.background`): the records' terms are saved
in chunks under ``OUT/.partial`` as they are read (one analysis per record for the BM25 index and every
analyser of the attacker family), a finished chunk is never redone, and the chunks are merged one index at
a time, so that a million records build within a few GB."""

from __future__ import annotations

import json
import os
import shutil
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm
from wasabi import msg

from ..io import InputError, InputFile, Record, id_string
from ..io.jsonl import json_type
from ..risk.reid_family import ANALYSERS, record_terms, text_hash
from ..risk.reid_index import VERSION, BackgroundIndex

__all__ = ["input_fingerprint", "merge_chunks", "merge_family", "prepare_partial", "write_chunks"]


@dataclass
class _Source:
    """One input file and how its records' ids and texts are read."""

    file: InputFile
    name: str
    fields: list[str]  # JSONL: the text fields (the reader checks the first)
    id_field: str | None
    id_column: int | None = None  # CSV/TSV: the column of --id-field

    def records(self) -> Iterator[Record]:
        return self.file.iter_records()

    def record_id(self, rec: Record) -> str:
        fmt = self.file.fmt
        if fmt in ("csv", "tsv") and self.id_column is not None:
            assert isinstance(rec.raw, list)
            value = rec.raw[self.id_column]
            if not value.strip():
                raise InputError(self.file.path, rec.line, f"empty id in column {self.id_field!r}")
            return value
        key = self.id_field or ("doc_id" if fmt == "tab" else None)
        if key is not None and fmt in ("jsonl", "tab"):
            assert isinstance(rec.raw, dict)
            rid = id_string(rec.raw.get(key))
            if rid is None:
                problem = "no" if key not in rec.raw else f"{json_type(rec.raw[key])} as its"
                raise InputError(self.file.path, rec.line, f"the record has {problem} id {key!r} (a string or integer)")
            return rid
        return f"{self.name}:{rec.line}"

    def texts(self, rec: Record) -> dict[str, str]:
        """The record's selected texts, by field."""
        if self.file.fmt != "jsonl" or len(self.fields) < 2:
            return rec.texts
        assert isinstance(rec.raw, dict)
        texts = {}
        for name in self.fields:
            value = rec.raw.get(name)
            if not isinstance(value, str):
                problem = "missing field" if name not in rec.raw else f"{json_type(value)} in field"
                raise InputError(self.file.path, rec.line, f"{problem} {name!r}, not a string; pass --field")
            texts[name] = value
        return texts

    def text(self, rec: Record) -> str:
        return "\n".join(self.texts(rec).values())


#: The layout of a chunk's files: a partial build of another layout starts over.
#: (2: every analyser of the attacker family and the records' text hashes.)
CHUNK_FORMAT = 2
FINGERPRINT = "fingerprint.json"


def input_fingerprint(docs: list[Path], *options) -> dict:
    """What the chunks of ``.partial`` were made from: the inputs (path, size, time) and the options."""
    inputs = []
    for path in docs:
        stat = path.stat()
        inputs.append({"path": str(path.resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns})
    return {
        "version": VERSION,
        "chunk_format": CHUNK_FORMAT,
        "inputs": inputs,
        "options": json.loads(json.dumps(options)),
    }


def prepare_partial(partial: Path, fingerprint: dict, force: bool) -> int:
    """Make ``partial`` hold the chunks of this build only; the number of finished chunks kept."""
    stamp = partial / FINGERPRINT
    if partial.exists():
        try:
            same = json.loads(stamp.read_text(encoding="utf-8")) == fingerprint
        except (OSError, ValueError):
            same = False
        kept = len(list(partial.glob("chunk-*.json")))
        if force or not same:
            if not force and kept:
                msg.info(f"{partial}: the inputs or options changed since the interrupted build: starting over")
            shutil.rmtree(partial)
        else:
            if kept:
                msg.info(f"resuming the interrupted build: {kept} finished chunk(s) in {partial}")
            return kept
    partial.mkdir(parents=True)
    _write_atomic(stamp, json.dumps(fingerprint, indent=1).encode("utf-8"))
    return 0


def _chunk(partial: Path, number: int, suffix: str) -> Path:
    return partial / f"chunk-{number:05d}{suffix}"


def _chunk_done(partial: Path, number: int, n_records: int) -> bool:
    meta = _chunk(partial, number, ".json")
    if not meta.is_file() or not _chunk(partial, number, ".npz").is_file():
        return False
    try:
        done = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(done, dict) and done.get("format") == CHUNK_FORMAT and done.get("records") == n_records


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


class _ChunkTerms:
    """The terms of a chunk's records: per analyser, their ids in the chunk's own vocabulary (numbered
    in order of first occurrence) one record after the other and each record's number of terms; and
    each record's text hash."""

    def __init__(self) -> None:
        self.vocabs: dict[str, dict[str, int]] = {name: {} for name in ANALYSERS}
        self.tokens = {name: array("i") for name in ANALYSERS}
        self.lengths = {name: array("i") for name in ANALYSERS}
        self.hashes: list[str] = []

    def add(self, text: str) -> None:
        for name, terms in record_terms(text).items():  # "stem": analyse_terms(text), BM25's terms
            vocab = self.vocabs[name]
            self.tokens[name].extend([vocab.setdefault(t, len(vocab)) for t in terms])
            self.lengths[name].append(len(terms))
        self.hashes.append(text_hash(text))

    def __len__(self) -> int:
        return len(self.hashes)


def _save_chunk(partial: Path, number: int, chunk: _ChunkTerms) -> None:
    """``chunk-N.npz`` (per analyser: the records' term ids, in the chunk's vocabulary, their lengths
    and the vocabulary as UTF-8 JSON; the records' text hashes), then ``chunk-N.json`` (the counts):
    a chunk is finished when its .json is there."""
    arrays: dict[str, Any] = {"hashes": np.array(chunk.hashes, dtype="S32")}
    for name in ANALYSERS:
        arrays[f"{name}_tokens"] = np.frombuffer(chunk.tokens[name], dtype=np.int32)
        arrays[f"{name}_lengths"] = np.frombuffer(chunk.lengths[name], dtype=np.int32)
        vocab = json.dumps(list(chunk.vocabs[name]), ensure_ascii=False).encode("utf-8")
        arrays[f"{name}_vocab"] = np.frombuffer(vocab, dtype=np.uint8)
    npz = _chunk(partial, number, ".npz")
    tmp = npz.with_name(npz.name + ".tmp")
    with open(tmp, "wb") as out:
        np.savez(out, **arrays)
    os.replace(tmp, npz)
    meta = {
        "format": CHUNK_FORMAT,
        "records": len(chunk),
        "tokens": {name: len(chunk.tokens[name]) for name in ANALYSERS},
        "terms": {name: len(chunk.vocabs[name]) for name in ANALYSERS},
    }
    _write_atomic(_chunk(partial, number, ".json"), json.dumps(meta).encode("utf-8"))


def write_chunks(
    sources: list[_Source], dropped: set[tuple[int, int]], partial: Path, chunk_size: int, total: int
) -> int:
    """Save the terms of the kept records (every analyser of the family) and their text hashes,
    ``chunk_size`` records a chunk, skipping the chunks already finished; the number of chunks."""
    n_chunks = (total + chunk_size - 1) // chunk_size

    def size(number: int) -> int:
        return min(chunk_size, total - (number - 1) * chunk_size)

    number, filled = 1, 0
    todo = not _chunk_done(partial, 1, size(1))
    chunk = _ChunkTerms()
    changed = InputError(sources[-1].file.path, None, "the inputs changed while they were read; run the build again")
    with tqdm(total=total, desc="terms", unit="rec", disable=None) as bar:
        for s, source in enumerate(sources):
            for rec in source.records():
                if (s, rec.index) in dropped:
                    continue
                if number > n_chunks:
                    raise changed
                if todo:
                    chunk.add(source.text(rec))
                filled += 1
                bar.update()
                if filled == size(number):
                    if todo:
                        _save_chunk(partial, number, chunk)
                    number, filled = number + 1, 0
                    chunk = _ChunkTerms()
                    todo = number <= n_chunks and not _chunk_done(partial, number, size(number))
    if number != n_chunks + 1:
        raise changed
    return n_chunks


def _chunk_metas(partial: Path, n_chunks: int) -> list[dict]:
    return [json.loads(_chunk(partial, n, ".json").read_text(encoding="utf-8")) for n in range(1, n_chunks + 1)]


def _chunk_part(partial: Path, number: int, name: str, vocab: bool = False) -> dict[str, Any]:
    """Analyser ``name``'s arrays of chunk ``number`` (``tokens``, ``lengths``; ``vocab``: its terms)."""
    with np.load(_chunk(partial, number, ".npz")) as arrays:
        part: dict[str, Any] = {"tokens": arrays[f"{name}_tokens"], "lengths": arrays[f"{name}_lengths"]}
        if vocab:
            part["vocab"] = json.loads(arrays[f"{name}_vocab"].tobytes().decode("utf-8"))
    return part


def _chunk_postings(tokens: np.ndarray, lengths: np.ndarray, first: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``term << 32 | record`` keys of a chunk's records (numbered from ``first``), sorted,
    and how often each occurs (``tokens``: term ids, record after record)."""
    keys = tokens.astype(np.int64)
    keys <<= 32
    keys |= np.repeat(np.arange(first, first + len(lengths), dtype=np.int64), lengths)
    keys.sort()
    new = np.empty(len(keys), dtype=bool)
    new[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, len(keys)))
    return keys[starts], counts


def _merge_analyser(partial: Path, n_chunks: int, n_records: int, name: str, out: Path) -> None:
    """Write analyser ``name``'s :class:`~..risk.reid_family.TermPostings` of every chunk's records into
    ``out``: the chunks' vocabularies merged in order of first occurrence, then the postings filled
    chunk by chunk (a term's records ascending), so the files are those ``build_family`` saves, in the
    memory of the postings themselves (no array of every token)."""
    vocab: dict[str, int] = {}
    local: list[np.ndarray] = []  # per chunk: its term ids -> the merged ones
    lengths = np.empty(n_records, dtype=np.int32)
    at = 0
    for n in range(1, n_chunks + 1):
        part = _chunk_part(partial, n, name, vocab=True)
        terms = part["vocab"]
        local.append(np.fromiter((vocab.setdefault(t, len(vocab)) for t in terms), dtype=np.int64, count=len(terms)))
        chunk_lengths = part["lengths"]
        if at + len(chunk_lengths) > n_records:
            break
        lengths[at : at + len(chunk_lengths)] = chunk_lengths
        at += len(chunk_lengths)
    if at != n_records:
        raise OSError(f"{partial}: the chunks hold {at} records, not {n_records}; run again with --force")
    out.mkdir(parents=True, exist_ok=True)
    (out / "vocab.json").write_text(json.dumps(list(vocab), ensure_ascii=False), encoding="utf-8")
    n_vocab = len(vocab)
    del vocab

    def postings() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        first = 0
        for n, ids in enumerate(local, start=1):
            part = _chunk_part(partial, n, name)
            tokens, chunk_lengths = part["tokens"], part["lengths"]
            if int(chunk_lengths.sum()) != len(tokens) or (len(tokens) and int(tokens.max()) >= len(ids)):
                raise OSError(f"{_chunk(partial, n, '.npz')}: damaged; run again with --force")
            yield _chunk_postings(ids[tokens], chunk_lengths, first)
            first += len(chunk_lengths)

    df = np.zeros(n_vocab, dtype=np.int64)
    for keys, _ in postings():
        df += np.bincount(keys >> 32, minlength=n_vocab)
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    del df
    nnz = int(indptr[-1])
    records = np.empty(nnz, dtype=np.int32)
    tf = np.empty(nnz, dtype=np.uint16)
    fill = indptr[:-1].copy()  # where each term's next records go
    for keys, counts in postings():
        terms = keys >> 32
        new = np.empty(len(terms), dtype=bool)
        new[:1] = True
        np.not_equal(terms[1:], terms[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        sizes = np.diff(np.append(starts, len(terms)))
        at_term = fill[terms] + (np.arange(len(terms)) - np.repeat(starts, sizes))
        records[at_term] = keys & 0xFFFFFFFF
        tf[at_term] = np.minimum(counts, np.iinfo(np.uint16).max)
        fill[terms[starts]] += sizes
    if not np.array_equal(fill, indptr[1:]):
        raise OSError(f"{partial}: the chunks changed while they were merged; run again with --force")
    np.save(out / "indptr.npy", indptr)
    np.save(out / "records.npy", records)
    np.save(out / "tf.npy", tf)
    np.save(out / "lengths.npy", lengths)


def merge_family(partial: Path, n_chunks: int, n_records: int, out: Path) -> None:
    """The attacker family of every chunk's records (``out/<analyser>/``, ``out/hashes.json``), as
    :func:`~..risk.reid_family.save_family` writes what :func:`~..risk.reid_family.build_family`
    gives; one analyser in memory at a time."""
    if out.exists():
        shutil.rmtree(out)
    for name in tqdm(ANALYSERS, desc="attacker family", unit="analyser", disable=None):
        _merge_analyser(partial, n_chunks, n_records, name, out / name)
    hashes = []
    for n in range(1, n_chunks + 1):
        with np.load(_chunk(partial, n, ".npz")) as arrays:
            hashes.append(arrays["hashes"])
    every = np.concatenate(hashes) if hashes else np.array([], dtype="S32")
    if len(every) != n_records:
        raise OSError(f"{partial}: the chunks hold {len(every)} hashes, not {n_records}; run again with --force")
    del hashes
    (out / "hashes.json").write_text(json.dumps([h.decode("ascii") for h in every.tolist()]), encoding="utf-8")


def merge_chunks(partial: Path, n_chunks: int, ids: list[str]) -> BackgroundIndex:
    """The BM25 index of every chunk's records (the ``stem`` analyser's terms): the chunks' vocabularies
    merged in order of first occurrence, so the index is the one :meth:`BackgroundIndex.from_term_lists`
    would build."""
    metas = _chunk_metas(partial, n_chunks)
    n_tokens = sum(meta["tokens"]["stem"] for meta in metas)
    tokens = np.empty(n_tokens, dtype=np.int32)
    lengths = np.empty(len(ids), dtype=np.int32)
    vocab: dict[str, int] = {}
    at_token = at_record = 0
    for n in tqdm(range(1, n_chunks + 1), desc="merging", unit="chunk", disable=None):
        part = _chunk_part(partial, n, "stem", vocab=True)
        local = np.fromiter((vocab.setdefault(t, len(vocab)) for t in part["vocab"]), dtype=np.int32)
        chunk_tokens, chunk_lengths = part["tokens"], part["lengths"]
        if at_token + len(chunk_tokens) > n_tokens or at_record + len(chunk_lengths) > len(ids):
            at_record = -1
            break
        tokens[at_token : at_token + len(chunk_tokens)] = local[chunk_tokens] if len(chunk_tokens) else chunk_tokens
        lengths[at_record : at_record + len(chunk_lengths)] = chunk_lengths
        at_token += len(chunk_tokens)
        at_record += len(chunk_lengths)
    if at_record != len(ids) or at_token != n_tokens:
        raise OSError(f"{partial}: the chunks do not hold the {len(ids)} records; run again with --force")
    return BackgroundIndex.from_term_ids(ids, list(vocab), tokens, lengths)
