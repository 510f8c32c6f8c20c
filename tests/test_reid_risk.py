"""The re-identification attack inside the pipeline (issues 24 and 34), on a hand-made background.

Four records of four words each, so every record has the mean length and BM25 (k1 = 1.5, b = 0.75) scores
a word held once as 0.4 * idf, with idf = ln(1 + (N_c - df + 0.5) / (df + 0.5)) over the N_c records that
hold any visible word (here all four), under each of three weightings (Lucene's and Robertson's idf, and a
tf-idf cosine); the risk is the worst attacker's:

    df 1: idf = ln(1 + 3.5 / 1.5) = 1.2040 -> 0.4816
    df 2: idf = ln(2)             = 0.6931 -> 0.2773
    df 3: idf = ln(1 + 1.5 / 3.5) = 0.3567 -> 0.1427

The document "Kim, a painter, collects golden seals." shows (its name masked) painter (df 3), golden (df 2:
kim, sam), seals (df 1: kim) and collects (no record). An attacker names record i with probability
s_i ** 10 / sum s_j ** 10 (margin 0.1) over the records scored at least 0.75 of the best (the others are not
close: never named). Under the stem attacker: kim 0.1427 + 0.2773 + 0.4816 = 0.9016, sam 0.2773, lee = ray =
0.1427, none close to kim: every attacker names kim for certain, k = 1. Masking "seals" leaves kim 0.4200
against sam 0.2773 (0.66 of kim: still not close, P(kim) = 1); masking "golden" then leaves kim, lee and
ray tied at 0.1427 and sam at 0: P(kim) = 1 / 3 exactly and k = 3.
"""

import json
import math
from collections.abc import Set

import numpy as np
import pytest
import spacy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spacy.tokens import Span

from spacy_textsan.decide.reid_risk import ReidRisk
from spacy_textsan.extensions import SPANS_KEY
from spacy_textsan.risk.background import Background
from spacy_textsan.risk.reid_attack import DocWords, attack_probabilities, plan_masks, stands_out
from spacy_textsan.risk.reid_family import TermPostings, family_features, text_hash, words_of
from spacy_textsan.risk.reid_index import VERSION, BackgroundIndex, analyse, analyse_terms, load_background
from spacy_textsan.risk.reid_prior import STRANGER, coverage, holds_evidence, prior
from spacy_textsan.risk.reid_scores import _weights, rank_floor, risk_of

BACKGROUND_BLOCK = {"@misc": "spacy_textsan.background.v1", "path": None}
RECORDS = [
    ("kim", "Kim golden seals painter"),
    ("lee", "Lee silver coins painter"),
    ("ray", "Ray bronze medals painter"),
    ("sam", "Sam golden coins sculptor"),
]
TEXT = "Kim, a painter, collects golden seals."
#: word frequencies in the language (wordfreq's Zipf scale), by hand: names and "seals" rare, the rest common
ZIPF = {"kim": 1.0, "zed": 1.0, "seals": 2.0, "collects": 2.0, "golden": 4.0, "painter": 4.0, "gmm": 1.0}
ZIPF |= {"whomersley": 1.0, "quorvath": 0.5}
ZIPF |= {"beatrice": 3.5, "kerr": 3.5, "maude": 2.5, "ballarat": 2.0}
ZIPF |= {"cassation": 2.0, "liras": 2.5}
ZIPF |= {"zarnowicz": 0.5, "basara": 1.0, "sad": 4.5, "rejonowy": 1.0}
ZIPF |= {"vexillary": 1.0, "obstructing": 2.5, "summarily": 2.0}


def zipf(word: str) -> float:
    return ZIPF.get(word, 6.0)


@pytest.fixture(scope="module")
def index() -> BackgroundIndex:
    return BackgroundIndex.build(RECORDS)


def doc_words(text: str, masked: Set[str] = frozenset(), direct: Set[str] = frozenset()) -> DocWords:
    """One group per word (its own length as cost; a stop word's is never masked, but a pair stands on
    it); the words in ``masked`` already masked, those in ``direct`` part of a direct identifier."""
    words = words_of(text)
    group: list[int] = []
    cost: list[int] = []
    for w in words:
        if w.folded in masked:
            group.append(-1)
        else:
            group.append(len(cost))
            cost.append(w.end - w.start)
    return DocWords(text, words, group, cost, [w.folded in direct for w in words])


def plan(index, text=TEXT, masked=frozenset({"kim"}), direct=frozenset({"kim"}), **settings):
    settings = {"k": 3, "margin": 0.1, "zipf": zipf, "unknown_zipf": None, "rank_floor": None} | settings
    return plan_masks(index, doc_words(text, masked, direct), **settings)


# -- the attacker family's views and postings ----------------------------------------------------------


def test_analyse_folds_stems_and_drops_stop_words():
    assert analyse_terms("The Golden SEALS of Ödön, 1888") == ["golden", "seal", "odon", "1888"]
    assert [(t.term, t.start, t.end) for t in analyse("a painter's seals")] == [
        ("painter", 2, 9),
        ("seal", 12, 17),
    ]


def test_family_features_of_each_attacker():
    features = family_features("The Norwegian footballers. Golden seals of Ödön")
    terms = {name: [f.term for f in fs] for name, fs in features.items()}
    assert terms["stem"] == ["norwegian", "footbal", "golden", "seal", "odon"]
    assert terms["word"] == ["norwegian", "footballers", "golden", "seals", "odon"]
    assert terms["prefix"] == ["norw", "foot", "gold", "seal", "odon"]
    # pairs may hold one stop word ("seals of", "of odon"), never cross a sentence end ("footballers. Golden")
    assert terms["pair"] == ["the norwegian", "norwegian footballers", "golden seals", "seals of", "of odon"]
    assert [f.words for f in features["pair"]] == [(0, 1), (1, 2), (3, 4), (4, 5), (5, 6)]


def test_term_postings_count_and_save(tmp_path):
    postings = TermPostings.from_term_lists([["a", "b", "a"], ["b"], [], ["c", "a"]])
    a = postings.term_id("a")
    assert postings.df(a) == 2 and postings.term_id("z") is None
    records, tf = postings.postings(a)
    assert records.tolist() == [0, 3] and tf.tolist() == [2.0, 1.0]
    assert np.asarray(postings.lengths).tolist() == [3, 1, 0, 2]
    postings.save(tmp_path / "p")
    loaded = TermPostings.load(tmp_path / "p")
    assert isinstance(loaded.records, np.memmap) and loaded.postings(loaded.term_id("b"))[0].tolist() == [0, 1]


def test_text_hash_is_the_same_document_whatever_its_white_space():
    assert text_hash("Kim  golden\nseals ") == text_hash("Kim golden seals")
    assert text_hash("Kim golden seals") != text_hash("Kim golden seal")


