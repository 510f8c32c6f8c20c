"""KB entries of the curated tables shipped in ``data/``. Build time only.

* **Classes** (``data/classes.txt``, :func:`read_classes`): types of
  organisations, laws, treaties and benefits seen in TAB train/dev (``state
  security court → criminal court → court → judicial body → organization``,
  ``statute → law → legal instrument``). Class entries (ids
  ``class:<TYPE>:<label>``, :func:`~.lexicon.is_class_entry`) are only
  linked to, never tagged: a span that *contains* one of their surfaces is an
  instance of the class, so ``wikidata_gazetteer`` puts the class's own label
  first in its chain ("the Istanbul State Security Court" → ``state security
  court``, ``criminal court``...). The exclusion list does not apply to them.
* **Quasi-identifiers** (``data/quasi_identifiers.txt``,
  :func:`read_quasi_identifiers`): occupations, employment, family and legal
  status, health conditions, ethnicities, religions that WordNet's categories
  miss or its rules drop (``nurse``, ``widow``, ``prisoner``, ``retired``,
  ``depression``, ``white woman``); ids ``qi:<TYPE>:<label>``, tagged like
  WordNet entries.
"""

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from ...word_lists import data_rows
from .kb import KB_TYPES, KBEntry, normalize_surface
from .lexicon import CLASS_ID_PREFIX, CLASS_SOURCE, QUASI_ID_PREFIX, QUASI_SOURCE, pluralize
from .paths import DATA_DIR
from .wordnet import WordNet

__all__ = [
    "DEFAULT_CLASSES_PATH",
    "DEFAULT_QUASI_PATH",
    "read_classes",
    "class_plurals",
    "class_entries",
    "read_quasi_identifiers",
    "quasi_identifier_entries",
]

DEFAULT_CLASSES_PATH = DATA_DIR / "classes.txt"
DEFAULT_QUASI_PATH = DATA_DIR / "quasi_identifiers.txt"


def read_classes(path: str | Path = DEFAULT_CLASSES_PATH) -> list[dict]:
    """The class table: one ``TYPES | label | parent | aliases`` line per class
    (see ``data/classes.txt``); ``#`` starts a comment. Returns dicts with
    ``types`` (list), ``label``, ``parent`` (None for a root) and ``aliases``
    (list). Raises ``ValueError`` with the line number on a malformed line."""
    out = []
    for lineno, line, fields in data_rows(path):
        if len(fields) != 4 or not fields[0] or not fields[1] or not fields[2]:
            raise ValueError(f"{path}:{lineno}: expected 'TYPES | label | parent | aliases', got {line!r}")
        types, label, parent, aliases = fields
        out.append(
            {
                "types": types.split(),
                "label": label,
                "parent": None if parent == "-" else parent,
                "aliases": [a.strip() for a in aliases.split(";") if a.strip()],
            }
        )
    return out


def class_plurals(
    name: str, irregular: dict[str, list[str]] | None = None, english: set[str] | None = None
) -> list[str]:
    """Plurals of a class name, inflecting the head before ``of``
    (``court of appeal`` → ``courts of appeal``); none when the head is not a
    word of 4+ letters, already ends in ``s`` (``solicitors``, ``ltd``) or,
    given the ``english`` nouns, is not one (``gmbh``, ``sozialgericht``)."""
    head, sep, rest = name.partition(" of ")
    last = head.rpartition(" ")[2]
    if not last.isalpha() or len(last) < 4 or last.endswith("s"):
        return []
    if english is not None and last.lower() not in english:
        return []
    return [p + sep + rest for p in pluralize(head, irregular)]


