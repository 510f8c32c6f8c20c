"""``textsan kanon build``: the background-knowledge index of ``kanon_risk``.

Two sources:

* ``--records FILE --field NAME...`` (JSONL) or ``--column NAME...`` (CSV/TSV):
  one record per person, its terms the values of the named fields/columns;
* ``--docs FILE...`` (TXT, CSV/TSV, JSONL, TAB JSON): one record per
  document, its terms the normalised texts of the candidate spans that the
  pipeline (``--pipeline``, default the bundled one) finds in it.

The index directory is what the ``path`` of ``kanon_risk``'s ``background`` block
(``spacy_textsan.background.v1``) loads; ``textsan background build`` writes it
together with the rest of a background.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import typer
from tqdm import tqdm
from wasabi import msg

from ..io import InputError, read_input
from ..pipeline import load_pipeline, spans_key_of
from ..risk.kanon_index import InvertedIndex
from ..risk.kanon_records import index_from_records_file
from ..risk.kanon_risk import doc_terms
from ..stages import stage_of
from .numbers import MAX_BATCH, number_option
from .util import fail as _fail

__all__ = ["kanon_app", "build", "index_from_docs", "load_detectors"]

kanon_app = typer.Typer(
    name="kanon",
    add_completion=False,
    no_args_is_help=True,
    help="k-anonymity background knowledge (inverted index) for kanon_risk.",
)


@kanon_app.callback()
def kanon() -> None:
    """k-anonymity background knowledge (inverted index) for kanon_risk."""


def _doc_records(nlp, files, spans_key: str, batch_size: int, total: int, phrases: bool = False) -> Iterator[list[str]]:
    """One term list per input record (all its fields), in order."""
    jobs = ((rec.index, text) for f in files for rec in f.records for text in rec.texts.values())
    keys = ((f.path, rec.index) for f in files for rec in f.records for _ in rec.texts)
    current: tuple | None = None
    terms: dict[str, None] = {}
    docs = nlp.pipe((text for _, text in jobs), batch_size=batch_size)
    for key, doc in tqdm(zip(keys, docs, strict=False), total=total, desc="documents", unit="doc", disable=None):
        if key != current:
            if current is not None:
                yield list(terms)
            current, terms = key, {}
        terms.update(dict.fromkeys(doc_terms(doc, spans_key, phrases=phrases)))
    if current is not None:
        yield list(terms)


@kanon_app.command()
def build(
    out_dir: Path = typer.Argument(..., help="Index directory to write (meta.json, index.msgpack)"),
    records: Path | None = typer.Option(None, "--records", help="JSONL or CSV/TSV file, one person per line/row"),
    fields: list[str] = typer.Option(
        [], "--field", help="JSONL field holding terms (repeatable); with --docs: the text field"
    ),
    columns: list[str] = typer.Option(
        [], "--column", "-c", help="CSV column holding terms (repeatable); with --docs: the text column(s)"
    ),
    docs: list[Path] = typer.Option(
        [], "--docs", help="Document file (TXT, CSV/TSV, JSONL, TAB JSON), repeatable: one record per document"
    ),
    pipeline: str | None = typer.Option(
        None, "--pipeline", "-p", help="With --docs: pipeline finding the spans (default: the bundled one)"
    ),
    fmt: str | None = typer.Option(None, "--format", "-f", help="Input format (default: by extension)"),
    encoding: str | None = typer.Option(None, "--encoding", help="Input encoding (default: UTF-8)"),
    delimiter: str | None = typer.Option(None, "--delimiter", help="CSV delimiter (default: sniffed)"),
    sep: str | None = typer.Option(None, "--sep", help="With --records: split values on this separator, e.g. '|'"),
    batch_size: int = number_option(32, "--batch-size", low=1, high=MAX_BATCH, help="Documents per batch"),
    phrases: bool = typer.Option(
        False, "--phrases", help="With --docs: also index the cued phrases (occupations, conditions, counts)"
    ),
):
    """Build the inverted index (terms → records) that kanon_risk loads."""

    if (records is None) == (not docs):
        raise typer.BadParameter("pass either --records FILE or --docs FILE (one of them)")
    start = time.time()
    try:
        if records is not None:
            names = list(dict.fromkeys(fields + columns))
            if not names:
                raise typer.BadParameter("--records needs --field NAME (JSONL) or --column NAME (CSV), repeatable")
            index = index_from_records_file(
                records, names, fmt=fmt, encoding=encoding, delimiter=delimiter, multi_value_sep=sep
            )
        else:
            if len(fields) > 1:
                raise typer.BadParameter("with --docs, --field names the one JSONL text field")
            files = [
                read_input(
                    p,
                    fmt=fmt,
                    columns=columns or None,
                    field=fields[0] if fields else None,
                    encoding=encoding,
                    delimiter=delimiter,
                )
                for p in docs
            ]
            index = index_from_docs(load_detectors(pipeline), files, batch_size, phrases)
    except InputError as error:
        _fail(str(error))
    out_dir.mkdir(parents=True, exist_ok=True)
    index.to_disk(out_dir)
    elapsed = time.time() - start
    msg.good(f"wrote {out_dir}")
    msg.table(
        [("records", f"{index.n_records:,}"), ("terms", f"{len(index):,}"), ("seconds", f"{elapsed:.2f}")],
        header=("index", "value"),
        divider=True,
    )


def index_from_docs(nlp, files, batch_size: int, phrases: bool) -> InvertedIndex:
    """The index of the documents of ``files`` (one record per input record, all its texts), their terms
    the candidates that ``nlp`` (:func:`load_detectors`) finds, with the cued phrases when ``phrases``."""
    total = sum(len(rec.texts) for f in files for rec in f.records)
    return InvertedIndex.from_records(_doc_records(nlp, files, spans_key_of(nlp), batch_size, total, phrases))


def load_detectors(pipeline: str | None):
    """The pipeline's detectors only: the risk, decision and render stages would need this index or are
    not needed to list a document's terms."""
    try:
        nlp = load_pipeline(pipeline)
    except (OSError, ValueError) as error:
        _fail(f"cannot load pipeline {pipeline or '(default)'}: {error}")
    skip = [n for n, proc in nlp.pipeline if stage_of(proc) in ("risk", "decide", "render")]
    for name in skip:
        nlp.disable_pipe(name)
    return nlp
