"""Issue 27's numbers: the zero-shot default vs the trained pipeline on TAB.

    python benchmarks/trained_eval.py --split dev --ner training/ner/model-best \
        --risk training/risk/model-best --assembled training/textsan_trained [--thresholds 0.1]

Variants, every one on the same documents:

* ``zero-shot default``: spacy_textsan/configs/default.cfg;
* ``trained ner alone (mask_all)``: the trained NER + privacy_ner's rules, every candidate masked
  (what the NER itself finds);
* ``assembled, no supervised masks``: the assembled pipeline (configs/textsan_trained.cfg: the
  zero-shot default + the trained NER as a second privacy_ner source) with
  ``risk_thresholds = {}``, i.e. what the NER's union adds;
* ``assembled, supervised t=T``: the same with ``risk_thresholds = {"supervised": T}`` for each
  ``--thresholds`` value;
* ``assembled, supervised decides t=T`` (``--decide-thresholds``): the assembled pipeline with the
  zero-shot measures of quasi-identifiers off (no kanon_risk, no ``mask_labels`` policy) and
  ``risk_thresholds = {"supervised": T}``: supervised_risk decides which quasi-identifiers are
  masked (direct identifiers, the special categories, reid_risk and residual_risk stay). This is
  the precision end of the trade-off, measured, not the default;
* ``assembled, supervised keeps under t=T`` (``--keep-thresholds``): the assembled pipeline with
  ``keep_thresholds = {"supervised": T}``: a quasi-identifier the classifier scores under T is kept
  whatever the label policy and kanon_risk say (reid_risk and residual_risk still mask what the attack
  needs);
* ``assembled pipeline (as packaged)``: ``spacy.load(--assembled)`` (a folder or an installed
  package name), as configured.

``--only-assembled`` runs the last one alone (the installed package's score); with
``--merge-as NAME`` its result is added to the variants of the existing ``--out`` file under NAME
(``scripts/check_package.py --evaluate`` does this for the installed package). The attack and
multi-domain sections summarize ``--reid-attack`` and ``--multidomain`` (the files of
``benchmarks/reid_attack.py`` and ``scripts/trained_multidomain.py``, when they exist), the
``workflow`` timing is kept from the existing file (``--workflow-seconds FILE`` records it: ``make
train`` times the whole workflow with scripts/timed.py), and ``targets`` is computed from all of it. Reported: token
recall, ERdi, ERqi, precision, weighted precision (wordfreq information content as token weights),
per-type recall, docs/s; model sizes and the training times read from the training output
folders. Results: benchmarks/results/trained_<split>.json and a bar chart trained_<split>.svg.
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


def trained(ner: str):
    """The trained ``ner`` alone: privacy_ner reads its ``doc.ents`` (+ rules), every candidate masked."""
    nlp = spacy.load(ner)
    nlp.add_pipe("privacy_ner", config={"sources": ["doc.ents"]})
    nlp.add_pipe("mask_all")
    nlp.add_pipe("generalizer")
    return nlp


def assembled(path: str, thresholds: dict | None = None):
    """The assembled pipeline; ``thresholds`` replaces mask_optimizer's ``risk_thresholds``."""
    if thresholds is None:
        return spacy.load(path)
    return spacy.load(path, config={"components": {"mask_optimizer": {"risk_thresholds": thresholds}}})


def supervised_decides(path: str, threshold: float):
    """The assembled pipeline where supervised_risk alone decides the quasi-identifiers."""
    overrides = {"mask_labels": [], "risk_thresholds": {"supervised": threshold}}
    return spacy.load(path, exclude=["kanon_risk"], config={"components": {"mask_optimizer": overrides}})


def supervised_keeps(path: str, threshold: float):
    """The assembled pipeline where a span supervised_risk scores under ``threshold`` is kept out of the
    decision (mask_optimizer's ``keep_thresholds``: it lifts the label policy and kanon_risk's risky sets)."""
    # a setting the assembled config may not hold yet: spacy.load's overrides only change existing ones
    config = spacy.util.load_config(Path(path) / "config.cfg")
    config["components"]["mask_optimizer"]["keep_thresholds"] = {"supervised": threshold}
    return spacy.util.load_model_from_config(config).from_disk(path)


KEPT_SECTIONS = ("workflow",)


def older_than_model(path: Path, assembled: str | None) -> bool:
    """Whether a results file predates the assembled pipeline (it then measured another model)."""
    meta = Path(assembled or "") / "meta.json"
    return meta.exists() and path.stat().st_mtime < meta.stat().st_mtime


def _source(path: Path) -> str:
    """A results file as the summaries name it: relative to the repository when it is inside."""
    return str(path.relative_to(HERE.parent)) if path.is_relative_to(HERE.parent) else str(path)