def test_index_saves_versioned_with_its_family_and_loads_memory_mapped(index, tmp_path):
    index.save(tmp_path / "bg")
    manifest = json.loads((tmp_path / "bg" / "background.json").read_text())
    assert manifest["format"] == "spacy-textsan-background" and manifest["version"] == VERSION == 2
    assert manifest["n_records"] == 4 and manifest["family"] == ["pair", "prefix", "stem", "word"]
    loaded = BackgroundIndex.load(tmp_path / "bg")
    assert isinstance(loaded.retriever.scores["data"], np.memmap)
    assert loaded.ids == ["kim", "lee", "ray", "sam"] and loaded.hashes == index.hashes
    assert loaded.same_text("Kim golden  seals painter") == ["kim"]
    word = loaded.family["word"]
    assert word.postings(word.term_id("golden"))[0].tolist() == [0, 3]
    assert load_background(tmp_path / "bg") is load_background(tmp_path / "bg")


def test_index_refuses_another_version_a_plain_folder_and_a_missing_family(index, tmp_path):
    index.save(tmp_path / "bg")
    path = tmp_path / "bg" / "background.json"
    manifest = json.loads(path.read_text())
    path.write_text(json.dumps({**manifest, "version": VERSION + 1}))
    with pytest.raises(ValueError, match="version"):
        BackgroundIndex.load(tmp_path / "bg")
    with pytest.raises(ValueError, match="not a background folder"):
        BackgroundIndex.load(tmp_path)
    path.write_text(json.dumps(manifest))
    (tmp_path / "bg" / "family" / "hashes.json").unlink()
    with pytest.raises(ValueError, match="no attacker family"):
        BackgroundIndex.load(tmp_path / "bg")


def test_duplicate_record_ids_are_refused():
    with pytest.raises(ValueError, match="'kim' is given twice"):
        BackgroundIndex.build([("kim", "a b"), ("kim", "c d")])


# -- the attacker and the decision loop (pure functions) -------------------------------------------


def test_attack_probabilities_are_a_power_of_the_close_scores():
    # margin 0.5: s ** 2 over the records within 0.75 of the best; a record scored 0, or under 0.75 of the
    # best, is never named, however many there are; nothing scored: nobody is named
    p = attack_probabilities(np.array([[1.0, 0.9, 0.5, 0.0]]), 0.5)[0]
    assert p == pytest.approx([1 / 1.81, 0.81 / 1.81, 0.0, 0.0])
    crowd = attack_probabilities(np.array([[1.0] + [0.7] * 10_000]), 0.5)[0]
    assert crowd[0] == 1.0 and crowd[1:].sum() == 0.0
    assert attack_probabilities(np.array([[1.0, 0.5, 0.0]]), 0.5, close=0.0)[0] == pytest.approx([0.8, 0.2, 0.0])
    assert attack_probabilities(np.zeros((1, 4)), 0.1)[0].tolist() == [0.0] * 4
    # several rows at once: each row as if alone (a row of a whole background takes a path of its own)
    rows = np.array([[1.0, 0.9, 0.5, 0.0], [0.0, 0.0, 0.0, 0.0], [2.0, 0.0, 1.8, 1.0]])
    together = attack_probabilities(rows, 0.5)
    for row, alone in zip(rows, together, strict=True):
        assert attack_probabilities(row[None, :], 0.5)[0] == pytest.approx(alone)
    assert together[2] == pytest.approx([4 / 7.24, 0.0, 3.24 / 7.24, 0.0])


def test_bm25_plus_ranks_the_long_record_that_holds_more_words_first():
    # the query "golden seals harbour"; a long record (12 words) holds all three once, a short one (3 words)
    # "golden" and "seals", another short one "harbour": mean length 6, every idf ln(1 + 1.5 / 2.5) = ln 1.6
    postings = TermPostings.from_term_lists(
        [["golden", "seals", "harbour", *[f"w{i}" for i in range(9)]], ["golden", "seals", "x"], ["harbour", "y", "z"]]
    )
    terms = [postings.term_id(t) for t in ("golden", "seals", "harbour")]
    weights = _weights(postings, terms, np.zeros(3, dtype=bool))
    idf = math.log(1.6)
    # a posting's part 1 / (1 + 1.5 (0.25 + 0.75 len / 6)): 1 / 3.625 in the long record, 1 / 1.9375 in a short one
    long_part, short_part = 1 / 3.625, 1 / 1.9375
    lucene = weights.scores(np.ones(3), "lucene", 3)
    plus = weights.scores(np.ones(3), "plus", 3)
    assert lucene == pytest.approx([3 * idf * long_part, 2 * idf * short_part, idf * short_part])
    assert plus == pytest.approx([3 * idf * (long_part + 0.4), 2 * idf * (short_part + 0.4), idf * (short_part + 0.4)])
    # BM25 ranks the short record first (0.485 > 0.389), BM25+ the long one that holds every word (0.953 > 0.861)
    assert lucene[1] > lucene[0] and plus[0] > plus[1]


def test_the_weightings_of_the_family():
    # two records holding "golden" (once) and "seals" (twice in the short one): lengths 3 and 5, mean 4
    postings = TermPostings.from_term_lists([["golden", "seals", "seals"], ["golden", "seals", "a", "b", "c"]])
    weights = _weights(postings, [postings.term_id("seals")], np.zeros(2, dtype=bool))
    assert weights.n_compete == 2 and weights.mean_length == 4.0 and weights.df.tolist() == [2]
    # BM25: tf / (tf + 1.5 (0.25 + 0.75 len / 4)); idf ln(1 + 0.5 / 2.5) (lucene), at least 0.1 (robertson)
    bm25 = [2 / (2 + 1.5 * (0.25 + 0.75 * 0.75)), 1 / (1 + 1.5 * 1.1875)]
    assert weights.part(0, "lucene") == pytest.approx(bm25) and weights.part(0, "robertson") == pytest.approx(bm25)
    assert weights.idf("lucene") == pytest.approx([math.log(1.2)]) and weights.idf("robertson").tolist() == [0.1]
    # cosine: (1 + ln tf) / sqrt(len / 4): the short record weighs more
    assert weights.part(0, "cosine") == pytest.approx([(1 + math.log(2)) / math.sqrt(0.75), 1 / math.sqrt(1.25)])
    # the scores: the held-twice posting and the held-once one each with its own part, times the idf
    idf = math.log(1.2)
    assert weights.scores(np.array([1.0]), "lucene", 2) == pytest.approx([idf * bm25[0], idf * bm25[1]])
    assert weights.scores(np.array([2.0]), "robertson", 2) == pytest.approx([0.2 * bm25[0], 0.2 * bm25[1]])
    cosine = [(1 + math.log(2)) / math.sqrt(0.75), 1 / math.sqrt(1.25)]
    assert weights.scores(np.array([1.0]), "cosine", 2) == pytest.approx([idf * cosine[0], idf * cosine[1]])
    # BM25+: BM25's part plus delta = 1 / (1.5 + 1) = 0.4 for each posting (BM25+'s delta 1 without k1 + 1)
    assert weights.part(0, "plus") == pytest.approx([bm25[0] + 0.4, bm25[1] + 0.4])
    assert weights.scores(np.array([1.0]), "plus", 2) == pytest.approx([idf * (bm25[0] + 0.4), idf * (bm25[1] + 0.4)])
    # the short record left out: the long one alone competes (mean length 5, idf ln(1 + 0.5 / 1.5))
    alone = _weights(postings, [postings.term_id("seals")], np.array([True, False]))
    assert alone.n_compete == 1 and alone.df.tolist() == [1] and alone.mean_length == 5.0
    assert alone.scores(np.array([1.0]), "lucene", 2) == pytest.approx([0.0, math.log(1 + 1 / 3) / 2.5])


