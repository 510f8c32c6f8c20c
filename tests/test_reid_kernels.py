"""The compiled passes over a background's postings (spacy_textsan/risk/reid_kernels.py), on hand-made postings."""

import gc
import math
import threading

import numpy as np
import pytest

from spacy_textsan.risk import reid_kernels
from spacy_textsan.risk.reid_family import TermPostings
from spacy_textsan.risk.reid_kernels import competing, finish, nth_largest, record_ranges, repeated_sums, totals
from spacy_textsan.risk.reid_scores import _BUFFERS, _weights

# four records: lengths 3, 2, 4, 1; "seals" twice in record 0 and three times in record 2
RECORDS = [["seals", "seals", "golden"], ["golden", "harbour"], ["seals", "seals", "seals", "x"], ["harbour"]]


@pytest.fixture(autouse=True, params=["calling thread", "every core"])
def threads(request, monkeypatch):
    # a background of at most SERIAL_RECORDS records is read on the calling thread, a larger one on every
    # core: every test runs both ways (0 sends these four records to the parallel passes)
    if request.param == "every core":
        monkeypatch.setattr(reid_kernels, "SERIAL_RECORDS", 0)
    return request.param


@pytest.fixture()
def postings():
    return TermPostings.from_term_lists(RECORDS)


def term_slices(postings, terms):
    ids = np.array([postings.term_id(t) for t in terms])
    return ids, postings.indptr[ids], postings.indptr[ids + 1]


def test_the_postings_held_more_than_once(postings):
    indptr, records, tf = postings.repeated()
    seals, golden = postings.term_id("seals"), postings.term_id("golden")
    assert records[indptr[seals] : indptr[seals + 1]].tolist() == [0, 2]
    assert tf[indptr[seals] : indptr[seals + 1]].tolist() == [2, 3]
    assert indptr[golden] == indptr[golden + 1]  # golden is held once wherever it is


def test_competing_counts_the_records_that_hold_a_term_and_leaves_out_the_excluded(postings):
    _, starts, ends = term_slices(postings, ["seals", "harbour"])
    lengths = np.asarray(postings.lengths)
    none = np.zeros(4, dtype=np.uint8)
    n, total, df = competing(postings.records, starts, ends, lengths, none, record_ranges(4))
    assert (n, total, df.tolist()) == (4, 10.0, [2, 2])
    # record 2 left out: three records, lengths 3 + 2 + 1
    n, total, df = competing(
        postings.records, starts, ends, lengths, np.array([0, 0, 1, 0], np.uint8), record_ranges(4)
    )
    assert (n, total, df.tolist()) == (3, 6.0, [1, 2])


def test_totals_add_each_terms_number_wherever_it_is_held_whatever_the_ranges(postings):
    _, starts, ends = term_slices(postings, ["seals", "golden", "harbour"])
    per_term = np.array([1.0, 10.0, 100.0])
    for ranges in (np.array([0, 4]), np.array([0, 1, 2, 3, 4]), np.array([0, 3, 4])):
        out = np.full(4, -7.0)  # written over, whatever it held
        totals(postings.records, starts, ends, per_term, out, ranges)
        assert out.tolist() == [11.0, 110.0, 1.0, 100.0]
    # a term counted 0 times adds nothing
    out = np.empty(4)
    totals(postings.records, starts, ends, np.array([0.0, 10.0, 0.0]), out, record_ranges(4))
    assert out.tolist() == [10.0, 10.0, 0.0, 0.0]


def test_repeated_sums_are_bm25s_and_the_cosines_parts_beyond_one_occurrence(postings):
    ids, _, _ = term_slices(postings, ["seals", "golden"])
    indptr, records, tf = postings.repeated()
    lengths, mean = np.asarray(postings.lengths), 2.5

    def sums(cosine):
        out = np.empty(4)
        args = (records, tf, indptr[ids], indptr[ids + 1], np.array([2.0, 5.0]), lengths, mean, 1.5, 0.75)
        repeated_sums(*args, cosine, out, record_ranges(4))
        return out

    def bm25(t, length):
        norm = 1.5 * (0.25 + 0.75 * length / mean)
        return t / (t + norm) - 1 / (1 + norm)

    # golden is held once everywhere: only seals' postings held twice (record 0) and three times (record 2)
    assert sums(False) == pytest.approx([2 * bm25(2, 3), 0.0, 2 * bm25(3, 4), 0.0])
    cosine = [2 * math.log(2) / math.sqrt(3 / mean), 0.0, 2 * math.log(3) / math.sqrt(4 / mean), 0.0]
    assert sums(True) == pytest.approx(cosine)


