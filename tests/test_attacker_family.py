"""The evaluation's attacker family (benchmarks/attackers): each finds a record by what it reads and the
defence's own analysis does not, on four hand-written records."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

pytest.importorskip("sklearn")
plain = pytest.importorskip("attackers.bm25_plain")
pairs = pytest.importorskip("attackers.pairs")
chargram = pytest.importorskip("attackers.chargram")

IDS = ["eel", "eels", "golden", "norway"]
TEXTS = [
    "He kept an eel in a tank and sold fish at the market.",
    "He played bass for the Eels, a rock band from the coast.",
    "Golden seals were the prize of the club; he painted seals and gold coins.",
    "Born in Norway, he skied for the national team of Norway.",
]


def ranking(attacker, text):
    return attacker.rank([text])[0]


def test_words_as_written_tell_eels_from_eel():
    # unstemmed: "eels" is the band's record, not the fish seller's
    attacker = plain.PlainBM25Attacker(IDS, TEXTS)
    assert ranking(attacker, "a fan of [PERSON 1] and the Eels")[0] == "eels"
    assert attacker.top1(["[PERSON 1] sold an eel"], ["eel"])[0].success


def test_pairs_find_the_phrase_and_never_pair_across_a_mask():
    attacker = pairs.PairsAttacker(IDS, TEXTS)
    assert pairs.analyze("golden [MISC 1] seals. Norway team") == ["golden", "seals", "norway", "team", "norway team"]
    assert ranking(attacker, "the prize was golden seals")[0] == "golden"


def test_character_ngrams_see_through_inflection():
    # "Norwegian" shares "nor", "norw", "orw"... with "Norway": found though no word matches
    attacker = chargram.CharGramAttacker(IDS, TEXTS)
    assert ranking(attacker, "a Norwegian skier")[0] == "norway"


def test_tantivy_ranks_with_its_own_analyser():
    engine = pytest.importorskip("attackers.tantivy_engine")
    attacker = engine.TantivyAttacker(IDS, TEXTS)
    assert ranking(attacker, "skied for the national team")[0] == "norway"
    # nothing it can read (placeholders only): no record scores
    assert not attacker.scores("[PERSON 1] [LOC 2]").any()