def test_scores_add_each_terms_weight_in_the_records_that_hold_it():
    # golden in both records (df 2 of 2), painter in the second only (df 1): lucene idf ln(1 + 0.5 / 2.5)
    # and ln(1 + 1.5 / 1.5); a term counted 0 times adds nothing, one counted twice adds twice
    postings = TermPostings.from_term_lists([["golden", "seals"], ["golden", "painter"]])
    terms = [postings.term_id("golden"), postings.term_id("painter")]
    weights = _weights(postings, terms, np.zeros(2, dtype=bool))
    part = 1 / (1 + 1.5)  # tf 1, every length the mean (2)
    golden, painter = math.log(1.2) * part, math.log(2.0) * part
    assert weights.scores(np.array([1.0, 1.0]), "lucene", 2) == pytest.approx([golden, golden + painter])
    assert weights.scores(np.array([0.0, 2.0]), "lucene", 2) == pytest.approx([0.0, 2 * painter])
    assert weights.scores(np.array([0.0, 0.0]), "lucene", 2).tolist() == [0.0, 0.0]
    # a record left out holds nothing: painter's record is the only one that competes
    alone = _weights(postings, terms, np.array([True, False]))
    assert alone.n_compete == 1 and alone.df.tolist() == [1, 1]
    painter_alone = math.log(1 + 1 / 3) * part  # idf ln(1 + 0.5 / 1.5) for both terms now
    assert alone.scores(np.array([1.0, 1.0]), "lucene", 2) == pytest.approx([0.0, 2 * painter_alone])


def test_plan_masks_the_words_that_single_the_person_out(index):
    before = plan(index, max_steps=0)
    assert before.steps == [] and before.view.k == 1 and not before.view.reached and before.view.measured
    after = plan(index)
    assert [s.text for s in after.steps] == ["seals", "golden"]
    assert [s.reason for s in after.steps] == [
        "reid (stem): 'seals' separates 1 of 4 background records",
        "reid (stem): 'golden' separates 2 of 4 background records",
    ]
    view = after.view
    assert view.k == 3 and view.reached and view.n_background == 4
    assert view.risk == pytest.approx(1 / 3, abs=1e-9)
    assert view.by_attacker["stem/lucene"] == pytest.approx(1 / 3) and view.by_attacker["pair/lucene"] == 0.0
    assert [rid for rid, _ in view.top] == ["kim", "lee", "ray"]
    assert view.top[0][1] == pytest.approx(0.4 * math.log(1 + 1.5 / 3.5))
    assert view.narrowing == [("painter", 3)]
    # one step in: kim 0.4200 against sam 0.2773 (0.66 of kim, not close): kim still named for certain, and
    # with the target not reached the step is undone unless the partial masks are to be kept
    kept = plan(index, max_steps=1, unreached="keep")
    assert [s.text for s in kept.steps] == ["seals"] and kept.view.by_attacker["stem/lucene"] == 1.0
    undone = plan(index, max_steps=1)
    assert undone.steps == [] and undone.unreachable == (
        "masking 1 words left the chance at 1.00 > 1/3: what singles the person out is held by most records; "
        "nothing masked for it"
    )


def test_futile_masks_are_undone_and_masks_that_at_least_halve_the_chance_are_kept(index):
    # k = 4 in two steps: "seals" and "golden" take kim from certain (1.0) to one of three (1/3 > 1/4);
    # "futile" keeps them (1/3 <= 0.5 * 1.0), "undo" does not; one step leaves kim certain: undone by both
    for mode, kept in (("futile", ["seals", "golden"]), ("undo", []), ("keep", ["seals", "golden"])):
        result = plan(index, k=4, max_steps=2, unreached=mode)
        assert [s.text for s in result.steps] == kept, mode
        assert result.risk_before == 1.0 and not result.view.reached
        assert result.view.risk == pytest.approx(1 / 3 if kept else 1.0)
    one = plan(index, k=3, max_steps=1, unreached="futile")
    assert one.steps == [] and one.unreachable.startswith("masking 1 words left the chance at 1.00 > 1/3")
    with pytest.raises(ValueError, match="unreached must be one of undo, keep, futile"):
        plan(index, unreached="sometimes")


def test_a_record_that_stands_out_on_common_words_only_is_not_the_person(index):
    # sam's record stands out (sculptor, golden, coins) but holds neither a word of the name nor a
    # distinctive word: it shares the subject, not the person (a log line against court judgments)
    words = doc_words("Zed, a sculptor, has golden coins.", {"zed"}, {"zed"})
    excluded = np.zeros(index.n_records, dtype=bool)
    _, scores = prior(index, words, excluded, 0.1, None, zipf, 3.0)
    best = int(np.argmax(scores))
    assert index.ids[best] == "sam" and stands_out(scores, best)
    assert not holds_evidence(index, words, best, excluded, zipf, 3.0)
    result = plan(index, "Zed, a sculptor, has golden coins.", masked={"zed"}, direct={"zed"})
    assert result.steps == [] and not result.view.measured


def test_common_words_are_masked_once_every_rarer_word_is():
    # only the pair "engineering at" singles ann out ("works" and "home" are in no record); "engineering"
    # is held by 5 of the 5 competing records (common: above max(0.5 * 5, k)), yet it is masked, as the last
    # word that can lower the pair attacker's certainty
    records = [("ann", "Ann taught engineering at Delft"), ("fay", "Fay studied at Leiden")]
    records += [(n.lower(), f"{n} engineering of {w}") for n, w in (("Bob", "ships"), ("Cy", "roads"), ("Di", "rails"))]
    records += [("ed", "Ed engineering of dams")]
    index = BackgroundIndex.build(records)
    before = plan(index, "Ann works in engineering at home.", masked={"ann"}, direct={"ann"}, max_steps=0)
    assert before.view.by_attacker["pair/lucene"] == 1.0 and before.view.by_attacker["stem/lucene"] < 0.1
    result = plan(index, "Ann works in engineering at home.", masked={"ann"}, direct={"ann"})
    assert [s.reason for s in result.steps] == ["reid (pair): 'engineering' separates 5 of 6 background records"]
    assert result.view.reached


