"""Issue 7's number: how many masked LOC / ORG / DEM / MISC spans get a
replacement option (not ``***``) from the generalizer's ``generalize``
strategy, on a TAB split, with example rows.

    python benchmarks/generalizer_eval.py --split dev --kb ~/.cache/spacy_textsan/kb_offline

Pipeline: spacy_textsan/configs/gazetteer.cfg (zero-shot privacy_ner +
wikidata_gazetteer linking to the offline KB + mask_all) with the generalizer
set to ``generalize``. Output: benchmarks/results/generalizer_<split>.json.
"""
import argparse
import collections
import datetime
import json
import os
import platform
from pathlib import Path

from spacy_textsan.extensions import get_candidates
from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.tab import read_tab

HERE = Path(__file__).resolve().parent
KB_TYPES = ("LOC", "ORG", "DEM", "MISC")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--tab-dir", default=str(HERE.parent.parent / "shared" / "data" / "tab"))
    ap.add_argument("--kb", required=True)
    ap.add_argument("--examples", type=int, default=20)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    gold = read_tab(os.path.join(args.tab_dir, f"{args.split}.json"))
    nlp = load_pipeline(str(HERE.parent / "spacy_textsan" / "configs" / "gazetteer.cfg"),
                        {"paths.kb": args.kb, "components.generalizer.strategy": "generalize"})
    counts = collections.Counter()
    options = collections.Counter()
    swept = 0
    rows = []
    for g, doc in zip(gold, nlp.pipe([d.text for d in gold])):
        for span in get_candidates(doc):
            if not span._.masked:
                continue
            swept += span._.source == "leak_sweep"
            kind = "option" if span._.replacement != "***" else "star"
            counts[(span.label_, kind)] += 1
            if span.label_ in KB_TYPES and kind == "option":
                options[(span.label_, span._.replacement)] += 1
            rows.append({"doc_id": g.doc_id, "label": span.label_, "original": span.text,
                         "replacement": span._.replacement})
    labels = sorted({lb for lb, _ in counts})
    by_type = {lb: {"masked": counts[(lb, "option")] + counts[(lb, "star")], "with_option": counts[(lb, "option")]}
               for lb in labels}
    for v in by_type.values():
        v["share"] = round(v["with_option"] / v["masked"], 4) if v["masked"] else None
    kb_masked = sum(by_type.get(t, {}).get("masked", 0) for t in KB_TYPES)
    kb_option = sum(by_type.get(t, {}).get("with_option", 0) for t in KB_TYPES)
    examples, seen = [], set()
    for r in rows:                      # varied examples: one per (label, replacement), KB types first
        key = (r["label"], r["replacement"])
        if r["label"] in KB_TYPES and r["replacement"] != "***" and key not in seen:
            seen.add(key)
            examples.append(r)
    examples = examples[:args.examples]
    out = {"split": args.split, "n_docs": len(gold), "kb": args.kb, "date": datetime.date.today().isoformat(),
           "machine": platform.machine(), "cpus": os.cpu_count(),
           "kb_types_share_with_option": round(kb_option / kb_masked, 4) if kb_masked else None,
           "kb_types_masked": kb_masked, "kb_types_with_option": kb_option, "by_type": by_type,
           "leak_sweep_spans": swept,
           "most_common_options": [[lb, rep, n] for (lb, rep), n in options.most_common(20)],
           "examples": examples}
    path = Path(args.out or HERE / "results" / f"generalizer_{args.split}.json")
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False))
    print(json.dumps({k: out[k] for k in ("kb_types_share_with_option", "by_type")}, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
