"""The guard of a document the background does not measure (issue 34): masked until no record the attack
names from its visible words is named with a chance above 1/k. Hand-made backgrounds, exact plans."""

from dataclasses import replace

import numpy as np
import pytest
import spacy
from test_reid_risk import RECORDS, doc_words, plan  # the attack's own tests: four records, hand-made word frequencies

from spacy_textsan.decide.reid_risk import ReidRisk
from spacy_textsan.extensions import SPANS_KEY
from spacy_textsan.risk import reid_problem
from spacy_textsan.risk.background import Background
from spacy_textsan.risk.reid_index import BackgroundIndex
from spacy_textsan.risk.reid_problem import _Choice, _Problem

# the four records of tests/test_reid_risk.py: no record holds "Zed", sam's (the most like the text) none
# of its distinctive words: not measured
UNHELD = "Zed, a painter, collects golden coins."


@pytest.fixture(scope="module")
def index() -> BackgroundIndex:
    return BackgroundIndex.build(RECORDS)


def chances(index, text, masked):
    """Per record, the worst attacker's chance of naming it (that record as the known target)."""
    return {rid: plan(index, text, masked, {"zed"}, target=rid, max_steps=0).view.risk for rid, _ in RECORDS}


def test_a_document_not_measured_is_left_as_it_is_without_the_guard(index):
    result = plan(index, UNHELD, {"zed"}, {"zed"})
    assert result.steps == [] and not result.guarded and not result.view.measured
    # yet the pair attacker names sam for certain ("golden coins": sam's record alone holds the pair)
    assert chances(index, UNHELD, {"zed"})["sam"] == pytest.approx(1.0)


def test_the_guard_masks_until_no_record_is_singled_out(index):
    # first round: the prior is each record's worst chance (sam 1 by the pair attacker, kim and lee
    # 0.0552 by BM25), and "golden" goes; that singles out lee (coins, painter), who joins the prior, and
    # "coins" goes. Left: painter (kim, lee, ray) and collects (no record): a third each, sam 0
    result = plan(index, UNHELD, {"zed"}, {"zed"}, guard=True)
    assert [s.text for s in result.steps] == ["golden", "coins"]
    # still reported as not measured: k is the person's, and who the person is cannot be told
    assert result.guarded and not result.view.measured and result.view.k is None and not result.view.reached
    assert result.view.why == (
        "the background record most like this document shares 0 of its 2 distinctive words: the background "
        "does not hold this person; guarded: 2 words masked so that no record the attack names from the "
        "visible words is named with a chance above 1/3"
    )
    after = chances(index, UNHELD, {"zed", "golden", "coins"})
    assert after == pytest.approx({"kim": 1 / 3, "lee": 1 / 3, "ray": 1 / 3, "sam": 0.0})
    # a measured document is not touched by the guard: the same plan with it on or off
    measured = [s.text for s in plan(index, "Kim, a painter, collects golden seals.", {"kim"}, {"kim"}).steps]
    guarded = plan(index, "Kim, a painter, collects golden seals.", {"kim"}, {"kim"}, guard=True)
    assert [s.text for s in guarded.steps] == measured == ["seals", "golden"] and not guarded.guarded


def component_doc(text: str, person_end: int):
    doc = spacy.blank("en")(text)
    span = doc.char_span(0, person_end, label="PERSON")
    assert span is not None
    span._.masked = True
    doc.spans[SPANS_KEY] = [span]
    return doc


def test_the_component_guards_with_the_users_own_background(index, tmp_path):
    index.save(tmp_path / "bg")
    text = "Zed Quorvath, a painter, collects golden coins."
    own = ReidRisk(k=3, margin=0.1, rank_floor=None, background=Background(tmp_path / "bg"))
    doc = own(component_doc(text, 12))
    report = doc._.reid_risk
    assert report["guarded"] is True and report["measured"] is False and report["k"] is None
    assert report["masked"] == ["golden", "coins"]
    assert sorted(s.text for s in doc.spans[SPANS_KEY] if s._.masked) == ["Zed Quorvath", "golden coins"]
    # "report" leaves the document as the attack found it, and says why it is not measured
    plain = ReidRisk(k=3, margin=0.1, rank_floor=None, background=Background(tmp_path / "bg"), unmeasured="report")
    report = plain(component_doc(text, 12))._.reid_risk
    assert report["masked"] == [] and "guarded" not in report and report["measured"] is False
    with pytest.raises(ValueError, match="unmeasured must be one of report, guard, own_background, not 'x'"):
        ReidRisk(index=index, unmeasured="x")


