"""The kanon_risk component on hand-built Docs (no model needed)."""

import random

import pytest
import spacy
from spacy.tokens import Doc

import spacy_textsan.risk.kanon_risk  # noqa: F401  (registers the factory)
from spacy_textsan.risk.kanon_index import InvertedIndex
from spacy_textsan.risk.kanon_risk import KanonRisk, doc_terms, index_from_docs

# The hand-checked index of test_kanon_index.py (record id = position):
#   ankara {0,1,2,5}  1961 {0,1,3,5}  teacher {0,2,3}  lawyer {1,4,5}
#   izmir {3,4}  1970 {2,4}  galip yalman {5}  yalman {5}
RECORDS = [
    ["Ankara", "1961", "teacher"],
    ["Ankara", "1961", "lawyer"],
    ["Ankara", "1970", "teacher"],
    ["Izmir", "1961", "teacher"],
    ["Izmir", "1970", "lawyer"],
    ["Mr Galip Yalman", "Yalman", "Ankara", "1961", "lawyer"],
]

TEXT = "Galip Yalman, a teacher from Ankara, was born in 1961. Yalman moved in 1970."
#        text            label       entity id     term           postings  risk
SPANS = [
    ("Galip Yalman", "PERSON", "PERSON-1"),  # galip yalman   1        1.0
    ("teacher", "DEM", "DEM-1"),  # teacher        3        1/3
    ("Ankara", "LOC", "LOC-1"),  # ankara         4        0.25
    ("1961", "DATETIME", "DATETIME-1"),  # 1961           4        0.25
    ("Yalman", "PERSON", "PERSON-1"),  # yalman         1        1.0
    ("1970", "DATETIME", "DATETIME-2"),
]  # 1970           2        0.5


def off(text, start=0):
    i = TEXT.index(text, start)
    return [i, i + len(text)]


GALIP, TEACHER, ANKARA, Y1961, Y1970 = (off("Galip Yalman"), off("teacher"), off("Ankara"), off("1961"), off("1970"))
YALMAN = off("Yalman", 10)


def make_doc(nlp, text=TEXT, spans=SPANS, entity_ids=True) -> Doc:
    doc = nlp.make_doc(text)
    group, start = [], 0
    for span_text, label, _eid in spans:
        i = text.index(span_text, start)
        span = doc.char_span(i, i + len(span_text), label=label)
        group.append(span)
        start = i + len(span_text)
    doc.spans["textsan"] = group
    for span in doc.spans["textsan"]:
        if entity_ids:
            span._.entity_id = next(e for t, _, e in spans if t == span.text)
    return doc


@pytest.fixture
def index():
    return InvertedIndex.from_records(RECORDS)


def pipeline(index, **config):
    nlp = spacy.blank("en")
    comp = nlp.add_pipe("kanon_risk", config={"k": 2, **config})
    if index is not None:
        comp.set_index(index)
    return nlp


def risks(doc):
    return [(s.text, s._.risk) for s in doc.spans["textsan"]]


def test_optimizer_sets_and_scores(index):
    nlp = pipeline(index)
    doc = nlp(make_doc(nlp))
    assert risks(doc) == [
        ("Galip Yalman", {"kanon": 1.0}),
        ("teacher", {"kanon": pytest.approx(1 / 3)}),
        ("Ankara", {"kanon": 0.25}),
        ("1961", {"kanon": 0.25}),
        ("Yalman", {"kanon": 1.0}),
        ("1970", {"kanon": 0.5}),
    ]
    # PERSON-1 is risky alone (both mentions have 1 posting; the first is its
    # representative). Entity terms in order: teacher, ankara, 1961, 1970;
    # teacher+1970 = {2}, ankara+1970 = {2}; 1961+1970 = {} is not risky.
    assert doc._.risky_sets == [
        {"measure": "kanon", "spans": [GALIP], "reason": "'galip yalman' appears in 1 < 2 records"},
        {"measure": "kanon", "spans": [TEACHER, Y1970], "reason": "'teacher' + '1970' shared by 1 < 2 records"},
        {"measure": "kanon", "spans": [ANKARA, Y1970], "reason": "'ankara' + '1970' shared by 1 < 2 records"},
    ]
    assert doc._.sanitize_errors is None


