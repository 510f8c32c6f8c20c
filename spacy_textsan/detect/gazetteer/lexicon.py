"""Run-time vocabulary of the knowledge base: what the component and its rules
need from the curated data without the build tools.

* English plurals (:func:`pluralize`), for body parts at run time and for
  surface forms at build time;
* the ids of the curated entries: classes (``class:<TYPE>:<label>``,
  :func:`is_class_entry`), linked to but never tagged, and quasi-identifiers
  (``qi:<TYPE>:<label>``).
"""

from .kb import KBEntry

__all__ = [
    "CLASS_ID_PREFIX",
    "CLASS_SOURCE",
    "QUASI_ID_PREFIX",
    "QUASI_SOURCE",
    "MIN_SURFACE_CHARS",
    "is_class_entry",
    "pluralize",
]

#: Id prefix of the curated quasi-identifier entries (``qi:DEM:nurse``) and their source.
QUASI_ID_PREFIX = "qi:"
QUASI_SOURCE = "textsan-quasi"
#: Id prefix of the curated class entries (``class:ORG:court``) and their source.
CLASS_ID_PREFIX = "class:"
CLASS_SOURCE = "textsan-classes"
#: Shortest surface form (characters) the KB build keeps.
MIN_SURFACE_CHARS = 3


def is_class_entry(entry: KBEntry) -> bool:
    """A curated class entry (``court``, ``statute``), not an instance (``Oslo``)."""
    return entry.id.startswith(CLASS_ID_PREFIX)


def pluralize(noun: str, irregular: dict[str, list[str]] | None = None) -> list[str]:
    """Plural forms of a (possibly multi-word) English noun: WordNet's
    irregular plurals (``noun.exc``) for the whole phrase or its last word,
    else the regular rule on the last word. ``"primary school teacher"`` →
    ``["primary school teachers"]``; ``"woman"`` → ``["women"]``."""
    irregular = irregular or {}
    if noun in irregular:
        return list(irregular[noun])
    head, _, last = noun.rpartition(" ")
    prefix = head + " " if head else ""
    if last in irregular:
        return [prefix + p for p in irregular[last]]
    if not last or not last[-1].isalpha():
        return []
    low = last.lower()
    if low.endswith(("s", "x", "z", "ch", "sh")):
        plural = last + "es"
    elif low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        plural = last[:-1] + "ies"
    elif low.endswith("man") and not low.endswith(("human", "german", "roman", "shaman")):
        plural = last[:-2] + ("EN" if last[-2:].isupper() else "en")
    else:
        plural = last + "s"
    return [prefix + plural]
