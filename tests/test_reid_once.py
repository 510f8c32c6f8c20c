"""reid_once: reid_risk's word frequencies (one cached function per language) and its warm-up, the attack
planned once on the background's own first terms while the pipeline loads."""

from __future__ import annotations

import logging

import pytest

from spacy_textsan.decide import reid_once
from spacy_textsan.decide.reid_risk import ReidRisk
from spacy_textsan.risk.background import Background
from spacy_textsan.risk.reid_index import BackgroundIndex

RECORDS = [("kim", "Kim golden seals painter"), ("lee", "Lee silver coins painter")]


@pytest.fixture(scope="module")
def index() -> BackgroundIndex:
    return BackgroundIndex.build(RECORDS)


def test_warm_up_plans_a_document_of_the_backgrounds_first_terms(index, monkeypatch) -> None:
    seen: list[tuple[str, int, float, int]] = []
    real = reid_once.plan_masks

    def spy(background, doc, **settings):
        seen.append((doc.text, settings["k"], settings["margin"], settings["max_steps"]))
        return real(background, doc, **settings)

    monkeypatch.setattr(reid_once, "plan_masks", spy)
    reid_once.warm_up(index, 7, 0.25)
    # the stems of the records' words, in the order the index first met them (stop words are not indexed)
    assert seen == [("kim golden seal painter lee silver coin", 7, 0.25, 3)]


def test_warm_up_that_fails_is_logged_and_left_to_the_first_document(index, monkeypatch, caplog) -> None:
    def broken(background, doc, **settings):
        raise RuntimeError("no kernels")

    monkeypatch.setattr(reid_once, "plan_masks", broken)
    with caplog.at_level(logging.DEBUG, logger="spacy_textsan"):
        reid_once.warm_up(index, 10, 0.12)  # does not raise
    assert "reid_risk: the warm-up failed: no kernels" in caplog.text


def test_reid_risk_warms_up_over_the_background_it_loads(index, tmp_path, monkeypatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr("spacy_textsan.decide.reid_risk.warm_up", lambda ix, k, margin: calls.append(k))
    ReidRisk(index=index, k=4)
    assert calls == [4]
    calls.clear()
    ReidRisk(background=Background(tmp_path / "missing"), k=4)  # no index loaded: nothing to warm
    assert calls == []


def test_word_zipf_is_one_cached_function_per_language() -> None:
    english = reid_once.word_zipf("en")
    assert reid_once.word_zipf("en") is english
    assert english("the") == english("the") > 6.0 > english("yalman")
    assert english.cache_info().hits >= 1
    assert english("kontakt") == reid_once.CUE_ZIPF  # a cue word of the detector's lists counts as common
