"""The re-identification attack inside the pipeline (issue 24), on a hand-made background.

Four records of four terms each, so every record has the average length and BM25 (Lucene, k1 = 1.5,
b = 0.75) scores a term held once as 0.4 * idf, with idf = ln(1 + (N - df + 0.5) / (df + 0.5)), N = 4:

    df 1: idf = ln(1 + 3.5 / 1.5) = 1.2040 -> 0.4816
    df 2: idf = ln(2)             = 0.6931 -> 0.2773
    df 3: idf = ln(1 + 1.5 / 3.5) = 0.3567 -> 0.1427

The document "Kim, a painter, collects golden seals." shows (its name masked) painter (df 3), golden
(df 2: kim, sam), seals (df 1: kim) and collects (no record). Its name says who it is: only kim's record
holds "kim", so the posterior is kim's (softmax at margin 0.1: 1 against e^-10 for each other record).

    visible scores: kim 0.1427 + 0.2773 + 0.4816 = 0.9016, sam 0.2773, lee = ray = 0.1427

The attacker names kim with probability ~1 (the others are more than 6 margins below): k = 1. Masking
"seals" leaves kim 0.4200 against sam 0.2773 (3.4 margins: P(kim) = 0.966); masking "golden" then
leaves kim, lee and ray tied at 0.1427 and sam at 0: P(kim) = 1 / (3 + e^-10) = 0.33332, so k = 3.
"""

import json
import math

import numpy as np
import pytest
import spacy
from spacy.tokens import Span

from spacy_textsan.decide.reid_risk import ReidRisk, self_records
from spacy_textsan.extensions import SPANS_KEY
from spacy_textsan.risk.reid_attack import Occurrence, attack_probabilities, plan_masks
from spacy_textsan.risk.reid_index import VERSION, BackgroundIndex, analyse, analyse_terms, load_background

RECORDS = [
    ("kim", "Kim golden seals painter"),
    ("lee", "Lee silver coins painter"),
    ("ray", "Ray bronze medals painter"),
    ("sam", "Sam golden coins sculptor"),
]
TEXT = "Kim, a painter, collects golden seals."


@pytest.fixture(scope="module")
def index() -> BackgroundIndex:
    return BackgroundIndex.build(RECORDS)


def occurrences(text: str, skip: frozenset[str] | set[str] = frozenset()) -> tuple[list[Occurrence], list[int]]:
    """One group per word (its own length as cost), the words in ``skip`` left out (masked)."""
    tokens = [t for t in analyse(text) if t.term not in skip]
    return [Occurrence(t.term, text[t.start : t.end], g) for g, t in enumerate(tokens)], [
        t.end - t.start for t in tokens
    ]


# -- the index ------------------------------------------------------------------------------------


def test_analyse_folds_stems_and_drops_stop_words():
    assert analyse_terms("The Golden SEALS of Ödön, 1888") == ["golden", "seal", "odon", "1888"]
    assert [(t.term, t.start, t.end) for t in analyse("a painter's seals")] == [
        ("painter", 2, 9),
        ("seal", 12, 17),
    ]


def test_index_postings_are_bm25_scores(index):
    seal, golden, painter = (index.term_id(t) for t in ("seal", "golden", "painter"))
    assert index.df(seal) == 1 and index.df(golden) == 2 and index.df(painter) == 3
    assert index.idf(seal) == pytest.approx(math.log(1 + 3.5 / 1.5))
    records, scores = index.postings(golden)
    assert [index.ids[r] for r in records] == ["kim", "sam"]
    assert scores == pytest.approx([0.4 * math.log(2)] * 2, abs=1e-6)
    assert index.term_id("unknownword") is None


