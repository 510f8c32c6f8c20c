"""Issue 16's re-identification attack: how many sanitized documents still name their person, at what cost.

The adversary knows the DIRECT and QUASI strings of every person of a population (TAB train + dev: one
person per document, a document being one case) and ranks the population by the summed IDF of each
person's strings still visible in a sanitized document (benchmarks/reid/attack.py). Success = the
document's own person strictly first (ties fail). Reported per pipeline variant and sweep point:

* ``reid``: the share of documents re-identified (strict top 1), and ``reid_random_ties``: the
  expected top-1 accuracy when the adversary breaks ties uniformly at random;
* ``chars_kept``: the share of the original characters left in clear (1 - masked / total, masked
  characters from the run's offsets, summed over the documents);
* TAB's recall, ERdi, ERqi and precision of the same masking.

Two reference points need no pipeline: ``nothing masked`` (the original texts) and ``gold`` (every
DIRECT and QUASI mention of the documents' first annotator masked). Results go to
benchmarks/results/reid_attack.json and the privacy-utility curve (x = characters kept,
y = re-identification rate) to benchmarks/results/reid_attack.png.

Variants: ``--variant NAME=PIPELINE[;key=value;...]`` (a .cfg path and config overrides, values read as
JSON when they parse; ``{kanon_index}`` in a value is the --kanon-index path), or the bare name of a
default variant. Without --variant the defaults run:

* ``mask_all``: spacy_textsan/configs/mask_all.cfg, masking by type (the default before issue 16);
* ``risk.cfg``: spacy_textsan/configs/risk.cfg with ``paths.kanon_index={kanon_index}``;
* ``default``: spacy_textsan/configs/default.cfg, the bundled risk-based default (its shipped index).

``--sweep KEY=v1,v2,...`` (repeatable; ``k`` is short for ``components.kanon_risk.k``; default
``k=5,10,20,40``) runs every variant whose config has KEY at each value (the product over several
sweeps), plus the config's own values (the point "as configured"); other variants run once. The
kanon_risk background index is built once if missing (``textsan kanon build`` over TAB train + the
127 dev texts, spans found by the mask_all baseline's detectors).

    python benchmarks/reid_attack.py                      # the defaults on TAB dev
    python benchmarks/reid_attack.py --variant mask_all --variant default \\
        --variant "mine=my.cfg;components.kanon_risk.background.path={kanon_index}" \\
        --sweep k=5,10,20,40,80 --sweep components.lm_risk.threshold=-10,-12,-14
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from reid.attack import (  # noqa: E402  (benchmarks/ is not a package)
    KNOWN_TYPES,
    attack,
    build_population,
    chars_kept,
    gold_masking,
    mask_text,
    people_from_tab,
)

TAB_DIR = ROOT.parent / "shared" / "data" / "tab"
DEFAULT_VARIANTS = {
    "mask_all": "spacy_textsan/configs/mask_all.cfg",
    "risk.cfg": "spacy_textsan/configs/risk.cfg;paths.kanon_index={kanon_index}",
    "default": "spacy_textsan/configs/default.cfg",
}
DEFAULT_SWEEP = ["k=5,10,20,40"]
SWEEP_ALIASES = {"k": "components.kanon_risk.k"}
BASELINE = "mask_all"


def parse_value(raw: str):
    """A JSON value if ``raw`` parses as one (numbers, booleans, null, lists), else the string."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def parse_variant(spec: str) -> tuple[str, str, dict]:
    """``NAME=PIPELINE;key=value;...`` (or a default variant's bare name) -> (name, pipeline, overrides)."""
    if "=" not in spec:
        if spec not in DEFAULT_VARIANTS:
            raise SystemExit(f"--variant {spec!r}: not NAME=PIPELINE and not one of {', '.join(DEFAULT_VARIANTS)}")
        name, body = spec, DEFAULT_VARIANTS[spec]
    else:
        name, body = spec.split("=", 1)
    pipeline, *pairs = body.split(";")
    overrides = {}
    for pair in filter(None, pairs):
        key, sep, raw = pair.partition("=")
        if not sep:
            raise SystemExit(f"--variant {spec!r}: override {pair!r} is not key=value")
        overrides[key.strip()] = parse_value(raw)
    return name.strip(), pipeline.strip(), overrides


