"""The label agreement and confusion matrix of benchmarks/label_confusion.py, on three hand-written
documents with hand-written masked spans: no pipeline, no TAB data."""

import sys
from pathlib import Path

import pytest

from spacy_textsan.tab.reader import parse_tab

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from label_confusion import LabelDoc, Mention, best_label, label_confusion, tab_mentions, top_confusions  # noqa: E402


def at(text: str, part: str) -> tuple[int, int]:
    start = text.index(part)
    return start, start + len(part)


def mention(text: str, part: str, entity_type: str, group: str | None = None) -> Mention:
    return Mention(*at(text, part), entity_type, group=group)


def predicted(text: str, part: str, label: str) -> tuple[int, int, str]:
    return (*at(text, part), label)


T1 = "Mr John Smith lives in Paris and works at Acme Corp."
T2 = "On 5 May 2001 the Court of Oslo fined him 300 euros."
T3 = "Ms Ada Lovelace, a British mathematician."

DOCS = [
    LabelDoc(
        T1,
        [mention(T1, "John Smith", "PERSON"), mention(T1, "Paris", "LOC"), mention(T1, "Acme Corp", "ORG")],
        # "Mr" is in the masked span; the company is masked as a place
        [predicted(T1, "Mr John Smith", "PERSON"), predicted(T1, "Paris", "LOC"), predicted(T1, "Acme Corp", "LOC")],
    ),
    LabelDoc(
        T2,
        [
            mention(T2, "5 May 2001", "DATETIME"),
            mention(T2, "Court of Oslo", "ORG"),
            mention(T2, "300 euros", "QUANTITY"),
        ],
        # "Court" (5 characters) outweighs "Oslo" (4); " of " may stay in clear; the amount is not masked
        [predicted(T2, "5 May 2001", "DATETIME"), predicted(T2, "Court", "ORG"), predicted(T2, "Oslo", "LOC")],
    ),
    LabelDoc(
        T3,
        [
            mention(T3, "Ada Lovelace", "PERSON"),
            mention(T3, "British", "DEM", group="nationality"),
            mention(T3, "mathematician", "DEM", group="occupation"),
        ],
        # only the first name is masked: "Lovelace" stays in clear
        [predicted(T3, "Ada", "PERSON"), predicted(T3, "British", "LOC"), predicted(T3, "mathematician", "MISC")],
    ),
]


def test_best_label_takes_the_span_covering_most_characters():
    assert best_label(0, 10, [(0, 3, "LOC"), (3, 10, "ORG")]) == "ORG"
    assert best_label(0, 8, [(4, 8, "ORG"), (0, 4, "LOC")]) == "LOC"  # a tie: the earlier span
    assert best_label(0, 8, [(0, 4, "ORG"), (0, 4, "LOC")]) == "LOC"  # same place: the smaller label
    assert best_label(5, 8, [(0, 5, "LOC"), (8, 9, "ORG")]) is None  # touching is not overlapping
    assert best_label(5, 8, []) is None


def test_agreement_and_matrix_on_the_fixture():
    result = label_confusion(DOCS)
    assert (result["mentions"], result["covered"], result["agree"]) == (9, 7, 4)
    assert result["label_agreement"] == round(4 / 7, 4) == 0.5714
    assert result["macro_agreement"] == 0.7  # PERSON 1, LOC 1, ORG 0.5, DEM 0, DATETIME 1
    assert result["labels"] == ["PERSON", "LOC", "ORG", "DATETIME", "MISC"]
    assert result["confusion"] == {
        "PERSON": {"PERSON": 1},
        "LOC": {"LOC": 1},
        "ORG": {"LOC": 1, "ORG": 1},
        "DEM": {"LOC": 1, "MISC": 1},
        "DATETIME": {"DATETIME": 1},
        "QUANTITY": {},
    }
    assert result["per_type"] == {
        "PERSON": {"mentions": 2, "covered": 1, "agree": 1, "agreement": 1.0},
        "LOC": {"mentions": 1, "covered": 1, "agree": 1, "agreement": 1.0},
        "ORG": {"mentions": 2, "covered": 2, "agree": 1, "agreement": 0.5},
        "DEM": {"mentions": 2, "covered": 2, "agree": 0, "agreement": 0.0},
        "DATETIME": {"mentions": 1, "covered": 1, "agree": 1, "agreement": 1.0},
        "QUANTITY": {"mentions": 1, "covered": 0, "agree": 0, "agreement": None},
    }
    assert result["per_group"] == {
        "nationality": {"mentions": 1, "covered": 1, "agree": 0, "agreement": 0.0, "predicted": {"LOC": 1}},
        "occupation": {"mentions": 1, "covered": 1, "agree": 0, "agreement": 0.0, "predicted": {"MISC": 1}},
    }


