"""The multi-domain set and the hard probes (benchmarks/multidomain_eval.py) with the trained
pipeline next to the zero-shot default, both with the mask strategy.

    python scripts/trained_multidomain.py training/textsan_trained [--n 200] \
        [--out benchmarks/results/multidomain_trained.json]

The trained pipeline is a folder made by `spacy project run assemble` or an installed package
name; it runs as system ``textsan-trained`` through multidomain_eval's own loop and report.
"""
import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import multidomain_eval as md  # noqa: E402

NAME = "textsan-trained"


def load_trained(pipeline: str):
    from spacy_textsan.pipeline import load_pipeline
    from spacy_textsan.run import sanitize_texts

    os.environ.setdefault("TEXTSAN_KEY", md.TEST_KEY)
    nlp = load_pipeline(pipeline, overrides={"components.generalizer.strategy": "mask"})
    info = {"pipe_names": nlp.pipe_names, "pipeline": pipeline, "status": defaultdict(int)}

    def run(texts):
        outs = []
        for r in sanitize_texts(nlp, texts, batch_size=32):
            info["status"][r.status] += 1
            outs.append(r.sanitized)
        return outs
    return run, info


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pipeline", help="the assembled trained pipeline (folder or package name)")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "multidomain_trained.json"))
    args = ap.parse_args()
    load_system = md.load_system
    md.load_system = lambda name: load_trained(args.pipeline) if name == NAME else load_system(name)
    md.SYSTEMS.append(NAME)
    md.main(["--n", str(args.n), "--systems", "textsan-mask", NAME, "--out", args.out])


if __name__ == "__main__":
    main()
