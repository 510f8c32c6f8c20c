"""mask_optimizer's CP-SAT solve time per TAB document through the default pipeline
(privacy_ner -> wikidata_gazetteer -> kanon_risk -> mask_optimizer -> residual_risk -> generalizer),
with the risky sets of the shipped background: p50 / p99 / max over TAB train + dev.

    python benchmarks/solve_time.py [--out benchmarks/results/solve_time.json]
"""

import argparse
import datetime
import json
import platform
from pathlib import Path

import numpy as np

from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.run import sanitize_texts
from spacy_textsan.tab import read_tab

ROOT = Path(__file__).resolve().parent.parent
TAB = ROOT.parent / "shared" / "data" / "tab"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "solve_time.json")
    args = ap.parse_args()
    docs = read_tab(TAB / "train.json") + read_tab(TAB / "dev.json")
    nlp = load_pipeline()
    solve, n_sets, n_entities, ks = [], [], [], []
    for res in sanitize_texts(nlp, (d.text for d in docs)):
        info = res.decision or {}
        solve.append(float(info.get("solve_ms", 0.0)))
        n_sets.append(int(info.get("n_risky_sets", 0)))
        n_entities.append(int(info.get("n_entities", 0)))
        ks.append((res.residual_risk or {}).get("k"))
    out = {
        "pipeline": "default (configs/default.cfg)",
        "docs": len(docs),
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()} {platform.system()}",
        "solve_ms": {
            "p50": round(float(np.percentile(solve, 50)), 2),
            "p99": round(float(np.percentile(solve, 99)), 2),
            "max": round(max(solve), 2),
        },
        "risky_sets_per_doc": {"mean": round(float(np.mean(n_sets)), 1), "max": max(n_sets)},
        "entities_per_doc": {"mean": round(float(np.mean(n_entities)), 1), "max": max(n_entities)},
        "residual_k": {
            "min": min(k for k in ks if k is not None),
            "median": float(np.median([k for k in ks if k is not None])),
            "below_5": sum(1 for k in ks if k is None or k < 5),
        },
        "target": "p99 < 100 ms",
    }
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
