"""Where the default pipeline spends its time: a profile of one pass over TAB texts.

    python benchmarks/profile_pipeline.py [--splits dev train] [--ner-process off|on]
        [--pipeline CFG] [--out benchmarks/results/profile.json] [--top 40]

    # a flame graph of the same run (py-spy: pip install py-spy)
    py-spy record --format flamegraph -o benchmarks/results/profile.svg -- \
        python benchmarks/profile_pipeline.py --no-cprofile

The pipeline is loaded and warmed up first (not profiled); then the texts
go through ``runner.sanitize_texts`` (the CLI path) under cProfile. The JSON
keeps the run's seconds and the ``--top`` functions by own time and by
cumulative time, each with its calls and seconds (paths cut at
``site-packages/`` and at this repository). With ``--ner-process on`` the
NER runs in its own process (as ``textsan sanitize`` does on two cores): the
profile is then that of everything but the NER, which shows as the time
spent waiting for its answers.
"""

import argparse
import cProfile
import json
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TAB_DIR = ROOT.parent / "shared" / "data" / "tab"


def short(path: str) -> str:
    for cut in ("site-packages/", str(ROOT) + "/"):
        if cut in path:
            return path.split(cut, 1)[1]
    return path


def rows(stats: pstats.Stats, key: str, top: int) -> list[dict]:
    entries = []
    for (path, line, name), (_, ncalls, tottime, cumtime, _) in stats.stats.items():  # type: ignore[attr-defined]
        entries.append({"function": f"{short(path)}:{line}({name})", "calls": ncalls,
                        "own_s": round(tottime, 4), "cumulative_s": round(cumtime, 4)})
    entries.sort(key=lambda r: r[key], reverse=True)
    return entries[:top]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tab-dir", type=Path, default=TAB_DIR)
    p.add_argument("--splits", nargs="+", default=["dev", "train"])
    p.add_argument("--pipeline", default=None)
    p.add_argument("--ner-process", choices=("off", "on"), default="off")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--top", type=int, default=40)
    p.add_argument("--out", type=Path, default=None, help="the JSON (default: print the table only)")
    p.add_argument("--no-cprofile", action="store_true", help="run without cProfile (under py-spy)")
    args = p.parse_args(argv)

    from spacy_textsan.pipeline import load_pipeline
    from spacy_textsan.run import sanitize_texts
    from spacy_textsan.tab import read_tab

    try:
        from spacy_textsan.run import ner_process
    except ImportError:  # an older copy of the package (a profile "before"): the NER runs here
        from contextlib import nullcontext

        def ner_process(nlp, enabled=True):
            return nullcontext(0)

    texts = [d.text for split in args.splits for d in read_tab(args.tab_dir / f"{split}.json")]
    nlp = load_pipeline(args.pipeline)
    with ner_process(nlp, args.ner_process == "on"):
        list(sanitize_texts(nlp, [texts[0][:500]]))
        profiler = cProfile.Profile()
        start = time.perf_counter()
        if not args.no_cprofile:
            profiler.enable()
        results = list(sanitize_texts(nlp, texts, batch_size=args.batch_size))
        if not args.no_cprofile:
            profiler.disable()
        seconds = time.perf_counter() - start
    assert len(results) == len(texts)
    print(f"{len(texts)} texts, {sum(map(len, texts)):,} characters: {seconds:.2f} s", file=sys.stderr)
    if args.no_cprofile:
        return 0
    stats = pstats.Stats(profiler)
    report = {
        "command": "python benchmarks/profile_pipeline.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "splits": args.splits, "n_docs": len(texts), "n_chars": sum(map(len, texts)),
        "pipeline": args.pipeline or "bundled default.cfg", "ner_process": args.ner_process,
        "seconds_under_cprofile": round(seconds, 3),
        "by_own_time": rows(stats, "own_s", args.top),
        "by_cumulative_time": rows(stats, "cumulative_s", args.top),
    }
    for r in report["by_own_time"][:25]:
        print(f"{r['own_s']:8.3f} {r['cumulative_s']:8.3f} {r['calls']:9d}  {r['function']}")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
