"""A background of a million people: ``textsan background build`` and the re-identification decision at scale.

    python benchmarks/background_scale.py [--n 1000000] [--queries 1000] [--seed 0]
        [--workdir /tmp/textsan-background-scale] [--skip-tantivy] [--keep] [--reuse]
        [--out benchmarks/results/background_scale.json]

``--reuse`` measures the queries again on the records and background a run with ``--keep`` left in
``--workdir`` (the same ``--n`` and ``--seed``: the records are the same), skipping phases 1-3.

1. **Data.** ``--n`` synthetic people (Faker pools of names, places, jobs and
   employers in several locales, fixed seed), each a short bio of 60-120
   words: name, birth date and place, job and employer, city, and a few random
   facts (studies, family, languages, car, pets, sports, clubs, health...).
   Written as JSONL (``id``, ``name``, ``locale``, ``bio``) into ``--workdir``,
   outside the repository (deleted at the end unless ``--keep``).
2. **Build.** ``textsan background build OUT --docs bios.jsonl --field bio
   --id-field id --force`` as a subprocess: wall time and its peak RSS
   (``ru_maxrss`` of that process, from ``os.wait4``); the index size on disk.
3. **Load.** ``load_background(OUT)`` in a fresh process, three times (the
   first run right after the build: the files are in the page cache, as on a
   server that loads the index it just read; caches are not dropped).
4. **Queries.** ``--queries`` records sampled; each query is the record's bio
   with every word of the person's name removed (what a sanitized document
   shows). Timed per query, after 10 warm-up queries:

   * *scoring*: :func:`analyse_terms`, the term ids, ``BackgroundIndex.scores``
     and the top 10 (``argpartition``); hit@1/hit@10 of the person's record;
   * *decision*: what ``reid_risk`` does for such a document: the person's whole
     bio with the words of the name hidden and marked direct (as the pipeline
     masks a name), every other word a group of its own (its cost its length),
     then :func:`plan_masks` (k = 10, margin = 0.12, wordfreq's Zipf for the
     unknown and distinctive words, reid_risk's defaults otherwise), in three
     modes: ``name_prior`` (who the person is comes from the text, the name
     counted most), ``target`` (the person's record known) and ``same_text``
     (the document is its record's very text, left out by its hash). After
     each plan, the defence's own search (BM25 over the words still shown)
     ranks every record: hit@1 of the person's record before and after the
     masks (the goal: at most 1 / k).
5. **tantivy** (``pip install tantivy==0.27.0``; a benchmark-only baseline):
   the same records, each indexed as its :func:`analyse_terms` joined by
   spaces (whitespace tokenizer: the same terms), built in a subprocess (peak
   RSS), and the same queries as BM25 top-10 through its query parser (terms
   OR-ed).

The script runs itself with ``PYTHONHASHSEED=0`` (some Faker providers draw from
sets), so a seed gives the same records on every run. Every phase is run alone; other processes using the CPU are listed in
``notes`` (this machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TEXTSAN = ROOT / ".venv" / "bin" / "textsan"
LOCALES = ["en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pl_PL", "pt_BR", "sv_SE", "tr_TR"]
WHY_BM25S = (
    "reid_risk's decision (reid_attack.plan_masks) needs, for every visible term, its posting: the records that "
    "hold it and the term's BM25 score in each, so that masking a term subtracts exactly its part from every "
    "record in play and the loop can re-rank after each mask without searching again. bm25s keeps the index as "
    "a sparse term x record matrix of precomputed BM25 scores (CSC: indptr/indices/data .npy files, memory-mapped), "
    "so a posting is two array slices. tantivy (like Lucene) answers top-k queries fast but gives only each hit's "
    "total score: the per-term contributions would need one term query per visible word (or explain() per hit "
    "and term), and its postings hold term frequencies, not scores, behind a block-compressed format that "
    "the Python binding does not expose."
)


# -- the synthetic people -------------------------------------------------------------------------------------------


def _pools(seed: int, size: int = 1500) -> dict:
    """Per locale: names, places, employers, jobs, streets (Faker, seeded); shared: the fillers of the facts."""
    from faker import Faker

    pools: dict[str, Any] = {}
    for i, loc in enumerate(LOCALES):
        fake = Faker(loc)
        fake.seed_instance(seed * 1000 + i)

        def many(fn, n=size):
            return list(dict.fromkeys(fn() for _ in range(n)))

        pools[loc] = {
            "first_male": many(fake.first_name_male),
            "first_female": many(fake.first_name_female),
            "last": many(fake.last_name, 2 * size),
            "city": many(fake.city),
            "company": many(fake.company),
            "job": many(fake.job, 600),
            "street": many(fake.street_name),
            "country": COUNTRIES[loc],
        }
    en = Faker("en_US")
    en.seed_instance(seed)
    pools["color"] = list(dict.fromkeys(en.color_name() for _ in range(400)))
    pools["word"] = list(dict.fromkeys(en.word() for _ in range(3000)))
    return pools


SUBJECTS = "law medicine history physics chemistry economics architecture nursing music philosophy biology geography mathematics engineering linguistics theology journalism".split()
LANGUAGES = "English German French Spanish Italian Dutch Polish Portuguese Swedish Turkish Arabic Russian Greek Japanese Mandarin Hindi Danish Finnish".split()
CARS = "Toyota Volkswagen Renault Fiat Volvo Skoda Peugeot Ford Opel Seat Kia Hyundai Tesla Dacia Mini Audi".split()
INSTRUMENTS = "violin cello piano guitar trumpet saxophone drums flute clarinet accordion harp oboe".split()
SPORTS = "football tennis cycling rowing climbing chess handball volleyball badminton fencing sailing golf".split()
CONDITIONS = [
    "asthma",
    "diabetes",
    "a broken hip",
    "migraines",
    "a heart condition",
    "depression",
    "back pain",
    "a knee injury",
]
COUNTRIES = {
    "en_US": "the United States",
    "en_GB": "England",
    "de_DE": "Germany",
    "fr_FR": "France",
    "es_ES": "Spain",
    "it_IT": "Italy",
    "nl_NL": "the Netherlands",
    "pl_PL": "Poland",
    "pt_BR": "Brazil",
    "sv_SE": "Sweden",
    "tr_TR": "Turkey",
}
COLLECTIBLES = [
    "stamps",
    "coins",
    "vinyl records",
    "old maps",
    "porcelain",
    "comic books",
    "fossils",
    "postcards",
    "clocks",
]
PETS = "dog cat parrot horse rabbit tortoise ferret".split()
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
ADJECTIVES = (
    "quiet generous stubborn cheerful meticulous curious patient ambitious modest funny reliable restless".split()
)
RELATIVES = "sister brother aunt uncle cousin grandmother grandfather niece nephew".split()


def _person(rng: random.Random, pools: dict, i: int) -> dict:
    loc = LOCALES[i % len(LOCALES)] if rng.random() < 0.5 else rng.choice(LOCALES)
    p = pools[loc]
    female = rng.random() < 0.5
    first = rng.choice(p["first_female" if female else "first_male"])
    last = rng.choice(p["last"])
    name = f"{first} {last}"
    he, his, him = ("She", "her", "her") if female else ("He", "his", "him")
    year = rng.randint(1930, 2004)
    born = date(year, rng.randint(1, 12), rng.randint(1, 28))
    city, home = rng.choice(p["city"]), rng.choice(p["city"])
    other = pools[rng.choice(LOCALES)]
    job, company = rng.choice(p["job"]), rng.choice(p["company"])

    def other_person() -> str:
        q = pools[rng.choice(LOCALES)]
        return f"{rng.choice(q['first_male'] + q['first_female'])} {rng.choice(q['last'])}"

    def y(lo: int = 0) -> int:
        return rng.randint(min(year + 18 + lo, 2024), 2024)

    facts = [
        lambda: (
            f"{he} studied {rng.choice(SUBJECTS)} at the University of {rng.choice(other['city'])} and graduated in {y()}."
        ),
        lambda: (
            f"{he} is married to {other_person()} and they have {rng.choice(['no', 'one', 'two', 'three', 'four'])} children."
        ),
        lambda: f"{he} speaks {rng.choice(LANGUAGES)}, {rng.choice(LANGUAGES)} and a little {rng.choice(LANGUAGES)}.",
        lambda: (
            f"In {y()} {his.lower()} time in the {rng.choice(other['city'])} marathon was {rng.randint(2, 5)} hours {rng.randint(0, 59)} minutes."
        ),
        lambda: (
            f"{he} drives a {rng.choice(pools['color']).lower()} {rng.choice(CARS)} and has a {rng.choice(PETS)} called {rng.choice(pools['word']).title()}."
        ),
        lambda: f"{he} volunteers at the {home} food bank every {rng.choice(WEEKDAYS)} morning.",
        lambda: (
            f"{he} plays the {rng.choice(INSTRUMENTS)} in a band called The {rng.choice(pools['word']).title()} {rng.choice(pools['word']).title()}s."
        ),
        lambda: (
            f"{he} collects {rng.choice(COLLECTIBLES)} and won a local prize for {rng.choice(pools['word'])} design in {y()}."
        ),
        lambda: (
            f"Before joining {company}, {he.lower()} spent {rng.randint(2, 15)} years as a {rng.choice(p['job']).lower()} at {rng.choice(p['company'])}."
        ),
        lambda: (
            f"{he} plays {rng.choice(SPORTS)} with the {home} {rng.choice(pools['word']).title()} club on {rng.choice(WEEKDAYS)}s."
        ),
        lambda: f"{he} was treated at {home} General Hospital for {rng.choice(CONDITIONS)} in {y()}.",
        lambda: f"Friends describe {him} as {rng.choice(ADJECTIVES)} and {rng.choice(ADJECTIVES)}.",
        lambda: (
            f"Every summer {he.lower()} travels to {rng.choice(other['city'])} to visit {his} {rng.choice(RELATIVES)} {other_person()}."
        ),
        lambda: f"{he} lives at {rng.randint(1, 240)} {rng.choice(p['street'])} with {his} {rng.choice(PETS)}s.",
        lambda: (
            f"{his.title()} phone ends in {rng.randint(1000, 9999)} and {he.lower()} owns {rng.randint(1, 4)} bicycles."
        ),
    ]
    sentences = [
        f"{name} was born on {born.day} {born.strftime('%B')} {born.year} in {city}, {p['country']}.",
        f"{he} works as a {job.lower()} for {company} and has lived in {home} since {y()}.",
    ]
    target = rng.randint(60, 120)
    words = sum(len(s.split()) for s in sentences)
    for fact in rng.sample(facts, len(facts)):
        if words >= target:
            break
        sentence = fact()
        sentences.append(sentence)
        words += len(sentence.split())
    return {"id": f"p{i:07d}", "name": name, "locale": loc, "bio": " ".join(sentences)}


def generate(path: Path, n: int, seed: int) -> dict:
    start = time.perf_counter()
    pools = _pools(seed)
    rng = random.Random(seed)
    lengths = []
    with open(path, "w", encoding="utf-8") as out:
        buffer = []
        for i in range(n):
            person = _person(rng, pools, i)
            lengths.append(len(person["bio"].split()))
            buffer.append(json.dumps(person, ensure_ascii=False))
            if len(buffer) == 10_000:
                out.write("\n".join(buffer) + "\n")
                buffer = []
        if buffer:
            out.write("\n".join(buffer) + "\n")
    words = np.array(lengths)
    return {
        "records": n,
        "locales": LOCALES,
        "jsonl_bytes": path.stat().st_size,
        "words_per_bio": {"mean": round(float(words.mean()), 1), "min": int(words.min()), "max": int(words.max())},
        "generate_s": round(time.perf_counter() - start, 1),
    }


def sample_queries(path: Path, n_records: int, n_queries: int, seed: int) -> list[dict]:
    """``n_queries`` + 10 (warm-up) records, each with ``query``: the bio without the words of the name."""
    rng = random.Random(seed + 1)
    wanted = set(rng.sample(range(n_records), min(n_records, n_queries + 10)))
    out = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i in wanted:
                person = json.loads(line)
                words = "|".join(re.escape(w) for w in person["name"].split())
                person["query"] = re.sub(rf"\b(?:{words})\b", "", person["bio"])
                out.append(person)
    rng.shuffle(out)
    return out


# -- measuring ------------------------------------------------------------------------------------------------------


def run_measured(cmd: list[str], log: Path) -> dict:
    """Run ``cmd`` alone; its wall time, exit code and peak RSS (its own ``ru_maxrss``)."""
    with open(log, "w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {
        "rc": proc.returncode,
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "output_tail": log.read_text(errors="replace")[-1500:],
    }


def percentiles(ms: list[float]) -> dict:
    a = np.array(ms)
    return {
        "p50": round(float(np.percentile(a, 50)), 2),
        "p90": round(float(np.percentile(a, 90)), 2),
        "p99": round(float(np.percentile(a, 99)), 2),
        "max": round(float(a.max()), 2),
        "mean": round(float(a.mean()), 2),
    }


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def busy_processes(seconds: float = 2.0, threshold: float = 25.0) -> list[str]:
    """Processes other than this one (and its children) that used more than ``threshold`` % of a CPU."""

    def sample() -> dict[int, float]:
        ticks: dict[int, float] = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    fields = open(f"/proc/{entry.name}/stat").read().rsplit(")", 1)[1].split()
                    ticks[int(entry.name)] = int(fields[11]) + int(fields[12])
                except (OSError, IndexError, ValueError):
                    pass
        return ticks

    before = sample()
    time.sleep(seconds)
    after = sample()
    hz = os.sysconf("SC_CLK_TCK")
    out = []
    for pid, t in after.items():
        share = 100.0 * (t - before.get(pid, t)) / hz / seconds
        if share >= threshold and pid != os.getpid():
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                cmd = "?"
            out.append(f"pid {pid} at {share:.0f}% CPU: {cmd[:160]}")
    return out


class Notes:
    def __init__(self) -> None:
        self.items: list[str] = []

    def check(self, phase: str) -> None:
        busy = busy_processes()
        load = os.getloadavg()
        if busy:
            self.items.append(f"before {phase} (load average {load[0]:.2f}): " + "; ".join(busy))
        print(f"[{time.strftime('%H:%M:%S')}] {phase}; load {load[0]:.2f}; busy: {busy or 'none'}", flush=True)


# -- the workers (fresh processes) ---------------------------------------------------------------------------------


def worker_load(folder: str) -> None:
    import resource

    start = time.perf_counter()
    from spacy_textsan.risk.reid_index import load_background

    imported = time.perf_counter()
    index = load_background(folder)
    loaded = time.perf_counter()
    index.scores([0])  # the first posting paged in
    print(
        json.dumps(
            {
                "import_s": round(imported - start, 3),
                "load_s": round(loaded - imported, 3),
                "first_query_s": round(time.perf_counter() - loaded, 4),
                "records": index.n_records,
                "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            }
        )
    )


def worker_tantivy_build(jsonl: str, folder: str) -> None:
    import tantivy

    from spacy_textsan.risk.reid_index import analyse_terms

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("body", stored=False, tokenizer_name="whitespace")
    index = tantivy.Index(builder.build(), path=folder)
    writer = index.writer(heap_size=1_000_000_000, num_threads=1)
    analysis = adding = 0.0
    with open(jsonl, encoding="utf-8") as f:
        for line in f:
            t0 = time.perf_counter()
            person = json.loads(line)
            body = " ".join(analyse_terms(person["bio"]))
            t1 = time.perf_counter()
            writer.add_document(tantivy.Document(id=person["id"], body=body))
            adding += time.perf_counter() - t1
            analysis += t1 - t0
    t2 = time.perf_counter()
    writer.commit()
    writer.wait_merging_threads()
    print(
        json.dumps(
            {
                "read_analyse_s": round(analysis, 1),
                "add_s": round(adding, 1),
                "commit_merge_s": round(time.perf_counter() - t2, 1),
            }
        )
    )


# -- the benchmark -----------------------------------------------------------------------------------------------


def _top10(scores: np.ndarray) -> np.ndarray:
    """The 10 best records (best first; ties to the earlier record)."""
    n = min(10, len(scores))
    top = np.argpartition(-scores, n - 1)[:n]
    return top[np.argsort(-scores[top], kind="stable")]


def _hit_at_1(index, text: str, record: str) -> bool:
    """Whether the defence's own search (BM25 over the :func:`analyse_terms` of ``text``) ranks ``record`` first."""
    from spacy_textsan.risk.reid_index import analyse_terms

    scores = index.scores([tid for t in analyse_terms(text) if (tid := index.term_id(t)) is not None])
    best = int(_top10(scores)[0])
    return bool(scores[best] > 0) and index.ids[best] == record


