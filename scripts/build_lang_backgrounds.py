"""Build the French and Spanish backgrounds shipped with the package (``make background-fr-es``).

    python scripts/build_lang_backgrounds.py [--data ../shared/data/echr_fr_es] [--lang fr --lang es]

One record per ECHR judgment of the corpus of each language (README of the data folder): the texts of
``<lang>_projected.tsv`` and of ``<lang>_manual.tsv``, each rebuilt from its tokens
(:func:`spacy_textsan.training.bio_tsv.read_bio_tsv`; texts only, the annotations are not used), a text
already read once left out (the hand-annotated files hold judgments of the projected ones: the same
texts). They are written to a temporary JSONL file (never into the repository) and built with
``textsan background build spacy_textsan/risk/data/background_<lang> --lang <lang> --terms`` (the
language's default pipeline finds kanon_risk's terms; no ``--dense``), as the English background is
built from TAB's texts (``make background``).
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spacy_textsan.risk.reid_family import text_hash  # noqa: E402
from spacy_textsan.training.bio_tsv import read_bio_tsv  # noqa: E402

LANGS = ("fr", "es")
#: the files of a language, in the order their texts are taken (the first of two equal texts is kept)
PARTS = ("projected", "manual")


def records(data: Path, lang: str) -> tuple[list[dict[str, str]], int]:
    """The ``{"id", "text"}`` records of ``lang``'s judgments and how many repeated texts were left out."""
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    repeated = 0
    for part in PARTS:
        for doc in read_bio_tsv(data / f"{lang}_{part}.tsv"):
            digest = text_hash(doc.text)
            if digest in seen:
                repeated += 1
                continue
            seen.add(digest)
            out.append({"id": doc.doc_id, "text": doc.text})
    return out, repeated


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "echr_fr_es")
    ap.add_argument("--lang", action="append", choices=LANGS, help="repeatable (default: fr and es)")
    ap.add_argument("--out-root", type=Path, default=ROOT / "spacy_textsan" / "risk" / "data")
    args = ap.parse_args(argv)
    for lang in args.lang or LANGS:
        recs, repeated = records(args.data, lang)
        print(f"{lang}: {len(recs)} records ({repeated} repeated texts left out)")
        with tempfile.TemporaryDirectory() as tmp:
            docs = Path(tmp) / f"echr_{lang}.jsonl"
            docs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
            out = args.out_root / f"background_{lang}"
            cmd = [sys.executable, "-m", "spacy_textsan", "background", "build", str(out), "--docs", str(docs)]
            cmd += ["--id-field", "id", "--lang", lang, "--terms", "--force"]
            code = subprocess.run(cmd, check=False).returncode
            if code:
                return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
