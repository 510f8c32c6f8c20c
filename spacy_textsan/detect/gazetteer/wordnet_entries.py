"""KB entries from WordNet 3.0 (:mod:`.wordnet`): the default KB's DEM and ORG vocabulary.

DEM entries for everything below person.n.01 (occupations, roles,
nationalities as people, religious groups...), ill health, disorders,
injuries, disabilities, religions, natural languages and ethnic groups; ORG
entries for named organisations (:data:`DEFAULT_WORDNET_ROOTS`). Chains
follow the first hypernym: ``drummer → percussionist → musician → performer
→ entertainer → person``. A surface form is dropped when it is excluded or
when its most frequent WordNet sense is outside the categories kept
(``party`` is mostly a political group, ``star`` a celestial body).
Build time only.
"""

import re
from collections.abc import Iterable, Iterator, Sequence

from .kb import KBEntry, normalize_surface
from .lexicon import MIN_SURFACE_CHARS, pluralize
from .wordnet import Synset, WordNet

__all__ = ["DEFAULT_WORDNET_ROOTS", "is_common_noun", "usable_roots", "wordnet_entries"]

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
_SYNSET_NAME = re.compile(r"^(.+)\.n\.(\d+)$")


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
    excluded = {normalize_surface(e) for e in exclude}
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
        if len(lemma) < MIN_SURFACE_CHARS or normalize_surface(lemma) in excluded:
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
                    aliases += [p for p in pluralize(lem, wordnet.plurals) if normalize_surface(p) not in excluded]
            yield KBEntry(
                id=syn.id,
                label=lemmas[0],
                tab_type=tab_type,
                aliases=aliases,
                chain=wordnet.chain(syn, stop=root_syn.offset),
                source=f"wordnet-{wordnet.version or 'wndb'}",
                description=syn.gloss,
            )
