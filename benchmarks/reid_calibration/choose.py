"""Choose ``reid_risk``'s ``k`` and ``margin`` on the calibration set, and write the calibration table.

    python benchmarks/reid_calibration/choose.py --run out/reid_calibration_sweep.json \\
        [--target 0.05] [--output benchmarks/results/reid_calibration.json]

Reads the output of ``benchmarks/wiki_reid_eval.py --data-dir out/reid_calibration`` run with a sweep of
``components.reid_risk.k`` and ``components.reid_risk.margin`` (``make calibrate-reid``): one point per
setting, each with the top-1 rate of every attacker of the evaluation's family (written apart from the
defence: benchmarks/attackers/) and the characters kept. The chosen setting is the one that keeps the most
characters among those where *every* attacker names the person first for at most ``--target`` of the
documents; when none does, the one whose worst attacker does best (reported as ``met: false``). Ties keep the
smaller k, then the smaller margin.

Written: every setting (attackers' top-1, ``any``, kept), the choice, whether the shipped default
(``spacy_textsan/configs/default.cfg``) is that choice, and for the chosen point the calibration table of the
run (documents by the k the pipeline reported, the share each attacker re-identified in each band).
"""

from __future__ import annotations

import argparse
import configparser
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CFG = ROOT / "spacy_textsan" / "configs" / "default.cfg"
ANY = "any"


def settings_of(point: dict) -> dict:
    """``{"k": ..., "margin": ...}`` of a point (its sweep values, else the shipped defaults)."""
    shipped = shipped_settings()
    swept = {key.rsplit(".", 1)[-1]: value for key, value in point.get("sweep", {}).items()}
    return {"k": swept.get("k", shipped["k"]), "margin": swept.get("margin", shipped["margin"])}


def shipped_settings() -> dict:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(DEFAULT_CFG, encoding="utf-8")
    section = parser["components.reid_risk"]
    return {"k": int(section["k"]), "margin": float(section["margin"])}


def summarise(point: dict, attackers: list[str]) -> dict:
    attack = point["attack"]
    row = {**settings_of(point), "label": point["label"], "chars_kept": round(point["chars_kept"], 4)}
    row["top1"] = {name: round(attack[name]["top1"], 4) for name in attackers if name in attack}
    row["worst"] = max(row["top1"].values())
    if ANY in attack:
        row["any"] = round(attack[ANY]["top1"], 4)
    return row


def choose(rows: list[dict], target: float) -> tuple[dict, bool]:
    """The row kept most among those whose worst attacker is at most ``target``, and whether one was."""
    safe = [r for r in rows if r["worst"] <= target]
    if safe:
        return max(safe, key=lambda r: (r["chars_kept"], -r["k"], -r["margin"])), True
    return min(rows, key=lambda r: (r["worst"], -r["chars_kept"], r["k"], r["margin"])), False


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", type=Path, required=True, help="the JSON of wiki_reid_eval.py's sweep")
    ap.add_argument("--target", type=float, default=0.05, help="the most any attacker may name first")
    ap.add_argument("--set-info", type=Path, default=None, help="the make_set.py log to record (sha256 lines)")
    ap.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results" / "reid_calibration.json")
    args = ap.parse_args(argv)
    run = json.loads(args.run.read_text(encoding="utf-8"))
    attackers = [a for a in run["attackers"] if a != ANY]
    points = [p for p in run["points"] if p.get("kind") == "textsan"]
    if not points:
        raise SystemExit(f"{args.run}: no textsan point to choose from")
    rows = [summarise(p, attackers) for p in points]
    chosen, met = choose(rows, args.target)
    chosen_point = next(p for p in points if p["label"] == chosen["label"])
    shipped = shipped_settings()
    out = {
        "what": "reid_risk's k and margin chosen on a calibration set made from the background alone "
        "(benchmarks/reid_calibration/make_set.py)",
        "set": run["data"],
        "set_files": args.set_info.read_text(encoding="utf-8").splitlines() if args.set_info else None,
        "n_docs": run["n_docs"],
        "n_background": run["n_background"],
        "attackers": attackers,
        "target_top1": args.target,
        "settings": rows,
        "chosen": chosen,
        "met": met,
        "shipped": shipped,
        "shipped_is_chosen": shipped == {"k": chosen["k"], "margin": chosen["margin"]},
        "chosen_calibration": chosen_point.get("calibration"),
        "references": [
            {
                "label": p["label"],
                "chars_kept": round(p["chars_kept"], 4),
                "top1": {a: round(p["attack"][a]["top1"], 4) for a in attackers if a in p.get("attack", {})},
            }
            for p in run["points"]
            if p.get("kind") != "textsan" and "chars_kept" in p
        ],
        "command": run.get("command"),
        "date": run.get("date"),
        "machine": run.get("machine"),
        "git": run.get("git"),
    }
    args.output.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(f"{'k':>4} {'margin':>7} {'kept':>6} {'worst':>6}  " + " ".join(f"{a:>10}" for a in attackers))
    for r in rows:
        print(
            f"{r['k']:>4} {r['margin']:>7} {r['chars_kept']:>6.3f} {r['worst']:>6.3f}  "
            + " ".join(f"{r['top1'].get(a, float('nan')):>10.3f}" for a in attackers)
        )
    print(f"chosen: k={chosen['k']} margin={chosen['margin']} (target met: {met}); shipped: {shipped}")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