def query_bm25s(folder: Path, queries: list[dict], n_same_text: int) -> dict:
    from spacy_textsan.decide.reid_once import word_zipf
    from spacy_textsan.risk.reid_attack import DocWords, plan_masks
    from spacy_textsan.risk.reid_family import words_of
    from spacy_textsan.risk.reid_index import analyse_terms, load_background

    index = load_background(folder)
    scoring, hits1, hits10 = [], 0, 0
    tops = {}
    for n, person in enumerate(queries):
        t0 = time.perf_counter()
        tids = [tid for t in analyse_terms(person["query"]) if (tid := index.term_id(t)) is not None]
        top = _top10(index.scores(tids))
        elapsed = (time.perf_counter() - t0) * 1000
        if n < 10:
            continue
        scoring.append(elapsed)
        ids = [index.ids[int(r)] for r in top]
        tops[person["id"]] = ids
        hits1 += ids[0] == person["id"]
        hits10 += person["id"] in ids

    zipf = word_zipf("en")

    def document(person: dict) -> DocWords:
        """The person's bio as reid_risk reads it once the name is masked: the name's words hidden
        (group -1) and direct; every other word its own group, its cost its length."""
        text = person["bio"]
        words = words_of(text)
        name = {w.folded for w in words_of(person["name"])}
        direct = [w.folded in name for w in words]
        group = [-1 if w.stop or d else i for i, (w, d) in enumerate(zip(words, direct, strict=True))]
        return DocWords(text, words, group, [w.end - w.start for w in words], direct)

    def decide(person: dict, mode: str):
        doc = document(person)
        exclude = index.same_text(doc.text) if mode == "same_text" else []
        plan = plan_masks(
            index,
            doc,
            k=10,
            margin=0.12,
            exclude=exclude,
            target=person["id"] if mode == "target" else None,
            max_steps=200,
            top_records=64,
            cost_power=0.0,
            zipf=zipf,
            unknown_zipf=3.5,
            unreached="keep" if mode == "name_prior_keep" else "undo",
        )
        return doc, plan

    def visible(doc: DocWords, masked: set[int]) -> str:
        """The words still shown: neither hidden before (the name, stop words) nor masked by the plan."""
        return " ".join(
            doc.text[w.start : w.end] for w, g in zip(doc.words, doc.group, strict=True) if g >= 0 and g not in masked
        )

    decisions = {}
    for mode, limit in (
        ("name_prior", len(queries)),
        ("target", len(queries)),
        ("same_text", 10 + n_same_text),
        ("name_prior_keep", 10 + n_same_text),
    ):
        times, steps, excluded, reached, measured, crowd, before, after = [], [], 0, 0, 0, [], 0, 0
        for n, person in enumerate(queries[:limit]):
            t0 = time.perf_counter()
            doc, plan = decide(person, mode)
            elapsed = (time.perf_counter() - t0) * 1000
            if n < 10:
                continue
            times.append(elapsed)
            steps.append(len(plan.steps))
            excluded += person["id"] in plan.excluded
            view = plan.view
            reached += bool(view and view.reached)
            if view is not None and view.measured and view.k is not None:
                measured += 1
                crowd.append(view.k)
            masked = {g for step in plan.steps for g in step.groups}
            before += _hit_at_1(index, visible(doc, set()), person["id"])
            after += _hit_at_1(index, visible(doc, masked), person["id"])
        m = len(times)
        decisions[mode] = {
            "queries": m,
            "ms": percentiles(times),
            "steps": {"mean": round(statistics.mean(steps), 1), "p50": statistics.median(steps), "max": max(steps)},
            "measured": round(measured / m, 3),
            "crowd_k_after": {"p50": statistics.median(crowd), "min": min(crowd)} if crowd else None,
            "own_record_excluded": round(excluded / m, 3),
            "reached_k": round(reached / m, 3),
            "search_hit_at_1_before": round(before / m, 3),
            "search_hit_at_1_after": round(after / m, 3),
        }
        print(mode, json.dumps(decisions[mode]), flush=True)
    m = len(scoring)
    return {
        "scoring_ms": percentiles(scoring),
        "hit_at_1": round(hits1 / m, 3),
        "hit_at_10": round(hits10 / m, 3),
        "plan_masks_ms": decisions["name_prior"]["ms"],
        "plan_masks": {
            "setup": "the document: the person's whole bio, the words of the name hidden and marked direct (what "
            "reid_risk reads once the name is masked), every other word a group of its own, its cost its length; "
            "k = 10, margin = 0.12, max_steps = 200, top_records = 64, cost_power = 0, zipf: wordfreq 'en', "
            "unknown_zipf = 3.5 (reid_risk's defaults), every analyser of the family; timed: words_of + "
            "DocWords + (same_text) + plan_masks. measured: the share of queries whose risk is measured (the "
            "prior's best record shares at least two distinctive words); crowd_k_after: the k reported, over "
            "those. search_hit_at_1_before/after: the defence's own search (BM25, stem terms, every record) "
            "over the words shown before and after the plan's masks ranks the person's record first "
            "(the goal after: at most 1 / k = 0.1)",
            "name_prior": {
                "what": "the person's record is in the background and counted; who the person is comes from the "
                "whole text, the masked name's words counted most (reid_risk's default path)",
                **decisions["name_prior"],
            },
            "target": {
                "what": "a data owner who knows the person's record (doc._.reid_target): masks until that record "
                "hides among k = 10",
                **decisions["target"],
            },
            "same_text": {
                "what": "the document is exactly its background record's text: reid_risk leaves that record out "
                "by its text hash (index.same_text, exclude_same_text = true), then plans over the others; "
                "the search after still ranks every record, that one included",
                **decisions["same_text"],
            },
            "name_prior_keep": {
                "what": 'name_prior with unreached = "keep": the masks of a document whose attack does not reach '
                "1 / k are kept (reid_risk's default undoes them and reports the document unreached)",
                **decisions["name_prior_keep"],
            },
        },
        "_tops": tops,
    }


