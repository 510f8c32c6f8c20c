"""Import a Wikidata JSON dump into the gazetteer's knowledge base format.

A Wikidata JSON dump (``latest-all.json.gz`` / ``.json.bz2``) is one JSON
array spread over lines: ``[`` on the first line, then one entity per line
ending with ``,`` (the last one without), then ``]``. :func:`iter_dump_entities`
streams it line by line (plain, gzip or bz2); :func:`import_dump` turns it
into a :class:`~spacy_textsan.gazetteer.kb.KnowledgeBase` of ``KBEntry``
objects with ``source="wikidata-dump"``.

Which entities are kept
-----------------------
An item is kept when one of its *instance of* (P31) targets, or one of its
*subclass of* (P279) targets, is a kept class. The kept classes are
``keep_classes`` **and, transitively, every class that reaches one of them
through P279** (``transitive=True``, the default): Oslo is kept because it is
an instance of "national capital", a subclass of "city", a subclass of
"human settlement" (Q486972). Classes such as occupations are kept through
P279: "drummer" is a subclass of "percussionist", ..., of "occupation". The
TAB type of a kept entity is the one of the nearest keep class (through P279)
of its first matching target (``class_types``; ``MISC`` when a keep class has none).
Items without a label in ``language`` (nor in ``"mul"``, Wikidata's
language-independent labels) are not kept (``stats["no_label"]``): their
QID would be a useless surface form.

Chains
------
For every kept entity the chain of its ancestors (labels, most specific
first, at most ``max_chain``) follows seed 000's relations: instance of
(P31), subclass of (P279), is metaclass for (P8225), part of (P361). At each
step the first relation present gives the next node and, within a relation,
the first target (preferred rank before normal rank, then dump order). A
node that is itself a class (it has a P279 claim) follows P279 first
(``prefer_subclass=True``): the P31 of a class names its metaclass ("drummer"
is an instance of "profession" but a subclass of "percussionist"), and
seed 000's own example ``drummer -> percussionist -> instrumentalist ->
musician -> ...`` runs through P279. Pass ``prefer_subclass=False`` for the
literal P31, P279, P8225, P361 order at every node. A chain stops at a node
without these relations, at a cycle or at ``max_chain``; a node without a
label in ``language`` shows as its QID. Deprecated claims and claims without
a value (``novalue``/``somevalue``) are ignored.

Memory and passes
-----------------
The dump is read several times, never held in memory:

1. *structure*: for every **class-like** item (one with a P279 or P8225
   claim) keep its P279 targets and its chain step (one int) in compact int
   maps; nothing for other items. The kept-class closure is computed from
   these maps in memory.
2. *select*: keep the minimal data (label, aliases, description, chain step,
   type) of every kept item, and the labels of the class nodes on the chains
   of the kept classes.
3. *resolve* (only when needed): labels and chain steps of the remaining
   ancestors, e.g. a plain item reached through P361. Another pass runs only
   when such an item leads to nodes not seen yet; at most ``max_chain``.

What grows with the dump: the maps of class-like nodes (P279 targets and
one chain step, ints: about 180 bytes per class measured with tracemalloc,
so under 1 GB for the few million classes of a full dump), the data of the
kept entities and the labels of their ancestors. What does not: anything
about items that are neither kept nor classes, the bulk of a dump (people,
papers, stars, ...); ``tests/test_dump_importer.py`` checks that the peak
stays flat when they grow tenfold. One line is parsed at a time.
"""

import bz2
import gzip
import io
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from .kb import KB_TYPES, KBEntry, KnowledgeBase

__all__ = ["DumpFormatError", "iter_dump_entities", "import_dump", "DEFAULT_CLASS_TYPES", "CHAIN_RELATIONS", "SOURCE"]

SOURCE = "wikidata-dump"
CHAIN_RELATIONS = ("P31", "P279", "P8225", "P361")  # seed 000's order
INSTANCE_OF, SUBCLASS_OF, METACLASS_FOR = "P31", "P279", "P8225"