def reid_summary(path: Path) -> dict:
    """The points of a reid_attack.py run (reid_attack_trained.json), by variant; ``default`` and ``trained`` needed."""
    run = json.loads(path.read_text())
    out: dict = {"source": _source(path)}
    for point in run["points"]:
        if not point.get("reference"):
            out[point["variant"]] = {key: point[key] for key in ("reid", "n_reid", "reid_random_ties", "chars_kept",
                                                                "tab")}
    if "default" not in out or "trained" not in out:
        raise SystemExit(f"{path}: no 'default' and 'trained' variants (benchmarks/reid_attack.py --variant ...)")
    return out


def multidomain_summary(path: Path) -> dict:
    """Direct identifiers and probes left by each system of a trained_multidomain.py run."""
    run = json.loads(path.read_text())
    out: dict = {"source": _source(path)}
    for system in run["systems"]:
        out[system["system"]] = {
            "direct_left": system["direct"]["left"], "direct_partly": system["direct"]["partly"],
            "direct_tried": system["direct"]["tried"], "quasi_left": system["quasi"]["left"],
            "quasi_tried": system["quasi"]["tried"], "probes_leaked": system["probes"]["leaked"],
            "probes": system["probes"]["n"], "kept_share": round(system["kept_share"], 4),
        }
    return out


