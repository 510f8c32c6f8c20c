"""Issue 4's numbers: risk measures + mask_optimizer against mask-everything on TAB.

For each variant the same zero-shot privacy_ner runs, then the variant's risk
measures and decision component, then the generalizer. Reported: token recall,
ERdi, ERqi, precision, weighted precision (token weights = wordfreq information
content), per-type recall, docs/s and the optimizer's solve time p50/p99.

The kanon_risk background is a document collection (each document one record,
its candidate spans the terms): by default TAB train plus the texts of the 127
TAB dev documents (unlabelled use: no annotation is read). Build it first:

    textsan kanon build assets/kanon_tab --docs ../shared/data/tab/train.json \
        --docs ../shared/data/tab/dev127_mentions_only.json

    python benchmarks/tab_risk_eval.py --split dev --index assets/kanon_tab

web_risk needs a search engine (SearXNG or a JSON API) and is not run here:
this machine reaches none.
"""

import argparse
import datetime
import json
import os
import platform
import time
from pathlib import Path

from spacy_textsan.extensions import masked_offsets
from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.tab import evaluate, read_tab

HERE = Path(__file__).resolve().parent


def variants(index: str, k: int, lm_threshold):
    lm = ("lm_risk", {} if lm_threshold is None else {"threshold": lm_threshold})
    kanon = ("kanon_risk", {"background": {"@misc": "spacy_textsan.background.v1", "path": index}, "k": k})
    opt = ("mask_optimizer", {})
    return {
        "mask_all": [("mask_all", {})],
        "lm + optimizer": [lm, opt],
        "kanon + optimizer": [kanon, opt],
        "kanon greedy (seed 002 Alg. 1)": [
            (
                "kanon_risk",
                {"background": {"@misc": "spacy_textsan.background.v1", "path": index}, "k": k, "selection": "greedy"},
            ),
            opt,
        ],
        "lm + kanon + optimizer": [lm, kanon, opt],
    }


def build(components):
    nlp = load_pipeline()
    nlp.remove_pipe("mask_all")
    for name, cfg in components:
        nlp.add_pipe(name, before="generalizer", config=cfg)
    return nlp


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] if values else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--tab-dir", default=str(HERE.parent.parent / "shared" / "data" / "tab"))
    ap.add_argument("--index", required=True)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--lm-threshold", type=float, default=None)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    from spacy_textsan.risk.lm_backends import WordfreqBackend, token_weighting

    weights = token_weighting(WordfreqBackend())
    gold = read_tab(os.path.join(args.tab_dir, f"{args.split}.json"))
    texts = [d.text for d in gold]
    results = {}
    for name, comps in variants(args.index, args.k, args.lm_threshold).items():
        if args.only and name not in args.only:
            continue
        nlp = build(comps)
        start = time.perf_counter()
        docs = list(nlp.pipe(texts))
        elapsed = time.perf_counter() - start
        masked = {d.doc_id: masked_offsets(doc) for d, doc in zip(gold, docs)}
        m = evaluate(gold, masked, weights=weights)
        solve = [doc._.decision_info["solve_ms"] for doc in docs if doc._.decision_info]
        results[name] = {
            "components": [c for c, _ in comps],
            "config": {c: cfg for c, cfg in comps},
            "recall": m["recall"],
            "er_di": m["er_di"],
            "er_qi": m["er_qi"],
            "precision": m["precision"],
            "weighted_precision": m["weighted_precision"],
            "per_type_recall": m["per_type_recall"],
            "counts": m["counts"],
            "docs_per_s": len(docs) / elapsed,
            "solve_ms_p50": percentile(solve, 0.5),
            "solve_ms_p99": percentile(solve, 0.99),
            "solve_ms_max": max(solve) if solve else None,
            "fallbacks": sum(1 for d in docs if d._.decision_info and d._.decision_info["fallback"]),
            "errors": sum(len(d._.sanitize_errors or []) for d in docs),
        }
        r = results[name]
        print(
            f"{name:32s} R={r['recall']:.3f} ERdi={r['er_di']:.3f} ERqi={r['er_qi']:.3f} "
            f"P={r['precision']:.3f} WP={r['weighted_precision']:.3f} docs/s={r['docs_per_s']:.1f} "
            f"solve p50/p99={r['solve_ms_p50']}/{r['solve_ms_p99']} ms",
            flush=True,
        )
    out = {
        "split": args.split,
        "n_docs": len(gold),
        "k": args.k,
        "index": args.index,
        "date": datetime.date.today().isoformat(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "weights": "wordfreq information content (-log P) per token",
        "variants": results,
    }
    path = Path(args.out or HERE / "results" / f"risk_{args.split}.json")
    path.write_text(json.dumps(out, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
