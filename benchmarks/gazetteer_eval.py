"""Issue 5's numbers: the offline knowledge base and wikidata_gazetteer on TAB.

Reports the KB's size per type, build and load time, the gazetteer's tagging
speed, and on a TAB split the recall of gold DEM / MISC (and LOC / ORG)
mentions by

* the gazetteer alone (``spacy.blank("en")`` + ``wikidata_gazetteer``),
* zero-shot ``privacy_ner`` (the default pipeline, everything masked),
* zero-shot ``privacy_ner`` + ``wikidata_gazetteer``,

with overall token recall and precision (every candidate masked). Build the
KB first (``textsan gazetteer build``), then:

    python benchmarks/gazetteer_eval.py --split dev --kb ~/.cache/spacy_textsan/kb_offline
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
from spacy_textsan.gazetteer.kb import KnowledgeBase
from spacy_textsan.gazetteer.wikidata_gazetteer import default_kb_path
from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.tab import evaluate, read_tab
from spacy_textsan.tab.metrics import per_type_recall

HERE = Path(__file__).resolve().parent
TYPES = ("DEM", "MISC", "LOC", "ORG")


def pipelines(kb_path: str, extra: dict):
    gaz = {"kb_path": kb_path, **extra}
    alone = spacy.blank("en")
    alone.add_pipe("wikidata_gazetteer", config=gaz)
    zero = load_pipeline()
    both = load_pipeline()
    both.add_pipe("wikidata_gazetteer", after="privacy_ner", config=gaz)
    return {"gazetteer alone": alone, "privacy_ner": zero, "privacy_ner + gazetteer": both}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--tab-dir", default=str(HERE.parent.parent / "shared" / "data" / "tab"))
    ap.add_argument("--kb", default=str(default_kb_path()))
    ap.add_argument("--out", default=None)
    ap.add_argument("--config", default="{}", help="JSON settings of wikidata_gazetteer, e.g. '{\"modifiers\": 0}'")
    args = ap.parse_args()

    loads = []
    for _ in range(5):
        start = time.perf_counter()
        kb = KnowledgeBase.from_disk(args.kb)
        loads.append(time.perf_counter() - start)
    meta = srsly.read_json(Path(args.kb) / "meta.json")
    gold = read_tab(os.path.join(args.tab_dir, f"{args.split}.json"))
    texts = [d.text for d in gold]
    n_tokens = None
    results = {}
    extra = json.loads(args.config)
    for name, nlp in pipelines(args.kb, extra).items():
        start = time.perf_counter()
        docs = list(nlp.pipe(texts))
        elapsed = time.perf_counter() - start
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
            "docs_per_s": len(docs) / elapsed,
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
               "load_s_median": statistics.median(loads), "sources": meta.get("sources"),
               "exclusions": meta.get("n_excluded")},
        "gazetteer_config": extra, "variants": results,
    }
    path = Path(args.out or HERE / "results" / f"gazetteer_{args.split}.json")
    path.write_text(json.dumps(out, indent=1))
    print(f"wrote {path} (KB load median {statistics.median(loads):.2f}s)")


if __name__ == "__main__":
    main()