CHESS = [(f"p{i}", f"P{i} chess openings") for i in range(10)]
CHESS += [("jo", "Jo FM"), ("ky", "Ky FM radio host"), ("kim", "Kim FM" + " chess" * 7)]
#: the chess cases are worked out for BM25 and the cosine; BM25+ (below) ranks kim, who holds both words, second
THREE = ("lucene", "robertson", "cosine")


def test_a_common_word_is_masked_when_no_rarer_word_helps():
    # "chess" is held by 11 of the 13 competing records (common: above max(0.5 * 13, k = 10)), "FM" by 3.
    # With both visible jo ("Jo FM", short) and ky score above kim, whose FM weighs less in a longer record:
    # kim scores 0.666 of jo, below CLOSE (0.75, so no attacker names kim) and above the rank floor (0.6):
    # kim third, risk 1/3. Masking FM leaves chess alone, which kim (7 times) holds most: kim first, risk
    # 1, so no rarer word helps; masking chess leaves FM alone, where kim falls below the floor: risk 0.
    index = BackgroundIndex.build(CHESS)
    # (the text is 51 characters: "chess", 5, within a tenth of it)
    text = "Kim plays chess at home in the north. Kim is an FM."
    before = plan(index, text, k=10, rank_floor=0.6, max_steps=0, weightings=THREE)
    assert before.view.k == 3 and [rid for rid, _ in before.view.top] == ["jo", "ky", "kim"]
    (_, jo), _, (_, kim) = before.view.top
    assert 0.6 <= kim / jo < 0.75
    result = plan(index, text, k=10, rank_floor=0.6, weightings=THREE)
    assert [s.reason for s in result.steps] == ["reid (stem): 'chess' separates 11 of 13 background records"]
    assert result.view.reached and result.view.k == 13
    # BM25+ gives kim a bonus for each of the two words it holds: kim second, risk 1/2; the plan masks
    # FM (the rarer word, kim's bonus with jo and ky) first, then chess, and every attacker is at k = 13
    plus = plan(index, text, k=10, rank_floor=0.6, max_steps=0)
    assert plus.view.k == 2 and plus.view.attacker.endswith("/plus")
    assert [rid for rid, _ in plus.view.top][:2] == ["jo", "kim"]
    result = plan(index, text, k=10, rank_floor=0.6)
    assert [s.term for s in result.steps] == ["fm", "chess"] and result.view.reached and result.view.k == 13


def test_a_common_word_that_reaches_1_over_k_is_masked_within_a_quarter_of_the_text():
    # the same words in a 23-character text: "chess" (5 characters) takes more than a tenth of it (2.3),
    # but masking it brings every attacker to 1 / k and it takes less than a quarter (5.75): masked
    index = BackgroundIndex.build(CHESS)
    result = plan(index, "Kim plays chess. An FM.", k=10, rank_floor=0.6, weightings=THREE)
    assert [s.reason for s in result.steps] == ["reid (stem): 'chess' separates 11 of 13 background records"]
    assert result.view.reached and result.view.k == 13


def test_a_common_word_is_not_masked_when_it_costs_more_than_a_quarter_of_the_text():
    # in an 18-character text "chess" would take more than a quarter of it (4.5): the person stands out on
    # the text's ordinary words, nothing is masked and k = 3 is reported
    index = BackgroundIndex.build(CHESS)
    result = plan(index, "Kim: chess. An FM.", k=10, rank_floor=0.6, weightings=THREE)
    assert result.steps == [] and result.view.k == 3 and not result.view.reached


def test_plan_stops_at_a_smaller_k_sooner(index):
    assert plan(index, k=1).steps == []


def test_the_prior_comes_from_the_whole_text_when_the_name_is_wrong(index):
    # the name detector read "GMM" as the person (direct): no record holds it, yet the document's words
    # still say it is kim (seals, golden), and the attack still masks what singles kim out
    text = "GMM, a painter, collects golden seals of Kim."
    wrong = plan(index, text, masked={"gmm"}, direct={"gmm"}, max_steps=0)
    assert int(np.argmax(wrong.prior)) == 0 and wrong.prior[0] > 0.99 and wrong.view.measured
    masked = plan(index, text, masked={"gmm"}, direct={"gmm"})
    assert "kim" in [s.term for s in masked.steps] and masked.view.reached


def test_a_person_the_background_does_not_hold_is_not_measured(index):
    # "Zed" is in no record; the best record (sam's: golden coins) shares none of the two distinctive
    # words (zed, collects) and does not stand out (lee's and kim's score more than half of it)
    result = plan(index, "Zed, a painter, collects golden coins.", masked={"zed"}, direct={"zed"})
    view = result.view
    assert result.steps == [] and view.k is None and not view.measured and not view.reached
    assert view.why == (
        "the background record most like this document shares 0 of its 2 distinctive words: "
        "the background does not hold this person"
    )


def test_words_of_the_domain_tie_no_record_to_the_person():
    # "cassation" and "liras" are rare in English (distinctive) but 20 of the 100 judgments hold them: the
    # best record sharing both says the document is a Turkish judgment, not whose. Held by 3 records (at
    # most PERSONAL_DF), they are the person's own: measured
    def background(n_domain: int) -> BackgroundIndex:
        records = [(f"t{i}", f"Court of Cassation awarded liras in case {i}") for i in range(n_domain)]
        records += [(f"o{i}", f"Other{i} ruled on rents and fees") for i in range(100 - n_domain)]
        return BackgroundIndex.build(records)

    text = "Zed appealed to the Court of Cassation over unpaid liras."
    domain = plan(background(20), text, masked={"zed"}, direct={"zed"}, k=10)
    assert not domain.view.measured and domain.steps == []
    assert domain.view.why == (
        "the background record most like this document shares 0 of its 1 distinctive words: "
        "the background does not hold this person"
    )
    own = plan(background(3), text, masked={"zed"}, direct={"zed"}, k=10, max_steps=0)
    assert own.view.measured and own.view.k == 3


def test_a_record_that_stands_out_is_measured_without_names(index):
    # no record holds "Zed" and kim's holds one distinctive word of three (seals), yet kim's record scores
    # over twice any other's: every attacker names kim, so the attack masks what singles kim out
    text = "Zed, a painter, collects golden seals."
    result = plan(index, text, masked={"zed"}, direct={"zed"})
    assert result.view.measured and result.view.reached and [s.text for s in result.steps] == ["seals", "golden"]
    scores = np.array([4.0, 2.0, 1.0])
    assert stands_out(scores, 0) and not stands_out(np.array([4.0, 2.1, 1.0]), 0)
    assert not stands_out(np.zeros(3), 0) and stands_out(np.array([0.5]), 0)


