"""Streaming: one large JSONL file against the same rows in small files.

Writes ``--mb`` megabytes of JSONL rows (Faker, several locales, seed 17:
HR and support notes with names, e-mails, phones, places, dates), once as one
file and once split into files of ``--rows-per-file`` rows, and runs
``textsan sanitize`` on each in a child process of its own, measuring the wall
time and the child's peak memory (``os.wait4``'s ``ru_maxrss``). The targets of
issue 17: the large file in less than 1.2x the time of the small files, peak
memory under 1 GB, and outputs byte-identical between the two runs.

    python benchmarks/streaming_bench.py --mb 50 --out benchmarks/results/streaming.json
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SEED = 17
FIRST_DAY, LAST_DAY = datetime.date(1940, 1, 1), datetime.date(2020, 12, 31)
LOCALES = ("en_GB", "en_US", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "tr_TR")
TEMPLATES = (
    "{name} ({email}) called on {date} from {phone} about the invoice for the {city} office.",
    "Employee {name}, born {date}, works as {job} in {city}; contact {phone}.",
    "Ticket: {name} reports that the parcel sent to {address} on {date} never arrived. Reply to {email}.",
    "Meeting with {name} and {name2} in {city} moved to {date}. Call {phone} if late.",
    "{name} asked to update the account e-mail to {email} and the phone number to {phone}.",
)


def make_rows(target_bytes: int) -> list[str]:
    """JSONL lines of about ``target_bytes`` in all, the same for a seed."""
    from faker import Faker

    fakers = [Faker(locale) for locale in LOCALES]
    for i, fake in enumerate(fakers):
        fake.seed_instance(SEED + i)
    rng = random.Random(SEED)
    lines, size, n = [], 0, 0
    while size < target_bytes:
        fake = fakers[n % len(fakers)]
        text = rng.choice(TEMPLATES).format(
            name=fake.name(),
            name2=fake.name(),
            email=fake.email(),
            phone=fake.phone_number(),
            date=fake.date_between(FIRST_DAY, LAST_DAY).isoformat(),  # not fake.date(): that ends today
            city=fake.city(),
            job=fake.job(),
            address=fake.address().replace("\n", ", "),
        )
        line = json.dumps({"id": n, "text": text}, ensure_ascii=False) + "\n"
        lines.append(line)
        size += len(line.encode("utf-8"))
        n += 1
    return lines


def run_child(args: list[str]) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MB, exit code) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if proc.stderr is not None:
        err = proc.stderr.read().decode("utf-8", "replace")
        proc.stderr.close()
        if status:
            print(err[-2000:], file=sys.stderr)
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def digest(paths: list[Path]) -> str:
    """SHA-256 of the lines of ``paths`` in order (outputs compared as rows)."""
    h = hashlib.sha256()
    for path in paths:
        h.update(path.read_bytes())
    return h.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--rows-per-file", type=int, default=300)
    parser.add_argument("--pipeline", default=None, help="default: the default pipeline")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/streaming.json"))
    opts = parser.parse_args()
    textsan = [sys.executable, "-m", "spacy_textsan"]
    pipeline = ["--pipeline", opts.pipeline] if opts.pipeline else []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        lines = make_rows(int(opts.mb * 1_000_000))
        big = work / "big" / "rows.jsonl"
        big.parent.mkdir()
        big.write_text("".join(lines), encoding="utf-8")
        small_dir = work / "small"
        small_dir.mkdir()
        small = []
        for start in range(0, len(lines), opts.rows_per_file):
            path = small_dir / f"rows-{start // opts.rows_per_file:05d}.jsonl"
            path.write_text("".join(lines[start : start + opts.rows_per_file]), encoding="utf-8")
            small.append(path)
        print(f"{len(lines)} rows, {big.stat().st_size / 1e6:.1f} MB, {len(small)} small files", flush=True)
        results = {}
        for name, inputs in (("small_files", [str(p) for p in small]), ("one_large_file", [str(big)])):
            out = work / f"out-{name}"
            args = [*textsan, "sanitize", *inputs, "--out", str(out), "--quiet", *pipeline]
            wall, rss, code = run_child(args)
            outputs = sorted(out.glob("*.jsonl"))
            results[name] = {
                "files": len(inputs),
                "wall_s": round(wall, 1),
                "rows_per_s": round(len(lines) / wall, 1),
                "peak_rss_mb": round(rss, 1),
                "exit_code": code,
                "output_sha256": digest(outputs),
            }
            print(name, results[name], flush=True)
    ratio = results["one_large_file"]["wall_s"] / results["small_files"]["wall_s"]
    report = {
        "benchmark": "streaming: one large JSONL against the same rows in small files (textsan sanitize)",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "pipeline": opts.pipeline or "default (configs/default.cfg)",
        "rows": len(lines),
        "megabytes": round(sum(len(line.encode("utf-8")) for line in lines) / 1e6, 1),
        "rows_per_small_file": opts.rows_per_file,
        "seed": SEED,
        **results,
        "time_ratio_large_over_small": round(ratio, 3),
        "same_output": results["one_large_file"]["output_sha256"] == results["small_files"]["output_sha256"],
        "targets": {"time_ratio_below": 1.2, "peak_rss_mb_below": 1024},
        "met": {
            "time_ratio": ratio < 1.2,
            "memory": results["one_large_file"]["peak_rss_mb"] < 1024,
        },
    }
    opts.out.parent.mkdir(parents=True, exist_ok=True)
    opts.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
