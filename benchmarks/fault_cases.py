"""Issue 9's numbers: how long each injected fault takes to resolve, end to end.

    python benchmarks/fault_cases.py [--repeat 3]

Runs the cases of tests/test_fault_matrix.py (`textsan sanitize` with live
Wikidata linking and web search against local servers that hang, drop
connections, answer 429/500/503, send truncated/wrong/HTML bodies, or do not
listen; client timeout 0.3 s, one retry) and writes, per case, the median
seconds of the whole command, its exit status, the report status, whether
every assessed span was masked, and the error line.
Output: benchmarks/results/fault_cases.json.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from test_fault_matrix import BUDGET_S, WEB_MODES, WIKIDATA_MODES, run_case  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(HERE / "results" / "fault_cases.json"))
    args = ap.parse_args()
    cases = [("none", "")] + [("web", m) for m in WEB_MODES] + [("wikidata", m) for m in WIKIDATA_MODES]
    rows = []
    for service, mode in cases:
        times, last = [], None
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                code, report, sanitized, elapsed = run_case(Path(tmp), service, mode)
            times.append(elapsed)
            last = (code, report, sanitized)
        code, report, sanitized = last
        rows.append({"service": service, "fault": mode or "none", "seconds_median": round(statistics.median(times), 3),
                     "seconds_max": round(max(times), 3), "exit_code": code, "status": report["status"],
                     "masked": [s["text"] for s in report["spans"] if s["masked"]],
                     "kept": [s["text"] for s in report["spans"] if not s["masked"]],
                     "first_error": (report["errors"] or [None])[0], "sanitized": sanitized})
        print(f"{service:9s} {mode or 'none':14s} {rows[-1]['seconds_median']:6.2f}s exit {code} {report['status']}")
    out = {"date": datetime.date.today().isoformat(), "machine": platform.machine(), "cpus": os.cpu_count(),
           "client_timeout_s": 0.3, "client_retries": 1, "budget_s": BUDGET_S,
           "n_fault_cases": len(cases) - 1, "cases": rows}
    Path(args.out).write_text(json.dumps(out, indent=1, ensure_ascii=False))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
