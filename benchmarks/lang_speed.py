"""Throughput per character of the default pipelines of each language on comparable text.

    python benchmarks/lang_speed.py [--docs 20] [--out benchmarks/results/lang_speed.json]

English: the first ``--docs`` TAB dev judgments (``../shared/data/tab/dev.json``); French and Spanish: the
first ``--docs`` hand-annotated ECHR judgments (``../shared/data/echr_fr_es/{fr,es}_manual.tsv``, their
text rebuilt from the tokens). Each pipeline is loaded and warmed on one document, then times
``sanitize_texts`` over the documents once, in this process, one language after the other. The issue's
target: French and Spanish within 1.5x of English per character. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT.parent / "shared" / "data"


def texts(lang: str, n: int) -> list[str]:
    if lang == "en":
        from spacy_textsan.tab import read_tab

        return [d.text for d in read_tab(DATA / "tab" / "dev.json")][:n]
    from spacy_textsan.training.bio_tsv import read_bio_tsv

    return [d.text for d in read_bio_tsv(DATA / "echr_fr_es" / f"{lang}_manual.tsv")][:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=20)
    ap.add_argument("--langs", default="en,fr,es")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "lang_speed.json")
    args = ap.parse_args()
    from spacy_textsan.pipeline import load_pipeline
    from spacy_textsan.run import sanitize_texts

    rows = {}
    for lang in args.langs.split(","):
        docs = texts(lang, args.docs)
        nlp = load_pipeline(lang=lang)
        list(sanitize_texts(nlp, docs[:1]))  # warm: models, background, caches
        start = time.perf_counter()
        list(sanitize_texts(nlp, docs))
        seconds = time.perf_counter() - start
        chars = sum(len(t) for t in docs)
        rows[lang] = {
            "docs": len(docs),
            "chars": chars,
            "seconds": round(seconds, 2),
            "chars_per_s": round(chars / seconds),
        }
        print(lang, rows[lang], flush=True)
    en = rows.get("en", {}).get("chars_per_s")
    for lang, row in rows.items():
        if en and lang != "en":
            row["slower_than_en"] = round(en / row["chars_per_s"], 2)
    out = {
        "what": __doc__.strip().splitlines()[0],
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "target": "French and Spanish within 1.5x of English per character",
        "languages": rows,
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