def test_overlap_counts_a_partly_masked_mention():
    result = label_confusion(DOCS, cover="overlap")
    assert (result["covered"], result["agree"], result["label_agreement"]) == (8, 5, 0.625)
    assert result["per_type"]["PERSON"] == {"mentions": 2, "covered": 2, "agree": 2, "agreement": 1.0}
    with pytest.raises(ValueError, match="cover must be"):
        label_confusion(DOCS, cover="any")


def test_top_confusions_by_count_then_type_order_with_examples():
    repeated = LabelDoc("Acme and Acme", [Mention(0, 4, "ORG"), Mention(9, 13, "ORG")], [(0, 4, "LOC"), (9, 13, "LOC")])
    result = label_confusion([*DOCS, repeated])
    assert top_confusions(result) == [
        {"gold": "ORG", "predicted": "LOC", "count": 3, "examples": ["Acme", "Acme Corp"]},
        {"gold": "DEM", "predicted": "LOC", "count": 1, "examples": ["British"]},
        {"gold": "DEM", "predicted": "MISC", "count": 1, "examples": ["mathematician"]},
    ]
    assert [(c["gold"], c["predicted"]) for c in top_confusions(result, n=1)] == [("ORG", "LOC")]


def _gold_mention(i: int, text: str, part: str, entity_type: str, entity_id: str, identifier_type: str) -> dict:
    start, end = at(text, part)
    return {
        "entity_type": entity_type,
        "entity_mention_id": f"m{i}",
        "start_offset": start,
        "end_offset": end,
        "span_text": part,
        "identifier_type": identifier_type,
        "entity_id": entity_id,
    }


def test_tab_mentions_count_the_entities_to_mask_of_each_annotator():
    text = "Mr Smith met the Court in Oslo. Smith left."
    doc = parse_tab(
        [
            {
                "doc_id": "d1",
                "text": text,
                "annotations": {
                    "annotator2": {
                        "entity_mentions": [
                            _gold_mention(0, text, "Smith", "PERSON", "a2_e1", "DIRECT"),
                            _gold_mention(1, text, "Court", "ORG", "a2_e2", "NO_MASK"),
                            _gold_mention(2, text, "Oslo", "LOC", "a2_e3", "QUASI"),
                            # a NO_MASK mention of an entity to mask counts, as in TAB's recall
                            _gold_mention(3, text, "Smith left", "PERSON", "a2_e1", "NO_MASK"),
                        ]
                    },
                    "annotator1": {"entity_mentions": [_gold_mention(4, text, "Oslo", "LOC", "a1_e1", "QUASI")]},
                },
            }
        ]
    )[0]
    assert tab_mentions(doc) == [
        Mention(3, 8, "PERSON", "annotator2"),
        Mention(26, 30, "LOC", "annotator2"),
        Mention(32, 42, "PERSON", "annotator2"),
        Mention(26, 30, "LOC", "annotator1"),
    ]
    assert tab_mentions(doc, "first") == tab_mentions(doc)[:3]
    with pytest.raises(ValueError, match="annotators must be"):
        tab_mentions(doc, "second")
