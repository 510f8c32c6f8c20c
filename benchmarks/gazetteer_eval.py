"""Issue 5's numbers: the offline knowledge base and wikidata_gazetteer on TAB.

Reports the KB's size per type, build and load time, the gazetteer's tagging
speed, and on a TAB split the recall of gold DEM / MISC (and LOC / ORG)
mentions by

* the gazetteer alone (``spacy.blank("en")`` + ``wikidata_gazetteer``),
* zero-shot ``privacy_ner`` (the default pipeline without the gazetteer),
* zero-shot ``privacy_ner`` + ``wikidata_gazetteer`` (the default pipeline,
  ``spacy_textsan/configs/default.cfg``),

with overall token recall, precision and ERqi (every candidate masked), the
speed of each (median of ``--repeat`` runs) and the gazetteer's own time per
document. The KB is the one ``kb_path = null`` reads (the shipped one unless
you built your own) or ``--kb``:

    python benchmarks/gazetteer_eval.py --split dev --repeat 3
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import time
from pathlib import Path

import spacy
import srsly

from spacy_textsan.extensions import masked_offsets
from spacy_textsan.detect.gazetteer.kb import GazetteerKB
from spacy_textsan.detect.gazetteer.paths import default_kb_path
from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.tab import evaluate, read_tab
from spacy_textsan.tab.metrics import per_type_recall

HERE = Path(__file__).resolve().parent
TYPES = ("DEM", "MISC", "LOC", "ORG")


def pipelines(kb_path: str, extra: dict):
    gaz = {"kb_path": kb_path, **extra}
    alone = spacy.blank("en")
    alone.add_pipe("wikidata_gazetteer", config=gaz)
    default = load_pipeline(overrides={f"components.wikidata_gazetteer.{k}": v for k, v in gaz.items()})
    without = load_pipeline()
    without.remove_pipe("wikidata_gazetteer")
    return {"gazetteer alone": alone, "privacy_ner": without, "privacy_ner + gazetteer": default}


def gazetteer_ms_per_doc(nlp, texts) -> float:
    """The gazetteer's own time per document in the default pipeline (a fresh
    component: its link cache empty, the shared KB and fuzzy index loaded)."""
    with nlp.select_pipes(enable=["privacy_ner"]):
        docs = list(nlp.pipe(texts))
    component = nlp.get_pipe("wikidata_gazetteer")
    fresh = type(component)(kb=component.kb)
    start = time.perf_counter()
    for doc in docs:
        fresh(doc)
    return 1000 * (time.perf_counter() - start) / len(docs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--tab-dir", default=str(HERE.parent.parent / "shared" / "data" / "tab"))
    ap.add_argument("--kb", default=str(default_kb_path()))
    ap.add_argument("--repeat", type=int, default=1, help="runs per pipeline; docs/s is their median")
    ap.add_argument("--out", default=None)
    ap.add_argument("--config", default="{}", help="JSON settings of wikidata_gazetteer, e.g. '{\"modifiers\": 0}'")
    args = ap.parse_args()

    loads = []
    for _ in range(5):
        start = time.perf_counter()
        kb = GazetteerKB.from_disk(args.kb)
        loads.append(time.perf_counter() - start)
    meta = srsly.read_json(Path(args.kb) / "meta.json")
    gold = read_tab(os.path.join(args.tab_dir, f"{args.split}.json"))
    texts = [d.text for d in gold]
    n_tokens = None
    results = {}
    extra = json.loads(args.config)
    nlps = pipelines(args.kb, extra)
    for nlp in nlps.values():
        list(nlp.pipe(texts[:1]))                            # load models and caches before timing
    speeds = {name: [] for name in nlps}
    outputs = {}
    for _ in range(args.repeat):                             # interleaved: load on the machine hits all alike
        for name, nlp in nlps.items():
            start = time.perf_counter()
            outputs[name] = list(nlp.pipe(texts))
            speeds[name].append(len(texts) / (time.perf_counter() - start))
    for name, nlp in nlps.items():
        docs = outputs[name]
        n_tokens = sum(len(d) for d in docs)
        masked = {d.doc_id: masked_offsets(doc) for d, doc in zip(gold, docs)}
        m = evaluate(gold, masked)
        mention = per_type_recall(gold, masked, token_level=False)
        results[name] = {
            "components": nlp.pipe_names,
            "recall": m["recall"], "mention_recall": m["mention_recall"], "precision": m["precision"],
            "er_qi": m["er_qi"],
            "token_recall_by_type": {t: m["per_type_recall"].get(t) for t in TYPES},
            "mention_recall_by_type": {t: mention.get(t) for t in TYPES},
            "docs_per_s": statistics.median(speeds[name]), "docs_per_s_runs": speeds[name],
            "n_spans": sum(len(d.spans.get("textsan", [])) for d in docs),
            "n_gazetteer_spans": sum(1 for d in docs for s in d.spans.get("textsan", [])
                                     if (s._.source or "").startswith("gazetteer")),
            "n_linked": sum(1 for d in docs for s in d.spans.get("textsan", []) if s._.kb_id),
        }
        r = results[name]
        print(f"{name:26s} R={r['recall']:.3f} P={r['precision']:.3f} "
              f"DEM mention/token={r['mention_recall_by_type']['DEM']:.3f}/{r['token_recall_by_type']['DEM']:.3f} "
              f"MISC={r['mention_recall_by_type']['MISC']:.3f}/{r['token_recall_by_type']['MISC']:.3f} "
              f"docs/s={r['docs_per_s']:.1f} spans={r['n_spans']} gaz={r['n_gazetteer_spans']} "
              f"linked={r['n_linked']}", flush=True)
    out = {
        "split": args.split, "n_docs": len(gold), "n_tokens": n_tokens,
        "date": datetime.date.today().isoformat(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "kb": {"path": args.kb, "entries": len(kb), "by_type": kb.stats(),
               "surfaces": meta.get("n_surfaces"), "build_s": meta.get("build_s"),
               "file_bytes": GazetteerKB.file_in(args.kb).stat().st_size,
               "load_s_median": statistics.median(loads), "sources": meta.get("sources"),
               "exclusions": meta.get("n_excluded")},
        "gazetteer_config": extra, "variants": results,
        "gazetteer_ms_per_doc": gazetteer_ms_per_doc(nlps["privacy_ner + gazetteer"], texts),
        "gazetteer_cost": 1 - results["privacy_ner + gazetteer"]["docs_per_s"] / results["privacy_ner"]["docs_per_s"],
    }
    path = Path(args.out or HERE / "results" / f"gazetteer_{args.split}.json")
    path.write_text(json.dumps(out, indent=1))
    print(f"wrote {path} (KB load median {statistics.median(loads):.2f}s; gazetteer "
          f"{out['gazetteer_ms_per_doc']:.1f} ms/doc, {out['gazetteer_cost']:.1%} of the default pipeline's speed)")


if __name__ == "__main__":
    main()
