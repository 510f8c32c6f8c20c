"""Benchmark of the k-anonymity inverted index (spacy_textsan.risk.kanon_index).

Builds an index over N synthetic person records (default 1,000,000), each
with 8 attributes drawn from Zipf-like vocabularies (seeded), and measures:

* build time (``InvertedIndex.from_records``, normalisation included);
* peak resident memory: ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of the
  whole process (records + index), and the RSS growth during the build
  (``/proc/self/statm`` before/after; Linux only);
* serialized size (``to_bytes``) and ``to_disk``/``from_disk`` time;
* query latency p50/p99 over 10,000 queries each: single-term ``count`` and
  2- and 3-term ``intersection_count`` (terms of one random record, so the
  intersection is non-empty, as when a document is checked);
* ``risky_combinations`` on a 50-term document (max_arity 2 and 3) and
  ``terms_to_mask`` (greedy, max_arity 2).

Writes benchmarks/results/kanon_index.json and prints a table::

    python benchmarks/kanon_index_bench.py [--records 1000000] [--queries 10000]
"""
import argparse
import datetime
import json
import os
import platform
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from spacy_textsan.risk.kanon_algorithm import risky_combinations, terms_to_mask  # noqa: E402
from spacy_textsan.risk.kanon_index import InvertedIndex  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "kanon_index.json"

#: attribute -> (vocabulary size, Zipf exponent)
ATTRIBUTES = {
    "birth_year": (90, 0.3),
    "city": (20_000, 1.1),
    "occupation": (3_000, 1.0),
    "employer": (50_000, 1.1),
    "nationality": (200, 1.3),
    "diagnosis": (10_000, 1.0),
    "first_name": (5_000, 1.0),
    "surname": (200_000, 1.05),
}


def vocabulary(name, size):
    if name == "birth_year":
        return [str(1930 + i) for i in range(size)]
    return [f"{name.replace('_', ' ')} {i}" for i in range(size)]


def zipf_column(rng, values, exponent, n):
    weights = [1.0 / (rank ** exponent) for rank in range(1, len(values) + 1)]
    cum, total = [], 0.0
    for w in weights:
        total += w
        cum.append(total)
    return rng.choices(values, cum_weights=cum, k=n)


def rss_bytes():
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return None


def percentiles(samples_ns):
    samples = sorted(samples_ns)
    p = lambda q: samples[min(len(samples) - 1, int(q * len(samples)))] / 1000.0  # noqa: E731
    return {"p50_us": round(p(0.50), 2), "p99_us": round(p(0.99), 2),
            "mean_us": round(statistics.fmean(samples) / 1000.0, 2)}


def timed_queries(fn, queries):
    out = []
    for q in queries:
        t0 = time.perf_counter_ns()
        fn(q)
        out.append(time.perf_counter_ns() - t0)
    return percentiles(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    n = args.records
    rss_import = rss_bytes()

    t0 = time.perf_counter()
    columns = [zipf_column(rng, vocabulary(name, size), s, n) for name, (size, s) in ATTRIBUTES.items()]
    gen_s = time.perf_counter() - t0

    rss_before = rss_bytes()
    t0 = time.perf_counter()
    index = InvertedIndex.from_records(zip(*columns))
    build_s = time.perf_counter() - t0
    rss_after = rss_bytes()
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux

    t0 = time.perf_counter()
    data = index.to_bytes()
    to_bytes_s = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        index.to_disk(tmp)
        to_disk_s = time.perf_counter() - t0
        disk_size = sum(p.stat().st_size for p in Path(tmp).iterdir())
        t0 = time.perf_counter()
        loaded = InvertedIndex.from_disk(tmp)
        from_disk_s = time.perf_counter() - t0
    assert loaded.n_records == index.n_records and len(loaded) == len(index)
    del loaded

    qrng = random.Random(args.seed + 1)
    n_attr = len(columns)

    def record_terms(r, arity):
        attrs = qrng.sample(range(n_attr), arity)
        return [columns[a][r] for a in attrs]

    singles = [columns[qrng.randrange(n_attr)][qrng.randrange(n)] for _ in range(args.queries)]
    pairs = [record_terms(qrng.randrange(n), 2) for _ in range(args.queries)]
    triples = [record_terms(qrng.randrange(n), 3) for _ in range(args.queries)]
    latency = {
        "count": timed_queries(index.count, singles),
        "intersection_2": timed_queries(index.intersection_count, pairs),
        "intersection_3": timed_queries(index.intersection_count, triples),
    }

    # a 50-term "document": the attributes of 6 people plus 2 unseen terms
    doc = []
    for r in qrng.sample(range(n), 6):
        doc.extend(columns[a][r] for a in range(n_attr))
    doc = list(dict.fromkeys(doc))[:48] + ["unseen term 1", "unseen term 2"]
    doc_results = {"n_terms": len(doc)}
    for arity in (2, 3):
        t0 = time.perf_counter()
        combos, complete = risky_combinations(doc, index, k=5, max_arity=arity)
        doc_results[f"risky_combinations_arity{arity}"] = {
            "ms": round((time.perf_counter() - t0) * 1000, 2), "found": len(combos), "complete": complete}
    t0 = time.perf_counter()
    masked = terms_to_mask(doc, index, k=5, max_arity=2)
    doc_results["terms_to_mask_greedy_arity2"] = {"ms": round((time.perf_counter() - t0) * 1000, 2),
                                                  "masked": len(masked)}

    result = {
        "date": datetime.date.today().isoformat(),
        "machine": platform.machine(),
        "system": platform.system(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "records": n,
        "attributes": {k: {"vocabulary": v[0], "zipf_s": v[1]} for k, v in ATTRIBUTES.items()},
        "seed": args.seed,
        "n_terms": len(index),
        "generate_records_s": round(gen_s, 2),
        "build_s": round(build_s, 2),
        "build_records_per_s": round(n / build_s),
        "memory": {
            "method": "peak: resource.getrusage(RUSAGE_SELF).ru_maxrss (whole process, incl. the "
                      "generated records); build growth: /proc/self/statm RSS after - before build",
            "peak_rss_mb": round(peak_rss / 2**20, 1),
            "rss_after_imports_mb": round(rss_import / 2**20, 1) if rss_import else None,
            "rss_before_build_mb": round(rss_before / 2**20, 1) if rss_before else None,
            "build_rss_growth_mb": round((rss_after - rss_before) / 2**20, 1) if rss_before else None,
        },
        "serialized_bytes": len(data),
        "disk_bytes": disk_size,
        "to_bytes_s": round(to_bytes_s, 2),
        "to_disk_s": round(to_disk_s, 2),
        "from_disk_s": round(from_disk_s, 2),
        "queries": args.queries,
        "latency": latency,
        "document": doc_results,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")

    rows = [
        ("records / terms", f"{n:,} / {len(index):,}"),
        ("build", f"{build_s:.1f} s ({n / build_s:,.0f} records/s)"),
        ("peak RSS (process) / build growth", f"{result['memory']['peak_rss_mb']} MB / "
                                               f"{result['memory']['build_rss_growth_mb']} MB"),
        ("serialized size", f"{len(data) / 2**20:.1f} MB"),
        ("to_disk / from_disk", f"{to_disk_s:.2f} s / {from_disk_s:.2f} s"),
    ]
    for name, lat in latency.items():
        rows.append((f"{name} p50 / p99", f"{lat['p50_us']} / {lat['p99_us']} µs"))
    for name, val in doc_results.items():
        if isinstance(val, dict):
            rows.append((f"50-term doc: {name}", ", ".join(f"{k}={v}" for k, v in val.items())))
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