def parse_sweep(spec: str) -> tuple[str, list]:
    """``KEY=v1,v2,...`` -> (dotted config key, values)."""
    key, sep, raw = spec.partition("=")
    if not sep or not raw:
        raise SystemExit(f"--sweep {spec!r}: expected KEY=v1,v2,...")
    return SWEEP_ALIASES.get(key.strip(), key.strip()), [parse_value(v) for v in raw.split(",")]


def config_value(config, key: str):
    """The value at dotted ``key`` of a (non-interpolated) config, or KeyError."""
    node = config
    for part in key.split("."):
        node = node[part]
    return node


def substitute(overrides: dict, kanon_index: str) -> dict:
    """``overrides`` with ``{kanon_index}`` in string values replaced by the index path."""
    return {k: v.replace("{kanon_index}", kanon_index) if isinstance(v, str) else v for k, v in overrides.items()}


def plan_points(variants, sweeps, kanon_index: str):
    """One point per (variant, sweep combination): the variant's applicable sweep keys take each of
    their values and the config's own (marked ``configured``); a variant without them runs once."""
    import spacy

    points = []
    for name, pipeline, overrides in variants:
        path = ROOT / pipeline if not Path(pipeline).is_absolute() else Path(pipeline)
        config = spacy.util.load_config(path, interpolate=False)
        overrides = substitute(overrides, kanon_index)
        axes, configured = [], {}
        for key, values in sweeps:
            try:
                configured[key] = overrides.get(key, config_value(config, key))
            except KeyError:
                continue
            axes.append((key, values + [configured[key]] * (configured[key] not in values)))
        combos = itertools.product(*(values for _, values in axes)) if axes else [()]
        for combo in combos:
            swept = {key: value for (key, _), value in zip(axes, combo, strict=True)}
            points.append(
                {
                    "variant": name,
                    "pipeline": pipeline,
                    "overrides": {**overrides, **swept},
                    "sweep": swept,
                    "configured": swept == configured,
                }
            )
    return points


def short(key: str) -> str:
    """The last part of a dotted config key (``components.kanon_risk.k`` -> ``k``)."""
    return key.rsplit(".", 1)[-1]


def point_label(point) -> str:
    """``variant`` or ``variant k=20`` (the last part of each swept key)."""
    parts = [f"{short(key)}={value}" for key, value in point["sweep"].items()]
    return " ".join([point["variant"], *parts])


def ensure_kanon_index(path: Path, tab_dir: Path) -> dict:
    """Build the kanon_risk background index at ``path`` unless it exists; the command used."""
    command = [
        str(Path(sys.executable).with_name("textsan")),
        "kanon",
        "build",
        str(path),
        "--docs",
        str(tab_dir / "train.json"),
        "--docs",
        str(tab_dir / "dev127_mentions_only.json"),
        "--pipeline",
        str(ROOT / DEFAULT_VARIANTS[BASELINE]),
    ]
    built = False
    if not (path / "meta.json").exists():
        print(f"building the kanon index {path} ...", flush=True)
        subprocess.run(command, check=True, cwd=ROOT)
        built = True
    shown = [os.path.relpath(part, ROOT) if part.startswith(str(ROOT.parent)) else part for part in command[1:]]
    return {"path": str(path), "command": "textsan " + " ".join(shown), "built_now": built}


def score_masking(population, gold, sanitized, masked, elapsed=None):
    """The attack, characters kept and TAB metrics of one masking of the target documents."""
    from spacy_textsan.tab import evaluate

    outcomes = [attack(population, text, doc.doc_id) for doc, text in zip(gold, sanitized, strict=True)]
    total = sum(len(doc.text) for doc in gold)
    kept = sum(chars_kept(m, len(doc.text)) for doc, m in zip(gold, masked, strict=True))
    metrics = evaluate(gold, {doc.doc_id: m for doc, m in zip(gold, masked, strict=True)})
    n = len(outcomes)
    return {
        "n_docs": n,
        "reid": sum(o.success for o in outcomes) / n,
        "n_reid": sum(o.success for o in outcomes),
        "reid_random_ties": sum(o.p_top1_random for o in outcomes) / n,
        "mean_rank": sum(o.rank for o in outcomes) / n,
        "chars_kept": kept / total,
        "chars_total": total,
        "chars_masked": total - kept,
        "tab": {key: metrics[key] for key in ("recall", "er_di", "er_qi", "precision")},
        "seconds": elapsed,
        "per_doc": [
            {
                "doc_id": o.person,
                "success": o.success,
                "rank": o.rank,
                "n_tied": o.n_tied,
                "score_true": round(o.score_true, 4),
                "score_best": round(o.score_best, 4),
                "visible_true": o.n_visible_true,
                "known_true": o.n_known_true,
            }
            for o in outcomes
        ],
    }


