"""Label agreement and the label confusion matrix of a pipeline's masked spans, on TAB dev and the multi-domain set.

    python benchmarks/label_confusion.py                       # TAB dev (21 documents) and the multi-domain set
    python benchmarks/label_confusion.py --pipeline spacy_textsan/configs/default.cfg --set KEY=JSON ...
    python benchmarks/label_confusion.py --skip multidomain --tab ../shared/data/tab/dev.json

The pipeline (default: ``load_pipeline()``, the bundled English one) runs over each document's text
(``nlp.pipe``); its masked spans are the spans of ``doc.spans["textsan"]`` (``doc.ents`` without that group)
whose ``span._.masked`` is not False (undecided counts as masked), each with its ``label_``.

Gold mentions (:func:`tab_mentions`) are counted as TAB's own evaluation counts them for mention recall: every
annotator's mentions, of the entities that need masking (an entity with a DIRECT or QUASI mention; its NO_MASK
mentions included), each with its own ``entity_type``. The first annotator alone is reported too.

A gold mention is *covered* when the masked spans cover it by TAB's rule (every character masked except
skippable ones: punctuation, spaces, "Mr", "the", "of" ...; :func:`spacy_textsan.tab.metrics.is_mention_masked`);
``cover="overlap"`` counts a mention as soon as one masked span overlaps it. Its *predicted label* is the label
of the masked span that overlaps most of its characters (ties: the earlier span, then the label's name).

* ``label_agreement``: covered mentions whose predicted label is their gold type / covered mentions;
* ``macro_agreement``: the mean of the gold types' agreements (types with a covered mention);
* ``per_type``: per gold type, mentions, covered, agreeing and the agreement;
* ``confusion``: gold type -> predicted label -> covered mentions;
* ``top_confusions``: the most frequent (gold type, other label) pairs, each with its most frequent mention texts.

Writes ``benchmarks/results/label_confusion_tab_dev.json`` and ``label_confusion_multidomain.json``
(the set of ``benchmarks/multidomain/generate.py``, generated in memory; ``per_category`` there: the same by the
generator's category, e.g. ``age`` or ``occupation``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from spacy_textsan.cli.options import parse_settings  # noqa: E402
from spacy_textsan.tab.metrics import is_mention_masked, masked_offsets_set  # noqa: E402
from spacy_textsan.tab.reader import TabDocument  # noqa: E402

TAB_TYPES = ("PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC")
#: The target on TAB dev.
TARGET = 0.95
DEFAULT_TAB = ROOT.parent / "shared" / "data" / "tab" / "dev.json"
RESULTS = ROOT / "benchmarks" / "results"
EXAMPLE_CHARS = 60
#: (start, end, label) of a masked span.
Prediction = tuple[int, int, str]


@dataclass(frozen=True)
class Mention:
    """A gold mention: character offsets, gold type, its annotator and an optional finer group (a category)."""

    start: int
    end: int
    entity_type: str
    annotator: str = "annotator1"
    group: str | None = None


@dataclass
class LabelDoc:
    """One document: its text, gold mentions and the pipeline's masked spans."""

    text: str
    mentions: Sequence[Mention]
    predictions: Sequence[Prediction]


# -- the metric (pure functions) ------------------------------------------------------------------------


def best_label(start: int, end: int, predictions: Iterable[Prediction]) -> str | None:
    """The label of the prediction that overlaps most characters of ``[start, end)`` (ties: the earlier
    prediction, then the smaller label); None when none overlaps."""
    best: tuple[int, int, str] | None = None  # (-overlap, prediction start, label)
    for p_start, p_end, label in predictions:
        overlap = min(end, p_end) - max(start, p_start)
        if overlap > 0:
            key = (-overlap, p_start, label)
            if best is None or key < best:
                best = key
    return None if best is None else best[2]


def _example(text: str) -> str:
    short = " ".join(text.split())
    return short if len(short) <= EXAMPLE_CHARS else short[: EXAMPLE_CHARS - 1] + "…"


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _label_order(labels: Iterable[str]) -> list[str]:
    """TAB's types in their order, then any other label alphabetically."""
    seen = set(labels)
    return [t for t in TAB_TYPES if t in seen] + sorted(seen - set(TAB_TYPES))


