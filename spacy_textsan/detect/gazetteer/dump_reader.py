"""Reading a Wikidata JSON dump: its lines, its entities and their fields.

A dump (``latest-all.json.gz`` / ``.json.bz2``) is one JSON array spread over
lines: ``[`` on the first line, then one entity per line ending with ``,``
(the last one without), then ``]``. :func:`iter_dump_entities` streams it
line by line (plain, gzip or bz2; JSON Lines too); the functions below it
read an entity's claims, labels and chain step. Used by :mod:`.dump_importer`.
"""

import bz2
import gzip
import io
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from tqdm import tqdm

__all__ = [
    "CHAIN_RELATIONS",
    "NO_HOP",
    "DumpFormatError",
    "iter_dump_entities",
    "qid_to_int",
    "claim_targets",
    "entity_text",
    "entity_aliases",
    "chain_step",
    "is_class_like",
]

CHAIN_RELATIONS = ("P31", "P279", "P8225", "P361")  # the order of Olstad et al. 2023
INSTANCE_OF, SUBCLASS_OF, METACLASS_FOR = "P31", "P279", "P8225"
_QID = re.compile(r"Q([1-9][0-9]*)\Z")
NO_HOP = -1  # a node known to have no chain step
_PROGRESS_EVERY = 1000


class DumpFormatError(ValueError):
    """A dump line that is not one JSON entity; names the file and the line."""

    def __init__(self, path: str | Path, line: int, reason: str):
        self.path, self.line, self.reason = str(path), line, reason
        super().__init__(f"{path}:{line}: malformed Wikidata dump line: {reason}")


# -- reading -------------------------------------------------------------------------
def _open_dump(path: Path) -> tuple[io.TextIOBase, io.BufferedReader]:
    """(text stream, raw file): the raw file's position is the bytes read so far."""
    raw = open(path, "rb")
    name = path.name.lower()
    binary: io.BufferedIOBase
    if name.endswith(".gz"):
        binary = gzip.GzipFile(fileobj=raw, mode="rb")
    elif name.endswith(".bz2"):
        binary = bz2.BZ2File(raw, mode="rb")
    else:
        binary = raw
    return io.TextIOWrapper(binary, encoding="utf-8"), raw


def _entity_text(line: str) -> str | None:
    """The JSON text of one entity line, or None for framing (``[``, ``]``, blank)."""
    text = line.strip()
    if text.endswith(","):
        text = text[:-1].rstrip()
    if text in ("", "[", "]"):
        return None
    return text


def _parse_entity(text: str) -> tuple[dict | None, str]:
    """(entity, "") or (None, reason)."""
    try:
        entity = json.loads(text)
    except json.JSONDecodeError as e:
        return None, f"{e.msg} (column {e.colno})"
    if not isinstance(entity, dict):
        return None, f"expected a JSON object, got {type(entity).__name__}"
    if not isinstance(entity.get("id"), str):
        return None, 'entity without an "id"'
    return entity, ""


def _progress_bar(path: Path, desc: str, progress: bool) -> tuple[tqdm, bool]:
    """(bar, counts bytes): bytes of the file when its size is known, else
    entities; hidden unless ``progress`` and stderr is a terminal."""
    disable = not progress or not sys.stderr.isatty()
    try:
        total = os.path.getsize(path)
    except OSError:
        total = 0
    if total:
        return tqdm(total=total, desc=desc, unit="B", unit_scale=True, disable=disable), True
    return tqdm(desc=desc, unit=" entities", disable=disable), False


