"""TAB metrics on a hand-made fixture, with every expected value computed by hand.

Fixture ``tab_two_annotators.json`` (written for these tests, not from TAB):

d1 = "Application no. 12345/67 was lodged by Mr John Doe, a British researcher
      living in the Kingdom of Sweden, on 1 October 2021. Doe complained."

  \\w+ tokens (offsets): Application(0,11) no(12,14) 12345(16,21) 67(22,24)
  was by ... Mr(39,41) John(42,46) Doe(47,50) a British(54,61)
  researcher(62,72) living in the(83,86) Kingdom(87,94) of(95,97)
  Sweden(98,104) on 1(109,110) October(111,118) 2021(119,123) Doe(125,128)
  complained

  annotator1 (like the paper's §6.4 first annotator):
    E1 CODE     DIRECT  "no. 12345/67"          tokens no 12345 67      (3)
    E2 PERSON   DIRECT  "John Doe", "Doe"       tokens John Doe | Doe   (3)
    E3 DEM      QUASI   "British"                                       (1)
    E4 DATETIME QUASI   "1 October 2021"                                (3)
    E5 LOC      NO_MASK "Kingdom of Sweden"     not an entity to mask
  annotator2 (the second annotator):
    F1 CODE     DIRECT  "12345/67"                                      (2)
    F2 PERSON   DIRECT  "Mr John Doe", "Doe"    tokens Mr John Doe | Doe (4)
    F3 LOC      QUASI   "Kingdom of Sweden"                             (3)
    F4 DATETIME QUASI   "1 October 2021"                                (3)
    F5 DEM      QUASI   "researcher"                                    (1)

  Tokens of entities to mask: 10 (annotator1) + 13 (annotator2) = 23;
  direct 6 + 6 = 12, quasi 4 + 7 = 11. Mentions: 5 + 6 = 11.
  Entities: direct E1 E2 F1 F2 (4), quasi E3 E4 F3 F4 F5 (5).

d2 = "Mr. Smith sued Norway. Smith's claim against Norway failed."  (annotator1 only)
    S PERSON: "Mr. Smith" DIRECT, "Smith" (of Smith's) NO_MASK  -> mixed entity,
      first mention DIRECT so a direct identifier; tokens Mr Smith | Smith (3)
    N LOC: "Norway" NO_MASK (15,21), then "Norway" DIRECT (45,51) -> needs
      masking, but its FIRST mention is not DIRECT so it counts as a
      quasi-identifier (TAB script behaviour); tokens 2
"""

from pathlib import Path

import pytest

from spacy_textsan.tab import (
    SKIP_REGEX,
    build_entities,
    entity_recall,
    evaluate,
    is_mention_masked,
    masked_offsets_set,
    mention_recall,
    parse_tab,
    per_type_recall,
    precision,
    prepare_gold,
    read_tab,
    split_by_tokens,
    token_recall,
)

FIXTURE = Path(__file__).parent / "fixtures" / "tab_two_annotators.json"
DEV = Path("/work/shared/data/tab/dev.json")

# System outputs on d1.
# "Longformer"-like: the case number, both person mentions and the date.
SYS_L = {"d1": [(16, 24), (42, 50), (125, 128), (109, 123)]}
# "Presidio"-like: the person, "the Kingdom of Sweden", the date and a false
# positive "Application"; misses the case number.
SYS_P = {"d1": [(42, 50), (125, 128), (83, 104), (109, 123), (0, 11)]}
# On d2: "Smith" of "Mr. Smith" and the second (DIRECT) "Norway".
SYS_D2 = {"d2": [(4, 9), (45, 51)]}


@pytest.fixture(scope="module")
def gold():
    return read_tab(FIXTURE)


def char_length_weights(text, spans):
    """A custom weight function: a token weighs its number of characters."""
    return [float(end - start) for start, end in spans]


# --------------------------------------------------------------------------- #
# Building blocks
# --------------------------------------------------------------------------- #


def test_entities(gold):
    entities = {e.entity_id: e for e in build_entities(gold[1])}
    smith, norway = entities["d2_a1_e1"], entities["d2_a1_e2"]
    # Mixed DIRECT / NO_MASK: needs masking, direct (first mention DIRECT).
    assert (smith.need_masking, smith.is_direct) == (True, True)
    assert smith.mentions == [(0, 9), (23, 28)]
    assert smith.mention_level_masking == [True, False]
    # NO_MASK then DIRECT: needs masking but NOT direct (first mention decides).
    assert (norway.need_masking, norway.is_direct) == (True, False)
    assert norway.entity_type == "LOC"
    assert norway.mention_level_masking == [False, True]
    d1 = {e.entity_id: e for e in build_entities(gold[0])}
    assert d1["d1_a1_e5"].need_masking is False  # NO_MASK only
    assert {e.annotator for e in d1.values()} == {"annotator1", "annotator2"}