def run_point(point, gold):
    """Sanitize the target documents with the point's pipeline: (sanitized texts, masked offsets, seconds, statuses)."""
    from spacy_textsan.pipeline import load_pipeline
    from spacy_textsan.run import sanitize_texts

    path = ROOT / point["pipeline"] if not Path(point["pipeline"]).is_absolute() else Path(point["pipeline"])
    nlp = load_pipeline(str(path), point["overrides"])
    start = time.perf_counter()
    results = list(sanitize_texts(nlp, [doc.text for doc in gold]))
    elapsed = time.perf_counter() - start
    statuses = {}
    for res in results:
        statuses[res.status] = statuses.get(res.status, 0) + 1
    return [r.sanitized for r in results], [r.masked for r in results], elapsed, statuses


def compare(rows, baseline: str):
    """For each other variant: the points that dominate the baseline point (at least as many characters
    kept, at most as many re-identified, one strictly), and the variant's re-identification rate
    interpolated at the baseline's characters kept (linearly between its points; None outside them)."""
    base = next((r for r in rows if r["variant"] == baseline and r.get("configured", True)), None)
    if base is None:
        return {}
    out = {}
    for name in dict.fromkeys(r["variant"] for r in rows if r["variant"] != baseline and not r["reference"]):
        curve = sorted((r for r in rows if r["variant"] == name), key=lambda r: r["chars_kept"])
        dominating = [
            r["label"]
            for r in curve
            if r["chars_kept"] >= base["chars_kept"]
            and r["reid"] <= base["reid"]
            and (r["chars_kept"] > base["chars_kept"] or r["reid"] < base["reid"])
        ]
        at_base = None
        for a, b in itertools.pairwise(curve):
            if a["chars_kept"] <= base["chars_kept"] <= b["chars_kept"]:
                span = b["chars_kept"] - a["chars_kept"]
                t = (base["chars_kept"] - a["chars_kept"]) / span if span else 0.0
                at_base = a["reid"] + t * (b["reid"] - a["reid"])
                break
        out[name] = {
            "baseline": base["label"],
            "baseline_chars_kept": base["chars_kept"],
            "baseline_reid": base["reid"],
            "points_dominating_baseline": dominating,
            "reid_at_baseline_chars_kept": at_base,
        }
    return out


def print_table(rows):
    """The rows as an aligned text table."""
    header = f"{'point':32s} {'reid':>6s} {'n':>5s} {'rnd-tie':>7s} {'kept':>6s} {'recall':>6s} {'ERdi':>6s} {'ERqi':>6s} {'prec':>6s} {'s':>6s}"
    print(header)
    print("-" * len(header))

    def fmt(value):
        return f"{value:6.3f}" if isinstance(value, float) else f"{'-':>6s}"

    for r in rows:
        tab = r["tab"]
        label = r["label"] + (" *" if r["configured"] and r["sweep"] else "")
        print(
            f"{label:32s} {r['reid']:6.3f} {r['n_reid']:>2d}/{r['n_docs']:<2d} {r['reid_random_ties']:7.3f} "
            f"{r['chars_kept']:6.3f} {fmt(tab['recall'])} {fmt(tab['er_di'])} {fmt(tab['er_qi'])} "
            f"{fmt(tab['precision'])} {fmt(r['seconds'])}"
        )
    if any(r["configured"] and r["sweep"] for r in rows):
        print("* as configured (the config's own values of the swept keys)")


