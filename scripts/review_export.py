"""Reviewed documents as training data, through the service's own API: each
input text is sanitized (``POST /api/sanitize``), its spans are taken as a
reviewer's decisions (here: confirmed as proposed, a kept span stays kept),
and ``POST /api/export`` gives the training record; the records are written
as one TAB JSON file that ``textsan convert`` reads (the ``train-ner-reviewed``
project command trains on it).

    python scripts/review_export.py TEXT_FILE... --out reviewed/reviewed.json

Exports of the review page (its "training" download) are the same TAB JSON
documents and can be listed or merged into the same file.
"""

import argparse
import json
from pathlib import Path

from fastapi.testclient import TestClient

from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.serve.app import create_app
from spacy_textsan.serve.settings import ServeSettings

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "spacy_textsan" / "assets" / "sample.txt"


def reviewed_records(client: TestClient, texts: dict[str, str]) -> list[dict]:
    """One training record per text: the pipeline's spans, confirmed."""
    records = []
    for doc_id, text in texts.items():
        result = client.post("/api/sanitize", json={"text": text}).json()["results"][0]
        decisions = [
            {
                "start": s["start"],
                "end": s["end"],
                "label": s["label"],
                "entity_id": s["entity_id"],
                "masked": s["masked"] is not False,
                "identifier_type": s["identifier_type"],
            }
            for s in result["spans"]
        ]
        export = client.post("/api/export", json={"text": text, "spans": decisions, "doc_id": doc_id}).json()
        records.append(export["training"])
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("texts", nargs="*", type=Path, help=f"TXT files (default: {SAMPLE.name})")
    parser.add_argument("--pipeline", default=None)
    parser.add_argument("--out", type=Path, default=Path("reviewed/reviewed.json"))
    opts = parser.parse_args()
    paths = opts.texts or [SAMPLE]
    texts = {p.stem: p.read_text(encoding="utf-8") for p in paths}
    app = create_app(load_pipeline(opts.pipeline), ServeSettings(pipeline=opts.pipeline or "default"))
    with TestClient(app) as client:
        records = reviewed_records(client, texts)
    opts.out.parent.mkdir(parents=True, exist_ok=True)
    opts.out.write_text(json.dumps(records, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(records)} reviewed document(s) to {opts.out}")


if __name__ == "__main__":
    main()