def test_unknown_rare_words_are_masked(index):
    # "collects" is in no record and rare in the language (zipf 2.0 < 3.5): masked first
    result = plan(index, unknown_zipf=3.5)
    assert [s.text for s in result.steps] == ["collects", "seals", "golden"]
    assert result.steps[0].reason == "reid: 'collects' is in no background record and rare in en (zipf 2.0)"
    # common in the language, or the rule off: kept
    assert [s.text for s in plan(index, unknown_zipf=1.5).steps] == ["seals", "golden"]


def test_an_english_word_in_an_ordinary_form_is_no_unknown_word(index):
    # "summarily" is in no record and as rare as "collects" (zipf 2.0), but an adverb is the register of a
    # ruling, not a person's: it stays visible, and the plan is the one without it
    result = plan(index, "Kim, a painter, summarily collects golden seals.", unknown_zipf=3.5)
    assert [s.text for s in result.steps] == ["collects", "seals", "golden"]


def test_excluded_records_are_named_in_the_plan(index):
    result = plan(index, exclude=["kim"])
    assert result.excluded == ["kim"] and result.view.n_background == 3


def test_known_target_is_the_stricter_check(index):
    # The data owner says the person is sam. Visible: sculptor (sam), golden (kim, sam), coins (lee, sam),
    # and the pair "golden coins" (sam alone: the pair attacker names sam for certain). Masking golden breaks
    # the pair; sculptor and coins still single sam out to the word attackers; once all three are masked
    # no record holds a visible word, and nobody can be named.
    result = plan(index, "A sculptor who collects golden coins.", masked=set(), direct=set(), target="sam")
    assert [s.text for s in result.steps] == ["golden", "sculptor", "coins"]
    assert result.view.target == "sam" and result.view.reached and result.view.risk == 0.0
    assert result.view.k == 4 and result.view.top == []


def test_budget_stops_the_loop(index):
    result = plan(index, budget=5, unreached="keep")
    assert [s.text for s in result.steps] == ["seals"] and not result.view.reached
    assert plan(index, budget=5).steps == []  # not reached: undone


def test_groups_mask_together(index):
    # "golden seals" is one group (a kept candidate): masking seals hides golden too
    words = words_of(TEXT)
    group = [-1, -1, 0, 1, 2, 2]  # kim (masked), a (stop), painter, collects, golden seals
    doc = DocWords(TEXT, words, group, [7, 8, 12], [w.folded == "kim" for w in words])
    result = plan_masks(index, doc, k=3, margin=0.1, zipf=zipf, unknown_zipf=None, rank_floor=None)
    assert len(result.steps) == 1 and result.steps[0].groups == [2] and result.view.k == 3


def test_bad_settings(index):
    with pytest.raises(ValueError, match="k must be"):
        plan(index, k=0)
    with pytest.raises(ValueError, match="margin"):
        plan(index, margin=0.0)
    with pytest.raises(ValueError, match="attackers must be some of"):
        plan(index, analysers=["stem", "trigram"])