def test_split_by_tokens():
    text = "Mr. J. Doe-Smith’s"
    assert list(split_by_tokens(text, 0, len(text))) == [(0, 2), (4, 5), (7, 10), (11, 16), (17, 18)]
    # Offsets are absolute; a span starting mid-word cuts the token.
    assert list(split_by_tokens(text, 8, 12)) == [(8, 10), (11, 12)]


@pytest.mark.parametrize(
    "text,covered,expected",
    [
        ("Mr John", "John", True),  # "Mr" and the space are skippable
        ("Mr", "", True),  # a lone uncovered "Mr" counts as masked
        ("MRS. Brown-Smith", "Brown", False),  # "Smith" left
        ("MRS. Brown-Smith", "Brown Smith", True),  # "MRS", ".", " ", "-" skipped
        ("the Kingdom of Sweden", "Kingdom Sweden", True),
        ("Doe’s", "Doe", True),  # "’s" skipped
        ("Doe's", "Doe", True),  # "'s" skipped
        ("Mrx Doe", "Doe", False),  # \b: "mr" inside "Mrx" is not skipped
        ("Anna", "", False),
        ("no. 5", "5", True),  # "no" is skippable too
        ("1 October 2021", "October 2021", False),
    ],
)
def test_is_mention_masked(text, covered, expected):
    offsets = set()
    for word in covered.split():
        start = text.index(word)
        offsets.update(range(start, start + len(word)))
    assert is_mention_masked(text, offsets, 0, len(text)) is expected


def test_skip_regex_is_case_insensitive_alternation():
    assert SKIP_REGEX.fullmatch("MR")
    assert SKIP_REGEX.fullmatch(" ")
    assert SKIP_REGEX.fullmatch("–")
    assert not SKIP_REGEX.fullmatch("x")


def test_masked_offsets_set():
    assert masked_offsets_set([(0, 2), (1, 3), [5, 6]]) == {0, 1, 2, 5}


# --------------------------------------------------------------------------- #
# (a) two annotators that disagree (paper §6.4)
# --------------------------------------------------------------------------- #


def test_longformer_like_system(gold):
    # Token recall: annotator1 E1 no(skip word, counts masked) 12345 67 = 3/3,
    # E2 3/3, E3 British 0/1, E4 3/3 -> 9/10; annotator2 F1 2/2, F2 Mr(skip)
    # John Doe Doe 4/4, F3 Kingdom 0 + of (skip word) 1 + Sweden 0 = 1/3,
    # F4 3/3, F5 0/1 -> 10/13. Total 19/23.
    assert token_recall(gold, SYS_L) == 19 / 23
    # Direct: 6/6 + 6/6. Quasi: (0 + 3) + (1 + 3 + 0) = 7 of 4 + 7 = 11.
    assert token_recall(gold, SYS_L, include_quasi=False) == 1.0
    assert token_recall(gold, SYS_L, include_direct=False) == 7 / 11
    # Mentions: "no. 12345/67" masked ("no", ".", " " skippable), John Doe,
    # Doe, date -> 4 of 5; annotator2: 12345/67, "Mr John Doe", Doe, date ->
    # 4 of 6 (Kingdom of Sweden and researcher missed). 8/11.
    assert mention_recall(gold, SYS_L) == 8 / 11
    # ER_di: E1 E2 F1 F2 all masked. ER_qi: only E4 and F4 of 5.
    assert entity_recall(gold, SYS_L, include_quasi=False) == 1.0
    assert entity_recall(gold, SYS_L, include_direct=False) == 2 / 5
    # Precision: 8 system tokens (12345 67 John Doe Doe 1 October 2021), each
    # covered by a DIRECT/QUASI mention of both annotators: 16 / (8 * 2).
    assert precision(gold, SYS_L) == 1.0


