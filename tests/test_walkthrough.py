"""docs/walkthrough.md, run: every ```bash block of the page, read from the page
itself, on 24 notes generated with Faker, in a scratch folder that links the
checkout's configs/, scripts/ and spacy_textsan/.

A block is marked by the HTML comment before it: ``run`` (run in the default
test: the background and the sanitization), ``serve`` (started in the
background; the test does what the review page does, through the same API,
then stops it), ``slow`` (run in order in the slow test: convert, train,
assemble, package) and ``install`` (run in a fresh virtual environment that
sees this one's packages, as a user's own environment)."""

import csv
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import venv
from pathlib import Path

import pytest
from faker import Faker

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "walkthrough.md"
BIN = Path(sys.executable).parent
_BLOCK = re.compile(r"<!-- walkthrough: (?P<kind>[\w-]+) -->\n```bash\n(?P<body>.*?)```", re.DOTALL)
KINDS = ("run", "serve", "slow", "install")


def steps(markdown: str) -> list[tuple[str, str]]:
    """``(kind, commands)`` of the marked ```bash blocks, in page order."""
    return [(m["kind"], m["body"]) for m in _BLOCK.finditer(markdown)]


STEPS = steps(PAGE.read_text(encoding="utf-8"))


def write_notes(path: Path, patients: int = 8, visits: int = 3) -> list[dict[str, str]]:
    """A CSV of clinic notes, ``visits`` per patient (seeded: the same file on every run)."""
    fake = Faker("en_GB")
    fake.seed_instance(7)
    rng = random.Random(7)
    rows = []
    for p in range(patients):
        name, town, phone = fake.name(), fake.city(), fake.phone_number()
        born, job = fake.date_of_birth(minimum_age=30, maximum_age=85), fake.job().lower()
        for v in range(visits):
            seen = fake.date_between(start_date="-3y", end_date="today")
            clinic = rng.choice(["diabetes clinic", "cardiology ward", "fracture clinic", "memory clinic"])
            note = (
                f"{name} (born {born:%d %B %Y}) was seen in the {clinic} on {seen:%d %B %Y}. "
                f"Works as a {job} and lives in {town}. Call {phone} before the next visit."
            )
            rows.append({"id": f"n{p:02d}{v}", "note": note, "name": name, "phone": phone})
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, ["id", "note"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return rows


def _env(bin_dir: Path = BIN) -> dict[str, str]:
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}


def run_block(body: str, cwd: Path, env: dict[str, str] | None = None, timeout: int = 900) -> str:
    """A block's commands in bash (stopping at the first that fails); their output."""
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", body],
        cwd=cwd,
        env=env or _env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{body}\nexit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def _scratch(tmp: Path) -> Path:
    for name in ("configs", "scripts", "spacy_textsan"):
        (tmp / name).symlink_to(ROOT / name)
    return tmp


def _leaves_no_name(path: Path, rows: list[dict[str, str]]) -> None:
    text = path.read_text(encoding="utf-8")
    for row in rows:
        surname = row["name"].split()[-1]
        assert surname not in text and row["phone"] not in text, (surname, text[:500])


@pytest.fixture(scope="module")
def walked(tmp_path_factory):
    """The scratch folder after the ``run`` blocks, and the notes."""
    cwd = _scratch(tmp_path_factory.mktemp("walkthrough"))
    rows = write_notes(cwd / "notes" / "notes.csv")
    for kind, body in STEPS:
        if kind == "run":
            run_block(body, cwd)
    return cwd, rows


# --------------------------------------------------------------------------- #
# the page
# --------------------------------------------------------------------------- #


def test_every_command_block_of_the_page_is_marked():
    blocks = re.findall(r"```bash\n", PAGE.read_text(encoding="utf-8"))
    assert len(blocks) == len(STEPS), (
        "a ```bash block of docs/walkthrough.md has no <!-- walkthrough: KIND --> before it"
    )
    assert {kind for kind, _ in STEPS} == set(KINDS), [kind for kind, _ in STEPS]
    assert [kind for kind, _ in STEPS if kind == "serve"] == ["serve"]


def test_the_steps_are_the_walkthrough_of_the_brief():
    commands = " ".join(body for _, body in STEPS)
    for command in (
        "textsan background build",
        "textsan sanitize",
        "--background",
        "textsan serve",
        "textsan convert",
        "python -m spacy train",
        "python -m spacy assemble",
        "python -m spacy package",
        "pip install",
    ):
        assert command in commands, command


def test_steps_read_from_markdown():
    md = "x\n<!-- walkthrough: run -->\n```bash\na \\\n  b\nc\n```\n```bash\nd\n```\n<!-- walkthrough: slow -->\n```bash\ne\n```\n"
    assert steps(md) == [("run", "a \\\n  b\nc\n"), ("slow", "e\n")]


