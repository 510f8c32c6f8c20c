"""What the attack inside the pipeline costs: the default pipeline with and without ``reid_risk``.

The same loaded pipeline runs the same documents with ``reid_risk`` enabled and disabled (then
``residual_risk`` reports no attack view either), alternating, ``--repeat`` times each; the medians
give documents per second and the overhead (issue 24: at most +20 % per document with the shipped
background). Corpora:

* TAB dev + train (113 ECHR judgments) with the shipped background (TAB train + the 127 dev texts);
* with ``--wiki-background DIR`` (a ``textsan background build`` folder of
  ../shared/data/wiki553/background.jsonl), the 186 Wiki553 dev abstracts against it.

    python benchmarks/reid_speed.py --repeat 3 --wiki-background out/wiki553_lexical --wiki-background out/wiki553_background

Results: benchmarks/results/reid_speed.json. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT))

from spacy_textsan.pipeline import load_pipeline  # noqa: E402


def tab_texts() -> list[str]:
    texts = []
    for split in ("dev", "train"):
        texts += [d["text"] for d in json.loads((SHARED / "tab" / f"{split}.json").read_text())]
    return texts


def wiki_texts() -> list[str]:
    lines = (SHARED / "wiki553" / "dev_abstracts.jsonl").read_text().splitlines()
    return [json.loads(line)["text"] for line in lines if line.strip()]


def run(nlp, texts: list[str], disable: list[str]) -> float:
    start = time.perf_counter()
    with nlp.select_pipes(disable=disable):
        for _ in nlp.pipe(texts, batch_size=32):
            pass
    return time.perf_counter() - start


def measure(name: str, overrides: dict, texts: list[str], repeat: int) -> dict:
    nlp = load_pipeline(None, overrides)
    run(nlp, texts[:8], [])  # warm-up: models, index, caches
    with_attack, without = [], []
    for _ in range(repeat):
        without.append(run(nlp, texts, ["reid_risk"]))
        with_attack.append(run(nlp, texts, []))
    on, off = statistics.median(with_attack), statistics.median(without)
    row = {
        "corpus": name,
        "n_docs": len(texts),
        "chars": sum(len(t) for t in texts),
        "overrides": overrides,
        "seconds_with_reid": [round(s, 3) for s in with_attack],
        "seconds_without_reid": [round(s, 3) for s in without],
        "docs_per_s_with_reid": round(len(texts) / on, 3),
        "docs_per_s_without_reid": round(len(texts) / off, 3),
        "reid_ms_per_doc": round(1000 * (on - off) / len(texts), 2),
        "overhead": round(on / off - 1, 4),
        "target": "overhead <= 0.20 (shipped background)",
    }
    print(
        f"{name}: {row['docs_per_s_without_reid']} -> {row['docs_per_s_with_reid']} docs/s, "
        f"+{100 * row['overhead']:.1f} % ({row['reid_ms_per_doc']} ms/doc)",
        flush=True,
    )
    return row


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--wiki-background", type=Path, action="append", default=[], help="repeatable")
    ap.add_argument("--output", type=Path, default=HERE / "results" / "reid_speed.json")
    args = ap.parse_args(argv)
    rows = [measure("TAB dev + train, shipped background", {}, tab_texts(), args.repeat)]
    for folder in args.wiki_background:
        dense = (folder / "dense" / "meta.json").is_file()
        rows.append(
            measure(
                f"Wiki553 dev abstracts, Wiki553 background ({'with' if dense else 'without'} its dense part)",
                {"paths.background": str(folder)},
                wiki_texts(),
                args.repeat,
            )
        )
    result = {
        "benchmark": "reid_risk overhead in the default pipeline (same process, alternating runs, medians)",
        "date": datetime.date.today().isoformat(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "repeat": args.repeat,
        "rows": rows,
    }
    args.output.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