#: Default classes to keep, with their TAB type (``textsan gazetteer import-dump``'s preset).
DEFAULT_CLASS_TYPES: dict[str, str] = {
    "Q12737077": "DEM",  # occupation (drummer, nurse, ...)
    "Q28640": "DEM",  # profession
    "Q41710": "DEM",  # ethnic group
    "Q9174": "DEM",  # religion
    "Q231002": "DEM",  # nationality
    "Q486972": "LOC",  # human settlement (cities, towns, villages)
    "Q6256": "LOC",  # country
    "Q56061": "LOC",  # administrative territorial entity (regions, counties, ...)
    "Q43229": "ORG",  # organization (companies, agencies, schools, ...)
    "Q12136": "MISC",  # disease
}

_QID = re.compile(r"Q([1-9][0-9]*)\Z")
_NO_HOP = -1  # a node known to have no chain step
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
    preferred, normal = [], []
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
    seen: set[int] = set()
    return [i for i in ids if not (i in seen or seen.add(i))]


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
    order = CHAIN_RELATIONS
    if prefer_subclass and targets[SUBCLASS_OF]:
        order = (SUBCLASS_OF,) + tuple(p for p in CHAIN_RELATIONS if p != SUBCLASS_OF)
    for prop in order:
        if targets[prop]:
            return targets[prop][0]
    return _NO_HOP


def is_class_like(entity: dict) -> bool:
    """A node of the class hierarchy: it has a subclass-of or a metaclass-for claim."""
    return bool(claim_targets(entity, SUBCLASS_OF) or claim_targets(entity, METACLASS_FOR))


# -- the kept-class closure -------------------------------------------------------------
def keep_closure(
    keep_types: Mapping[int, str], supers: Mapping[int, tuple[int, ...]], transitive: bool = True
) -> dict[int, str]:
    """Class id -> TAB type for the keep classes and (``transitive``) every class
    reaching one through P279 (``supers``: class -> its P279 targets). A class
    takes the type of its nearest keep class (ties: P279 target order).
    Computed in rounds (one per level of the hierarchy), safe with cycles."""
    closure: dict[int, str] = dict(keep_types)
    if not transitive:
        return closure
    pending = [n for n in supers if n not in closure]
    while pending:
        added = {}
        for node in pending:
            for parent in supers[node]:
                if parent in closure:
                    added[node] = closure[parent]
                    break
        if not added:
            break
        closure.update(added)
        pending = [n for n in pending if n not in added]
    return closure


def _kept_type(entity: dict, closure: Mapping[int, str]) -> str | None:
    """The type of the first P31, then P279, target in the closure; None when none."""
    for prop in (INSTANCE_OF, SUBCLASS_OF):
        for target in claim_targets(entity, prop):
            if target in closure:
                return closure[target]
    return None


# -- chains ----------------------------------------------------------------------------
def chain_path(first: int, hops: Mapping[int, int], max_chain: int, own: int | None = None) -> list[int]:
    """The ids of a chain starting at ``first`` and following ``hops``, at most
    ``max_chain`` long, stopping at a cycle (``own`` counts as seen) or at a
    node without (known) step."""
    path: list[int] = []
    seen = {own} if own is not None else set()
    node = first
    while node != _NO_HOP and len(path) < max_chain and node not in seen:
        path.append(node)
        seen.add(node)
        node = hops.get(node, _NO_HOP)
    return path


