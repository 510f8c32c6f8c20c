"""lm_risk: threshold calibration on TAB train and backend speed on TAB dev.

    python benchmarks/lm_risk_bench.py [--tab-dir ../shared/data/tab] [--skip-mlm]

(a) Calibration. The zero-shot pipeline's ``privacy_ner`` proposes candidates
on TAB **train**; each candidate gets its wordfreq log-probability. A
candidate is *positive* if it overlaps a gold DIRECT or QUASI mention (any
annotator), *negative* if it overlaps only NO_MASK mentions or no gold
mention. For a grid of thresholds the table gives the share of positives and
negatives flagged risky (``logprob < threshold``). The default threshold is
the one with the largest Youden J = TPR - FPR on train (ties: the higher
threshold, i.e. more flagged); dev is only reported as a held-out check.
Writes ``benchmarks/results/lm_risk_calibration.json``.

(b) Speed on TAB **dev** candidates: the wordfreq backend (cold and warm
cache), and the masked-LM backend with a randomly initialised BERT of
realistic width (hidden 256, 4 layers, WordPiece vocabulary trained here on
TAB train) in its batched mode and with one span per sequence, counting
forward passes against span tokens. No pretrained masked LM is available on
this machine; with one, pass its directory as ``model_path``.
Writes ``benchmarks/results/lm_risk_speed.json``.
"""
import argparse
import datetime
import json
import math
import platform
import tempfile
import time
from pathlib import Path

import srsly

from spacy_textsan.extensions import DIRECT, NO_MASK, QUASI
from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.risk.lm_backends import MaskedLMBackend, WordfreqBackend
from spacy_textsan.tab import read_tab

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
GRID = [t / 2 for t in range(-80, 1)]
#: Privacy first: the default must flag at least this share of the positive candidates.
MIN_POSITIVE_FLAGGED = 0.9


def candidates(nlp, tab_docs):
    """[(tab_doc, [(start, end, label), ...])] from privacy_ner alone."""
    ner = nlp.get_pipe("privacy_ner")
    out = []
    for tab_doc in tab_docs:
        doc = ner(nlp.make_doc(tab_doc.text))
        out.append((tab_doc, [(s.start_char, s.end_char, s.label_) for s in doc.spans["textsan"]]))
    return out


def gold_class(tab_doc, start, end):
    """'positive' (overlaps a DIRECT/QUASI mention), 'no_mask' (only NO_MASK), 'none'."""
    kinds = {
        m.identifier_type
        for mentions in tab_doc.annotations.values()
        for m in mentions
        if m.start < end and start < m.end
    }
    if kinds & {DIRECT, QUASI}:
        return "positive"
    return "no_mask" if NO_MASK in kinds else "none"


def scored_candidates(backend, cands):
    rows = []
    logprobs = backend.docs_span_logprobs([(d.text, [(s, e) for s, e, _ in spans]) for d, spans in cands])
    for (tab_doc, spans), values in zip(cands, logprobs):
        for (start, end, label), logprob in zip(spans, values):
            rows.append({"label": label, "class": gold_class(tab_doc, start, end), "logprob": logprob})
    return rows


def flagged_share(rows, threshold, classes):
    selected = [r for r in rows if r["class"] in classes]
    return (sum(r["logprob"] < threshold for r in selected) / len(selected)) if selected else None


def auc(rows):
    """P(a positive has a lower logprob than a negative), ties count one half."""
    pos = sorted(r["logprob"] for r in rows if r["class"] == "positive")
    neg = sorted(r["logprob"] for r in rows if r["class"] != "positive")
    import bisect

    wins = sum(len(neg) - bisect.bisect_right(neg, p) + 0.5 * (bisect.bisect_right(neg, p) - bisect.bisect_left(neg, p))
               for p in pos)
    return wins / (len(pos) * len(neg)) if pos and neg else None


def table(rows):
    out = []
    for t in GRID:
        tpr = flagged_share(rows, t, {"positive"})
        fpr = flagged_share(rows, t, {"no_mask", "none"})
        out.append({
            "threshold": t,
            "positive_flagged": tpr,
            "negative_flagged": fpr,
            "no_mask_flagged": flagged_share(rows, t, {"no_mask"}),
            "no_gold_flagged": flagged_share(rows, t, {"none"}),
            "youden_j": tpr - fpr,
        })
    return out


def per_label(rows, threshold):
    labels = sorted({r["label"] for r in rows})
    return {
        label: {
            "n_positive": sum(r["label"] == label and r["class"] == "positive" for r in rows),
            "n_negative": sum(r["label"] == label and r["class"] != "positive" for r in rows),
            "positive_flagged": flagged_share([r for r in rows if r["label"] == label], threshold, {"positive"}),
            "negative_flagged": flagged_share([r for r in rows if r["label"] == label], threshold, {"no_mask", "none"}),
        }
        for label in labels
    }


