"""Token-level evaluation on the hand-annotated French and Spanish ECHR documents.

    python benchmarks/fr_es_eval.py --lang fr --gold ../shared/data/echr_fr_es/fr_manual.tsv \\
        --ner spacy_textsan/assets/ner/fr                      # a spaCy model: doc.ents are the predictions
    python benchmarks/fr_es_eval.py --lang es --gold ../shared/data/echr_fr_es/es_manual.tsv \\
        --pipeline spacy_textsan/configs/default_es.cfg --name textsan   # a spacy-textsan pipeline: its masked spans

The gold is read by :mod:`spacy_textsan.training.bio_tsv` (tags mapped onto TAB's 8 types, scheme from the
file name); each document's rebuilt text goes through the pipeline as plain text. Nothing of the defence is
imported beyond loading and running the pipeline. The units are the gold file's tokens: a predicted
character span covers a token when it overlaps it (a token is then "masked").

* ``token_recall``: masked gold-entity tokens / gold-entity tokens, per TAB type and over all 8 ("all");
  ``direct_token_recall``: the same over PERSON and CODE tokens together (the direct identifiers).
* ``entities``: per PERSON, CODE and both, how many gold entities keep at least one token unmasked
  (``with_unmasked_token``, a leak) and how many have no token masked (``left_whole``), with their shares.
* ``token_precision``: masked tokens inside a gold entity / masked tokens.
* ``label_agreement``: among masked gold-entity tokens, the share covered by a prediction of the gold
  type (per type too); ``confusion``: gold type -> predicted label -> tokens (the gold type when a
  covering prediction has it, else the alphabetically first covering label).

Writes ``benchmarks/results/fr_es_<lang>_<name>.json``.
"""

import argparse
import bisect
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spacy_textsan.cli.options import parse_settings  # noqa: E402
from spacy_textsan.training.bio_tsv import BioDocument, read_bio_tsv  # noqa: E402

TAB_TYPES = ("PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC")
DIRECT_TYPES = ("PERSON", "CODE")
Prediction = tuple[int, int, str]


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def covering_labels(doc: BioDocument, predictions: Sequence[Prediction]) -> list[set[str]]:
    """For each gold token of ``doc``, the labels of the predicted spans that overlap it (empty: unmasked)."""
    out: list[set[str]] = [set() for _ in doc.tokens]
    starts = [start for start, _ in doc.tokens]
    for start, end, label in predictions:
        if end <= start:
            continue
        # tokens are in order and disjoint: the first that may overlap is the one before the first start >= end
        i = max(0, bisect.bisect_left(starts, start) - 1)
        while i < len(doc.tokens) and doc.tokens[i][0] < end:
            if doc.tokens[i][1] > start:
                out[i].add(label)
            i += 1
    return out


def token_metrics(docs: Sequence[BioDocument], predictions: Sequence[Sequence[Prediction]]) -> dict:
    """The metrics of the module's docstring, micro-averaged over the documents."""
    if len(docs) != len(predictions):
        raise ValueError(f"{len(docs)} documents but {len(predictions)} prediction lists")
    gold_tokens: Counter[str] = Counter()
    masked_gold: Counter[str] = Counter()
    agreeing: Counter[str] = Counter()
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    masked_tokens = masked_in_gold = n_tokens = 0
    ent_counts: dict[str, Counter[str]] = {t: Counter() for t in (*DIRECT_TYPES, "PERSON+CODE")}
    for doc, preds in zip(docs, predictions, strict=True):
        covers = covering_labels(doc, preds)
        labels = doc.token_labels()
        n_tokens += len(labels)
        for gold, cover in zip(labels, covers, strict=True):
            if cover:
                masked_tokens += 1
            if gold is None:
                continue
            gold_tokens[gold] += 1
            if cover:
                masked_in_gold += 1
                masked_gold[gold] += 1
                agreeing[gold] += gold in cover
                confusion[gold][gold if gold in cover else min(cover)] += 1
        for span in doc.spans:
            if span.label not in DIRECT_TYPES:
                continue
            masked = [bool(covers[i]) for i in range(span.token_start, span.token_end)]
            for key in (span.label, "PERSON+CODE"):
                ent_counts[key]["n"] += 1
                ent_counts[key]["with_unmasked_token"] += not all(masked)
                ent_counts[key]["left_whole"] += not any(masked)
    all_gold, all_masked = sum(gold_tokens.values()), sum(masked_gold.values())
    direct_gold = sum(gold_tokens[t] for t in DIRECT_TYPES)
    direct_masked = sum(masked_gold[t] for t in DIRECT_TYPES)
    return {
        "n_docs": len(docs),
        "n_tokens": n_tokens,
        "gold_tokens": {t: gold_tokens[t] for t in TAB_TYPES},
        "token_recall": {
            "all": _ratio(all_masked, all_gold),
            **{t: _ratio(masked_gold[t], gold_tokens[t]) for t in TAB_TYPES},
        },
        "direct_token_recall": _ratio(direct_masked, direct_gold),
        "entities": {
            key: {
                "n": c["n"],
                "with_unmasked_token": c["with_unmasked_token"],
                "left_whole": c["left_whole"],
                "share_with_unmasked_token": _ratio(c["with_unmasked_token"], c["n"]),
                "share_left_whole": _ratio(c["left_whole"], c["n"]),
            }
            for key, c in ent_counts.items()
        },
        "masked_tokens": masked_tokens,
        "masked_tokens_in_gold": masked_in_gold,
        "token_precision": _ratio(masked_in_gold, masked_tokens),
        "label_agreement": _ratio(sum(agreeing.values()), all_masked),
        "label_agreement_per_type": {t: _ratio(agreeing[t], masked_gold[t]) for t in TAB_TYPES},
        "confusion": {g: dict(sorted(confusion[g].items())) for g in TAB_TYPES if confusion[g]},
    }


