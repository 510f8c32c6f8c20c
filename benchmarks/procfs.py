"""What Linux's /proc says of processes: the benchmarks' memory readings."""

from __future__ import annotations

from pathlib import Path


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (a server's workers, a NER process, Presidio's ``n_process`` workers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def status_mb(pid: int | str, *fields: str) -> dict[str, float]:
    """The ``fields`` of ``/proc/PID/status`` (``VmRSS``, ``VmHWM``: kB) in MB; a
    field the process has not (it ended, or this is not Linux) is left out."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    out = {}
    for line in status.splitlines():
        name, _, value = line.partition(":")
        if name in fields:
            out[name] = int(value.split()[0]) / 1024
    return out
