"""mask_optimizer: the pure CP-SAT function and the component."""

import itertools

import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.tokens import SpanGroup

from spacy_textsan.decide import solve_masking
from spacy_textsan.extensions import add_risky_set, set_risk
from spacy_textsan.stages import NoDetectorWarning


def test_cheapest_cover():
    # entity 1 covers both sets for 5 < 3 + 3
    sol = solve_masking([3, 5, 3], [], [[0, 1], [1, 2]])
    assert sol.masked == [False, True, False] and sol.objective == 5 and sol.status == "OPTIMAL"
    assert sol.covering == {1: [0, 1]}
    # now masking 0 and 2 (6) is cheaper than 1 (7)
    assert solve_masking([3, 7, 3], [], [[0, 1], [1, 2]]).masked == [True, False, True]


def test_forced_and_singleton_sets_need_no_solver():
    sol = solve_masking([3, 5, 3, 1], [3], [[3, 0], [2]])
    assert sol.masked == [False, False, True, True]
    assert sol.status == "TRIVIAL" and sol.n_constraints == 0
    assert sol.objective == 4


def test_solver_failure_masks_every_member_of_open_sets():
    sol = solve_masking([3, 5, 1], [2], [[0, 1], [2, 1]], time_limit_s=0)
    assert sol.fallback and sol.status.startswith("FALLBACK")
    assert sol.masked == [True, True, True]


def test_bad_entity_index():
    with pytest.raises(IndexError):
        solve_masking([1.0], [], [[0, 3]])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=8).flatmap(
        lambda costs: st.tuples(
            st.just(costs), st.lists(st.lists(st.integers(0, len(costs) - 1), min_size=1, max_size=4), max_size=8)
        )
    )
)
def test_optimal_against_brute_force(problem):
    costs, sets = problem
    sol = solve_masking(costs, [], sets)
    assert all(any(sol.masked[e] for e in s) for s in sets)
    best = min(
        sum(c for c, m in zip(costs, bits, strict=False) if m)
        for bits in itertools.product([0, 1], repeat=len(costs))
        if all(any(bits[e] for e in s) for s in sets)
    )
    assert sol.objective == best
    assert solve_masking(costs, [], sets).masked == sol.masked  # deterministic


TEXT = "Mr Ada Lee of Oslo met Bo Chan in Bergen in 1961. Lee left Oslo in May."


def doc_with(nlp, spans):
    doc = nlp.make_doc(TEXT)
    group = SpanGroup(doc, name="textsan")
    for text, occurrence, label, entity_id in spans:
        start = -1
        for _ in range(occurrence + 1):
            start = TEXT.index(text, start + 1)
        span = doc.char_span(start, start + len(text), label=label)
        span._.entity_id = entity_id
        group.append(span)
    doc.spans["textsan"] = group
    return doc


SPANS = [
    ("Mr Ada Lee", 0, "PERSON", "PERSON-1"),
    ("Oslo", 0, "LOC", "LOC-1"),
    ("Bergen", 0, "LOC", "LOC-2"),
    ("1961", 0, "DATETIME", "DATETIME-1"),
    ("Lee", 1, "PERSON", "PERSON-1"),
    ("Oslo", 1, "LOC", "LOC-1"),
    ("May", 0, "DATETIME", "DATETIME-2"),
]


def by_text(doc):
    return [(s.text, s._.masked) for s in doc.spans["textsan"]]