def test_presidio_like_system(gold):
    # Recall: annotator1 E1 only "no" (skip) 1/3, E2 3/3, E3 0/1, E4 3/3 = 7/10;
    # annotator2 F1 0/2, F2 4/4, F3 3/3, F4 3/3, F5 0/1 = 10/13. 17/23.
    assert token_recall(gold, SYS_P) == 17 / 23
    # Direct: (1 + 3) + (0 + 4) = 8/12; quasi (0 + 3) + (3 + 3 + 0) = 9/11.
    assert token_recall(gold, SYS_P, include_quasi=False) == 8 / 12
    assert token_recall(gold, SYS_P, include_direct=False) == 9 / 11
    # Mentions: annotator1 John Doe, Doe, date = 3/5; annotator2 "Mr John Doe",
    # Doe, Kingdom of Sweden, date = 4/6. 7/11.
    assert mention_recall(gold, SYS_P) == 7 / 11
    # ER_di: E2, F2 masked; E1, F1 not -> 2/4. ER_qi: E4, F3, F4 -> 3/5.
    assert entity_recall(gold, SYS_P, include_quasi=False) == 2 / 4
    assert entity_recall(gold, SYS_P, include_direct=False) == 3 / 5
    # Precision: 11 system tokens x 2 annotators = 22. Covered by:
    # John, Doe, Doe: 2 each (6); "the": none; Kingdom, of, Sweden: annotator2
    # only (3; annotator1's mention is NO_MASK); 1, October, 2021: 2 each (6);
    # Application: none. 15/22.
    assert precision(gold, SYS_P) == 15 / 22


# --------------------------------------------------------------------------- #
# (b) mixed DIRECT/NO_MASK entity, (c) Mr/punctuation skip
# --------------------------------------------------------------------------- #


def test_mixed_entity_document(gold):
    # Tokens: S: Mr (uncovered, skip word) + Smith covered = 2/2, NO_MASK
    # mention "Smith" 0/1 (still counted: the entity needs masking);
    # N: first "Norway" 0/1, second 1/1. 3/5.
    assert token_recall(gold, SYS_D2) == 3 / 5
    assert token_recall(gold, SYS_D2, include_quasi=False) == 2 / 3  # S only
    assert token_recall(gold, SYS_D2, include_direct=False) == 1 / 2  # N only
    # Mentions: "Mr. Smith" (uncovered "Mr. " all skippable) and second
    # Norway masked; "Smith" and first "Norway" not. 2/4.
    assert mention_recall(gold, SYS_D2) == 2 / 4
    # Entities: the unmasked mentions are NO_MASK themselves -> allowed.
    assert entity_recall(gold, SYS_D2, include_quasi=False) == 1.0
    assert entity_recall(gold, SYS_D2, include_direct=False) == 1.0
    # Precision: Smith covered by "Mr. Smith" (DIRECT), Norway by the DIRECT
    # mention: 2 / (2 tokens x 1 annotator).
    assert precision(gold, SYS_D2) == 1.0


def test_masking_only_no_mask_mentions(gold):
    masked = {"d2": [(23, 28), (15, 21)]}  # "Smith" of Smith's, first "Norway"
    # Neither system token lies in a mention that needs masking: 0 / 2.
    assert precision(gold, masked) == 0.0
    # S: "Mr. Smith" (DIRECT mention) unmasked -> entity not masked.
    # N: its DIRECT mention (45, 51) is unmasked -> not masked.
    assert entity_recall(gold, masked) == 0.0
    # Tokens: Mr (skip) 1 + Smith 0 + Smith 1; Norway 1 + Norway 0 -> 3/5.
    assert token_recall(gold, masked) == 3 / 5


# --------------------------------------------------------------------------- #
# (d) overlapping system spans, (e) custom weights
# --------------------------------------------------------------------------- #


def test_overlapping_system_spans_count_twice(gold):
    # "John Doe" and "Mr John Doe": tokens John Doe + Mr John Doe = 5 x 2
    # annotators = 10. Covered: John 2, Doe 2, Mr 1 (annotator2 only), John 2,
    # Doe 2 = 9. 9/10.
    assert precision(gold, {"d1": [(42, 50), (39, 50)]}) == 9 / 10
    # The same characters as one span: Mr 1 + John 2 + Doe 2 = 5 of 6.
    assert precision(gold, {"d1": [(39, 50)]}) == 5 / 6
    # Mention level: each system span is one unit. "John Doe" lies inside both
    # annotators' mentions (2), "Mr John Doe" only inside annotator2's (1): 3/4.
    assert precision(gold, {"d1": [(42, 50), (39, 50)]}, token_level=False) == 3 / 4
    # An empty system span is credited to no annotator: 0 / 2.
    assert precision(gold, {"d1": [(42, 42)]}, token_level=False) == 0.0