UNRELATED = st.lists(
    st.lists(st.sampled_from(["quartz", "tundra", "violin", "harbour", "ember", "lantern", "orchid"]), max_size=6),
    min_size=1,
    max_size=30,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(extra=UNRELATED)
def test_records_that_share_no_visible_word_change_nothing(extra):
    """The monotonicity property: records that share no word with the document (any number, any length)
    leave every attacker's risk and every decision exactly as they were."""
    base = BackgroundIndex.build(RECORDS)
    padded = BackgroundIndex.build(RECORDS + [(f"x{i}", " ".join(words)) for i, words in enumerate(extra)])
    for steps in (0, 1, 200):
        a, b = plan(base, max_steps=steps), plan(padded, max_steps=steps)
        assert [s.text for s in a.steps] == [s.text for s in b.steps]
        assert a.view.by_attacker == pytest.approx(b.view.by_attacker, abs=1e-12)
        assert a.view.risk == pytest.approx(b.view.risk, abs=1e-12)


def test_records_that_compete_can_only_raise_k(index):
    # a fifth record that holds "golden seals" too competes with kim: the same words now leave k = 2
    # before any mask, where kim alone was named for certain
    padded = BackgroundIndex.build(RECORDS + [("pat", "Pat golden seals painter")])
    assert plan(index, max_steps=0).view.k == 1
    assert plan(padded, max_steps=0).view.k == 2


# -- the component ---------------------------------------------------------------------------------


@pytest.fixture()
def nlp():
    return spacy.blank("en")


def candidate_doc(nlp, text: str, spans: list[tuple[int, int, str, bool]]):
    doc = nlp(text)
    group = []
    for start, end, label, masked in spans:
        span = doc.char_span(start, end, label=label)
        span._.masked = masked
        group.append(span)
    doc.spans[SPANS_KEY] = group
    return doc


def test_component_masks_words_with_reasons(nlp, index):
    doc = candidate_doc(nlp, TEXT, [(0, 3, "PERSON", True)])
    doc = ReidRisk(k=3, margin=0.1, rank_floor=None, index=index)(doc)
    spans = {(s.text, s.label_): s for s in doc.spans[SPANS_KEY]}
    assert sorted(spans) == [("Kim", "PERSON"), ("golden seals", "MISC")]
    masked = spans[("golden seals", "MISC")]
    assert masked._.masked is True and masked._.source == "reid:reid_risk"
    assert masked._.reasons == [
        "reid (stem): 'golden' separates 2 of 4 background records",
        "reid (stem): 'seals' separates 1 of 4 background records",
    ]
    report = doc._.reid_risk
    assert report["k"] == 3 and report["reached"] is True and report["masked"] == ["seals", "golden"]
    assert report["measured"] is True and report["excluded"] == []
    assert report["top"][0][0] in {"kim", "lee", "ray"}


def test_component_masks_a_kept_candidate_whole(nlp, index):
    # "golden seals" is a kept candidate (say an ORG): it is masked whole, with its mentions
    doc = candidate_doc(nlp, TEXT, [(0, 3, "PERSON", True), (25, 37, "ORG", False)])
    doc = ReidRisk(k=3, margin=0.1, rank_floor=None, index=index)(doc)
    org = [s for s in doc.spans[SPANS_KEY] if s.label_ == "ORG"][0]
    assert org._.masked is True
    assert org._.reasons == ["reid (stem): 'seals' separates 1 of 4 background records"]
    assert [s.label_ for s in doc.spans[SPANS_KEY]] == ["PERSON", "ORG"]


def test_component_reads_a_known_target(nlp, index):
    doc = candidate_doc(nlp, "A sculptor who collects golden coins.", [])
    doc._.reid_target = "sam"
    doc = ReidRisk(k=3, margin=0.1, rank_floor=None, index=index)(doc)
    assert doc._.reid_risk["target"] == "sam" and doc._.reid_risk["reached"]


def test_only_the_same_text_or_a_named_record_is_left_out_and_the_report_says_so(nlp, index):
    # kim's own record, word for word: left out as the document itself, and said so
    doc = candidate_doc(nlp, "Kim golden  seals painter", [(0, 3, "PERSON", True)])
    report = ReidRisk(k=3, margin=0.1, rank_floor=None, index=index)(doc)._.reid_risk
    assert report["excluded"] == [{"id": "kim", "why": "the same text as this document"}]
    # nearly the same text is no exclusion: the record stays, and the attack masks what singles it out
    doc = candidate_doc(nlp, "Kim golden seals painter harbour", [(0, 3, "PERSON", True)])
    report = ReidRisk(k=3, margin=0.1, rank_floor=None, index=index)(doc)._.reid_risk
    assert report["excluded"] == [] and report["masked"] == ["seals", "golden"]
    # the user names the records that are the document itself: on the doc, or in the config
    doc = candidate_doc(nlp, TEXT, [(0, 3, "PERSON", True)])
    doc._.reid_exclude = ["lee"]
    report = ReidRisk(k=3, margin=0.1, rank_floor=None, index=index, exclude_ids=["ray"])(doc)._.reid_risk
    assert report["excluded"] == [{"id": "lee", "why": "excluded by id"}, {"id": "ray", "why": "excluded by id"}]
    assert report["n_background"] == 2
    # and nothing is left out by the same text when the setting is off
    doc = candidate_doc(nlp, "Kim golden seals painter", [(0, 3, "PERSON", True)])
    assert (
        ReidRisk(k=3, margin=0.1, rank_floor=None, index=index, exclude_same_text=False)(doc)._.reid_risk["excluded"]
        == []
    )


def test_component_reports_a_person_the_background_does_not_hold(nlp, index):
    doc = candidate_doc(nlp, "Zed Quorvath, a painter, collects golden coins.", [(0, 12, "PERSON", True)])
    report = ReidRisk(k=3, margin=0.1, rank_floor=None, index=index)(doc)._.reid_risk
    assert report["measured"] is False and report["k"] is None and report["masked"] == []
    # no record holds "Zed" or "Quorvath", a full name, and sam's record (the most like the text) holds no
    # name of the document's: a stranger
    assert report["why"] == STRANGER


def test_component_fails_closed_without_a_background(nlp, tmp_path):
    doc = candidate_doc(nlp, TEXT, [(0, 3, "PERSON", True), (25, 31, "MISC", False)])
    component = ReidRisk(background=Background(tmp_path))
    doc = component(doc)
    assert all(s._.masked is True for s in doc.spans[SPANS_KEY])
    assert doc._.reid_risk["k"] is None and "not a background folder" in doc._.reid_risk["error"]
    assert doc._.sanitize_errors and doc._.sanitize_errors[0].startswith("reid_risk: LookupError")


def test_component_settings_are_checked():
    with pytest.raises(ValueError, match="k must be"):
        ReidRisk(k=0, index=BackgroundIndex.build(RECORDS))
    with pytest.raises(ValueError, match="margin"):
        ReidRisk(margin=1.5, index=BackgroundIndex.build(RECORDS))
    with pytest.raises(ValueError, match="max_share"):
        ReidRisk(max_share=0, index=BackgroundIndex.build(RECORDS))


def test_in_a_pipeline_with_residual_risk(index, tmp_path):
    """reid_risk through spaCy's config and residual_risk's report of the attacker's view."""
    index.save(tmp_path / "bg")
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "reid_risk",
        config={"background": {**BACKGROUND_BLOCK, "path": str(tmp_path / "bg")}, "k": 3, "rank_floor": None},
    )
    nlp.add_pipe("residual_risk", config={"background": BACKGROUND_BLOCK})
    nlp.add_pipe("generalizer")
    doc = nlp.make_doc(TEXT)
    span = Span(doc, 0, 1, label="PERSON")
    span._.masked = True
    doc.spans[SPANS_KEY] = [span]
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    assert doc._.sanitized_text == "[PERSON 1], a painter, collects [MISC 1]."
    residual = doc._.residual_risk
    assert residual["k"] == 3 and residual["attack"]["reached"] is True
    assert residual["attack"]["narrowing"] == [["painter", 3]]
    assert "kanon_k" in residual


def test_residual_risk_reuses_the_view_of_a_document_not_measured(index, tmp_path, monkeypatch):
    """A document the background does not cover is planned once: residual_risk reads reid_risk's report
    while nothing was masked since (it planned it a second time); a mask since, or an error, plans again."""
    index.save(tmp_path / "bg")
    nlp = spacy.blank("en")
    reid = nlp.add_pipe(
        "reid_risk",
        config={"background": {**BACKGROUND_BLOCK, "path": str(tmp_path / "bg")}, "k": 3, "rank_floor": None},
    )
    nlp.add_pipe("residual_risk", config={"background": BACKGROUND_BLOCK})
    planned = []
    assess = reid.assess
    monkeypatch.setattr(reid, "assess", lambda *a, **kw: planned.append(kw["max_steps"]) or assess(*a, **kw))
    doc = nlp.make_doc("Zed, a painter, collects golden coins.")  # no record holds zed: not measured
    span = Span(doc, 0, 1, label="PERSON")
    span._.masked = True
    doc.spans[SPANS_KEY] = [span]
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    assert doc._.reid_risk["measured"] is False and doc._.reid_risk["k"] is None
    assert planned == [reid.max_steps]  # once, by reid_risk
    assert doc._.residual_risk["measured"] is False and doc._.residual_risk["attack"] == doc._.reid_risk
    # a word masked since: the view is found again (nothing planned to mask)
    doc.spans[SPANS_KEY] = [span, Span(doc, 4, 5, label="MISC")]
    doc.spans[SPANS_KEY][1]._.masked = True
    reid.view(doc)
    assert planned == [reid.max_steps, 0]
    # an error reported: found again too
    doc.spans[SPANS_KEY] = [span]
    doc._.reid_risk = {**doc._.reid_risk, "error": "LookupError: gone"}
    reid.view(doc)
    assert planned == [reid.max_steps, 0, 0]


