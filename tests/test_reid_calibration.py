"""The calibration set of reid_risk (benchmarks/reid_calibration/): made from the background alone, and the choice."""

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from reid_calibration.choose import choose  # noqa: E402
from reid_calibration.make_set import make_set, sentences, split_person  # noqa: E402

BODY = " ".join(f"Sentence {i} of Ada." for i in range(12))


def test_sentences_split_at_a_stop_before_a_capital_or_a_digit():
    assert sentences("Early life Ada was born in 1901. She left. 1920 was hard! e.g. lower stays") == [
        "Early life Ada was born in 1901.",
        "She left.",
        "1920 was hard! e.g. lower stays",
    ]


def test_a_person_gives_their_first_sentence_and_two_drawn_ones_which_leave_the_record():
    document, rest = split_person(BODY, random.Random(0))
    picked = sentences(document)
    assert len(picked) == 3 and picked[0] == "Sentence 0 of Ada."
    assert sorted(sentences(rest) + picked, key=lambda s: int(s.split()[1])) == sentences(BODY)
    assert not set(picked) & set(sentences(rest))
    assert split_person("Too short. Only two.", random.Random(0)) is None


def test_the_set_is_deterministic_and_keeps_every_other_record_whole():
    records = [{"id": f"p{i}", "text": BODY.replace("Ada", f"P{i}")} for i in range(5)]
    records.append({"id": "short", "text": "One sentence only."})
    documents, background = make_set(records, 2, seed=7)
    assert (documents, background) == make_set(records, 2, seed=7)
    assert [r["id"] for r in background] == [r["id"] for r in records]
    drawn = {d["id"] for d in documents}
    assert len(drawn) == 2 and "short" not in drawn
    for record, kept in zip(records, background, strict=True):
        assert (kept["text"] == record["text"]) is (record["id"] not in drawn)
    with pytest.raises(SystemExit, match="only 5 bodies"):
        make_set(records, 6, seed=7)


def row(k, margin, kept, worst):
    return {"k": k, "margin": margin, "chars_kept": kept, "worst": worst}


def test_the_choice_keeps_most_among_the_safe_settings_else_the_least_unsafe():
    rows = [row(5, 0.12, 0.70, 0.08), row(10, 0.12, 0.60, 0.05), row(20, 0.12, 0.50, 0.02), row(10, 0.24, 0.60, 0.04)]
    assert choose(rows, 0.05) == (rows[1], True)  # same kept: the smaller margin
    assert choose(rows, 0.01) == (rows[2], False)