# --------------------------------------------------------------------------- #
# steps 1 and 2: the background, and sanitizing against it
# --------------------------------------------------------------------------- #


def test_the_background_holds_the_notes(walked):
    cwd, rows = walked
    background = json.loads((cwd / "notes" / "background" / "background.json").read_text(encoding="utf-8"))
    assert background["n_records"] == len(rows)
    assert (cwd / "notes" / "background" / "meta.json").is_file()  # --terms: the term index


def test_the_notes_are_sanitized_against_it(walked):
    cwd, rows = walked
    out = cwd / "notes" / "out" / "notes.csv"
    with out.open(encoding="utf-8", newline="") as f:
        sanitized = list(csv.DictReader(f))
    assert [r["id"] for r in sanitized] == [r["id"] for r in rows]  # the id column as it was
    _leaves_no_name(out, rows)
    report = [json.loads(line) for line in (cwd / "notes" / "out.report" / "report.jsonl").open(encoding="utf-8")]
    assert len(report) == len(rows)
    risks = [r["residual_risk"] for r in report]
    assert all(r["n_background"] == len(rows) for r in risks)  # measured against the notes, not the judgments
    assert any(r["measured"] for r in risks)


# --------------------------------------------------------------------------- #
# steps 3 to 8: review and export, train, assemble, package, install
# --------------------------------------------------------------------------- #


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.load(answer)


def review_and_export(base: str, out: Path, report: Path) -> list[dict]:
    """What the review page does with a run's folders: ``/api/report``, then
    "Export all documents" (``/api/export`` of each document, the spans confirmed)."""
    sanitized = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir() if p.is_file()}
    documents = _post(
        f"{base}/api/report", {"report_jsonl": report.read_text(encoding="utf-8"), "sanitized": sanitized}
    )
    training = []
    for doc in documents["documents"]:
        spans = [
            {
                "start": s["start"],
                "end": s["end"],
                "label": s["label"],
                "entity_id": s.get("entity_id"),
                "masked": s.get("masked") is not False,
                "identifier_type": s.get("identifier_type"),
            }
            for s in doc["spans"]
        ]
        export = _post(f"{base}/api/export", {"text": doc["text"], "spans": spans, "doc_id": doc["doc_id"]})
        training.append(export["training"])
    return training


def serve_and_export(body: str, cwd: Path) -> None:
    """The ``serve`` block on a free port; the export saved where the page says."""
    port = _free_port()
    log = (cwd / "serve.log").open("w")
    server = subprocess.Popen(
        ["bash", "-c", f"exec {body.strip()} --port {port}"],
        cwd=cwd,
        env=_env(),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            assert server.poll() is None, (cwd / "serve.log").read_text()
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=5):
                    break
            except OSError:
                assert time.monotonic() < deadline, "textsan serve did not start"
                time.sleep(1)
        training = review_and_export(base, cwd / "notes" / "out", cwd / "notes" / "out.report" / "report.jsonl")
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    path = cwd / "notes" / "reviewed" / "training.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(training, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def user_venv(path: Path) -> Path:
    """A fresh virtual environment that sees this one's packages (a user's own
    environment, with nothing to download); its ``textsan`` runs its Python."""
    venv.create(path, with_pip=True)
    py = path / "bin" / "python"
    site = subprocess.run(
        [py, "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    ours = subprocess.run(
        [sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "_walkthrough_base.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    textsan = path / "bin" / "textsan"
    textsan.write_text(f"#!{py}\nfrom spacy_textsan.cli import main\nmain()\n")
    textsan.chmod(0o755)
    return path / "bin"


@pytest.mark.slow
def test_review_export_train_assemble_package_install(walked, tmp_path):
    cwd, rows = walked
    for kind, body in STEPS:
        if kind == "serve":
            serve_and_export(body, cwd)
        elif kind == "slow":
            run_block(body, cwd)
        elif kind == "install":
            bin_dir = user_venv(tmp_path / "venv")
            run_block(body, cwd, env=_env(bin_dir))
    training = json.loads((cwd / "notes" / "reviewed" / "training.json").read_text(encoding="utf-8"))
    assert len(training) == len(rows) and all(doc["annotations"] for doc in training)
    for part in ("ner", "risk"):
        assert (cwd / "notes" / "training" / part / "model-best" / "meta.json").is_file()
    meta = json.loads((cwd / "notes" / "training" / "textsan_notes" / "meta.json").read_text(encoding="utf-8"))
    assert meta["pipeline"][:2] == ["ner", "privacy_ner"] and "supervised_risk" in meta["pipeline"]
    # the installed package sanitized the notes
    _leaves_no_name(cwd / "notes" / "out-trained" / "notes.csv", rows)