def series(rows) -> dict[tuple[str, tuple], list[dict]]:
    """The plotted lines: a variant's points grouped by the values of all sweep keys but the first,
    each line running over the first key's values (in order)."""

    def order(value):
        return (0, value, "") if isinstance(value, int | float) and not isinstance(value, bool) else (1, 0, str(value))

    lines: dict[tuple[str, tuple], list[dict]] = {}
    for r in rows:
        if not r["reference"]:
            rest = tuple(list(r["sweep"].items())[1:])
            lines.setdefault((r["variant"], rest), []).append(r)
    for curve in lines.values():
        curve.sort(key=lambda r: tuple(order(v) for v in r["sweep"].values()))
    return lines


def plot(rows, path: Path, title: str):
    """The privacy-utility curve: a line per variant (and per value of any second sweep key) over its
    sweep points, the points "as configured" circled, the reference points as markers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 5))
    x_min = min(0.75, math.floor((min(r["chars_kept"] for r in rows) - 0.02) * 20) / 20)
    ax.fill_between([0.8, 1.0], -0.02, 0.1, color="tab:green", alpha=0.1, lw=0)
    ax.text(0.995, 0.005, "target: kept ≥ 0.80, reid ≤ 0.10", ha="right", va="bottom", fontsize=7, color="tab:green")
    markers = itertools.cycle("osD^v<>p")
    for (name, rest), curve in series(rows).items():
        xs, ys = [r["chars_kept"] for r in curve], [r["reid"] for r in curve]
        key = short(next(iter(curve[0]["sweep"]))) if curve[0]["sweep"] else None
        label = " ".join([name, *(f"{short(k)}={v}" for k, v in rest)]) + (f" (points: {key})" if key else "")
        (line,) = ax.plot(xs, ys, marker=next(markers), label=label)
        # each point labelled with its value of the first sweep key, points that (nearly) coincide on
        # the plot sharing one label ("20,40"); labels alternate above and below the line
        spots: dict[tuple[float, float], list[str]] = {}
        for r in curve:
            if r["sweep"]:
                x, y = r["chars_kept"], r["reid"]
                near = (a for a in spots if abs(a[0] - x) < 0.015 * (1 - x_min) and abs(a[1] - y) < 0.015)
                spots.setdefault(next(near, (x, y)), []).append(str(next(iter(r["sweep"].values()))))
            if r["configured"] and r["sweep"]:
                ax.plot([r["chars_kept"]], [r["reid"]], marker="o", ms=11, mfc="none", mec=line.get_color())
        for i, ((x, y), values) in enumerate(spots.items()):
            offset = (0, 8) if i % 2 == 0 else (0, -14)
            ax.annotate(",".join(values), (x, y), textcoords="offset points", xytext=offset, fontsize=7, ha="center")
    if any(r["configured"] and r["sweep"] for r in rows):
        ax.plot([], [], "o", ms=11, mfc="none", mec="gray", label="as configured")
    for r, style in zip([r for r in rows if r["reference"]], ("kX", "k*"), strict=False):
        ax.plot([r["chars_kept"]], [r["reid"]], style, ms=10, label=r["label"])
    ax.set_xlabel("characters kept (share of the original text left in clear)")
    ax.set_ylabel("re-identification rate (true person strictly first)")
    ax.set_xlim(x_min, 1.005)
    ax.set_ylim(-0.02, 1.05)
    ax.grid(alpha=0.3)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def plot_title(split: str, n_docs: int, population: int) -> str:
    return f"Re-identification attack on TAB {split} ({n_docs} docs, population {population})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tab-dir", type=Path, default=TAB_DIR)
    ap.add_argument("--split", default="dev", help="the documents attacked: TAB-DIR/SPLIT.json (default dev)")
    ap.add_argument(
        "--population",
        nargs="+",
        default=["train", "dev"],
        help="TAB files (names in TAB-DIR) whose documents are the population (default: train dev)",
    )
    ap.add_argument("--variant", action="append", default=None, help="NAME=PIPELINE[;key=value;...] (repeatable)")
    ap.add_argument("--sweep", action="append", default=None, help="KEY=v1,v2,... (repeatable; k = kanon_risk k)")
    ap.add_argument("--kanon-index", type=Path, default=Path("/tmp/reid_kanon"), help="built here if missing")
    ap.add_argument("--baseline", default=BASELINE, help="the variant others are compared with")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "reid_attack.json")
    ap.add_argument("--png", type=Path, default=None, help="default: --out with .png")
    ap.add_argument("--plot-only", action="store_true", help="redraw the PNG from the --out JSON, run nothing")
    args = ap.parse_args()
    png = args.png or args.out.with_suffix(".png")
    if args.plot_only:
        saved = json.loads(args.out.read_text())
        plot(saved["points"], png, plot_title(saved["split"], saved["n_docs"], saved["population"]["size"]))
        print(f"wrote {png}")
        return

    from spacy_textsan.tab import read_tab

    gold = read_tab(args.tab_dir / f"{args.split}.json")
    population_docs = [doc for name in args.population for doc in read_tab(args.tab_dir / f"{name}.json")]
    population = build_population(people_from_tab(population_docs))
    missing = [doc.doc_id for doc in gold if doc.doc_id not in population.strings]
    if missing:
        raise SystemExit(f"documents not in the population: {missing[:5]}...")

    variants = [parse_variant(spec) for spec in (args.variant or list(DEFAULT_VARIANTS))]
    sweeps = [parse_sweep(spec) for spec in (args.sweep or DEFAULT_SWEEP)]
    kanon_index = str(args.kanon_index.resolve())
    points = plan_points(variants, sweeps, kanon_index)
    index_info = None
    if any(kanon_index in json.dumps(p["overrides"]) for p in points):
        index_info = ensure_kanon_index(args.kanon_index.resolve(), args.tab_dir)

    print(f"population {population.size} people, {len(population.df)} strings; {len(gold)} {args.split} documents")
    rows = []
    references = [
        ("nothing masked", [[] for _ in gold]),
        ("gold DIRECT+QUASI (annotator 1)", [gold_masking(doc) for doc in gold]),
    ]
    for label, masked in references:
        sanitized = [mask_text(doc.text, m) for doc, m in zip(gold, masked, strict=True)]
        row = {"variant": label, "label": label, "reference": True, "configured": True, "sweep": {}}
        rows.append({**row, **score_masking(population, gold, sanitized, masked)})
    for point in points:
        label = point_label(point)
        print(f"running {label} ...", flush=True)
        sanitized, masked, elapsed, statuses = run_point(point, gold)
        row = {**point, "label": label, "reference": False, "statuses": statuses}
        rows.append({**row, **score_masking(population, gold, sanitized, masked, round(elapsed, 2))})
        print(f"  reid {rows[-1]['reid']:.3f}  chars kept {rows[-1]['chars_kept']:.3f}  {elapsed:.1f} s", flush=True)

    print()
    print_table(rows)
    comparisons = compare(rows, args.baseline)
    for name, c in comparisons.items():
        at = c["reid_at_baseline_chars_kept"]
        print(
            f"{name} vs {c['baseline']}: dominating points {c['points_dominating_baseline'] or 'none'}; "
            f"reid at the baseline's chars kept {'n/a' if at is None else f'{at:.3f}'} (baseline {c['baseline_reid']:.3f})"
        )

    out = {
        "split": args.split,
        "n_docs": len(gold),
        "population": {
            "files": [f"{name}.json" for name in args.population],
            "size": population.size,
            "n_strings": len(population.df),
            "identifier_types": list(KNOWN_TYPES),
        },
        "attack": (
            "rank the population by the summed IDF (log N/df) of each person's normalised DIRECT/QUASI strings "
            "visible in the sanitized text (case-folded, whitespace-collapsed, on word boundaries); success = "
            "true person strictly first; reid_random_ties = expected top-1 with ties broken uniformly at random"
        ),
        "chars_kept": "1 - masked characters / total characters over the documents (the run's masked offsets)",
        "kanon_index": index_info,
        "sweeps": {key: values for key, values in sweeps},
        "date": datetime.date.today().isoformat(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "comparisons": comparisons,
        "points": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    plot(rows, png, plot_title(args.split, len(gold), population.size))
    print(f"wrote {args.out} and {png}")


if __name__ == "__main__":
    main()