class _Resolver:
    """Labels and chain steps of ancestor ids, collected while a pass streams.

    Before a pass, :meth:`want_chain` names the chains to complete (the labels
    of their known nodes, the step of their last node when unknown); then
    :meth:`start`. While streaming, :meth:`observe` records what is asked
    for, and a step found asks in turn for its target (when the target comes
    later in the dump, the same pass gets it); chains can also be asked for
    during the pass. :meth:`finish` marks what was asked before the pass as
    looked up, found or not, so no later pass asks again."""

    def __init__(self, hops: dict[int, int], language: str, prefer_subclass: bool, max_chain: int):
        self.hops, self.labels = hops, {}
        self.language, self.prefer_subclass, self.max_chain = language, prefer_subclass, max_chain
        self.labels_done: set[int] = set()
        self._want_label: set[int] = set()
        self._want_hop: dict[int, int] = {}  # id -> nodes the chain may still add after it
        self._asked: tuple[set[int], set[int]] = (set(), set())

    def __bool__(self) -> bool:
        return bool(self._want_label or self._want_hop)

    def want_chain(self, first: int, own: int | None = None) -> None:
        """Ask for what the chain from ``first`` (of the entity ``own``) lacks."""
        path = chain_path(first, self.hops, self.max_chain, own)
        self._want_label.update(n for n in path if n not in self.labels_done)
        if path and len(path) < self.max_chain and path[-1] not in self.hops:
            last, room = path[-1], self.max_chain - len(path)
            self._want_hop[last] = max(room, self._want_hop.get(last, 0))

    def set_label(self, qid: int, label: str) -> None:
        self.labels[qid] = label
        self.labels_done.add(qid)

    def start(self) -> None:
        """Snapshot what this pass was asked before streaming."""
        self._asked = (set(self._want_label), set(self._want_hop))

    def observe(self, qid: int, entity: dict) -> None:
        """Record the label and/or step of ``qid`` when asked for."""
        if qid in self._want_label:
            self._want_label.discard(qid)
            self.labels_done.add(qid)
            label = entity_text(entity, "labels", self.language)
            if label:
                self.labels[qid] = label
        room = self._want_hop.pop(qid, 0)
        if room and qid not in self.hops:
            step = self.hops[qid] = chain_step(entity, self.prefer_subclass)
            if step != _NO_HOP:
                if step not in self.labels_done:
                    self._want_label.add(step)
                if room > 1 and step not in self.hops:
                    self._want_hop[step] = max(room - 1, self._want_hop.get(step, 0))

    def finish(self) -> None:
        labels_asked, hops_asked = self._asked
        self.labels_done |= labels_asked
        for qid in hops_asked:
            self.hops.setdefault(qid, _NO_HOP)  # not in the dump: chains end there
        self._want_label, self._want_hop = set(), {}


@dataclass
class _Kept:
    """The minimal data of a kept item."""

    label: str
    tab_type: str
    aliases: list[str]
    description: str
    step: int


# -- import ----------------------------------------------------------------------------
def import_dump(
    path: str | Path,
    *,
    keep_classes: Iterable[str] | None = None,
    class_types: Mapping[str, str] | None = None,
    language: str = "en",
    max_chain: int = 6,
    progress: bool = True,
    on_error: str = "raise",
    transitive: bool = True,
    prefer_subclass: bool = True,
) -> tuple[KnowledgeBase, dict]:
    """Stream a Wikidata JSON dump into a knowledge base of its kept entities.

    ``keep_classes``: class QIDs to keep (instances and subclasses of them,
    transitively through P279 when ``transitive``); default the keys of
    ``class_types``, or of :data:`DEFAULT_CLASS_TYPES` when neither is given.
    ``class_types``: class QID -> TAB type (LOC, ORG, DEM, MISC); a keep class
    without one is MISC. ``on_error``: ``"raise"`` (:class:`DumpFormatError`)
    or ``"skip"`` malformed lines. Returns ``(kb, stats)``; ``stats`` counts
    ``read`` (entities), ``items``, ``skipped`` (properties, lexemes, ...),
    ``malformed`` (lines skipped), ``classes`` (class-like nodes mapped),
    ``kept_classes`` (closure size), ``kept``, ``no_label`` (kept but without
    a label, left out) and ``passes`` over the dump, plus ``by_type``.
    """
    path = Path(path)
    if max_chain < 0:
        raise ValueError("max_chain must be >= 0")
    keep_types = _keep_types(keep_classes, class_types)
    stats: dict = {
        "read": 0,
        "items": 0,
        "skipped": 0,
        "malformed": 0,
        "classes": 0,
        "kept_classes": 0,
        "kept": 0,
        "no_label": 0,
        "passes": 0,
    }

    def read(desc: str, counts: dict | None = None) -> Iterator[dict]:
        stats["passes"] += 1
        return iter_dump_entities(
            path, on_error=on_error, stats=counts, progress=progress, desc=f"pass {stats['passes']}: {desc}"
        )

    # pass 1: the class structure (ints only)
    supers, hops = _read_structure(read("classes", stats), stats, prefer_subclass)
    closure = keep_closure(keep_types, supers, transitive)
    stats["kept_classes"] = len(closure)
    del supers
    # pass 2: the kept entities, and the labels along the kept classes' chains
    resolver = _Resolver(hops, language, prefer_subclass, max_chain)
    for cls in closure:
        resolver.want_chain(cls)
    resolver.start()
    kept = _read_kept(read("entities"), closure, resolver, stats)
    resolver.finish()
    # passes 3+: whatever the chains still lack (a plain item reached through P361, ...)
    while True:
        for qid, record in kept.items():
            resolver.want_chain(record.step, qid)
        if not resolver:
            break
        resolver.start()
        for entity in read("ancestors"):
            qid = _item_id(entity)
            if qid is not None:
                resolver.observe(qid, entity)
        resolver.finish()
    kb = KnowledgeBase(_entries(kept, hops, resolver.labels, max_chain))
    stats["by_type"] = kb.stats()
    return kb, stats


