"""The calibration table of issue 24: documents pooled over the k sweep of a variant, by the k the
pipeline reported (``residual_risk.k``, the attack's), and the share each independent attacker of the run
(and ``any``: at least one of them, where the run recorded it) re-identified in each band; the documents whose
k the pipeline did not measure (``k: null`` or ``measured: false``) in a ``not measured`` band.

Reads the per-document file of ``wiki_reid_eval.py`` (``benchmarks/results/wiki_reid_docs.jsonl``:
ids, ranks and the reported numbers, no text) and writes ``benchmarks/results/wiki_reid_calibration.json``.

    python benchmarks/wiki_reid_calibration.py --variant default --variant default_lexical
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from wiki_reid_eval import ANY, ATTACKERS, BANDS, NOT_MEASURED, calibration  # noqa: E402  (benchmarks/ is not a package)


def pooled(rows: list[dict], variant: str, attackers: list[str]) -> dict:
    """The calibration of every point of ``variant`` (its label, or its label and a sweep value) together."""
    members = [r for r in rows if r["point"] == variant or r["point"].startswith(variant + " ")]
    points = sorted({r["point"] for r in members})
    table = calibration(members, attackers)
    return {"points": points, "n_documents": len(members), "calibration": table}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=Path, default=HERE / "results" / "wiki_reid_docs.jsonl")
    ap.add_argument("--variant", action="append", default=None, help="a variant of the run (repeatable)")
    ap.add_argument("--output", type=Path, default=HERE / "results" / "wiki_reid_calibration.json")
    args = ap.parse_args(argv)
    rows = [json.loads(line) for line in args.docs.read_text().splitlines() if line.strip()]
    attackers = [a for a in (*ATTACKERS, ANY) if rows and a in rows[0]]
    variants = args.variant or ["default"]
    out = {
        "source": str(args.docs.name),
        "bands": [label for label, _, _ in BANDS],
        "not_measured_band": NOT_MEASURED,
        "success": "the abstract's own record strictly first (ties fail)",
        "variants": {v: pooled(rows, v, attackers) for v in variants},
    }
    args.output.write_text(json.dumps(out, indent=1) + "\n")
    for variant, result in out["variants"].items():
        print(f"{variant}: {result['n_documents']} documents over {', '.join(result['points'])}")
        table = result["calibration"].get("k") or next(iter(result["calibration"].values()), None)
        for band in table["bands"] if table else []:
            rates = "  ".join(f"{a} {band[f'{a}_n_reid']}/{band['n']}" for a in attackers)
            print(f"  k {band['band']:>12}: n {band['n']:4d}  {rates}")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