def class_entries(classes: Sequence[dict], wordnet: WordNet | None = None) -> Iterator[KBEntry]:
    """KB entries of the class table (:func:`read_classes`), one per class and
    TAB type, in table order: id ``class:<TYPE>:<label>``, surfaces the label,
    the aliases and their plurals, chain the parent classes up to the root.

    Raises ``ValueError`` for an unknown type or parent, a repeated label, a
    cycle, or a surface shared by two classes of the same type (a contained
    span must name one class)."""
    by_label: dict[str, dict] = {}
    for cls in classes:
        if cls["label"] in by_label:
            raise ValueError(f"class {cls['label']!r} is defined twice")
        bad = [t for t in cls["types"] if t not in KB_TYPES]
        if bad or not cls["types"]:
            raise ValueError(f"class {cls['label']!r}: types must be among {KB_TYPES}, not {cls['types']}")
        by_label[cls["label"]] = cls

    def chain(cls: dict) -> list[str]:
        out, seen, cur = [], {cls["label"]}, cls
        while cur["parent"] is not None:
            if cur["parent"] not in by_label:
                raise ValueError(f"class {cur['label']!r}: unknown parent {cur['parent']!r}")
            if cur["parent"] in seen:
                raise ValueError(f"class {cls['label']!r}: its parents form a cycle")
            cur = by_label[cur["parent"]]
            seen.add(cur["label"])
            out.append(cur["label"])
        return out

    irregular = wordnet.plurals if wordnet is not None else None
    english = set(wordnet.index) if wordnet is not None else None
    owner: dict[tuple[str, str], str] = {}  # (type, normalised surface) -> class label
    for cls in classes:
        names = [cls["label"], *cls["aliases"]]
        surfaces = []
        for name in names:
            surfaces += [name, *class_plurals(name, irregular, english)]
        kept, seen = [], set()
        for s in surfaces:
            norm = normalize_surface(s)
            if norm not in seen:
                seen.add(norm)
                kept.append(s)
        ancestors = chain(cls)
        for tab_type in cls["types"]:
            for s in kept:
                other = owner.setdefault((tab_type, normalize_surface(s)), cls["label"])
                if other != cls["label"]:
                    raise ValueError(f"surface {s!r} ({tab_type}) names two classes: {other!r} and {cls['label']!r}")
            yield KBEntry(
                id=f"{CLASS_ID_PREFIX}{tab_type}:{cls['label']}",
                label=cls["label"],
                tab_type=tab_type,
                aliases=kept[1:],
                chain=list(ancestors),
                source=CLASS_SOURCE,
                description="class: " + " < ".join([cls["label"], *ancestors]),
            )


# --------------------------------------------------------------------------- #
# Curated quasi-identifiers
# --------------------------------------------------------------------------- #


def read_quasi_identifiers(path: str | Path = DEFAULT_QUASI_PATH) -> list[dict]:
    """The curated table: one ``TYPE | chain | plurals | label; aliases`` line
    per entry (see ``data/quasi_identifiers.txt``); ``#`` starts a comment.
    Returns dicts with ``type``, ``chain`` (list), ``plurals`` (bool) and
    ``surfaces`` (list, the label first). Raises ``ValueError`` with the line
    number on a malformed line."""
    out = []
    for lineno, line, fields in data_rows(path):
        surfaces = [x.strip() for x in fields[3].split(";") if x.strip()] if len(fields) == 4 else []
        if len(fields) != 4 or fields[0] not in KB_TYPES or fields[2] not in ("+", "-") or not surfaces:
            raise ValueError(f"{path}:{lineno}: expected 'TYPE | chain | +/- | label; aliases', got {line!r}")
        out.append(
            {
                "type": fields[0],
                "chain": [c.strip() for c in fields[1].split(">") if c.strip()],
                "plurals": fields[2] == "+",
                "surfaces": surfaces,
            }
        )
    return out


def quasi_identifier_entries(
    table: Sequence[dict], wordnet: WordNet | None = None, exclude: Iterable[str] = ()
) -> Iterator[KBEntry]:
    """One KB entry per surface of the table (:func:`read_quasi_identifiers`),
    with its plural when asked for: id ``qi:<TYPE>:<surface>``, chain the
    line's chain. Surfaces in ``exclude`` are dropped, as WordNet's are."""
    excluded = {normalize_surface(e) for e in exclude}
    irregular = wordnet.plurals if wordnet is not None else None
    for row in table:
        for surface in row["surfaces"]:
            if normalize_surface(surface) in excluded:
                continue
            aliases = (
                [p for p in pluralize(surface, irregular) if normalize_surface(p) not in excluded]
                if row["plurals"]
                else []
            )
            yield KBEntry(
                id=f"{QUASI_ID_PREFIX}{row['type']}:{surface}",
                label=surface,
                tab_type=row["type"],
                aliases=aliases,
                chain=list(row["chain"]),
                source=QUASI_SOURCE,
            )