def test_finish_weighs_a_single_occurrence_by_the_records_length():
    total, more, lengths = np.array([1.0, 2.0]), np.array([0.5, 0.0]), np.array([2, 6], dtype=np.int32)
    once = [1 / (1 + 1.5 * (0.25 + 0.75 * x / 4)) for x in (2, 6)]
    assert finish(total, more, lengths, 4.0, 1.5, 0.75, 0.4, 0) == pytest.approx([once[0] + 0.5, 2 * once[1]])
    assert finish(total, more, lengths, 4.0, 1.5, 0.75, 0.4, 1) == pytest.approx(
        [once[0] + 0.4 + 0.5, 2 * (once[1] + 0.4)]
    )
    cosine = [1 / math.sqrt(0.5), 1 / math.sqrt(1.5)]
    assert finish(total, more, lengths, 4.0, 1.5, 0.75, 0.4, 2) == pytest.approx([cosine[0] + 0.5, 2 * cosine[1]])


def test_nth_largest_counts_repeats_as_a_partition_does():
    values = np.array([3.0, 1.0, 3.0, 2.0, 5.0, 3.0])
    assert [nth_largest(values, n) for n in range(1, 7)] == [5.0, 3.0, 3.0, 3.0, 2.0, 1.0]
    rng = np.random.default_rng(7)
    for _ in range(30):
        v = rng.integers(0, 6, size=int(rng.integers(1, 40))).astype(float)
        n = int(rng.integers(1, len(v) + 1))
        assert nth_largest(v, n) == np.partition(v, len(v) - n)[len(v) - n]


def test_scores_from_threads_at_once_are_the_same_as_one_at_a_time(postings):
    # the parallel passes run one at a time (a service answering in threads must not crash or mix sums)
    terms = [postings.term_id(t) for t in ("seals", "golden", "harbour")]
    weights = _weights(postings, terms, np.zeros(4, dtype=bool))
    expected = {w: weights.scores(np.array([1.0, 2.0, 1.0]), w, 4).tolist() for w in ("lucene", "cosine", "robertson")}
    got, errors = [], []

    def work():
        try:
            mine = _weights(postings, terms, np.zeros(4, dtype=bool))
            for _ in range(20):
                got.append({w: mine.scores(np.array([1.0, 2.0, 1.0]), w, 4).tolist() for w in expected})
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(got) == 80 and all(g == expected for g in got)


def test_the_sums_arrays_go_back_to_the_pool_and_are_reused_without_their_old_values(postings):
    terms = [postings.term_id(t) for t in ("seals", "golden")]
    first = _weights(postings, terms, np.zeros(4, dtype=bool))
    before = first.scores(np.array([1.0, 1.0]), "lucene", 4).tolist()
    del first
    gc.collect()
    assert len(_BUFFERS._free.get(4, [])) >= 2  # its total and its BM25 part
    # other weights take those arrays: their own sums, nothing left of the first's
    second = _weights(postings, [postings.term_id("harbour")], np.zeros(4, dtype=bool))
    harbour = second.scores(np.array([1.0]), "lucene", 4)
    assert harbour[0] == 0.0 and harbour[2] == 0.0 and harbour[1] > 0 and harbour[3] > 0
    third = _weights(postings, terms, np.zeros(4, dtype=bool))
    assert third.scores(np.array([1.0, 1.0]), "lucene", 4).tolist() == before


def test_the_calling_thread_and_every_core_give_the_same_sums(monkeypatch):
    # 5,000 records, 40 terms of random postings: the same scores to the last bit either way
    rng = np.random.default_rng(7)
    lists = [[f"t{int(t)}" for t in rng.integers(0, 40, size=int(rng.integers(1, 9)))] for _ in range(5000)]
    postings = TermPostings.from_term_lists(lists)
    ids = np.arange(len(postings.vocab))
    starts, ends = postings.indptr[ids], postings.indptr[ids + 1]
    per_term = rng.random(len(ids))
    ranges = record_ranges(5000)
    out = {}
    for serial in (5000, 0):
        monkeypatch.setattr(reid_kernels, "SERIAL_RECORDS", serial)
        total = np.empty(5000)
        totals(postings.records, starts, ends, per_term, total, ranges)
        out[serial] = total
    assert out[5000].tobytes() == out[0].tobytes() and out[0].sum() > 0