def compute_targets(out: dict) -> dict:
    """Issue 27's targets, met or not, from the variants and the kept sections."""
    variants = out["variants"]
    zero, trained = variants.get("zero-shot default"), variants.get("assembled pipeline (as packaged)")
    if zero is None or trained is None:
        return {}

    def said(ok: bool, text: str) -> str:
        return ("met: " if ok else "not met: ") + text

    floor = max(zero["recall"], 0.94)
    targets = {
        f"recall >= zero-shot ({zero['recall']:.3f}) and >= 0.94": said(
            trained["recall"] >= floor, f"{trained['recall']:.3f}"
        ),
        "ERdi 1.0": said(trained["er_di"] == 1.0, f"{trained['er_di']:.3f}"),
        "precision >= 0.70": said(
            trained["precision"] >= 0.70, f"{trained['precision']:.3f} (zero-shot {zero['precision']:.3f})"
        ),
        "precision >= 0.75 at recall >= 0.93": said(
            trained["precision"] >= 0.75 and trained["recall"] >= 0.93,
            f"{trained['precision']:.3f} at {trained['recall']:.3f}",
        ),
    }
    attack = out.get("reid_attack")
    if attack:
        base, ours = attack["default"], attack["trained"]
        targets[f"re-identification <= zero-shot ({base['reid']:.3f})"] = said(
            ours["reid"] <= base["reid"], f"{ours['reid']:.3f} ({ours['n_reid']} of {out['n_docs']})"
        )
    domains = out.get("multidomain")
    if domains:
        md = domains["textsan-trained"]
        targets["multi-domain: 0 direct identifiers left, probes"] = said(
            md["direct_left"] == 0 and md["probes_leaked"] == 0,
            f"{md['direct_left']} of {md['direct_tried']} left ({md['direct_partly']} partly), "
            f"{md['probes_leaked']} of {md['probes']} probes leak",
        )
    workflow = out.get("workflow")
    if workflow:
        targets["workflow <= 15 min on 2 cores"] = said(workflow["seconds"] <= 900, f"{workflow['seconds']:.0f} s")
    return targets


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--tab-dir", default=str(HERE.parent.parent / "shared" / "data" / "tab"))
    ap.add_argument("--ner", default=None, help="trained NER pipeline (model-best)")
    ap.add_argument("--risk", default=None, help="trained supervised_risk pipeline (model-best), for its size/time")
    ap.add_argument("--thresholds", type=float, nargs="*", default=[],
                    help="more supervised_risk thresholds to try on the assembled pipeline")
    ap.add_argument("--assembled", default=None,
                    help="the assembled trained pipeline (spacy project run assemble) or an installed package")
    ap.add_argument("--decide-thresholds", type=float, nargs="*", default=[],
                    help="thresholds of the variants where supervised_risk alone decides the quasi-identifiers")
    ap.add_argument("--keep-thresholds", type=float, nargs="*", default=[],
                    help="thresholds of the variants where a span supervised_risk scores under them is kept")
    ap.add_argument("--only-assembled", action="store_true", help="run the assembled pipeline alone")
    ap.add_argument("--merge-as", default=None,
                    help="with --only-assembled: add the result to the existing --out file under this name")
    ap.add_argument("--extra-ner", nargs="*", default=[], help="NAME=PATH: more trained NER pipelines to compare")
    ap.add_argument("--reid-attack", type=Path, default=HERE / "results" / "reid_attack_trained.json",
                    help="a benchmarks/reid_attack.py run with variants 'default' and 'trained' (summarized)")
    ap.add_argument("--multidomain", type=Path, default=HERE / "results" / "multidomain_trained.json",
                    help="a scripts/trained_multidomain.py run (summarized)")
    ap.add_argument("--workflow-seconds", type=Path, default=None,
                    help="only record the whole workflow's time (a scripts/timed.py file) in the existing --out file")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    path = Path(args.out or HERE / "results" / f"trained_{args.split}.json")

    if args.workflow_seconds:
        out = json.loads(path.read_text())
        seconds, _, command = args.workflow_seconds.read_text().partition(" seconds: ")
        out["workflow"] = {"command": command.strip(), "seconds": round(float(seconds))}
        out["targets"] = compute_targets(out)
        path.write_text(json.dumps(out, indent=1))
        print(f"recorded the workflow's {out['workflow']['seconds']} s in {path}")
        return

    from spacy_textsan.risk.lm_backends import WordfreqBackend, token_weighting
    weights = token_weighting(WordfreqBackend())
    gold = read_tab(os.path.join(args.tab_dir, f"{args.split}.json"))
    texts = [d.text for d in gold]
    variants = {}
    if not args.only_assembled:
        variants["zero-shot default"] = lambda: load_pipeline()
        if args.ner:
            variants["trained ner alone (mask_all)"] = lambda: trained(args.ner)
        for item in args.extra_ner:
            name, _, path = item.partition("=")
            variants[f"{name} alone (mask_all)"] = (lambda p=path: trained(p))
        if args.assembled:
            variants["assembled, no supervised masks"] = lambda: assembled(args.assembled, {})
            for t in args.thresholds:
                variants[f"assembled, supervised t={t}"] = (lambda t=t: assembled(args.assembled, {"supervised": t}))
            for t in args.decide_thresholds:
                variants[f"assembled, supervised decides t={t}"] = (lambda t=t: supervised_decides(args.assembled, t))
            for t in args.keep_thresholds:
                variants[f"assembled, supervised keeps under t={t}"] = (lambda t=t: supervised_keeps(args.assembled, t))
    if args.assembled:
        variants[args.merge_as or "assembled pipeline (as packaged)"] = lambda: assembled(args.assembled)
    results = {}
    for name, make in variants.items():
        nlp = make()
        start = time.perf_counter()
        docs = list(nlp.pipe(texts))
        elapsed = time.perf_counter() - start
        masked = {d.doc_id: masked_offsets(doc) for d, doc in zip(gold, docs, strict=True)}
        m = evaluate(gold, masked, weights=weights)
        results[name] = {"pipeline": nlp.pipe_names, "recall": m["recall"], "er_di": m["er_di"],
                         "er_qi": m["er_qi"], "precision": m["precision"],
                         "weighted_precision": m["weighted_precision"], "per_type_recall": m["per_type_recall"],
                         "counts": m["counts"], "docs_per_s": len(docs) / elapsed,
                         "errors": sum(len(d._.sanitize_errors or []) for d in docs)}
        if "mask_optimizer" in nlp.pipe_names:
            results[name]["risk_thresholds"] = nlp.get_pipe("mask_optimizer").risk_thresholds
        r = results[name]
        print(f"{name:45s} R={r['recall']:.3f} ERdi={r['er_di']:.3f} ERqi={r['er_qi']:.3f} "
              f"P={r['precision']:.3f} WP={r['weighted_precision']:.3f} docs/s={r['docs_per_s']:.2f} "
              f"ORG={r['per_type_recall'].get('ORG', 0):.3f} DEM={r['per_type_recall'].get('DEM', 0):.3f}",
              flush=True)
    before = json.loads(path.read_text()) if path.exists() else {}
    if args.merge_as:
        if not before:
            raise SystemExit(f"{path}: --merge-as adds to an existing results file; none there")
        before["variants"].update(results)
        before["targets"] = compute_targets(before)
        path.write_text(json.dumps(before, indent=1))
        print(f"added {args.merge_as!r} to {path}")
        return
    models = {name: model_info(where) for name, where in [("ner", args.ner), ("risk", args.risk),
                                                           ("assembled", args.assembled)]
              if where and Path(where).exists()}
    out = {"split": args.split, "n_docs": len(gold), "ner": args.ner, "risk": args.risk,
           "assembled": args.assembled, "models": models,
           "date": datetime.date.today().isoformat(), "machine": platform.machine(), "cpus": os.cpu_count(),
           "weights": "wordfreq information content (-log P) per token", "variants": results}
    out.update({key: before[key] for key in KEPT_SECTIONS if key in before})
    for key, source, summary in (("reid_attack", args.reid_attack, reid_summary),
                                 ("multidomain", args.multidomain, multidomain_summary)):
        if source.exists() and not older_than_model(source, args.assembled):
            out[key] = summary(source)
        elif source.exists():
            print(f"{source} is older than {args.assembled}: not this model's, left out (spacy project run "
                  "attack-trained)")
    out["targets"] = compute_targets(out)
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
