"""link_surface: exact -> contained -> fuzzy -> live -> none, with a small hand-made KB."""

import random
import string
import time

import pytest
from rapidfuzz.distance import Levenshtein
from wikidata_server import wikidata_server  # noqa: F401  (fixture)

from spacy_textsan.detect.gazetteer.kb import GazetteerKB, KBEntry
from spacy_textsan.detect.gazetteer.linking import (
    FuzzyIndex,
    LinkResult,
    find_contained,
    fuzzy_index,
    link_surface,
    word_boundaries,
)
from spacy_textsan.detect.gazetteer.wikidata_client import WikidataClient


@pytest.fixture
def kb():
    return GazetteerKB(
        [
            KBEntry("Q20", "Norway", "LOC", aliases=["Kingdom of Norway"], chain=["country"]),
            KBEntry("geo:oslo", "Oslo", "LOC", chain=["national capital", "city"]),
            KBEntry("org:odc", "Oslo District Court", "ORG", chain=["district court", "court"]),
            KBEntry("Q2", "Stavanger Cathedral", "MISC", chain=["cathedral", "church building"]),
            KBEntry("wn:drummer", "drummer", "DEM", aliases=["drummers"], chain=["percussionist", "musician"]),
            KBEntry("wn:eu", "EU", "ORG"),
            KBEntry("geo:bergen", "Bergen", "LOC"),
            KBEntry("geo:molde", "Molde", "LOC"),
        ]
    )


def test_exact_label_and_alias(kb):
    assert link_surface("Norway", kb) == LinkResult(kb.get("Q20"), "exact", matched="norway")
    r = link_surface("  KINGDOM   of norway ", kb)
    assert (r.entry.id, r.method, r.error) == ("Q20", "exact", None)
    assert link_surface("drummers", kb).entry.id == "wn:drummer"
    assert link_surface("EU", kb).method == "exact"


def test_contained_prefers_longest_whole_word_surface(kb):
    r = link_surface("the Oslo District Court building", kb)
    assert (r.entry.id, r.method, r.matched) == ("org:odc", "contained", "oslo district court")
    assert link_surface("a drummer from Oslo,", kb).entry.id == "wn:drummer"  # longer than "oslo"
    r = link_surface("Bergen and Molde", kb)  # equal length 6 vs 5: longest; then earliest
    assert r.entry.id == "geo:bergen"
    assert link_surface("between Molde and Oslo", kb).entry.id == "geo:molde"


def test_contained_needs_whole_words_and_three_characters(kb):
    assert link_surface("Osloveien 3", kb).method == "none"  # "oslo" inside a word
    assert link_surface("EU regulation", kb).method == "none"  # "eu" is too short to link by containment
    assert word_boundaries("st. olav's") == ([0, 2, 4, 8, 9], [2, 3, 8, 9, 10])


def test_fuzzy_just_under_and_just_over_15_percent(kb):
    under, over = "Stavangor Cathedrals", "Stavangor Cathadrals"
    assert len(under) == len(over) == 20  # 15% of 20 = 3: distance must be below 3
    assert Levenshtein.distance(under.casefold(), "stavanger cathedral") == 2
    assert Levenshtein.distance(over.casefold(), "stavanger cathedral") == 3
    r = link_surface(under, kb)
    assert (r.entry.id, r.method, r.matched) == ("Q2", "fuzzy", "stavanger cathedral")
    assert link_surface(over, kb) == LinkResult(None, "none")
    assert link_surface(over, kb, max_edit_ratio=0.2).method == "fuzzy"


def test_short_spans_only_link_exactly(kb):
    assert link_surface("Oslp", kb).method == "none"  # 15% of 4 < 1
    assert link_surface("Bergem", kb).method == "none"