def test_optimizer_arity3_and_k3(index):
    nlp = pipeline(index, max_arity=3)
    doc = nlp(make_doc(nlp))
    assert [s["spans"] for s in doc._.risky_sets] == [
        [GALIP],
        [TEACHER, Y1970],
        [ANKARA, Y1970],
        [TEACHER, ANKARA, Y1961],
    ]  # {0}
    assert doc._.risky_sets[-1]["reason"] == "'teacher' + 'ankara' + '1961' shared by 1 < 2 records"
    # k=3: 1970 (2 postings) is risky alone; teacher+ankara {0,2} = 2 < 3,
    # teacher+1961 {0,3} = 2 < 3; ankara+1961 {0,1,5} = 3 is fine
    nlp = pipeline(index, k=3)
    doc = nlp(make_doc(nlp))
    assert doc._.risky_sets == [
        {"measure": "kanon", "spans": [GALIP], "reason": "'galip yalman' appears in 1 < 3 records"},
        {"measure": "kanon", "spans": [Y1970], "reason": "'1970' appears in 2 < 3 records"},
        {"measure": "kanon", "spans": [TEACHER, ANKARA], "reason": "'teacher' + 'ankara' shared by 2 < 3 records"},
        {"measure": "kanon", "spans": [TEACHER, Y1961], "reason": "'teacher' + '1961' shared by 2 < 3 records"},
    ]


def test_entity_uses_its_most_specific_mention(index):
    # without entity ids every span is its own entity; with them, 'Yalman' is
    # part of PERSON-1 and gets no set of its own
    nlp = pipeline(index)
    doc = nlp(make_doc(nlp, entity_ids=False))
    assert [s["spans"] for s in doc._.risky_sets] == [[GALIP], [YALMAN], [TEACHER, Y1970], [ANKARA, Y1970]]
    # an entity is risky alone if any mention is: 'Ankara' + unknown 'the capital'
    spans = [("Ankara", "LOC", "LOC-1"), ("Ankara Capital", "LOC", "LOC-1")]
    doc = nlp(make_doc(nlp, "Ankara is in Ankara Capital.", spans))
    assert doc._.risky_sets == [
        {"measure": "kanon", "spans": [[13, 27]], "reason": "'ankara capital' appears in 0 < 2 records"}
    ]
    assert risks(doc) == [("Ankara", {"kanon": 0.25}), ("Ankara Capital", {"kanon": 1.0})]


def test_greedy_and_random_selection(index):
    nlp = pipeline(index, selection="greedy")
    doc = nlp(make_doc(nlp))
    # Algorithm 1 on galip yalman, teacher, ankara, 1961, 1970: galip yalman
    # alone; first breach teacher+1970 -> 1970 (2 < 3 postings); then done
    assert doc._.risky_sets == [
        {"measure": "kanon", "spans": [GALIP], "reason": "'galip yalman' appears in 1 < 2 records"},
        {
            "measure": "kanon",
            "spans": [Y1970],
            "reason": "greedy choice from 'teacher' + '1970' shared by 1 < 2 records",
        },
    ]
    assert risks(doc)[1] == ("teacher", {"kanon": pytest.approx(1 / 3)})
    # random, seed 1: random.Random(1).choice(['teacher', '1970']) == 'teacher',
    # then ankara+1970 = {2}: the same rng's choice(['ankara', '1970']) == 'ankara'
    rng = random.Random(1)
    assert (rng.choice(["teacher", "1970"]), rng.choice(["ankara", "1970"])) == ("teacher", "ankara")
    nlp = pipeline(index, selection="random", seed=1)
    doc = nlp(make_doc(nlp))
    assert [(s["spans"], s["reason"].split(" from ")[0]) for s in doc._.risky_sets] == [
        ([GALIP], "'galip yalman' appears in 1 < 2 records"),
        ([TEACHER], "random choice"),
        ([ANKARA], "random choice"),
    ]


