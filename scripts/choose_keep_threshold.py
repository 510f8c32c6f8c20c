"""Choose the trained pipeline's keep threshold on TAB train's held-out documents (``spacy project run
choose-keep``), never on TAB dev.

    python scripts/choose_keep_threshold.py [--tab-dir ../shared/data/tab] [--assembled training/textsan_trained]

supervised_risk keeps a quasi-identifier it scores under ``keep_thresholds["supervised"]`` (mask_optimizer).
Which threshold is a choice on data: the documents of TAB train that ``convert --holdout-every 10`` held out
(:func:`spacy_textsan.training.convert.is_held_out`: neither model trained on them; spaCy picked
``model-best`` on them) are written to a temporary TAB JSON file, ``benchmarks/trained_eval.py`` measures the
assembled pipeline there at every threshold of ``--grid`` (0: nothing kept), and the threshold kept is the one
of the highest precision among those whose recall is at least ``--min-recall`` (the target's, 0.93; a tie
goes to the lower threshold); when none reaches it, the one of the highest recall. Written:
``benchmarks/results/trained_keep_choice.json``. ``configs/textsan_trained.cfg`` holds the chosen value
(``tests/test_trained_pipeline.py`` checks that the two agree).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spacy_textsan.training.convert import is_held_out  # noqa: E402

SPLIT = "train_heldout"
VARIANT = "assembled, supervised keeps under t={}"


def held_out(train: Path, every: int) -> list[dict]:
    """The documents of TAB JSON file ``train`` that a split holding out one in ``every`` validates on."""
    docs = json.loads(train.read_text(encoding="utf-8"))
    return [doc for doc in docs if is_held_out(doc["doc_id"], every)]


def choose(rows: list[dict], min_recall: float) -> dict:
    """The row of the highest precision among those of recall >= ``min_recall`` (the lower threshold on a
    tie); none reaching it, the row of the highest recall."""
    if not rows:
        raise ValueError("no threshold was measured")
    reaching = [r for r in rows if r["recall"] >= min_recall]
    if reaching:
        return max(reaching, key=lambda r: (round(r["precision"], 6), -r["threshold"]))
    return max(rows, key=lambda r: (round(r["recall"], 6), -r["threshold"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tab-dir", type=Path, default=ROOT.parent / "shared" / "data" / "tab")
    ap.add_argument("--assembled", default="training/textsan_trained")
    ap.add_argument("--ner", default="training/ner/model-best")
    ap.add_argument("--risk", default="training/risk/model-best")
    ap.add_argument("--every", type=int, default=10, help="the split of convert --holdout-every")
    ap.add_argument("--grid", type=float, nargs="+", default=[0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2])
    ap.add_argument("--min-recall", type=float, default=0.93)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "trained_keep_choice.json")
    args = ap.parse_args()
    docs = held_out(args.tab_dir / "train.json", args.every)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / f"{SPLIT}.json").write_text(json.dumps(docs), encoding="utf-8")
        measured = Path(tmp) / "measured.json"
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "benchmarks" / "trained_eval.py"),
                "--split",
                SPLIT,
                "--tab-dir",
                tmp,
                "--ner",
                args.ner,
                "--risk",
                args.risk,
                "--assembled",
                args.assembled,
                "--keep-thresholds",
                *[str(t) for t in args.grid],
                "--reid-attack",
                str(Path(tmp) / "none.json"),
                "--multidomain",
                str(Path(tmp) / "none.json"),
                "--out",
                str(measured),
            ],
            check=True,
        )
        variants = json.loads(measured.read_text(encoding="utf-8"))["variants"]
    rows = [
        {"threshold": t, **{k: variants[VARIANT.format(t)][k] for k in ("recall", "er_di", "precision")}}
        for t in args.grid
    ]
    chosen = choose(rows, args.min_recall)
    out = {
        "what": "the trained pipeline's keep threshold (mask_optimizer keep_thresholds['supervised']), chosen on "
        f"the {len(docs)} documents of TAB train held out by convert --holdout-every {args.every}",
        "rule": f"the highest precision at recall >= {args.min_recall} (else the highest recall)",
        "documents": [d["doc_id"] for d in docs],
        "assembled": args.assembled,
        "rows": rows,
        "chosen": chosen["threshold"],
        "date": date.today().isoformat(),
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    for row in rows:
        mark = "  <- chosen" if row is chosen else ""
        print(f"t={row['threshold']:<5} R={row['recall']:.3f} ERdi={row['er_di']:.3f} P={row['precision']:.3f}{mark}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