def label_confusion(docs: Iterable[LabelDoc], cover: str = "masked", n_examples: int = 3) -> dict:
    """Label agreement, per-type agreement, the confusion matrix and examples (see the module docstring).

    ``cover``: ``"masked"`` (TAB's rule: the mention counts as masked) or ``"overlap"`` (a masked span
    overlaps it). ``examples``: gold type -> predicted label -> the ``n_examples`` most frequent mention
    texts (ties: first seen). ``per_group``: the same counts by :attr:`Mention.group`, for mentions that have one.
    """
    if cover not in ("masked", "overlap"):
        raise ValueError(f"cover must be 'masked' or 'overlap', got {cover!r}")
    mentions: Counter[str] = Counter()
    covered: Counter[str] = Counter()
    agree: Counter[str] = Counter()
    groups: dict[str, Counter[str]] = defaultdict(Counter)
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    group_confusion: dict[str, Counter[str]] = defaultdict(Counter)
    texts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for doc in docs:
        offsets = masked_offsets_set((start, end) for start, end, _ in doc.predictions)
        for m in doc.mentions:
            gold = m.entity_type
            mentions[gold] += 1
            if m.group is not None:
                groups[m.group]["mentions"] += 1
            label = best_label(m.start, m.end, doc.predictions)
            if label is None or (cover == "masked" and not is_mention_masked(doc.text, offsets, m.start, m.end)):
                continue
            covered[gold] += 1
            agree[gold] += label == gold
            confusion[gold][label] += 1
            texts[gold, label][_example(doc.text[m.start : m.end])] += 1
            if m.group is not None:
                groups[m.group]["covered"] += 1
                groups[m.group]["agree"] += label == gold
                group_confusion[m.group][label] += 1
    gold_types = _label_order(mentions)
    predicted = _label_order(label for row in confusion.values() for label in row)
    type_agreements = [agree[t] / covered[t] for t in gold_types if covered[t]]
    result: dict = {
        "cover": cover,
        "mentions": sum(mentions.values()),
        "covered": sum(covered.values()),
        "agree": sum(agree.values()),
        "label_agreement": _ratio(sum(agree.values()), sum(covered.values())),
        "macro_agreement": round(sum(type_agreements) / len(type_agreements), 4) if type_agreements else None,
        "per_type": {
            t: {
                "mentions": mentions[t],
                "covered": covered[t],
                "agree": agree[t],
                "agreement": _ratio(agree[t], covered[t]),
            }
            for t in gold_types
        },
        "labels": predicted,
        "confusion": {g: {p: confusion[g][p] for p in predicted if confusion[g][p]} for g in gold_types},
        "examples": {
            g: {p: [text for text, _ in texts[g, p].most_common(n_examples)] for p in predicted if confusion[g][p]}
            for g in gold_types
        },
    }
    if groups:
        result["per_group"] = {
            name: {
                "mentions": c["mentions"],
                "covered": c["covered"],
                "agree": c["agree"],
                "agreement": _ratio(c["agree"], c["covered"]),
                "predicted": dict(sorted(group_confusion[name].items(), key=lambda kv: (-kv[1], kv[0]))),
            }
            for name, c in sorted(groups.items())
        }
    return result


def top_confusions(result: dict, n: int = 15) -> list[dict]:
    """The ``n`` most frequent (gold type, other predicted label) pairs of a :func:`label_confusion` result,
    by count (ties: gold type, then label, in :data:`TAB_TYPES` order), with their examples."""
    order = {label: i for i, label in enumerate(result["labels"])}
    types = list(result["confusion"])
    pairs = [
        (count, gold, label)
        for gold, row in result["confusion"].items()
        for label, count in row.items()
        if label != gold
    ]
    pairs.sort(key=lambda x: (-x[0], types.index(x[1]), order[x[2]]))
    return [
        {"gold": gold, "predicted": label, "count": count, "examples": result["examples"][gold][label]}
        for count, gold, label in pairs[:n]
    ]


def tab_mentions(tab_doc: TabDocument, annotators: str = "all") -> list[Mention]:
    """The gold mentions TAB's mention recall counts (entities with a DIRECT or QUASI mention, all their
    mentions), of every annotator (``"all"``) or of the first one in the file (``"first"``)."""
    if annotators not in ("all", "first"):
        raise ValueError(f"annotators must be 'all' or 'first', got {annotators!r}")
    names = list(tab_doc.annotations)[: 1 if annotators == "first" else None]
    out = []
    for name in names:
        mentions = tab_doc.annotations[name]
        to_mask = {m.entity_id for m in mentions if m.identifier_type in ("DIRECT", "QUASI")}
        out += [Mention(m.start, m.end, m.entity_type, name) for m in mentions if m.entity_id in to_mask]
    return out


# -- running a pipeline ---------------------------------------------------------------------------------


def predict(nlp, texts: Sequence[str], desc: str) -> list[list[Prediction]]:
    """The masked spans (with labels) of ``nlp`` on each text."""
    from tqdm import tqdm

    out = []
    for doc in tqdm(nlp.pipe(texts, batch_size=8), total=len(texts), desc=desc, unit="doc", disable=None):
        spans = doc.spans["textsan"] if "textsan" in doc.spans else doc.ents
        out.append([(s.start_char, s.end_char, s.label_) for s in spans if s._.masked is not False])
    return out