def test_live_lookup_none_and_failure(kb, wikidata_server):
    wd = WikidataClient(
        wikidata_server.api_url,
        wikidata_server.sparql_url,
        timeout_s=0.3,
        max_retries=0,
        min_interval_s=0.0,
        cooldown_s=0.0,
    )
    r = link_surface("NTNU", kb, client=wd)
    assert (r.entry.id, r.entry.tab_type, r.method, r.error) == ("Q11977", "ORG", "live", None)
    assert link_surface("NTNU", kb) == LinkResult(None, "none")  # no client: no live step
    assert link_surface("Atlantis xyz", kb, client=wd) == LinkResult(None, "none")
    sent = wikidata_server.count
    assert link_surface("Oslo", kb, client=wd).method == "exact" and wikidata_server.count == sent
    wikidata_server.always = "500"
    r = link_surface("Trondheim", kb, client=wd)
    assert r.entry is None and r.method == "none"
    assert r.error.startswith("wikidata lookup failed: ") and "HTTP 500" in r.error
    offline = WikidataClient(wikidata_server.api_url, wikidata_server.sparql_url, offline=True)
    assert link_surface("Trondheim", kb, client=offline).error.startswith("wikidata lookup failed: ")


def test_empty_surface(kb):
    assert link_surface("  ", kb) == LinkResult(None, "none")


def test_fuzzy_index_is_rebuilt_after_additions(kb):
    assert link_surface("Trondheim Spektrum", kb).method == "none"
    kb.add(KBEntry("geo:ts", "Trondheim Spektrum", "LOC"))
    assert link_surface("Trondheim Spectrum", kb).entry.id == "geo:ts"
    assert fuzzy_index(kb) is fuzzy_index(kb)


def test_fuzzy_tie_goes_to_first_added():
    kb = GazetteerKB([KBEntry("a", "Hamarkollen", "LOC"), KBEntry("b", "Hamarkolled", "LOC")])
    r = link_surface("Hamarkolleb", kb)
    assert (r.entry.id, r.method) == ("a", "fuzzy")
    assert find_contained("hamarkolleb", kb) is None


def test_fuzzy_on_a_large_kb_is_fast():
    rng = random.Random(0)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 10))) for _ in range(30000)]
    kb = GazetteerKB(KBEntry(f"x{i}", f"{w} {words[i - 1]}", "MISC") for i, w in enumerate(words))
    target = kb.entries[12345].label
    typo = target[:3] + "#" + target[4:]
    index = FuzzyIndex(kb)
    assert index.n_surfaces == len(kb)
    start = time.monotonic()
    for _ in range(20):
        r = link_surface(typo, kb)
    assert (time.monotonic() - start) / 20 < 0.05
    assert (r.entry.id, r.method) == ("x12345", "fuzzy")


def test_fuzzy_sub_buckets_give_what_whole_buckets_give():
    """FuzzyIndex.best reads only the (position, character) sub-buckets that
    can hold a surface within 1 or 2 edits; on random surfaces and queries
    (typos at the ends, in the middle, insertions, deletions) the answer is the
    one a scan of the whole length buckets gives."""
    rng = random.Random(18)
    alphabet = "abcde"
    words = sorted({"".join(rng.choice(alphabet) for _ in range(rng.randint(5, 16))) for _ in range(3000)})
    kb = GazetteerKB(KBEntry(f"x{i}", w, rng.choice(["LOC", "ORG"])) for i, w in enumerate(words))
    index = FuzzyIndex(kb)

    def brute(norm: str, max_dist: int, tab_type):
        best = None
        for (t, _), (surfaces, orders, positions) in index._buckets.items():
            if tab_type is not None and t != tab_type:
                continue
            for surface, order, pos in zip(surfaces, orders, positions, strict=False):
                d = Levenshtein.distance(norm, surface)
                if d <= max_dist and (best is None or (d, order) < best[:2]):
                    best = (d, order, surface, pos)
        return None if best is None else (best[2], kb._entry(best[3]).id, best[0])

    def edit(w: str) -> str:
        i = rng.randrange(len(w))
        op = rng.choice("sid")
        c = rng.choice(alphabet + "z")
        return w[:i] + c + w[i + 1 :] if op == "s" else w[:i] + c + w[i:] if op == "i" else w[:i] + w[i + 1 :]

    checked = 0
    for _ in range(600):
        query = rng.choice(words)
        for _ in range(rng.randint(1, 3)):
            query = edit(query)
        for max_dist in (1, 2, 3):
            tab_type = rng.choice([None, "LOC", "ORG"])
            got = index.best(query, max_dist, tab_type)
            want = brute(query, max_dist, tab_type)
            assert (None if got is None else (got[0], got[1].id, got[2])) == want, (query, max_dist, tab_type)
            checked += want is not None
    assert checked > 500  # most queries find a surface: the comparison is not between two Nones
