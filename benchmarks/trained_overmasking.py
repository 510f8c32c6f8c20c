"""Where the trained pipeline masks what TAB's annotators kept: over-masked units by decision cause.

    python benchmarks/trained_overmasking.py training/textsan_trained [--split dev]

Runs the pipeline on TAB SPLIT and, for every masked candidate span, splits it into tokens as TAB's
precision does (token x annotator units: a unit counts once per annotator of the document, and is
over-masked for each annotator who did not mask it). Each span's decision reasons (``span._.reasons``,
the ``kb:`` links left out) are reduced to their causes: ``direct``, ``policy`` (mask_labels or a
special category), ``kanon`` (a kanon_risk risky set, alone or covered), ``supervised`` (supervised_risk
reached its threshold), ``reid`` (reid_risk), ``leak`` (the generalizer's leak sweep), ``residual``,
``unassessed``. Reported: the units masked and over-masked by label and by the set of causes of a span,
and precision with each cause's spans unmasked alone where that cause was their only one (an upper bound
of what lifting that cause can give). Results: benchmarks/results/trained_overmasking_<split>.json.
"""

import argparse
import json
import os
from collections import Counter
from pathlib import Path

import spacy

from spacy_textsan.tab import read_tab
from spacy_textsan.tab.metrics import prepare_gold, split_by_tokens

HERE = Path(__file__).resolve().parent
CAUSES = (
    ("direct identifier", "direct"),
    ("policy", "policy"),
    ("risky: kanon", "kanon"),
    ("covers risky combination: kanon", "kanon"),
    ("supervised risk", "supervised"),
    ("reid", "reid"),
    ("leak sweep", "leak"),
    ("residual", "residual"),
    ("not assessed", "unassessed"),
)


def cause(reason: str) -> str:
    for prefix, name in CAUSES:
        if reason.startswith(prefix):
            return name
    return reason.split(":")[0].split(" ")[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pipeline")
    ap.add_argument("--split", default="dev")
    ap.add_argument("--tab-dir", default=str(HERE.parent.parent / "shared" / "data" / "tab"))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    nlp = spacy.load(args.pipeline)
    tab_docs = read_tab(os.path.join(args.tab_dir, f"{args.split}.json"))
    gold = prepare_gold(tab_docs)
    by_label, by_causes, alone = Counter(), Counter(), Counter()
    masked_units = true_units = 0
    for tab_doc, doc in zip(tab_docs, nlp.pipe(d.text for d in tab_docs), strict=True):
        g = gold[tab_doc.doc_id]
        annotators = len(g.annotators)
        for span in doc.spans["textsan"]:
            if not span._.masked:
                continue
            units = list(split_by_tokens(g.text, span.start_char, span.end_char))
            true = sum(len(g.annotators_for_span(a, b)) for a, b in units)
            total = len(units) * annotators
            causes = sorted({cause(r) for r in span._.reasons or [] if not r.startswith("kb:")})
            masked_units += total
            true_units += true
            by_label[span.label_, "masked"] += total
            by_label[span.label_, "over"] += total - true
            key = "+".join(causes) or "none"
            by_causes[key, "masked"] += total
            by_causes[key, "over"] += total - true
            if len(causes) == 1:
                alone[causes[0], "masked"] += total
                alone[causes[0], "true"] += true

    def table(counter: Counter) -> dict:
        keys = sorted({k for k, _ in counter}, key=lambda k: -counter[k, "over"])
        return {k: {"masked": counter[k, "masked"], "over_masked": counter[k, "over"]} for k in keys}

    out = {
        "pipeline": args.pipeline,
        "split": args.split,
        "n_docs": len(tab_docs),
        "unit": "token x annotator (TAB's precision)",
        "precision": round(true_units / masked_units, 4),
        "masked_units": masked_units,
        "over_masked_units": masked_units - true_units,
        "by_label": table(by_label),
        "by_causes": table(by_causes),
        "precision_if_only_cause_lifted": {
            c: round((true_units - alone[c, "true"]) / (masked_units - alone[c, "masked"]), 4)
            for c in sorted({k for k, _ in alone})
            if masked_units > alone[c, "masked"]
        },
    }
    path = Path(args.out or HERE / "results" / f"trained_overmasking_{args.split}.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: out[k] for k in ("precision", "masked_units", "over_masked_units")}))
    print(json.dumps(out["by_causes"], indent=1)[:1500])
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
