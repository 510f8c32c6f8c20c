"""Where a benchmark result comes from: the machine, the package versions and the commit (shared by the
benchmark scripts; ``benchmarks/`` is not a package, the scripts put it on ``sys.path``)."""

from __future__ import annotations

import os
import platform
import subprocess
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def versions(packages: Iterable[str]) -> dict:
    """The installed version of each of ``packages`` (None: not installed), and Python's."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict = {"python": platform.python_version()}
    for pkg in packages:
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def git_state() -> dict:
    """The commit evaluated and whether the package's working tree differed from it."""

    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None

    status = git("status", "--porcelain", "--", "spacy_textsan")
    return {"commit": git("rev-parse", "HEAD"), "spacy_textsan_modified": bool(status) if status is not None else None}


def machine() -> dict:
    """The CPU, its cores, the memory, the platform and Python."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem_gb: float | None = round(int(Path("/proc/meminfo").read_text().split()[1]) / 1024 / 1024, 1)
    except (OSError, IndexError, ValueError):
        mem_gb = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": mem_gb,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
    }