def test_weighted_precision(gold):
    # Weights = token lengths. SYS_P tokens (weight, annotators covering):
    # John (4, 2) Doe (3, 2) Doe (3, 2) the (3, 0) Kingdom (7, 1) of (2, 1)
    # Sweden (6, 1) 1 (1, 2) October (7, 2) 2021 (4, 2) Application (11, 0).
    # TP = 8 + 6 + 6 + 0 + 7 + 2 + 6 + 2 + 14 + 8 + 0 = 59;
    # total = 2 x (4+3+3+3+7+2+6+1+7+4+11) = 2 x 51 = 102.
    assert precision(gold, SYS_P, weights=char_length_weights) == 59 / 102
    # Uniform weights passed explicitly give the unweighted value.
    uniform = lambda text, spans: [1.0] * len(spans)  # noqa: E731
    assert precision(gold, SYS_P, weights=uniform) == 15 / 22


def test_weight_function_must_return_one_weight_per_token(gold):
    with pytest.raises(ValueError, match="weights"):
        precision(gold, SYS_P, weights=lambda text, spans: [1.0])


# --------------------------------------------------------------------------- #
# (f) per-type recall, (g) empty masked list, evaluate()
# --------------------------------------------------------------------------- #


def test_per_type_recall(gold):
    # SYS_L: CODE E1 3/3 + F1 2/2; PERSON 3/3 + 4/4; DEM British 0/1 +
    # researcher 0/1; DATETIME 3/3 + 3/3; LOC F3 1/3 ("of"); E5 is NO_MASK.
    assert per_type_recall(gold, SYS_L) == {
        "CODE": 1.0,
        "DATETIME": 1.0,
        "DEM": 0.0,
        "LOC": 1 / 3,
        "PERSON": 1.0,
    }


def test_empty_masked_list(gold):
    result = evaluate(gold, {"d1": []})
    assert result["n_docs"] == 1
    # Nothing masked, yet the skip words "no" (E1), "Mr" (F2) and "of" (F3)
    # count as masked tokens: 3/23 (TAB script behaviour).
    assert result["counts"]["recall"] == [3, 23]
    assert result["recall"] == 3 / 23
    assert result["counts"]["mention_recall"] == [0, 11]
    assert result["counts"]["er_di"] == [0, 4]
    assert result["counts"]["er_qi"] == [0, 5]
    # No system token: 0/0 -> 0.
    assert result["counts"]["precision"] == [0.0, 0.0]
    assert result["precision"] == 0.0
    assert result["counts"]["per_type_recall"] == {
        "CODE": [1, 5],
        "DATETIME": [0, 6],
        "DEM": [0, 2],
        "LOC": [1, 3],
        "PERSON": [1, 7],
    }
    # No document at all.
    nothing = evaluate(gold, {})
    assert nothing["n_docs"] == 0
    assert nothing["recall"] == nothing["precision"] == nothing["er_di"] == 0.0
    assert nothing["per_type_recall"] == {}


def test_evaluate_two_documents(gold):
    masked = {**SYS_P, **SYS_D2}
    result = evaluate(gold, masked, weights=char_length_weights)
    # Sums of the per-document hand counts above (d1 with SYS_P, d2 with SYS_D2).
    assert result["counts"] == {
        "recall": [17 + 3, 23 + 5],
        "recall_direct": [8 + 2, 12 + 3],
        "recall_quasi": [9 + 1, 11 + 2],
        "mention_recall": [7 + 2, 11 + 4],
        "er_di": [2 + 1, 4 + 1],
        "er_qi": [3 + 1, 5 + 1],
        "precision": [15.0 + 2.0, 22.0 + 2.0],
        # Whole system spans: John Doe 2, Doe 2, "the Kingdom of Sweden" 0
        # (no gold mention contains "the"), date 2, Application 0 -> 6 of 10;
        # d2: "Smith" inside "Mr. Smith", "Norway" -> 2 of 2.
        "mention_precision": [6.0 + 2.0, 10.0 + 2.0],
        # d2 tokens Smith (5) and Norway (6), both covered by its one annotator.
        "weighted_precision": [59.0 + 11.0, 102.0 + 11.0],
        # d1 SYS_P: CODE E1 "no" 1/3 + F1 0/2; PERSON 3/3 + 4/4 (+ d2 S 2/3);
        # DEM 0/2; DATETIME 6/6; LOC F3 3/3 (+ d2 N 1/2).
        "per_type_recall": {
            "CODE": [1, 5],
            "DATETIME": [6, 6],
            "DEM": [0, 2],
            "LOC": [4, 5],
            "PERSON": [9, 10],
        },
    }
    assert result["n_docs"] == 2
    assert result["recall"] == 20 / 28
    assert result["recall_direct"] == 10 / 15
    assert result["recall_quasi"] == 10 / 13
    assert result["mention_recall"] == 9 / 15
    assert result["er_di"] == 3 / 5
    assert result["er_qi"] == 4 / 6
    assert result["precision"] == 17 / 24
    assert result["mention_precision"] == 8 / 12
    assert result["weighted_precision"] == 70 / 113
    assert result["per_type_recall"]["PERSON"] == 9 / 10
    assert evaluate(gold, masked)["weighted_precision"] is None