def _report(result: dict) -> dict:
    """A :func:`label_confusion` result with its top confusions and the target."""
    agreement = result["label_agreement"]
    return {
        **result,
        "target": TARGET,
        "target_met": agreement is not None and agreement >= TARGET,
        "top_confusions": top_confusions(result),
    }


def _header(args: argparse.Namespace, overrides: dict, seconds: float, n_docs: int) -> dict:
    from provenance import git_state, machine, versions

    return {
        "date": time.strftime("%Y-%m-%d"),
        "command": "label_confusion.py " + " ".join(sys.argv[1:]),
        "pipeline": args.pipeline or "default (load_pipeline())",
        "overrides": overrides,
        "machine": machine(),
        "versions": versions(["spacy", "spacy-textsan"]),
        "git": git_state(),
        "n_docs": n_docs,
        "seconds": round(seconds, 2),
    }


def run_tab(nlp, args: argparse.Namespace, overrides: dict) -> dict:
    from spacy_textsan.tab.reader import read_tab

    tab_docs = read_tab(args.tab)
    t0 = time.perf_counter()
    preds = predict(nlp, [d.text for d in tab_docs], "TAB")
    seconds = time.perf_counter() - t0

    def docs(annotators: str) -> list[LabelDoc]:
        return [LabelDoc(d.text, tab_mentions(d, annotators), p) for d, p in zip(tab_docs, preds, strict=True)]

    main = label_confusion(docs("all"))
    return {
        **_header(args, overrides, seconds, len(tab_docs)),
        "gold": str(args.tab.name),
        "mentions_counted": "every annotator's mentions of the entities that need masking (as TAB's mention recall)",
        **_report(main),
        "first_annotator": _report(label_confusion(docs("first"))),
        "overlap": _report(label_confusion(docs("all"), cover="overlap")),
    }


def run_multidomain(nlp, args: argparse.Namespace, overrides: dict) -> dict:
    sys.path.insert(0, str(ROOT / "benchmarks" / "multidomain"))
    import generate  # benchmarks/multidomain/generate.py

    raw = generate.generate(args.md_n, args.md_seed)
    t0 = time.perf_counter()
    preds = predict(nlp, [d["text"] for d in raw], "multi-domain")
    seconds = time.perf_counter() - t0
    docs = [
        LabelDoc(
            d["text"],
            [
                Mention(m["start_offset"], m["end_offset"], m["entity_type"], ann, m["category"])
                for ann, a in d["annotations"].items()
                for m in a["entity_mentions"]
                if m["identifier_type"] in ("DIRECT", "QUASI")
            ],
            p,
        )
        for d, p in zip(raw, preds, strict=True)
    ]
    return {
        **_header(args, overrides, seconds, len(raw)),
        "gold": f"benchmarks/multidomain/generate.py --n {args.md_n} --seed {args.md_seed} (in memory)",
        "mentions_counted": "every mention (one annotator; all DIRECT or QUASI)",
        **_report(label_confusion(docs)),
        "overlap": _report(label_confusion(docs, cover="overlap")),
    }


def _summary(name: str, result: dict) -> str:
    per_type = " ".join(f"{t} {v['agreement']}" for t, v in result["per_type"].items())
    return (
        f"{name}: label agreement {result['label_agreement']} ({result['agree']}/{result['covered']} covered of "
        f"{result['mentions']} mentions; target {TARGET}: {'met' if result['target_met'] else 'not met'}); {per_type}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pipeline", default=None, help="a pipeline (.cfg, path or package; default: the bundled one)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=JSON", help="config override (repeatable)")
    ap.add_argument("--tab", type=Path, default=DEFAULT_TAB, help="TAB gold file (default: TAB dev)")
    ap.add_argument("--md-n", type=int, default=1000, help="multi-domain documents (default 1000)")
    ap.add_argument("--md-seed", type=int, default=14, help="multi-domain seed (default: the eval's, 14)")
    ap.add_argument("--skip", action="append", default=[], choices=("tab", "multidomain"))
    ap.add_argument("--name", default="", help="suffix of the results files: label_confusion_<set><name>.json")
    ap.add_argument("--out-dir", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    overrides = parse_settings(args.set)  # the CLI's --set: values read as JSON when they are
    if "tab" not in args.skip and not args.tab.is_file():
        ap.error(f"--tab {args.tab}: no such file")

    from spacy_textsan.pipeline import load_pipeline

    nlp = load_pipeline(args.pipeline, overrides)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    runs = (("tab", "tab_dev", run_tab), ("multidomain", "multidomain", run_multidomain))
    for key, stem, run in runs:
        if key in args.skip:
            continue
        result = run(nlp, args, overrides)
        out = args.out_dir / f"label_confusion_{stem}{args.name}.json"
        out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(_summary(str(out.relative_to(ROOT) if out.is_relative_to(ROOT) else out), result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