def test_the_shipped_background_is_not_guarded_by_default(index):
    # a background given as an index (as a shipped one) is not the user's: own_background does not guard
    text = "Zed Quorvath, a painter, collects golden coins."
    report = ReidRisk(k=3, margin=0.1, rank_floor=None, index=index)(component_doc(text, 12))._.reid_risk
    assert report["masked"] == [] and "guarded" not in report
    forced = ReidRisk(k=3, margin=0.1, rank_floor=None, index=index, unmeasured="guard")
    assert forced(component_doc(text, 12))._.reid_risk["masked"] == ["golden", "coins"]


def test_a_guard_that_cannot_reach_one_in_k_says_so(index):
    # a budget of 6 characters affords "golden" alone, which singles out lee (coins, painter) for certain.
    # Kept (the default for a guarded document: guard_unreached = "keep", whatever unreached says), the plan
    # says the chance after the mask (lee: 1); undone, the chance with nothing masked (sam: 1, by the pair
    # attacker)
    undone = plan(index, UNHELD, {"zed"}, {"zed"}, guard=True, budget=6, guard_unreached="undo", unreached="keep")
    assert undone.steps == [] and undone.unreachable.startswith("masking 1 words left the chance at 1.00 > 1/3")
    assert undone.view.why.endswith("; guarded: 0 words masked, a record is still named with a chance of 1.00 > 1/3")
    kept = plan(index, UNHELD, {"zed"}, {"zed"}, guard=True, budget=6)
    assert [s.text for s in kept.steps] == ["golden"] and kept.unreachable == ""
    with pytest.raises(ValueError, match="reid_risk: guard_unreached must be one of undo, keep, futile, not 'x'"):
        ReidRisk(index=index, guard_unreached="x")
    assert kept.view.why.endswith("; guarded: 1 words masked, a record is still named with a chance of 1.00 > 1/3")
    assert chances(index, UNHELD, {"zed", "golden"}) == pytest.approx({"kim": 0, "lee": 1, "ray": 0, "sam": 0})


