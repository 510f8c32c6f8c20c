"""Import a Wikidata JSON dump into the gazetteer's knowledge base format.

A Wikidata JSON dump (``latest-all.json.gz`` / ``.json.bz2``) is one JSON
array spread over lines: ``[`` on the first line, then one entity per line
ending with ``,`` (the last one without), then ``]``. :func:`~.dump_reader.iter_dump_entities`
streams it line by line (plain, gzip or bz2); :func:`import_dump` turns it
into a :class:`~spacy_textsan.detect.gazetteer.kb.GazetteerKB` of ``KBEntry``
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
first, at most ``max_chain``) follows the relations of Olstad et al. (2023): instance of
(P31), subclass of (P279), is metaclass for (P8225), part of (P361). At each
step the first relation present gives the next node and, within a relation,
the first target (preferred rank before normal rank, then dump order). A
node that is itself a class (it has a P279 claim) follows P279 first
(``prefer_subclass=True``): the P31 of a class names its metaclass ("drummer"
is an instance of "profession" but a subclass of "percussionist"), and
Olstad et al.'s own example ``drummer -> percussionist -> instrumentalist ->
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

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from .dump_reader import (
    INSTANCE_OF,
    NO_HOP,
    SUBCLASS_OF,
    chain_step,
    claim_targets,
    entity_aliases,
    entity_text,
    is_class_like,
    iter_dump_entities,
    qid_to_int,
)
from .kb import KB_TYPES, GazetteerKB, KBEntry

__all__ = ["import_dump", "keep_closure", "chain_path", "DEFAULT_CLASS_TYPES", "SOURCE"]

SOURCE = "wikidata-dump"

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
    while node != NO_HOP and len(path) < max_chain and node not in seen:
        path.append(node)
        seen.add(node)
        node = hops.get(node, NO_HOP)
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
        self.hops: dict[int, int] = hops
        self.labels: dict[int, str] = {}
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
            if step != NO_HOP:
                if step not in self.labels_done:
                    self._want_label.add(step)
                if room > 1 and step not in self.hops:
                    self._want_hop[step] = max(room - 1, self._want_hop.get(step, 0))

    def finish(self) -> None:
        labels_asked, hops_asked = self._asked
        self.labels_done |= labels_asked
        for qid in hops_asked:
            self.hops.setdefault(qid, NO_HOP)  # not in the dump: chains end there
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
) -> tuple[GazetteerKB, dict]:
    """Stream a Wikidata JSON dump into a knowledge base of its kept entities.

    ``keep_classes``: class QIDs to keep (instances and subclasses of them,
    transitively through P279 when ``transitive``); default the keys of
    ``class_types``, or of :data:`DEFAULT_CLASS_TYPES` when neither is given.
    ``class_types``: class QID -> TAB type (LOC, ORG, DEM, MISC); a keep class
    without one is MISC. ``on_error``: ``"raise"`` (:class:`~.dump_reader.DumpFormatError`)
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
            item = _item_id(entity)
            if item is not None:
                resolver.observe(item, entity)
        resolver.finish()
    kb = GazetteerKB(_entries(kept, hops, resolver.labels, max_chain))
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
