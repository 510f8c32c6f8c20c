"""One paragraph naming the same people, repeated: the default pipeline's time must grow linearly with
the repetitions (issue 26: 1,000 repetitions took 22 s and 2,000 took 61 s, from a per-mention loop over
every reason of an entity; 1.25M characters must take less than 2 minutes).

Each size runs in a fresh process (``--worker``): pipeline load, then one document of the paragraph
repeated N times through ``sanitize_texts`` (the CLI's path); the time of the document and the peak RSS of
the process are reported, load apart.

    python benchmarks/repeated_mentions.py [--sizes 1000 2000 4000 8000 14000]

Results: benchmarks/results/repeated_mentions.json. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import datetime
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from provenance import git_state, machine  # noqa: E402

#: 89 characters naming two people twice, a place, a date and a case number (1.25M characters at 14,000)
PARAGRAPH = "Ms Ayse Demir met Mr Galip Yalman in Ankara on 3 May 2001. Yalman wrote Demir: 48213/09.\n"


def worker(n: int) -> dict:
    sys.path.insert(0, str(ROOT))
    from spacy_textsan.pipeline import load_pipeline
    from spacy_textsan.run.runner import sanitize_texts

    start = time.perf_counter()
    nlp = load_pipeline(None)
    list(sanitize_texts(nlp, [PARAGRAPH]))
    load_s = time.perf_counter() - start
    text = PARAGRAPH * n
    start = time.perf_counter()
    (result,) = sanitize_texts(nlp, [text])
    seconds = time.perf_counter() - start
    return {
        "repetitions": n,
        "chars": len(text),
        "seconds": round(seconds, 2),
        "load_s": round(load_s, 2),
        "status": result.status,
        "names_left": sum(result.sanitized.count(w) for w in ("Demir", "Yalman", "48213")),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 14000])
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "repeated_mentions.json")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker)))
        return
    rows = []
    for n in args.sizes:
        done = subprocess.run(
            [sys.executable, __file__, "--worker", str(n)], capture_output=True, text=True, check=True
        )
        row = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(json.dumps(row), flush=True)
    base = rows[0]
    for row in rows:
        # seconds per repetition relative to the smallest size: 1.0 is linear
        row["per_repetition_vs_first"] = round(
            (row["seconds"] / row["repetitions"]) / (base["seconds"] / base["repetitions"]), 2
        )
    result = {
        "benchmark": "repeated_mentions",
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "git": git_state(),
        "paragraph": PARAGRAPH,
        "rows": rows,
        "target": "linear growth; 1.25M characters (14,000 repetitions) in less than 120 s",
        "met": rows[-1]["seconds"] < 120 and all(r["per_repetition_vs_first"] <= 1.5 for r in rows),
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