def test_rendered_view_reads_what_will_be_published(nlp, index):
    # who the person is comes from the original (Kim); the attack reads the published text: with "golden
    # seals" shown, the pair and word attackers name kim for certain; with both words masked, P = 1/3
    doc = candidate_doc(nlp, TEXT, [(0, 3, "PERSON", True)])
    component = ReidRisk(k=3, margin=0.1, rank_floor=None, index=index)
    shown = component.rendered_view(doc, "[PERSON 1], a painter, collects golden seals.")
    hidden = component.rendered_view(doc, "[PERSON 1], a painter, collects [MISC 1].")
    assert shown["risk"] == 1.0 and shown["k"] == 1 and not shown["reached"]
    assert hidden["risk"] == pytest.approx(1 / 3) and hidden["k"] == 3 and hidden["reached"]


def test_unknown_words_that_look_like_names_are_masked_sooner(index):
    # "eels" is in no record, zipf 3.0: rarer than 3.5 but not than 2.5; masked where it is written with a
    # capital inside a sentence (a band, a club), kept as an ordinary lower-case word
    ZIPF["eels"] = 3.0
    try:
        named = plan(index, "Kim, a painter, collects golden seals and the Eels.", unknown_zipf=3.5, max_steps=0)
        plain = plan(index, "Kim, a painter, collects golden seals and eels.", unknown_zipf=3.5, max_steps=0)
    finally:
        del ZIPF["eels"]
    assert [s.text for s in named.steps] == ["collects", "Eels"]
    assert [s.text for s in plain.steps] == ["collects"]


def test_a_name_that_many_records_hold_says_nobody_is_the_person():
    # "Whomersley" (a government agent) is in four records: it is no one's own name; the document's own
    # name (Quorvath) is in no record, so the distinctive words decide, and the record most like the
    # document (one of his) holds one of the two (whomersley, quorvath): not measured
    records = [(f"r{i}", f"Whomersley pleaded for the Government in case {w}") for i, w in enumerate("abcd")]
    background = BackgroundIndex.build([*records, ("kim", "Kim golden seals painter")])
    text = "Mr Quorvath, represented by Mr Whomersley, pleaded his case."
    result = plan(background, text, masked={"quorvath", "whomersley"}, direct={"quorvath", "whomersley"})
    assert not result.view.measured and result.steps == []
    assert result.view.why == (
        "the background record most like this document shares 1 of its 2 distinctive words: "
        "the background does not hold this person"
    )
    # held by three records, the name is taken as the person's when it is the document's only name
    background = BackgroundIndex.build([*records[:3], ("kim", "Kim golden seals painter")])
    agent = "Mr Whomersley pleaded his case."
    assert plan(background, agent, masked={"whomersley"}, direct={"whomersley"}).view.measured


def test_a_name_other_records_share_is_not_the_person_when_the_document_names_someone_no_record_holds():
    # the applicant (Quorvath) is in no record; his lawyer (Whomersley) pleads in three judgments of the
    # background. The best record holds the lawyer's name only, which r1 and r2 hold too, and the document
    # names Quorvath as often as Whomersley: another applicant's judgment, not measured. Named twice
    # where the lawyer is named once, the same; named once where the lawyer is named twice, the lawyer's
    # name is the one the document is about and the risk is measured
    records = [(f"r{i}", f"Whomersley pleaded for the Government in case {w}") for i, w in enumerate("abc")]
    background = BackgroundIndex.build([*records, ("kim", "Kim golden seals painter")])
    direct = {"quorvath", "whomersley"}
    result = plan(
        background, "Mr Quorvath, represented by Mr Whomersley, pleaded his case.", masked=direct, direct=direct
    )
    assert not result.view.measured and result.steps == [] and result.view.k is None
    assert result.view.why == (
        "the background record most like this document holds only names that other records hold too "
        "(whomersley), and no record holds quorvath, which the document names as often: "
        "the background does not hold this person"
    )
    twice = "Mr Quorvath, represented by Mr Whomersley, pleaded. Mr Quorvath lost."
    assert not plan(background, twice, masked=direct, direct=direct).view.measured
    lawyer = "Mr Quorvath, represented by Mr Whomersley, pleaded. Mr Whomersley lost."
    assert plan(background, lawyer, masked=direct, direct=direct).view.measured
    # a name of the best record's own (one record holds it) ties it to the person, whoever else is named
    own = BackgroundIndex.build([*records, ("q", "Whomersley Kim pleaded")])
    text = "Mr Quorvath, represented by Mr Whomersley, met Kim."
    names = {"quorvath", "whomersley", "kim"}
    assert plan(own, text, masked=names, direct=names).view.measured


def test_one_name_of_the_records_own_against_a_full_name_no_record_holds():
    # the applicant's full name (Quorvath Zarnowicz) is in no record; his lawyer's (Basara) in one, the record
    # judged (b). The document names them as often: the lawyer's other case, not the applicant's: not
    # measured. Named twice where the applicant is named once, the lawyer is the one the document is about
    background = BackgroundIndex.build([("b", "Basara pleaded in case a"), ("kim", "Kim golden seals painter")])
    direct = {"quorvath", "zarnowicz", "basara"}
    none = np.zeros(2, dtype=bool)

    def judged(text):
        return coverage(background, doc_words(text, direct, direct), 0, none, zipf, 3.0)

    assert judged("Mr Quorvath Zarnowicz, represented by Ms Basara, pleaded his case.") == (
        False,
        "the background record most like this document holds one of its names (basara), and no record holds "
        "quorvath, zarnowicz, which the document names as often: the background does not hold this person",
    )
    assert judged("Mr Quorvath Zarnowicz, represented by Ms Basara, pleaded. Ms Basara lost.") == (True, "")
    assert judged("Mr Quorvath, represented by Ms Basara, pleaded.") == (True, "")  # one unknown name only


def test_names_other_records_share_do_not_measure_a_document_whose_own_names_no_record_holds():
    # "Sąd Rejonowy" (a court, read as a name) and the Government Agent (Whomersley) are in five records each;
    # the applicant (Quorvath Zarnowicz) in none. The record judged holds the three shared names, not one of
    # his: it holds two names of the document together, but the document names a stranger (STRANGER)
    records = [(f"r{i}", f"Sad Rejonowy Whomersley Government case {w}") for i, w in enumerate("abcde")]
    background = BackgroundIndex.build([*records, ("kim", "Kim golden seals painter")])
    direct = {"quorvath", "zarnowicz", "sad", "rejonowy", "whomersley"}
    text = "Mr Quorvath Zarnowicz sued in the Sad Rejonowy; Mr Whomersley pleaded for the Government."
    assert coverage(background, doc_words(text, direct, direct), 0, np.zeros(6, dtype=bool), zipf, 3.0) == (
        False,
        STRANGER,
    )