def test_component_decides_per_entity_with_reasons():
    nlp = spacy.blank("en")
    opt = nlp.add_pipe("mask_optimizer")
    doc = doc_with(nlp, SPANS)
    spans = list(doc.spans["textsan"])
    for s in spans:
        set_risk(s, "kanon", 0.1)
        s._.info_content = {"Oslo": 2.0, "Bergen": 6.0, "1961": 3.0, "May": 1.0}.get(s.text, 9.0)
    # Oslo+Bergen risky together (cheaper: Oslo, but it has 2 mentions -> cost 4 vs 6),
    # Bergen+1961 risky together; May risky alone
    add_risky_set(doc, "kanon", [spans[1], spans[2]], "'oslo' + 'bergen' shared by 1 < 5 records")
    add_risky_set(doc, "kanon", [spans[2], spans[3]], "'bergen' + '1961' shared by 2 < 5 records")
    add_risky_set(doc, "lm", [spans[6]], "log-probability -9.1 < -3.5")
    doc = opt(doc)
    # Bergen (6) covers both sets; Oslo (2x2) + 1961 (3) would cost 7.
    # objective: Mr Ada Lee + Lee (9 + 9) + Bergen (6) + May (1) = 25
    assert by_text(doc) == [
        ("Mr Ada Lee", True),
        ("Oslo", False),
        ("Bergen", True),
        ("1961", False),
        ("Lee", True),
        ("Oslo", False),
        ("May", True),
    ]
    assert spans[0]._.reasons == ["direct identifier (label PERSON)"]
    assert spans[4]._.reasons == ["direct identifier (label PERSON)"]
    assert spans[2]._.reasons == [
        "covers risky combination: kanon: 'oslo' + 'bergen' shared by 1 < 5 records",
        "covers risky combination: kanon: 'bergen' + '1961' shared by 2 < 5 records",
    ]
    assert spans[6]._.reasons == ["risky: lm: log-probability -9.1 < -3.5"]
    assert spans[1]._.reasons == ["kept: its risky combinations are covered by other spans"]
    assert doc._.decision_info == {
        "component": "mask_optimizer",
        "status": "OPTIMAL",
        "objective": 25.0,
        "solve_ms": doc._.decision_info["solve_ms"],
        "n_entities": 5,
        "n_masked": 3,
        "n_risky_sets": 3,
        "fallback": False,
    }


def test_unassessed_spans_are_masked_by_default_and_thresholds_apply():
    nlp = spacy.blank("en")
    doc = doc_with(nlp, SPANS)
    spans = list(doc.spans["textsan"])
    set_risk(spans[1], "clf", 0.2)  # Oslo assessed, below threshold -> kept
    set_risk(spans[3], "clf", 0.9)  # 1961 above threshold -> masked
    doc = nlp.add_pipe("mask_optimizer", config={"risk_thresholds": {"clf": 0.5}, "direct_labels": []})(doc)
    assert by_text(doc) == [
        ("Mr Ada Lee", True),
        ("Oslo", False),
        ("Bergen", True),
        ("1961", True),
        ("Lee", True),
        ("Oslo", False),
        ("May", True),
    ]
    assert spans[3]._.reasons == ["clf risk 0.9 >= 0.5"]
    assert spans[2]._.reasons == ["not assessed by any risk measure (masked by default)"]
    keep = nlp.add_pipe("mask_optimizer", name="keep", config={"unassessed": "keep", "direct_labels": []})
    assert [m for _, m in by_text(keep(doc_with(nlp, SPANS)))] == [False] * 7


