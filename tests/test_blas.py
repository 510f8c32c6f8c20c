"""risk/blas.one_blas_thread: the attack's products run on one BLAS thread, and the process gets its setting
back afterwards (threadpoolctl reads the libraries' own counts)."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from spacy_textsan.risk import reid_attack
from spacy_textsan.risk.blas import one_blas_thread
from spacy_textsan.risk.reid_attack import DocWords
from spacy_textsan.risk.reid_family import words_of
from spacy_textsan.risk.reid_index import BackgroundIndex


def _blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_one_blas_thread_holds_blas_to_one_thread_and_gives_the_setting_back() -> None:
    np.ones((4, 4)) @ np.ones((4, 4))  # numpy's BLAS is loaded
    assert _blas_threads(), "no BLAS library found in the process"
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        assert before and all(n == 2 for n in before)

        @one_blas_thread
        def inside(x: int) -> tuple[int, list[int]]:
            return x + 1, _blas_threads()

        result, during = inside(41)
        assert result == 42
        assert during == [1] * len(before)
        assert _blas_threads() == before


def test_one_blas_thread_gives_the_setting_back_when_the_function_raises() -> None:
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()

        @one_blas_thread
        def fails() -> None:
            assert _blas_threads() == [1] * len(before)
            raise ValueError("no")

        with pytest.raises(ValueError, match="no"):
            fails()
        assert _blas_threads() == before


def test_plan_masks_runs_on_one_blas_thread(monkeypatch) -> None:
    index = BackgroundIndex.build([("kim", "Kim golden seals painter"), ("lee", "Lee silver coins painter")])
    text = "Kim, a painter, collects golden seals."
    words = words_of(text)
    seen: list[list[int]] = []
    real = reid_attack.view_of

    def spy(*args, **kwargs):  # the attack's final view, computed inside plan_masks
        seen.append(_blas_threads())
        return real(*args, **kwargs)

    doc = DocWords(text, words, list(range(len(words))), [w.end - w.start for w in words])
    reid_attack.plan_masks(index, doc, k=2, margin=0.1)  # imports what the attack imports on its first run
    monkeypatch.setattr(reid_attack, "view_of", spy)
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        plan = reid_attack.plan_masks(index, doc, k=2, margin=0.1)
        assert _blas_threads() == before
    assert plan.view is not None
    assert seen and all(threads == [1] * len(before) for threads in seen)