def test_a_judgment_on_the_same_subject_is_not_the_record_of_a_person_no_record_names():
    # r0 and r1 are judgments on the same offence (they share the rare words obstructing and vexillary with
    # the document; neither stands out), but the document's applicant, Quorvath Zarnowicz, is named by no
    # record, and r0 holds no name of his: not measured, nothing masked. With one name only (a wrong label,
    # a given name) the rare words decide: measured. When r0 holds his surname it is his record: measured,
    # and the attack masks. A record the whole text points at alone is measured whatever names it holds
    # (a person's record that calls them otherwise: holds_evidence)
    similar = "Mr Whomersley was held in detention for vexillary fraud and obstructing justice."
    others = [(f"o{i}", f"Lee silver coins painter {w}") for i, w in enumerate("abcd")]
    same = [("r0", similar), ("r1", similar.replace("justice", "the police")), *others]
    direct = {"quorvath", "zarnowicz"}
    text = "Mr Quorvath Zarnowicz was held in detention for vexillary fraud and obstructing justice."
    result = plan(BackgroundIndex.build(same), text, masked=direct, direct=direct)
    assert not result.view.measured and result.steps == [] and result.view.why == STRANGER
    one = "Mr Quorvath was held in detention for vexillary fraud and obstructing justice."
    assert plan(BackgroundIndex.build(same), one, masked={"quorvath"}, direct={"quorvath"}).view.measured
    own = [("r0", similar.replace("Whomersley", "Zarnowicz")), *same[1:]]
    result = plan(BackgroundIndex.build(own), text, masked=direct, direct=direct)
    assert result.view.measured and {s.text for s in result.steps} >= {"vexillary"}
    alone = plan(BackgroundIndex.build([("r0", similar), *others]), text, masked=direct, direct=direct)
    assert alone.view.measured


def test_two_names_together_say_who_the_person_is_when_each_is_shared():
    # a large background shares every surname: "Kerr" and "Beatrice" are each in four records (no name of her
    # own), "Maude" in none, and the best record holds neither of the two distinctive words (maude,
    # ballarat) nor stands out. It holds both her names: her full name, measured. The record holding
    # one of them only says nothing: not measured
    others = [(f"k{i}", f"Kerr swimmer diver toured town {w}") for i, w in enumerate("abcd")]
    others += [(f"b{i}", f"Beatrice swimmer diver toured village {w}") for i, w in enumerate("abcd")]
    text = "Beatrice Maude Kerr, a swimmer and diver, toured Ballarat."
    direct = {"beatrice", "maude", "kerr"}
    background = BackgroundIndex.build([*others, ("bk", "Beatrice Kerr swimmer diver toured")])
    result = plan(background, text, masked=direct, direct=direct)
    assert result.view.measured and result.view.why == ""
    background = BackgroundIndex.build(others)
    result = plan(background, text, masked=direct, direct=direct)
    assert not result.view.measured
    assert result.view.why == (
        "the background record most like this document shares 0 of its 2 distinctive words: "
        "the background does not hold this person"
    )


def test_a_document_in_another_language_than_the_background_is_not_measured(index):
    # the background's records were read as English; a French document's words are not theirs: nothing is
    # masked for the attack (not even its unknown words) and the risk is not measured
    text = "Kim, peintre, collectionne les phoques dorés de Zed."
    result = plan(index, text, lang="fr", background_lang="en", unknown_zipf=3.5)
    assert result.steps == [] and not result.view.measured and result.view.k is None
    assert (
        result.view.why
        == "the background holds English text and this document is French: its words are not the records'"
    )
    # the same document with the background's language is measured
    assert plan(index, text, lang="en", background_lang="en").view.measured


def test_rank_floor_counts_the_person_ranked_close_behind_the_best():
    # record 1 is the person; 3.0 is at least 0.6 of the best (4.0): an attacker that weighs a word
    # otherwise ranks it first, and it is second here: at least 1/2. At 2.0 it is not close: no floor
    scores = np.array([[4.0, 3.0, 1.0], [4.0, 2.0, 1.0]])
    assert rank_floor(scores, np.array([0.0, 1.0, 0.0]), 0.6).tolist() == [0.5, 0.0]
    # the person is one of two records: the worst single attacker names the first one (1/2 x 1)
    assert rank_floor(scores, np.array([0.5, 0.5, 0.0]), 0.6).tolist() == [0.5, 0.5]
    # one row at a time (a whole background) gives the same
    assert [rank_floor(scores[i : i + 1], np.array([0.0, 1.0, 0.0]), 0.6)[0] for i in range(2)] == [0.5, 0.0]
    assert rank_floor(np.array([[3.0, 3.0, 4.0, 3.5]]), np.array([0.0, 1.0, 0.0, 0.0]), 0.6).tolist() == [1 / 3]
    # risk_of is the larger of the attack's chance and the floor
    assert risk_of(scores, np.array([0.0, 1.0, 0.0]), 0.1, floor=0.6)[0] == 0.5


def test_the_rank_floor_masks_until_the_person_is_not_second_to_a_close_record():
    # "zed" scores above "kim" on golden seals painter, kim at 0.76 of it: the attack's chance alone says
    # 0.064 (k = 4 of 4: nothing to mask); with the floor kim is second to a close record (1/2 > 1/3) and
    # golden and seals are masked until kim is third (1/3)
    records = [
        ("kim", "Kim golden seals painter Oslo museum"),
        ("zed", "Zed golden seals golden seals painter"),
        ("lee", "Lee silver coins painter"),
        ("ray", "Ray bronze medals painter"),
    ]
    background = BackgroundIndex.build(records)
    alone = plan(background, TEXT, target="kim")
    assert alone.steps == [] and alone.view.k == 4 and alone.view.target_rank == 2
    floored = plan(background, TEXT, target="kim", rank_floor=0.6)
    assert [s.term for s in floored.steps] == ["golden", "seals"]
    assert floored.view.k == 3 and floored.view.target_rank == 3 and floored.view.reached


def test_a_word_half_masked_already_is_masked_in_what_is_left(nlp):
    # "Timor" is masked already (a candidate); the attack needs "Leste": the written word around it is
    # "Timor-Leste", so the new span is what no candidate covers ("Leste"), not an error
    background = BackgroundIndex.build(
        [("ana", "Ana Leste forward painter"), ("bo", "Bo painter"), ("cy", "Cy painter"), ("di", "Di painter")]
    )
    text = "Ana, a painter, played for Timor-Leste."
    doc = candidate_doc(nlp, text, [(0, 3, "PERSON", True), (27, 32, "LOC", True)])
    doc = ReidRisk(k=3, margin=0.1, rank_floor=None, index=background)(doc)
    assert doc._.sanitize_errors is None or doc._.sanitize_errors == []
    added = [(s.text, s._.masked) for s in doc.spans[SPANS_KEY] if s._.source == "reid:reid_risk"]
    assert added == [("Leste", True)]
