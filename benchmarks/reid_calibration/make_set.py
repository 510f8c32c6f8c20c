"""The calibration set of ``reid_risk``: documents and a background made from the background alone.

    python benchmarks/reid_calibration/make_set.py [--n 120] [--seed 553] [--out out/reid_calibration]

``reid_risk``'s ``k`` and ``margin`` must not be chosen on the documents they are judged on (the Wiki553 dev
abstracts) nor on the held-out ones. A defender holds only the background: here the public Wikipedia bodies of
Wiki553 (``background.jsonl``). From it this script makes a set shaped like the evaluation (a short biography
per person, an attacker who knows the rest of the person's article):

* ``n`` people are drawn (``random.Random(seed)``) among those whose body has at least 12 sentences;
* a person's *document* is the body's first sentence and two more drawn from the rest (in the body's order),
  what a short abstract of the article would say; those sentences are removed from the person's record;
* the calibration background is every body, the drawn people's without their document's sentences.

It writes ``DIR/dev_abstracts.jsonl`` (``{id, text, manual_masks: []}``) and ``DIR/background.jsonl``
(``{id, text}``), the two files ``benchmarks/wiki_reid_eval.py --data-dir DIR`` reads, and prints their SHA-256
(same seed and input: same bytes). Sentences are split at ``.``, ``!`` or ``?`` followed by white space and a
capital letter or a digit (a heading glued to the next sentence stays with it). Nothing here reads the dev or
held-out abstracts. ``make calibrate-reid`` runs it, then the sweep and the choice (``choose.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BACKGROUND = ROOT.parent / "shared" / "data" / "wiki553" / "background.jsonl"
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
MIN_SENTENCES = 12
EXTRA_SENTENCES = 2


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, empty ones dropped."""
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


def split_person(text: str, rng: random.Random) -> tuple[str, str] | None:
    """``(document, rest of the record)`` of one body, or None when it is too short to split."""
    parts = sentences(text)
    if len(parts) < MIN_SENTENCES:
        return None
    chosen = sorted([0, *rng.sample(range(1, len(parts)), EXTRA_SENTENCES)])
    document = " ".join(parts[i] for i in chosen)
    rest = " ".join(p for i, p in enumerate(parts) if i not in set(chosen))
    return document, rest


def make_set(records: list[dict], n: int, seed: int) -> tuple[list[dict], list[dict]]:
    """``(documents, background)`` of the calibration set (see the module's docstring)."""
    rng = random.Random(seed)
    eligible = [r["id"] for r in records if len(sentences(r["text"])) >= MIN_SENTENCES]
    if n > len(eligible):
        raise SystemExit(f"--n {n}: only {len(eligible)} bodies have {MIN_SENTENCES}+ sentences")
    drawn = set(rng.sample(sorted(eligible), n))
    documents, background = [], []
    for record in records:
        if record["id"] in drawn:
            split = split_person(record["text"], rng)
            assert split is not None
            document, rest = split
            documents.append({"id": record["id"], "text": document, "manual_masks": []})
            background.append({"id": record["id"], "text": rest})
        else:
            background.append({"id": record["id"], "text": record["text"]})
    return documents, background


def write_jsonl(path: Path, rows: list[dict]) -> str:
    data = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--background", type=Path, default=BACKGROUND, help="the defender's records ({id, text} JSONL)")
    ap.add_argument("--n", type=int, default=120, help="people in the calibration set")
    ap.add_argument("--seed", type=int, default=553)
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "reid_calibration")
    args = ap.parse_args(argv)
    records = [json.loads(line) for line in args.background.read_text(encoding="utf-8").splitlines() if line.strip()]
    documents, background = make_set(records, args.n, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("dev_abstracts.jsonl", documents), ("background.jsonl", background)):
        digest = write_jsonl(args.out / name, rows)
        print(f"wrote {args.out / name}: {len(rows)} records, sha256 {digest}")


if __name__ == "__main__":
    main()