def _item_id(entity: dict) -> int | None:
    """The numeric id of an item; None for properties, lexemes, ..."""
    return qid_to_int(entity["id"]) if entity.get("type", "item") == "item" else None


def _keep_types(keep_classes: Iterable[str] | None, class_types: Mapping[str, str] | None) -> dict[int, str]:
    """Validated numeric class id -> TAB type."""
    if keep_classes is None and class_types is None:
        class_types = DEFAULT_CLASS_TYPES
    class_types = dict(class_types or {})
    keep = list(keep_classes) if keep_classes is not None else list(class_types)
    out: dict[int, str] = {}
    for qid in keep:
        num = qid_to_int(qid)
        if num is None:
            raise ValueError(f"not a Wikidata class id (Q...): {qid!r}")
        tab_type = class_types.get(qid, "MISC")
        if tab_type not in KB_TYPES:
            raise ValueError(f"type of {qid}: {tab_type!r} is not one of {KB_TYPES}")
        out[num] = tab_type
    return out


def _read_structure(
    entities: Iterator[dict], stats: dict, prefer_subclass: bool
) -> tuple[dict[int, tuple[int, ...]], dict[int, int]]:
    """Pass 1: P279 targets and chain step of every class-like item; counts."""
    supers: dict[int, tuple[int, ...]] = {}
    hops: dict[int, int] = {}
    for entity in entities:
        stats["read"] += 1
        qid = _item_id(entity)
        if qid is None:
            stats["skipped"] += 1
            continue
        stats["items"] += 1
        if is_class_like(entity):
            supers[qid] = tuple(claim_targets(entity, SUBCLASS_OF))
            hops[qid] = chain_step(entity, prefer_subclass)
    stats["classes"] = len(hops)
    return supers, hops


def _read_kept(
    entities: Iterator[dict], closure: Mapping[int, str], resolver: _Resolver, stats: dict
) -> dict[int, _Kept]:
    """Pass 2: the kept items' data (each one a node of the others' chains);
    the resolver collects ancestor labels meanwhile."""
    kept: dict[int, _Kept] = {}
    for entity in entities:
        qid = _item_id(entity)
        if qid is None:
            continue
        resolver.observe(qid, entity)
        tab_type = _kept_type(entity, closure)
        if tab_type is None:
            continue
        label = entity_text(entity, "labels", resolver.language)
        if not label:
            stats["no_label"] += 1
            continue
        step = chain_step(entity, resolver.prefer_subclass)
        kept[qid] = _Kept(
            label,
            tab_type,
            entity_aliases(entity, resolver.language),
            entity_text(entity, "descriptions", resolver.language),
            step,
        )
        resolver.set_label(qid, label)
        resolver.hops.setdefault(qid, step)
        resolver.want_chain(step, qid)
    stats["kept"] = len(kept)
    return kept


def _entries(
    kept: Mapping[int, _Kept], hops: Mapping[int, int], labels: Mapping[int, str], max_chain: int
) -> Iterator[KBEntry]:
    """KB entries, in dump order."""
    for qid, record in kept.items():
        chain = [labels.get(n, f"Q{n}") for n in chain_path(record.step, hops, max_chain, qid)]
        yield KBEntry(
            id=f"Q{qid}",
            label=record.label,
            tab_type=record.tab_type,
            aliases=record.aliases,
            chain=chain,
            source=SOURCE,
            description=record.description,
        )
