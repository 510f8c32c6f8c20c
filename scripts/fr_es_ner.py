"""The French and Spanish ECHR NER: BIO token files -> DocBins, and a trained pipeline -> the package's
model folder.

    python scripts/fr_es_ner.py convert ../shared/data/echr_fr_es/fr_projected.tsv -o corpus/fr_es/fr_train.spacy \\
        --lang fr --holdout-every 10 --holdout exclude
    python scripts/fr_es_ner.py train fr       # spacy train spacy_textsan/configs/ner_fr.cfg, then ship
    python scripts/fr_es_ner.py ship training/ner_fr/model-best spacy_textsan/assets/ner/fr

``convert`` reads the file with :mod:`spacy_textsan.training.bio_tsv` (tag scheme from the file name:
``*projected*`` or ``*manual*``, or ``--scheme``) and writes a DocBin whose Docs have the file's tokens
and TAB's 8 types as ``doc.ents``. ``--holdout-every 10 --holdout only`` keeps documents 1, 11, 21, ...
(the training's dev split), ``--holdout exclude`` the others. ``train`` runs ``spacy train`` on
``corpus/fr_es/<lang>_{train,valid}.spacy`` with one BLAS thread (``OMP_NUM_THREADS=1``), writes its
wall-clock seconds to ``training/ner_<lang>/train_seconds.txt`` and ships the best model. ``ship`` copies what ``spacy.load`` needs
(config.cfg, meta.json, tokenizer, vocab, ner/, tok2vec/) into the destination, replacing it, and
loads the copy once.
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import spacy
import typer

from spacy_textsan.training.bio_tsv import SCHEMES, BioFormatError, read_bio_tsv, split_documents, write_docbin

app = typer.Typer(add_completion=False, help=__doc__)

#: What a shipped pipeline folder holds: spacy.load reads nothing else.
SHIPPED = ("config.cfg", "meta.json", "tokenizer", "vocab", "ner", "tok2vec")


@app.command()
def convert(
    source: Path = typer.Argument(..., help="BIO token file (token TAG per line)"),
    output: Path = typer.Option(..., "-o", "--output", help="the .spacy file to write"),
    lang: str = typer.Option(..., "--lang", help="spaCy language code of the vocabulary: fr or es"),
    scheme: str = typer.Option("auto", "--scheme", help=f"tag scheme: auto (from the file name), {', '.join(SCHEMES)}"),
    holdout_every: int = typer.Option(0, "--holdout-every", help="hold out documents 1, 1+n, 1+2n, ... (0: none)"),
    holdout: str = typer.Option(
        "exclude", "--holdout", help="exclude: write the others; only: write the held-out ones"
    ),
) -> None:
    try:
        docs = split_documents(read_bio_tsv(source, scheme), holdout_every, holdout)
        n = write_docbin(docs, output, spacy.blank(lang).vocab)
    except (BioFormatError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    n_ents = sum(len(d.spans) for d in docs)
    typer.echo(f"{output}: {n} documents, {sum(len(d.tokens) for d in docs)} tokens, {n_ents} entities")


@app.command()
def train(
    lang: str = typer.Argument(..., help="fr or es: spacy_textsan/configs/ner_<lang>.cfg"),
    corpus: Path = typer.Option(
        Path("corpus/fr_es"), "--corpus", help="folder of <lang>_train.spacy, <lang>_valid.spacy"
    ),
    output: Path = typer.Option(None, "--output", help="spacy train's output (default: training/ner_<lang>)"),
    dest: Path = typer.Option(
        None, "--ship", help="where to ship model-best (default: spacy_textsan/assets/ner/<lang>)"
    ),
    gpu_id: int = typer.Option(-1, "--gpu-id"),
) -> None:
    if lang not in ("fr", "es"):
        typer.echo(f"error: no NER config for language {lang!r} (fr, es)", err=True)
        raise typer.Exit(1)
    output = output or Path(f"training/ner_{lang}")
    cmd = [sys.executable, "-m", "spacy", "train", f"spacy_textsan/configs/ner_{lang}.cfg", "--output", str(output)]
    cmd += ["--paths.train", str(corpus / f"{lang}_train.spacy"), "--paths.dev", str(corpus / f"{lang}_valid.spacy")]
    cmd += ["--nlp.batch_size", "64", "--gpu-id", str(gpu_id)]
    start = time.perf_counter()
    if subprocess.run(cmd, env={**os.environ, "OMP_NUM_THREADS": "1"}).returncode != 0:
        raise typer.Exit(1)
    (output / "train_seconds.txt").write_text(f"{time.perf_counter() - start:.1f} seconds: {' '.join(cmd[1:])}\n")
    ship(output / "model-best", dest or Path(f"spacy_textsan/assets/ner/{lang}"))


@app.command()
def ship(
    model: Path = typer.Argument(..., help="a trained pipeline folder (e.g. training/ner_fr/model-best)"),
    dest: Path = typer.Argument(..., help="the package's folder (e.g. spacy_textsan/assets/ner/fr)"),
) -> None:
    missing = [name for name in SHIPPED if not (model / name).exists()]
    if missing:
        typer.echo(f"error: {model} lacks {', '.join(missing)}", err=True)
        raise typer.Exit(1)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for name in SHIPPED:
        src = model / name
        if src.is_dir():
            shutil.copytree(src, dest / name)
        else:
            shutil.copy2(src, dest / name)
    nlp = spacy.load(dest)
    labels = nlp.get_pipe("ner").labels  # type: ignore[attr-defined]
    size = sum(f.stat().st_size for f in dest.rglob("*") if f.is_file())
    typer.echo(f"{dest}: {nlp.lang} pipeline {nlp.pipe_names}, labels {list(labels)}, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    sys.exit(app())