def test_functions_agree_with_evaluate(gold):
    masked = {**SYS_L, **SYS_D2}
    result = evaluate(gold, masked)
    prepared = prepare_gold(gold)  # reusable index, same results
    assert result["recall"] == token_recall(prepared, masked)
    assert result["recall_quasi"] == token_recall(prepared, masked, include_direct=False)
    assert result["mention_recall"] == mention_recall(prepared, masked)
    assert result["er_di"] == entity_recall(prepared, masked, include_quasi=False)
    assert result["precision"] == precision(prepared, masked)
    assert result["mention_precision"] == precision(prepared, masked, token_level=False)
    assert result["per_type_recall"] == per_type_recall(prepared, masked)


def test_unknown_doc_id_raises_without_quoting_it(gold):
    # a doc_id is data (an application number, a name): the message names the document by its position
    with pytest.raises(KeyError) as raised:
        evaluate(gold, {"d1": [], "Galip Yalman": []})
    assert raised.value.args[0] == "masked document 1 (in the order given) is not in the gold documents"


def test_span_outside_text_raises(gold):
    with pytest.raises(ValueError) as raised:
        precision(gold, {"d2": [(50, 500)]})
    assert str(raised.value).startswith("masked document 0: span [50, 500] outside the text (length ")
    assert "d2" not in str(raised.value)


def test_duplicate_entity_id_in_hand_built_document(gold):
    doc = parse_tab([{"doc_id": "x", "text": "ab", "annotations": {}}])[0]
    mention = gold[0].annotations["annotator1"][0]
    doc.annotations = {"a": [mention], "b": [mention]}
    with pytest.raises(ValueError, match="used by annotators"):
        build_entities(doc)


# --------------------------------------------------------------------------- #
# Real TAB dev documents
# --------------------------------------------------------------------------- #


def _dev():
    if not DEV.exists():
        pytest.skip(f"{DEV} not available")
    return read_tab(DEV)


def test_dev_masking_gold_identifiers():
    dev = _dev()
    masked = {
        doc.doc_id: [
            (m.start, m.end)
            for mentions in doc.annotations.values()
            for m in mentions
            if m.identifier_type != "NO_MASK"
        ]
        for doc in dev
    }
    result = evaluate(dev, masked)
    assert result["n_docs"] == 21
    assert result["er_di"] == 1.0
    assert result["er_qi"] == 1.0
    assert result["precision"] == 1.0
    assert result["recall_direct"] == 1.0
    # Token recall is NOT 1.0: it also counts the NO_MASK mentions of entities
    # that need masking (12 such mentions in dev.json, 21 tokens), which the
    # gold DIRECT/QUASI mask leaves as they are.
    assert result["counts"]["recall"] == [1483, 1504]
    assert result["counts"]["mention_recall"] == [560, 572]


def test_dev_masking_every_mention_of_entities_to_mask():
    dev = _dev()
    gold = prepare_gold(dev)
    masked = {doc_id: [m for e in doc.entities_to_mask() for m in e.mentions] for doc_id, doc in gold.items()}
    result = evaluate(gold, masked)
    assert result["recall"] == 1.0
    assert result["mention_recall"] == 1.0
    assert result["er_di"] == result["er_qi"] == 1.0
    # The extra NO_MASK mentions' tokens are not credited.
    assert result["precision"] < 1.0