def predict_ner(model: str, texts: list[str]) -> list[list[Prediction]]:
    """``doc.ents`` of a spaCy pipeline (path or package) on each text."""
    import spacy

    nlp = spacy.load(model)
    return [[(e.start_char, e.end_char, e.label_) for e in doc.ents] for doc in nlp.pipe(texts, batch_size=8)]


def predict_pipeline(spec: str | None, texts: list[str], overrides: dict[str, object]) -> list[list[Prediction]]:
    """The spans a spacy-textsan pipeline masks (its candidates in ``doc.spans["textsan"]``, or
    ``doc.ents`` without them, whose ``span._.masked`` is not False) on each text."""
    from spacy_textsan.pipeline import load_pipeline

    nlp = load_pipeline(spec, overrides)
    out = []
    for doc in nlp.pipe(texts, batch_size=8):
        spans = doc.spans["textsan"] if "textsan" in doc.spans else doc.ents
        out.append([(s.start_char, s.end_char, s.label_) for s in spans if s._.masked is not False])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", required=True, choices=("fr", "es"))
    ap.add_argument("--gold", required=True, type=Path, help="a hand-annotated BIO file (e.g. fr_manual.tsv)")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--ner", help="a spaCy pipeline (path or package) whose doc.ents are the predictions")
    what.add_argument("--pipeline", help="a spacy-textsan pipeline (.cfg, path or package; 'default': the bundled one)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override (--pipeline)")
    ap.add_argument("--name", default=None, help="results name: fr_es_<lang>_<name>.json (default: ner / textsan)")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args(argv)
    overrides = parse_settings(args.set)  # the CLI's --set: values read as JSON when they are
    docs = read_bio_tsv(args.gold)
    texts = [d.text for d in docs]
    t0 = time.perf_counter()
    if args.ner:
        preds, name, spec = predict_ner(args.ner, texts), args.name or "ner", args.ner
    else:
        pipe = None if args.pipeline == "default" else args.pipeline
        preds, name, spec = predict_pipeline(pipe, texts, overrides), args.name or "textsan", args.pipeline
    seconds = time.perf_counter() - t0
    result = {
        "lang": args.lang,
        "gold": args.gold.name,
        "kind": "ner" if args.ner else "textsan",
        "pipeline": spec,
        "overrides": overrides,
        "seconds": round(seconds, 2),
        "docs_per_s": round(len(docs) / seconds, 2) if seconds else None,
        **token_metrics(docs, preds),
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    out = args.out_dir / f"fr_es_{args.lang}_{name}.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    rec = result["token_recall"]
    print(
        f"{out}: recall all {rec['all']} PERSON {rec['PERSON']} CODE {rec['CODE']} direct {result['direct_token_recall']}"
        f" precision {result['token_precision']} label agreement {result['label_agreement']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