def iter_dump_entities(
    path: str | Path,
    *,
    on_error: str = "raise",
    stats: dict[str, int] | None = None,
    progress: bool = False,
    desc: str = "reading dump",
) -> Iterator[dict]:
    """Yield the entities of a Wikidata JSON dump (``.json``, ``.json.gz``,
    ``.json.bz2``; also JSON Lines), one line at a time.

    ``on_error="raise"`` raises :class:`DumpFormatError` (file and line
    number) on a line that is not a JSON entity; ``"skip"`` counts it in
    ``stats["malformed"]`` and goes on. ``stats["lines"]`` counts the lines.
    The progress bar counts compressed bytes read (shown only on a TTY).
    """
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', not {on_error!r}")
    path = Path(path)
    stats = stats if stats is not None else {}
    stats.setdefault("malformed", 0)
    stats.setdefault("lines", 0)
    text_stream, raw = _open_dump(path)
    bar, bytes_mode = _progress_bar(path, desc, progress)
    try:
        for lineno, line in enumerate(_lines(text_stream, path), start=1):
            stats["lines"] += 1
            if lineno % _PROGRESS_EVERY == 0 and bytes_mode:
                bar.update(raw.tell() - bar.n)
            text = _entity_text(line)
            if text is None:
                continue
            entity, reason = _parse_entity(text)
            if entity is None:
                if on_error == "raise":
                    raise DumpFormatError(path, lineno, reason)
                stats["malformed"] += 1
                continue
            if not bytes_mode:
                bar.update(1)
            yield entity
        if bytes_mode:
            bar.update(raw.tell() - bar.n)
    finally:
        bar.close()
        text_stream.close()
        raw.close()


def _lines(stream: io.TextIOBase, path: Path) -> Iterator[str]:
    """The stream's lines; a decoding error (bad gzip/bz2/UTF-8) names the file."""
    lineno = 0
    while True:
        try:
            line = stream.readline()
        except (OSError, EOFError, UnicodeDecodeError) as e:
            raise DumpFormatError(path, lineno + 1, f"cannot decode: {e}") from None
        if not line:
            return
        lineno += 1
        yield line


# -- entity fields -------------------------------------------------------------------
def qid_to_int(qid: str) -> int | None:
    """``"Q64"`` -> 64; None for anything that is not an item id."""
    m = _QID.match(qid)
    return int(m.group(1)) if m else None


def claim_targets(entity: dict, prop: str) -> list[int]:
    """Item targets (numeric ids) of one property: preferred rank first, then
    normal, in dump order; deprecated claims and novalue/somevalue skipped."""
    preferred: list[int] = []
    normal: list[int] = []
    for claim in (entity.get("claims") or {}).get(prop) or ():
        rank = claim.get("rank", "normal")
        if rank == "deprecated":
            continue
        target = _snak_target(claim.get("mainsnak") or {})
        if target is not None:
            (preferred if rank == "preferred" else normal).append(target)
    return _unique(preferred + normal)


def _snak_target(snak: dict) -> int | None:
    if snak.get("snaktype", "value") != "value":
        return None
    value = (snak.get("datavalue") or {}).get("value")
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("numeric-id"), int) and value.get("entity-type", "item") == "item":
        return value["numeric-id"]
    return qid_to_int(value["id"]) if isinstance(value.get("id"), str) else None


def _unique(ids: Iterable[int]) -> list[int]:
    return list(dict.fromkeys(ids))


def entity_text(entity: dict, field_name: str, language: str) -> str:
    """A label or description in ``language``, else in ``"mul"``, else ""."""
    values = entity.get(field_name) or {}
    for lang in (language, "mul"):
        value = (values.get(lang) or {}).get("value")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def entity_aliases(entity: dict, language: str) -> list[str]:
    """The aliases in ``language``, in dump order."""
    out = []
    for alias in (entity.get("aliases") or {}).get(language) or ():
        value = alias.get("value") if isinstance(alias, dict) else None
        if isinstance(value, str) and value.strip():
            out.append(value.strip())
    return out


def chain_step(entity: dict, prefer_subclass: bool = True) -> int:
    """The next node of a chain from this entity: the first target of the first
    relation present (P31, P279, P8225, P361; P279 first for a class when
    ``prefer_subclass``), or ``-1`` when it has none."""
    targets = {prop: claim_targets(entity, prop) for prop in CHAIN_RELATIONS}
    order: tuple[str, ...] = CHAIN_RELATIONS
    if prefer_subclass and targets[SUBCLASS_OF]:
        order = (SUBCLASS_OF,) + tuple(p for p in CHAIN_RELATIONS if p != SUBCLASS_OF)
    for prop in order:
        if targets[prop]:
            return targets[prop][0]
    return NO_HOP


def is_class_like(entity: dict) -> bool:
    """A node of the class hierarchy: it has a subclass-of or a metaclass-for claim."""
    return bool(claim_targets(entity, SUBCLASS_OF) or claim_targets(entity, METACLASS_FOR))