def query_tantivy(folder: Path, queries: list[dict], tops: dict) -> dict:
    import tantivy

    from spacy_textsan.risk.reid_index import analyse_terms

    index = tantivy.Index.open(str(folder))
    index.reload()
    searcher = index.searcher()
    times, hits1, overlap = [], 0, []
    for n, person in enumerate(queries):
        t0 = time.perf_counter()
        terms = list(dict.fromkeys(analyse_terms(person["query"])))
        query = index.parse_query(" ".join(terms), ["body"])
        result = searcher.search(query, 10)
        ids = [searcher.doc(address)["id"][0] for _, address in result.hits]
        elapsed = (time.perf_counter() - t0) * 1000
        if n < 10:
            continue
        times.append(elapsed)
        hits1 += bool(ids) and ids[0] == person["id"]
        overlap.append(len(set(ids) & set(tops.get(person["id"], []))) / 10)
    return {
        "query_ms": percentiles(times),
        "hit_at_1": round(hits1 / len(times), 3),
        "top10_overlap_with_bm25s": round(statistics.mean(overlap), 3),
    }


def _generate_build_load(args: argparse.Namespace, result: dict, notes: Notes, jsonl: Path, bg: Path) -> None:
    """The data, build and load phases (skipped with ``--reuse``)."""
    notes.check("generate")
    result["data"] = generate(jsonl, args.n, args.seed)
    print(json.dumps(result["data"]), flush=True)

    notes.check("build")
    cmd = [str(TEXTSAN), "background", "build", str(bg), "--docs", str(jsonl), "--field", "bio", "--id-field", "id"]
    build = run_measured([*cmd, "--force"], jsonl.parent / "build.log")
    if build["rc"] != 0:
        sys.exit(f"textsan background build failed:\n{build['output_tail']}")
    manifest = json.loads((bg / "background.json").read_text())
    build.update(
        {
            "command": "textsan background build OUT --docs bios.jsonl --field bio --id-field id --force",
            "records": manifest["n_records"],
            "terms": manifest["n_terms"],
            "index_bytes": folder_size(bg),
            "index_files": {p.name: p.stat().st_size for p in sorted((bg / "bm25").iterdir())},
            "family_bytes": {p.name: folder_size(p) for p in sorted((bg / "family").iterdir()) if p.is_dir()},
        }
    )
    result["build"] = build
    print(json.dumps({k: v for k, v in build.items() if k != "output_tail"}), flush=True)

    notes.check("load")
    loads = []
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, __file__, "--worker", "load", str(bg)],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
        loads.append(json.loads(out.stdout.strip().splitlines()[-1]))
    result["load"] = {"runs": loads, "note": "a fresh process each; page cache warm (not dropped)"}
    print(json.dumps(result["load"]), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--same-text-queries", type=int, default=200, help="Queries of the same-text decision (the first ones)"
    )
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "textsan-background-scale")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "background_scale.json")
    parser.add_argument("--skip-tantivy", action="store_true")
    parser.add_argument("--keep", action="store_true", help="Keep the JSONL and the indexes in --workdir")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="Use the records and the background already in --workdir (made by a run with the same --n and "
        "--seed and --keep): the generate, build and load phases are skipped",
    )
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if os.environ.get("PYTHONHASHSEED") != "0":  # some Faker providers draw from sets: fixed string hashes
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    if args.worker:
        workers: dict[str, Callable[..., None]] = {"load": worker_load, "tantivy-build": worker_tantivy_build}
        workers[args.worker[0]](*args.worker[1:])
        return
    work = args.workdir.resolve()
    if ROOT in work.parents or work == ROOT:
        sys.exit(f"--workdir {work} is inside the repository; pick a folder outside it")
    work.mkdir(parents=True, exist_ok=True)
    jsonl, bg, tv = work / "bios.jsonl", work / "background", work / "tantivy"
    notes = Notes()
    result: dict = {"n_records": args.n, "n_queries": args.queries, "seed": args.seed}
    import bm25s

    result["machine"] = {
        "cpus": os.cpu_count(),
        "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "python": platform.python_version(),
        "bm25s": bm25s.__version__,
        "numpy": np.__version__,
    }

    if args.reuse:
        if not (jsonl.exists() and (bg / "background.json").exists()):
            sys.exit(f"--reuse: {work} holds no bios.jsonl and background/ (run once with --keep)")
        manifest = json.loads((bg / "background.json").read_text())
        if manifest["n_records"] != args.n:
            sys.exit(f"--reuse: {bg} holds {manifest['n_records']} records, not --n {args.n}")
        result["data"] = {"reused": str(jsonl), "jsonl_bytes": jsonl.stat().st_size}
        result["build"] = {"reused": str(bg), "records": manifest["n_records"], "index_bytes": folder_size(bg)}
    else:
        _generate_build_load(args, result, notes, jsonl, bg)

    notes.check("queries")
    queries = sample_queries(jsonl, args.n, args.queries, args.seed)
    bm = query_bm25s(bg, queries, args.same_text_queries)
    tops = bm.pop("_tops")
    result["queries"] = bm
    print(json.dumps(bm), flush=True)

    if not args.skip_tantivy:
        import tantivy

        notes.check("tantivy build")
        shutil.rmtree(tv, ignore_errors=True)
        tv.mkdir()
        tbuild = run_measured(
            [sys.executable, __file__, "--worker", "tantivy-build", str(jsonl), str(tv)], work / "tantivy.log"
        )
        if tbuild["rc"] != 0:
            sys.exit(f"tantivy build failed:\n{tbuild['output_tail']}")
        phases = json.loads(tbuild.pop("output_tail").strip().splitlines()[-1])
        notes.check("tantivy queries")
        result["tantivy"] = {
            "version": getattr(tantivy, "__version__", "0.27.0"),
            "setup": "one document per record: its analyse_terms joined by spaces (whitespace tokenizer), "
            "writer heap 1 GB, 1 indexing thread; query: the distinct terms OR-ed through parse_query, top 10",
            "build": {**tbuild, **phases},
            "index_bytes": folder_size(tv),
            **query_tantivy(tv, queries, tops),
        }
        print(json.dumps(result["tantivy"]), flush=True)
    result["why_bm25s"] = WHY_BM25S
    notes.check("end")
    result["notes"] = notes.items or ["no other process used more than 25 % of a CPU when a phase started"]
    result["date"] = date.today().isoformat()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}")
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