def calibrate(nlp, train, dev):
    backend = WordfreqBackend()
    train_rows = scored_candidates(backend, candidates(nlp, train))
    dev_rows = scored_candidates(backend, candidates(nlp, dev))
    grid = table(train_rows)
    by_j = lambda row: (round(row["youden_j"], 12), row["threshold"])  # noqa: E731
    best = max((r for r in grid if r["positive_flagged"] >= MIN_POSITIVE_FLAGGED), key=by_j)
    unconstrained = max(grid, key=by_j)
    chosen = best["threshold"]
    counts = lambda rows: {c: sum(r["class"] == c for r in rows) for c in ("positive", "no_mask", "none")}  # noqa: E731
    dev_at = {
        "positive_flagged": flagged_share(dev_rows, chosen, {"positive"}),
        "negative_flagged": flagged_share(dev_rows, chosen, {"no_mask", "none"}),
        "no_mask_flagged": flagged_share(dev_rows, chosen, {"no_mask"}),
        "no_gold_flagged": flagged_share(dev_rows, chosen, {"none"}),
    }
    dev_at["unconstrained_threshold"] = {
        "threshold": unconstrained["threshold"],
        "positive_flagged": flagged_share(dev_rows, unconstrained["threshold"], {"positive"}),
        "negative_flagged": flagged_share(dev_rows, unconstrained["threshold"], {"no_mask", "none"}),
    }
    return {
        "backend": "spacy_textsan.wordfreq_backend.v1 (lang=en, floor=1e-8)",
        "detector": "privacy_ner of spacy_textsan/configs/default.cfg",
        "rule": f"max Youden J (positive_flagged - negative_flagged) on train among the thresholds "
                f"flagging >= {MIN_POSITIVE_FLAGGED} of the positives (privacy first); ties: higher threshold",
        "chosen_threshold": chosen,
        "train": {
            "n_docs": len(train),
            "n_candidates": counts(train_rows),
            "auc": auc(train_rows),
            "at_chosen": best,
            "max_youden_j_without_recall_constraint": unconstrained,
            "at_paper_threshold_-3.5": next(r for r in grid if r["threshold"] == -3.5),
            "per_label_at_chosen": per_label(train_rows, chosen),
            "grid": grid,
        },
        "dev_check": {"n_docs": len(dev), "n_candidates": counts(dev_rows), "auc": auc(dev_rows),
                      "at_chosen": dev_at},
    }


def build_bert(directory, texts, hidden=256, layers=4):
    import torch
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    wordpiece = BertWordPieceTokenizer(lowercase=True)
    wordpiece.train_from_iterator(texts, vocab_size=30522, min_frequency=2)
    Path(directory).mkdir(parents=True, exist_ok=True)
    wordpiece.save_model(str(directory))
    tokenizer = BertTokenizerFast(vocab_file=str(Path(directory) / "vocab.txt"), do_lower_case=True,
                                  model_max_length=512)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=hidden, num_hidden_layers=layers,
                        num_attention_heads=4, intermediate_size=4 * hidden, max_position_embeddings=512)
    BertForMaskedLM(config).save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    return config, tokenizer.vocab_size


def timed(function):
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def speed(nlp, train, dev, skip_mlm=False, mlm_docs=None):
    cands = candidates(nlp, dev)
    items = [(d.text, [(s, e) for s, e, _ in spans]) for d, spans in cands]
    n_spans = sum(len(s) for _, s in items)
    out = {"split": "dev", "n_docs": len(items), "n_spans": n_spans,
           "n_chars": sum(len(t) for t, _ in items)}
    backend = WordfreqBackend()
    _, cold = timed(lambda: backend.docs_span_logprobs(items))
    warm = min(timed(lambda: backend.docs_span_logprobs(items))[1] for _ in range(5))
    out["wordfreq"] = {"seconds_cold_cache": cold, "spans_per_s_cold": n_spans / cold,
                       "seconds_warm_cache_best_of_5": warm, "spans_per_s_warm": n_spans / warm}
    if skip_mlm:
        return out
    import torch

    mlm_items = items if mlm_docs is None else items[:mlm_docs]
    mlm_spans = sum(len(s) for _, s in mlm_items)
    with tempfile.TemporaryDirectory() as directory:
        config, vocab = build_bert(directory, [d.text for d in train])
        results = {"model": f"random BERT hidden={config.hidden_size} layers={config.num_hidden_layers} "
                            f"heads={config.num_attention_heads} vocab={vocab} (WordPiece trained on TAB train)",
                   "torch_threads": torch.get_num_threads(), "n_docs": len(mlm_items), "n_spans": mlm_spans}
        for label, kwargs in (("batched", {}), ("one_span_per_sequence", {"max_group_size": 1})):
            mlm = MaskedLMBackend(directory, batch_size=8, max_length=512, **kwargs)
            span_tokens = sum(mlm.plan(t, s).n_span_tokens for t, s in mlm_items)
            n_tokens = sum(len(mlm.plan(t, []).input_ids) for t, _ in mlm_items)
            _, seconds = timed(lambda: mlm.docs_span_logprobs(mlm_items))
            results[label] = {"span_tokens": span_tokens, "doc_tokens": n_tokens,
                              "sequences": mlm.n_sequences, "forward_passes": mlm.n_batches,
                              "seconds": seconds, "spans_per_s": mlm_spans / seconds}
        out["masked_lm"] = results
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tab-dir", default=str(ROOT.parent / "shared" / "data" / "tab"))
    parser.add_argument("--skip-mlm", action="store_true")
    parser.add_argument("--mlm-docs", type=int, default=None, help="dev docs for the masked-LM timing (default all)")
    args = parser.parse_args()
    train = read_tab(Path(args.tab_dir) / "train.json")
    dev = read_tab(Path(args.tab_dir) / "dev.json")
    nlp = load_pipeline()
    meta = {"date": datetime.date.today().isoformat(), "machine": f"{platform.machine()} {platform.system()}"}
    RESULTS.mkdir(parents=True, exist_ok=True)
    calibration = calibrate(nlp, train, dev)
    srsly.write_json(RESULTS / "lm_risk_calibration.json", {**meta, **calibration})
    print("chosen threshold", calibration["chosen_threshold"], json.dumps(calibration["train"]["at_chosen"]),
          "dev", json.dumps(calibration["dev_check"]["at_chosen"]))
    result = speed(nlp, train, dev, skip_mlm=args.skip_mlm, mlm_docs=args.mlm_docs)
    srsly.write_json(RESULTS / "lm_risk_speed.json", {**meta, **result})
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