def test_a_measure_below_its_keep_threshold_keeps_a_span_out_of_the_decision():
    nlp = spacy.blank("en")
    doc = doc_with(nlp, SPANS)
    spans = list(doc.spans["textsan"])
    for s in spans:
        set_risk(s, "clf", 0.9)
    set_risk(spans[0], "clf", 0.01)  # a direct identifier: masked whatever the classifier says
    set_risk(spans[1], "clf", 0.05)  # Oslo, first mention: kept although LOC is always masked
    set_risk(spans[2], "clf", 0.1)  # Bergen: kept, and the risky set Bergen + 1961 is no risk without it
    set_risk(spans[3], "clf", 0.3)  # 1961: at the keep threshold, decided as before: no risky set left
    add_risky_set(doc, "kanon", [spans[2], spans[3]], "'bergen' + '1961' shared by 2 < 5 records")
    config = {"mask_labels": ["LOC"], "risk_thresholds": {"clf": 0.95}, "keep_thresholds": {"clf": 0.3}}
    doc = nlp.add_pipe("mask_optimizer", config=config)(doc)
    assert by_text(doc) == [
        ("Mr Ada Lee", True),
        ("Oslo", False),
        ("Bergen", False),
        ("1961", False),
        ("Lee", True),
        ("Oslo", True),
        ("May", False),
    ]
    assert spans[1]._.reasons == ["kept: clf score 0.05 < 0.3"]
    assert spans[2]._.reasons == ["kept: clf score 0.1 < 0.3"]
    # a minimal risky combination with a kept member: 1961 alone would be a set of its own
    assert spans[3]._.reasons == ["kept: no risk found"] and doc._.decision_info["n_risky_sets"] == 0
    assert spans[5]._.reasons == ["policy: label LOC is always masked"]
    assert spans[0]._.reasons == ["direct identifier (label PERSON)"]
    # a demographic attribute (keep_exempt_labels, DEM by default) stays under the label policy: "Bergen"
    # read as DEM is masked with the same score; with no exempt label it is kept
    for exempt, masked in ((None, True), ([], False)):
        doc = doc_with(nlp, [(t, o, "DEM" if t == "Bergen" else lab, e) for t, o, lab, e in SPANS])
        for s in doc.spans["textsan"]:
            set_risk(s, "clf", 0.1 if s.text == "Bergen" else 0.9)
        cfg = {"mask_labels": ["LOC", "DEM"], "risk_thresholds": {"clf": 0.95}, "keep_thresholds": {"clf": 0.3}}
        if exempt is not None:
            cfg["keep_exempt_labels"] = exempt
        opt = nlp.add_pipe("mask_optimizer", name=f"exempt_{exempt}", config=cfg)
        bergen = next(s for s in opt(doc).spans["textsan"] if s.text == "Bergen")
        assert bergen._.masked is masked
        assert bergen._.reasons == (["policy: label DEM is always masked"] if masked else ["kept: clf score 0.1 < 0.3"])
    with pytest.raises(ValueError, match=r"keep_thresholds\['clf'\] = 0.6 is above risk_thresholds\['clf'\] = 0.5"):
        nlp.add_pipe(
            "mask_optimizer", name="bad", config={"risk_thresholds": {"clf": 0.5}, "keep_thresholds": {"clf": 0.6}}
        )


def test_solver_failure_fails_closed_and_is_reported():
    nlp = spacy.blank("en")
    doc = doc_with(nlp, SPANS)
    spans = list(doc.spans["textsan"])
    add_risky_set(doc, "kanon", [spans[1], spans[2]], "pair")
    doc = nlp.add_pipe("mask_optimizer", config={"time_limit_s": 0.0, "unassessed": "keep"})(doc)
    assert [m for _, m in by_text(doc)] == [True, True, True, False, True, True, False]
    assert doc._.decision_info["fallback"] is True
    assert doc._.sanitize_errors == [
        "mask_optimizer: solver FALLBACK:solver status UNKNOWN; every span in a risky set is masked"
    ]
    assert "solver failed: masked (fail closed)" in spans[1]._.reasons


def test_risky_set_without_candidate_is_reported():
    nlp = spacy.blank("en")
    doc = doc_with(nlp, SPANS[:1])
    doc._.risky_sets = [{"measure": "web", "spans": [[40, 44]], "reason": "x"}]
    nlp.add_pipe("mask_optimizer", config={"unassessed": "keep"})(doc)
    assert doc._.sanitize_errors == ["mask_optimizer: risky set [[40, 44]] (web) matches no candidate span"]


def test_works_on_doc_ents_in_any_pipeline():
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(
        [{"label": "PERSON", "pattern": "Ada"}, {"label": "GPE", "pattern": "Oslo"}]
    )
    nlp.add_pipe("mask_optimizer", config={"unassessed": "keep"})
    nlp.add_pipe("generalizer")
    with pytest.warns(NoDetectorWarning, match="'mask_optimizer' runs in a pipeline without privacy_ner"):
        assert nlp("Ada lives in Oslo.")._.sanitized_text == "[PERSON 1] lives in Oslo."