def test_no_index_fails_closed():
    nlp = pipeline(None)
    doc = nlp(make_doc(nlp))
    assert doc._.sanitize_errors == [
        "kanon_risk: no background (set background or call initialize); every candidate treated as risky"
    ]
    assert doc._.risky_sets == [
        {"measure": "kanon", "spans": [span], "reason": "no index (fail closed)"}
        for span in [GALIP, TEACHER, ANKARA, Y1961, Y1970]
    ]
    assert all(r == {"kanon": 1.0} for _, r in risks(doc))


def background_block(path) -> dict:
    return {"@misc": "spacy_textsan.background.v1", "path": str(path)}


def test_missing_background_warns_and_fails_closed(tmp_path):
    nlp = spacy.blank("en")
    with pytest.warns(UserWarning, match="cannot load the background .*missing"):
        nlp.add_pipe("kanon_risk", config={"background": background_block(tmp_path / "missing")})
    doc = nlp(make_doc(nlp))
    assert len(doc._.risky_sets) == 5 and "cannot load the background" in doc._.sanitize_errors[0]
    with pytest.raises(ValueError, match="not a k-anonymity index directory"):
        nlp.initialize()


@pytest.mark.parametrize("selection", ["optimizer", "greedy", "random"])
def test_budget_exhausted_fails_closed(index, selection):
    nlp = pipeline(index, selection=selection, max_combinations=1)
    doc = nlp(make_doc(nlp))
    assert doc._.sanitize_errors == [
        "kanon_risk: combination budget of 1 exhausted; entities not found risky so far treated as risky"
    ]
    sets = doc._.risky_sets
    assert sets[0] == {"measure": "kanon", "spans": [GALIP], "reason": "'galip yalman' appears in 1 < 2 records"}
    # teacher+ankara (2 records) was the one combination evaluated: nothing
    # found, every other entity is masked
    assert sets[1:] == [
        {"measure": "kanon", "spans": [span], "reason": "combination budget exhausted (fail closed)"}
        for span in [TEACHER, ANKARA, Y1961, Y1970]
    ]


def test_exception_fails_closed(index, monkeypatch):
    nlp = pipeline(index)

    def broken(term):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(index, "count", broken)
    doc = nlp(make_doc(nlp))
    assert doc._.sanitize_errors == ["kanon_risk: RuntimeError: disk on fire"]
    assert [s["spans"] for s in doc._.risky_sets] == [[GALIP], [TEACHER], [ANKARA], [Y1961], [Y1970]]
    assert {s["reason"] for s in doc._.risky_sets} == {"error (fail closed)"}


def test_exclude_labels_and_empty_doc(index):
    nlp = pipeline(index, exclude_labels=["DATETIME"])
    doc = nlp(make_doc(nlp))
    assert doc._.risky_sets == [
        {"measure": "kanon", "spans": [GALIP], "reason": "'galip yalman' appears in 1 < 2 records"}
    ]
    assert [r for t, r in risks(doc) if t in ("1961", "1970")] == [None, None]
    doc = nlp("No candidates here.")
    assert doc._.risky_sets is None and doc._.sanitize_errors is None


def test_bad_config():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="selection must be one of"):
        nlp.add_pipe("kanon_risk", config={"selection": "best"})
    assert KanonRisk().k == 5


def test_default_config():
    nlp = spacy.blank("en")
    nlp.add_pipe("kanon_risk")
    cfg = dict(nlp.config["components"]["kanon_risk"])
    assert cfg == {
        "factory": "kanon_risk",
        "k": 5,
        "max_arity": 2,
        "selection": "optimizer",
        "seed": 0,
        "max_combinations": 100_000,
        "spans_key": "textsan",
        "exclude_labels": [],
        "background": None,
        "phrases": False,
        "english_prior": False,
        "rare_words": False,
    }


def test_background_block_and_initialize(index, tmp_path):
    index.to_disk(tmp_path / "idx")
    nlp = spacy.blank("en")
    nlp.add_pipe("kanon_risk", config={"k": 2, "background": background_block(tmp_path / "idx")})
    assert nlp(make_doc(nlp))._.risky_sets[0]["spans"] == [GALIP]
    nlp = spacy.blank("en")
    comp = nlp.add_pipe("kanon_risk", config={"k": 2})
    comp.initialize(background=tmp_path / "idx")
    assert comp.index.n_records == 6 and len(nlp(make_doc(nlp))._.risky_sets) == 3


