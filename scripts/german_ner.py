"""Train the German NER on the synthetic set and ship it into the package.

    python scripts/german_ner.py [--corpus corpus/de] [--output training/ner_de] [--ship spacy_textsan/assets/ner/de]

Runs ``spacy train spacy_textsan/configs/ner_de.cfg`` on ``<corpus>/train.spacy`` and ``<corpus>/dev.spacy``
(``benchmarks/german/generate.py train``) with one BLAS thread (``OMP_NUM_THREADS=1``), writes its
wall-clock seconds to ``<output>/train_seconds.txt``, then copies what ``spacy.load`` reads of
``model-best`` (config.cfg, meta.json, tokenizer, vocab, ner/, tok2vec/) into the package folder,
replacing it, and loads the copy once.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import spacy

#: What a shipped pipeline folder holds: spacy.load reads nothing else.
SHIPPED = ("config.cfg", "meta.json", "tokenizer", "vocab", "ner", "tok2vec")


def ship(model: Path, dest: Path) -> str:
    """Copy the shipped files of ``model`` to ``dest`` (replacing it); one line saying what it holds."""
    missing = [name for name in SHIPPED if not (model / name).exists()]
    if missing:
        raise SystemExit(f"error: {model} lacks {', '.join(missing)}")
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for name in SHIPPED:
        (shutil.copytree if (model / name).is_dir() else shutil.copy2)(model / name, dest / name)
    nlp = spacy.load(dest)
    size = sum(f.stat().st_size for f in dest.rglob("*") if f.is_file())
    return f"{dest}: {nlp.lang} pipeline {nlp.pipe_names}, {size / 1e6:.1f} MB"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", type=Path, default=Path("corpus/de"))
    p.add_argument("--output", type=Path, default=Path("training/ner_de"))
    p.add_argument("--ship", type=Path, default=Path("spacy_textsan/assets/ner/de"))
    p.add_argument("--gpu-id", type=int, default=-1)
    a = p.parse_args(argv)
    cmd = [sys.executable, "-m", "spacy", "train", "spacy_textsan/configs/ner_de.cfg", "--output", str(a.output)]
    cmd += ["--paths.train", str(a.corpus / "train.spacy"), "--paths.dev", str(a.corpus / "dev.spacy")]
    cmd += ["--gpu-id", str(a.gpu_id)]
    start = time.perf_counter()
    if subprocess.run(cmd, env={**os.environ, "OMP_NUM_THREADS": "1"}).returncode != 0:
        return 1
    (a.output / "train_seconds.txt").write_text(f"{time.perf_counter() - start:.1f} seconds: {' '.join(cmd[1:])}\n")
    print(ship(a.output / "model-best", a.ship))
    return 0


if __name__ == "__main__":
    sys.exit(main())