def test_index_saves_versioned_and_loads_memory_mapped(index, tmp_path):
    index.save(tmp_path / "bg")
    manifest = json.loads((tmp_path / "bg" / "background.json").read_text())
    assert manifest["format"] == "spacy-textsan-background" and manifest["version"] == VERSION
    assert manifest["n_records"] == 4
    loaded = BackgroundIndex.load(tmp_path / "bg")
    assert isinstance(loaded.retriever.scores["data"], np.memmap)
    assert loaded.ids == ["kim", "lee", "ray", "sam"]
    seal = loaded.term_id("seal")
    assert loaded.postings(seal)[1] == pytest.approx(index.postings(index.term_id("seal"))[1])
    assert load_background(tmp_path / "bg") is load_background(tmp_path / "bg")


def test_index_refuses_another_version_and_a_plain_folder(index, tmp_path):
    index.save(tmp_path / "bg")
    path = tmp_path / "bg" / "background.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "version": VERSION + 1}))
    with pytest.raises(ValueError, match="version"):
        BackgroundIndex.load(tmp_path / "bg")
    with pytest.raises(ValueError, match="not a background folder"):
        BackgroundIndex.load(tmp_path)


def test_duplicate_record_ids_are_refused():
    with pytest.raises(ValueError, match="'kim' is given twice"):
        BackgroundIndex.build([("kim", "a b"), ("kim", "c d")])


# -- the attacker and the decision loop (pure functions) -------------------------------------------


def test_attack_probabilities_are_a_softmax_at_margin_times_best():
    p = attack_probabilities(np.array([[1.0, 0.9, 0.0]]), 0.1)[0]
    z = np.array([1.0, math.exp(-1.0), math.exp(-10.0)])
    assert p == pytest.approx(z / z.sum())
    assert attack_probabilities(np.zeros((1, 4)), 0.1)[0] == pytest.approx([0.25] * 4)


def test_plan_masks_the_words_that_single_the_person_out(index):
    occ, cost = occurrences(TEXT, skip={"kim"})
    before = plan_masks(index, occ, cost, k=3, margin=0.1, prior_terms=["kim"], max_steps=0)
    assert before.steps == [] and before.view.k == 1 and not before.view.reached
    plan = plan_masks(index, occ, cost, k=3, margin=0.1, prior_terms=["kim"])
    assert [s.text for s in plan.steps] == ["seals", "golden"]
    assert [s.reason for s in plan.steps] == [
        "reid: 'seals' separates 1 of 4 background records",
        "reid: 'golden' separates 2 of 4 background records",
    ]
    view = plan.view
    assert view.k == 3 and view.reached and view.n_background == 4
    assert view.risk == pytest.approx(1 / (3 + math.exp(-10)), rel=1e-4)
    assert sorted(rid for rid, _ in view.top) == ["kim", "lee", "ray"]
    assert view.narrowing == [("painter", 3)]


def test_plan_stops_at_a_smaller_k_sooner(index):
    occ, cost = occurrences(TEXT, skip={"kim"})
    plan = plan_masks(index, occ, cost, k=1, margin=0.1, prior_terms=["kim"])
    assert plan.steps == [] and plan.view.reached


def test_without_a_name_in_the_background_nobody_is_singled_out(index):
    # "Zed" is in no record: the prior is flat and the attacker's pick is right 1 time in 4
    occ, cost = occurrences("Zed, a painter, collects golden seals.", skip={"zed"})
    plan = plan_masks(index, occ, cost, k=3, margin=0.1, prior_terms=["zed"])
    assert plan.steps == [] and plan.view.k == 4 and plan.view.risk == pytest.approx(0.25)


def test_known_target_is_the_stricter_check(index):
    # The data owner says the person is sam. Visible: sculptor (sam), golden (kim, sam), coins (lee, sam):
    # sam 0.4816 + 2 * 0.2773 = 1.0362, kim = lee = 0.2773. Masking sculptor leaves sam 0.5546 against
    # two records 5 margins below (P(sam) = 0.987); masking golden then ties sam and lee (P = 0.5 > 1/3);
    # only with coins masked too do all four records tie (P = 1/4).
    occ, cost = occurrences("A sculptor who collects golden coins.")
    plan = plan_masks(index, occ, cost, k=3, margin=0.1, target="sam")
    assert [s.text for s in plan.steps] == ["sculptor", "golden", "coins"]
    assert plan.view.target == "sam" and plan.view.reached and plan.view.risk == pytest.approx(0.25)
    assert plan.view.k == 4 and plan.view.target_rank == 1  # tied first
    # k = 2 is reached with sam and lee tied
    plan = plan_masks(index, occ, cost, k=2, margin=0.1, target="sam")
    assert [s.text for s in plan.steps] == ["sculptor", "golden"] and plan.view.k == 2