def test_nlp_to_disk_and_spacy_load(index, tmp_path):
    nlp = pipeline(index)
    nlp.to_disk(tmp_path / "pipe")
    assert (tmp_path / "pipe" / "kanon_risk" / "index" / "meta.json").exists()
    loaded = spacy.load(tmp_path / "pipe")
    assert loaded.get_pipe("kanon_risk").index.to_bytes() == index.to_bytes()
    assert loaded(make_doc(loaded))._.risky_sets == nlp(make_doc(nlp))._.risky_sets
    # to_bytes / from_bytes
    copy = pipeline(None)
    copy.from_bytes(nlp.to_bytes())
    assert copy.get_pipe("kanon_risk").index.n_records == 6
    # a pipeline saved without an index loads without one (and fails closed)
    pipeline(None).to_disk(tmp_path / "empty")
    empty = spacy.load(tmp_path / "empty")
    assert empty.get_pipe("kanon_risk").index is None
    assert empty(make_doc(empty))._.sanitize_errors


def test_index_from_docs(index):
    nlp = spacy.blank("en")
    docs = [
        make_doc(nlp),
        make_doc(nlp, "Mr Galip Yalman lives in Ankara.", [("Mr Galip Yalman", "PERSON", "P"), ("Ankara", "LOC", "L")]),
    ]
    assert doc_terms(docs[0]) == ["galip yalman", "teacher", "ankara", "1961", "yalman", "1970"]
    idx = index_from_docs(docs)
    assert (idx.n_records, len(idx)) == (2, 6)
    assert [idx.count(t) for t in ["galip yalman", "ankara", "1970"]] == [2, 2, 1]
    # the doc being sanitized is one of the records: a term unique to it has 1 posting
    nlp2 = pipeline(idx)
    doc = nlp2(make_doc(nlp2))
    # (PERSON-1: 'galip yalman' is in both records, 'yalman' only in this one)
    assert doc._.risky_sets[:2] == [
        {"measure": "kanon", "spans": [YALMAN], "reason": "'yalman' appears in 1 < 2 records"},
        {"measure": "kanon", "spans": [TEACHER], "reason": "'teacher' appears in 1 < 2 records"},
    ]
    assert index_from_docs(docs, exclude_labels=["DATETIME"]).count("1970") == 0


def test_grouping_failure_fails_closed(index, monkeypatch):
    nlp = pipeline(index)
    comp = nlp.get_pipe("kanon_risk")
    monkeypatch.setattr(comp, "entities", lambda doc: 1 / 0)
    doc = nlp(make_doc(nlp))
    assert doc._.sanitize_errors == ["kanon_risk: ZeroDivisionError: division by zero"]
    # every candidate on its own, Yalman included
    assert [s["spans"] for s in doc._.risky_sets] == [[GALIP], [TEACHER], [ANKARA], [Y1961], [YALMAN], [Y1970]]


def test_after_privacy_ner(rules_nlp):
    # the rule layer finds titled names, years and codes; the index is built
    # from the same pipeline's output on three documents
    texts = ["Mr Ada Lee was born in 1961.", "Ms B. Baysal was born in 1961.", "Dr C. Demir was born in 1961."]
    index = index_from_docs(rules_nlp.pipe(texts))
    assert index.count("1961") == 3 and index.count("ada lee") == 1
    rules_nlp.add_pipe("kanon_risk", config={"k": 3}).set_index(index)
    doc = rules_nlp("Mr Ada Lee, born 1961, and Dr C. Demir.")
    assert doc._.risky_sets == [
        {"measure": "kanon", "spans": [[0, 10]], "reason": "'ada lee' appears in 1 < 3 records"},
        {"measure": "kanon", "spans": [[27, 38]], "reason": "'c. demir' appears in 1 < 3 records"},
    ]
    assert [(s.text, s._.risk) for s in doc.spans["textsan"]] == [
        ("Mr Ada Lee", {"kanon": 1.0}),
        ("1961", {"kanon": pytest.approx(1 / 3)}),
        ("Dr C. Demir", {"kanon": 1.0}),
    ]