def test_the_guard_weighs_the_watched_record_named_most_not_the_priors_average():
    # four records the guard watches, a quarter of the prior each. One attacker names the first for
    # certain (scores 8 against 1: the others under CLOSE of its best), the other spreads evenly. The
    # prior's average chance is a quarter, under 1/3, and a loop on it would mask nothing; the guard's chance
    # is the first record's, 1
    scores = np.array([[8.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
    spread = _Choice(np.full(4, 0.25), margin=0.1, floor=None, limit=1 / 3, cost_power=0.0, budget=None)
    assert spread.chances(scores) == pytest.approx([0.25, 0.25])
    guard = replace(spread, whoever=True)
    assert guard.chances(scores) == pytest.approx([1.0, 0.25])
    # a record outside the prior (a weak match that comes first once most words are masked) is not watched
    watched = replace(guard, prior_play=np.array([0.0, 0.5, 0.5, 0.0]))
    assert watched.chances(scores) == pytest.approx([0.0, 0.25])


#: eight records no one of which holds the person; the text's words spread over them
SPREAD = [
    ("ada", "Ada seals lions coins silver"),
    ("bo", "Bo seals potter"),
    ("cy", "Cy seals medals painter"),
    ("di", "Di coins lions"),
    ("ed", "Ed silver sells collects"),
    ("fay", "Fay silver collects painter sells"),
    ("gus", "Gus golden sells sculptor medals"),
    ("hal", "Hal sells sculptor"),
]


def test_the_guard_masks_while_one_watched_record_is_named_above_one_in_k():
    index = BackgroundIndex.build(SPREAD)
    text = "Zed bronze collects medals coins."
    before = {rid: plan(index, text, {"zed"}, {"zed"}, target=rid, max_steps=0).view.risk for rid, _ in SPREAD}
    # di (coins) is named with a chance of 0.586 by an attacker, above 1/3; averaged over a prior spread over
    # six records, the chance is under 1/3, and a guard on the average masked nothing
    assert max(before, key=before.get) == "di" and before["di"] == pytest.approx(0.586, abs=5e-4)
    result = plan(index, text, {"zed"}, {"zed"}, guard=True)
    assert [s.text for s in result.steps] == ["coins", "medals", "collects"]
    assert result.guarded and result.view.why.endswith(
        "guarded: 3 words masked so that no record the attack names from the visible words is named with a "
        "chance above 1/3"
    )
    masked = {"zed", "coins", "medals", "collects"}
    after = {rid: plan(index, text, masked, {"zed"}, target=rid, max_steps=0).view.risk for rid, _ in SPREAD}
    assert max(after.values()) == 0.0  # bronze alone is left, which no record holds


def test_a_long_document_plans_the_same_on_sparse_matrices(monkeypatch):
    # a document of more than SPARSE_FEATURES features keeps its matrices sparse (a dense product per
    # step grows with the square of its length); the plan and the chances are the same to the last digit
    index = BackgroundIndex.build(SPREAD)
    text = "Zed bronze collects medals coins, and sells golden seals to Ada's potter."
    dense = plan(index, text, {"zed"}, {"zed"}, guard=True)
    monkeypatch.setattr(reid_problem, "SPARSE_FEATURES", 0)
    sparse = plan(index, text, {"zed"}, {"zed"}, guard=True)
    assert [s.text for s in sparse.steps] == [s.text for s in dense.steps] and dense.steps
    assert sparse.view.by_attacker == dense.view.by_attacker
    assert sparse.view.why == dense.view.why


@pytest.mark.parametrize("sparse", [False, True])
def test_the_weights_a_mask_would_take_are_kept_and_brought_up_to_date(index, monkeypatch, sparse):
    # the loop keeps, per action, what masking it would take from each record in play, and finds again
    # only the rows a mask has changed: "golden" masked changes "coins" (the pair "golden coins" dies)
    # and leaves "painter" as it was; every row is the same as a problem built with golden masked
    if sparse:
        monkeypatch.setattr(reid_problem, "SPARSE_FEATURES", 0)
    excluded = np.zeros(index.n_records, dtype=bool)
    play = np.arange(index.n_records)

    def problem(masked):
        made = _Problem(index, doc_words(UNHELD, masked, {"zed"}), excluded)
        for analyser in made.analysers:
            analyser.set_play(play)
        return made

    kept = problem({"zed"})
    attackers = [(a, w) for a in kept.analysers for w in kept.weightings]
    actions = list(range(len(kept.keys)))
    before = kept.removed_by(attackers, actions)
    golden, coins, painter = (kept.keys.index(w) for w in ("golden", "coins", "painter"))
    kept.mask(golden)
    pair = next(a for a in kept.analysers if a.name == "pair")
    assert not pair.fresh[coins] and pair.fresh[painter]  # "golden coins" died, "a painter" did not
    after = kept.removed_by(attackers, actions)
    fresh = problem({"zed", "golden"})  # golden is no action of it
    rows = [fresh.keys.index("coins"), fresh.keys.index("painter")]
    expected = fresh.removed_by([(a, w) for a in fresh.analysers for w in fresh.weightings], rows)
    for got, want, was in zip(after, expected, before, strict=True):
        assert np.array_equal(got[[coins, painter]], want)
        assert np.array_equal(got[painter], was[painter])
    changed = [
        i for i, (got, was) in enumerate(zip(after, before, strict=True)) if not np.array_equal(got[coins], was[coins])
    ]
    assert changed  # some attacker's row of coins moved