def test_budget_stops_the_loop(index):
    occ, cost = occurrences(TEXT, skip={"kim"})
    plan = plan_masks(index, occ, cost, k=3, margin=0.1, prior_terms=["kim"], budget=5)
    assert [s.text for s in plan.steps] == ["seals"] and not plan.view.reached


def test_groups_mask_together(index):
    # "golden seals" is one group (a kept candidate): masking seals hides golden too
    text = "painter golden seals"
    occ = [Occurrence("painter", "painter", 0), Occurrence("golden", "golden", 1), Occurrence("seal", "seals", 1)]
    plan = plan_masks(index, occ, [7, 12], k=3, margin=0.1, prior_terms=["kim"])
    assert len(plan.steps) == 1 and plan.steps[0].groups == [1] and plan.view.k == 3
    assert text


def test_bad_settings(index):
    with pytest.raises(ValueError, match="k must be"):
        plan_masks(index, [], [], k=0, margin=0.1)
    with pytest.raises(ValueError, match="margin"):
        plan_masks(index, [], [], k=2, margin=0.0)


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
    doc = ReidRisk(k=3, margin=0.1, index=index)(doc)
    spans = {(s.text, s.label_): s for s in doc.spans[SPANS_KEY]}
    assert sorted(spans) == [("Kim", "PERSON"), ("golden seals", "MISC")]
    masked = spans[("golden seals", "MISC")]
    assert masked._.masked is True and masked._.source == "reid:reid_risk"
    assert masked._.reasons == [
        "reid: 'golden' separates 2 of 4 background records",
        "reid: 'seals' separates 1 of 4 background records",
    ]
    report = doc._.reid_risk
    assert report["k"] == 3 and report["reached"] is True and report["masked"] == ["seals", "golden"]
    assert report["top"][0][0] in {"kim", "lee", "ray"}


def test_component_masks_a_kept_candidate_whole(nlp, index):
    # "golden seals" is a kept candidate (say an ORG): it is masked whole, with its mentions
    doc = candidate_doc(nlp, TEXT, [(0, 3, "PERSON", True), (25, 37, "ORG", False)])
    doc = ReidRisk(k=3, margin=0.1, index=index)(doc)
    org = [s for s in doc.spans[SPANS_KEY] if s.label_ == "ORG"][0]
    assert org._.masked is True
    assert org._.reasons == ["reid: 'seals' separates 1 of 4 background records"]
    assert [s.label_ for s in doc.spans[SPANS_KEY]] == ["PERSON", "ORG"]


def test_component_reads_a_known_target(nlp, index):
    doc = candidate_doc(nlp, "A sculptor who collects golden coins.", [])
    doc._.reid_target = "sam"
    doc = ReidRisk(k=3, margin=0.1, index=index)(doc)
    assert doc._.reid_risk["target"] == "sam" and doc._.reid_risk["reached"]


def test_the_document_itself_is_left_out(index):
    assert self_records(index, analyse_terms("Kim golden seals painter"), 0.98) == ["kim"]
    assert self_records(index, analyse_terms("Kim golden seals painter harbour views"), 0.98) == []


def test_component_fails_closed_without_a_background(nlp, tmp_path):
    doc = candidate_doc(nlp, TEXT, [(0, 3, "PERSON", True), (25, 31, "MISC", False)])
    component = ReidRisk(index_path=str(tmp_path))
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
    nlp.add_pipe("reid_risk", config={"index_path": str(tmp_path / "bg"), "k": 3})
    nlp.add_pipe("residual_risk", config={"background": True})
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
