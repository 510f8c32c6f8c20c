"""``textsan visualize``: the review page of some documents as one static,
read-only HTML file (:func:`spacy_textsan.visualize.render_page`), in the
language of the pipeline (``--lang fr``: French words, ``<html lang="fr">``;
English for a language the page does not speak)."""

from pathlib import Path

import typer
from wasabi import msg

from ..io import InputError, atomic_write, read_input
from ..run import sanitize_texts
from ..visualize import render_page
from .numbers import MAX_COUNT, number_option
from .options import LANG_HELP, PIPELINE_HELP, check_lang, load_or_fail, parse_settings
from .util import fail as _fail


def visualize(
    input_path: Path = typer.Argument(..., help="A TXT, CSV, JSONL or TAB JSON file"),
    out: Path = typer.Option(Path("textsan.html"), "--out", "-o", help="HTML file to write"),
    pipeline: str | None = typer.Option(None, "--pipeline", "-p", help=PIPELINE_HELP),
    lang: str | None = typer.Option(None, "--lang", help=LANG_HELP),
    fmt: str | None = typer.Option(None, "--format", "-f"),
    columns: list[str] = typer.Option([], "--column", "-c"),
    field: str = typer.Option("text", "--field"),
    encoding: str | None = typer.Option(None, "--encoding"),
    limit: int = number_option(20, "--limit", low=1, high=MAX_COUNT, help="At most N documents"),
    settings: list[str] = typer.Option([], "--set", help="Config override section.key=value (repeatable)"),
):
    """Write a read-only HTML page: each text exactly as written with its spans marked by type and decision,
    the sanitized text, and the spans' reasons and risk (review and change them with textsan serve). The page
    speaks the pipeline's language (--lang)."""

    try:
        f = read_input(input_path, fmt=fmt, columns=columns or None, field=field, encoding=encoding)
    except InputError as e:
        _fail(str(e))
    overrides = parse_settings(settings)
    nlp = load_or_fail(pipeline, overrides, overrides, lang=check_lang(lang))
    jobs = [(rec, name, text) for rec in f.records for name, text in rec.texts.items()][:limit]
    results = list(sanitize_texts(nlp, (t for _, _, t in jobs), keep_docs=True))
    docs = [r.doc for r in results if r.doc is not None]
    titles = [f"{rec.doc_id} ({name})" for (rec, name, _), r in zip(jobs, results, strict=False) if r.doc is not None]
    with atomic_write(out) as fh:
        fh.write(render_page(docs, titles, lang=str(nlp.lang)))
    msg.good(f"wrote {out} ({len(docs)} documents)")
