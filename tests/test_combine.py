import pytest

from spacy_textsan.detect.privacy_ner.combine import (
    Candidate,
    combine,
    intersect,
    resolve_overlaps,
    union,
    yield_to_amounts,
)

A = [Candidate(0, 10, "PERSON", "a"), Candidate(20, 30, "ORG", "a")]
B = [Candidate(5, 15, "LOC", "b"), Candidate(22, 25, "ORG", "b"), Candidate(40, 45, "DEM", "b")]


def test_union_keeps_everything():
    assert union([A, B]) == A + B


def test_intersection_on_characters_takes_first_sources_label():
    assert intersect([A, B]) == [
        Candidate(5, 10, "PERSON", "a+b", 1),
        Candidate(22, 25, "ORG", "a+b", 1),
    ]
    assert intersect([A]) == [Candidate(0, 10, "PERSON", "a", 1), Candidate(20, 30, "ORG", "a", 1)]
    assert intersect([A, []]) == []


def test_combine_rejects_unknown_mode():
    with pytest.raises(ValueError, match="union' or 'intersection"):
        combine([A], "majority")


def test_resolve_overlaps_priority_then_length_then_rules():
    cands = [
        Candidate(0, 20, "ORG", "ner:x:ORG", 1),
        Candidate(5, 12, "CODE", "rule:application_number", 2),  # higher priority wins over longer
        Candidate(30, 40, "CODE", "ner:x:CARDINAL", 1),
        Candidate(30, 40, "DATETIME", "rule:date_numeric", 1),  # same length: the rule wins
        Candidate(50, 60, "LOC", "ner:x:GPE", 1),
        Candidate(50, 55, "LOC", "ner:x:GPE", 1),  # shorter loses
        Candidate(70, 70, "LOC", "empty", 1),  # empty dropped
    ]
    assert resolve_overlaps(cands) == [cands[1], cands[3], cands[4]]


def test_a_source_number_yields_to_an_amount_of_the_rule_layer():
    """'approximately 80,000' (a CARDINAL, read as a CODE) over '80,000 euros (EUR)': the amount's number."""
    text = "(approximately 80,000 euros (EUR) at the time); file 4512345 of 2001 and 123456."
    cardinal = Candidate(1, 21, "CODE", "ner:x:CARDINAL")
    amount = Candidate(15, 33, "QUANTITY", "rule:money_amount_first")
    file_no = Candidate(52, 59, "CODE", "ner:x:CARDINAL")  # no amount near it: a code
    ner_money = Candidate(70, 76, "QUANTITY", "ner:x:MONEY")  # an amount of a source NER is not the rule layer's
    bare = Candidate(70, 76, "CODE", "ner:x:CARDINAL")
    assert text[cardinal.start : cardinal.end] == "approximately 80,000"
    assert text[amount.start : amount.end] == "80,000 euros (EUR)"
    assert yield_to_amounts([cardinal, amount, file_no, ner_money, bare]) == [amount, file_no, ner_money, bare]
    assert resolve_overlaps(yield_to_amounts([cardinal, amount])) == [amount]
    assert resolve_overlaps([cardinal, amount]) == [cardinal]  # what it was: the longer code won
