"""The inverted index and Algorithm 1 of Papadopoulou et al. 2022b on small hand-checked data."""

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyroaring import BitMap

from spacy_textsan.io import InputError
from spacy_textsan.risk.kanon_algorithm import (
    CombinationBudgetExceeded,
    risky_combinations,
    risky_terms,
    select_terms,
    terms_to_mask,
)
from spacy_textsan.risk.kanon_index import InvertedIndex, normalize_term
from spacy_textsan.risk.kanon_records import index_from_records_file, read_records_csv, read_records_jsonl

FIX = Path(__file__).parent / "fixtures" / "kanon"

# Six individuals (record id = position). Posting lists:
#   ankara {0,1,2,5} (4)   1961 {0,1,3,5} (4)   teacher {0,2,3} (3)
#   lawyer {1,4,5} (3)     izmir {3,4} (2)      1970 {2,4} (2)
#   galip yalman {5} (1)   yalman {5} (1)
RECORDS = [
    ["Ankara", "1961", "teacher"],
    ["Ankara", "1961", "lawyer"],
    ["Ankara", "1970", "teacher"],
    ["Izmir", "1961", "teacher"],
    ["Izmir", "1970", "lawyer"],
    ["Mr Galip Yalman", "Yalman", "Ankara", "1961", "lawyer"],
]
DOC = ["galip yalman", "ankara", "1961", "teacher", "1970"]


@pytest.fixture
def index():
    return InvertedIndex.from_records(RECORDS)


# -- normalisation -------------------------------------------------------------


@pytest.mark.parametrize(
    "text,expected",
    [
        ("  Mr.  Galip   YALMAN ", "galip yalman"),
        ("Dr Ada Lee", "ada lee"),
        ("Prof. Dr. Ada Lee", "ada lee"),
        ("the Ankara Bar.", "ankara bar"),
        ("An Post", "post"),
        ("(1961)", "1961"),
        ("“Ankara”", "ankara"),
        ("O’Brien", "o'brien"),
        ("Straße", "strasse"),
        ("ＡＢＣ", "abc"),
        ("Dr", "dr"),  # a title alone is kept
        ("The", "the"),
        ("J.S. Bach.", "j.s. bach"),
        ("48213/09", "48213/09"),
        ("—", ""),
        ("Mr.\n\tLee", "lee"),
    ],
)
def test_normalize_term(text, expected):
    assert normalize_term(text) == expected
    assert normalize_term(text, "PERSON") == expected  # label does not change the key


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_normalize_term_is_idempotent(text):
    once = normalize_term(text)
    assert normalize_term(once) == once


# -- the index -------------------------------------------------------------------


def test_counts_and_postings(index):
    assert index.n_records == 6 and len(index) == 8
    assert index.postings("ankara") == BitMap([0, 1, 2, 5])
    assert index.count("ANKARA") == 4  # queries are normalised too
    assert index.count("Galip Yalman") == 1 and index.count("Dr. Galip Yalman") == 1
    assert index.count("unknown") == 0 and len(index.postings("unknown")) == 0
    assert "Izmir" in index and "Paris" not in index
    assert sorted(index.terms()) == ["1961", "1970", "ankara", "galip yalman", "izmir", "lawyer", "teacher", "yalman"]


def test_intersection_count(index):
    assert index.intersection_count(["ankara", "1961"]) == 3  # {0,1,5}
    assert index.intersection_count(["ankara", "1970"]) == 1  # {2}
    assert index.intersection_count(["1961", "1970"]) == 0
    assert index.intersection_count(["ankara", "1961", "teacher"]) == 1  # {0}
    assert index.intersection_count(["ankara", "1961", "lawyer"]) == 2  # {1,5}
    assert index.intersection_count(["ankara", "unknown", "1961"]) == 0
    assert index.intersection_count(["teacher"]) == 3
    assert index.intersection_count([]) == 6


def test_add_record_matches_from_records(index):
    built = InvertedIndex()
    assert [built.add_record(r) for r in RECORDS] == [0, 1, 2, 3, 4, 5]
    assert built.n_records == 6 and len(built) == 8
    for term in index.terms():
        assert built.postings(term) == index.postings(term)
    # a frozen index accepts new records; duplicates and empty terms are ignored
    assert index.add_record(["Ankara", "ankara", "", "?!"]) == 6
    assert index.count("ankara") == 5 and index.n_records == 7 and len(index) == 8
    assert index.add_record([]) == 7 and index.n_records == 8


def test_exact_keys_without_normalisation():
    idx = InvertedIndex.from_records([["Ankara"], ["ankara"]], normalise=False)
    assert idx.count("Ankara") == 1 and idx.count("ankara") == 1 and len(idx) == 2


def test_bytes_round_trip(index):
    copy = InvertedIndex.from_bytes(index.to_bytes())
    assert (copy.n_records, len(copy), copy.normalise) == (6, 8, True)
    for term in index.terms():
        assert copy.postings(term) == index.postings(term)
    assert copy.intersection_count(["ankara", "1970"]) == 1


def test_disk_round_trip(index, tmp_path):
    index.to_disk(tmp_path / "idx")
    import srsly

    meta = srsly.read_json(tmp_path / "idx" / "meta.json")
    assert meta == {"version": 1, "n_records": 6, "n_terms": 8, "normalise": True}
    copy = InvertedIndex.from_disk(tmp_path / "idx")
    assert copy.to_bytes() == index.to_bytes()


def test_bad_serialized_index(tmp_path):
    with pytest.raises(ValueError, match="not a k-anonymity index directory"):
        InvertedIndex.from_disk(tmp_path)
    with pytest.raises(ValueError, match="not a k-anonymity index"):
        InvertedIndex.from_bytes(b"\xc1garbage")
    InvertedIndex.from_records([["a"]]).to_disk(tmp_path)
    (tmp_path / "meta.json").write_text('{"version": 99, "n_records": 1, "n_terms": 1}')
    with pytest.raises(ValueError, match="unsupported k-anonymity index version 99"):
        InvertedIndex.from_disk(tmp_path)


# -- risky terms and combinations ----------------------------------------------------


def test_risky_terms(index):
    assert risky_terms(DOC, index, k=2) == ["galip yalman"]
    # izmir and 1970 have 2 postings; an unknown term has 0
    assert risky_terms(DOC + ["izmir", "Paris", "galip yalman"], index, k=3) == [
        "galip yalman",
        "1970",
        "izmir",
        "Paris",
    ]
    assert risky_terms(DOC, index, k=1) == []


def test_risky_combinations_pairs(index):
    # safe terms (k=2): ankara, 1961, teacher, 1970. Pairs in order:
    #   ankara+1961 3, ankara+teacher 2, ankara+1970 1 (risky), 1961+teacher 2,
    #   1961+1970 0 (no one: not risky), teacher+1970 1 (risky)
    combos, complete = risky_combinations(DOC, index, k=2)
    assert combos == [("ankara", "1970"), ("teacher", "1970")] and complete


def test_risky_combinations_minimal_triples(index):
    # triples: ankara+1961+teacher = {0} (risky); every other triple contains a
    # risky pair or the empty pair 1961+1970 and is not even evaluated
    combos, complete = risky_combinations(DOC, index, k=2, max_arity=3)
    assert combos == [("ankara", "1970"), ("teacher", "1970"), ("ankara", "1961", "teacher")]
    assert complete
    # 6 pairs + 1 triple evaluated: a budget of 7 suffices, 6 does not
    assert risky_combinations(DOC, index, k=2, max_arity=3, max_combinations=7) == (combos, True)
    assert risky_combinations(DOC, index, k=2, max_arity=3, max_combinations=6) == (combos[:2], False)
    assert risky_combinations(DOC, index, k=2, max_arity=3, max_combinations=3) == ([("ankara", "1970")], False)


def test_risky_combinations_deterministic(index):
    shuffled = ["teacher", "1970", "ankara", "1961", "galip yalman", "teacher"]
    first = risky_combinations(shuffled, index, k=2, max_arity=3)
    assert all(risky_combinations(shuffled, index, k=2, max_arity=3) == first for _ in range(5))
    # tuples keep input order
    assert first == ([("teacher", "1970"), ("1970", "ankara"), ("teacher", "ankara", "1961")], True)


def test_risky_combinations_k1_and_arity1(index):
    assert risky_combinations(DOC, index, k=1, max_arity=3) == ([], True)
    assert risky_combinations(DOC, index, k=2, max_arity=1) == ([], True)


# -- Algorithm 1 -----------------------------------------------------------------


def test_terms_to_mask_greedy(index):
    # 'galip yalman' (1 < 2) first; the first breach is ankara+1970 (1 record):
    # 1970 has the shorter list (2 < 4). Then ankara, 1961, teacher pairs all >= 2.
    assert terms_to_mask(DOC, index, k=2, max_arity=2) == ["galip yalman", "1970"]
    # with triples: ankara+1961+teacher = {0}; teacher has the shortest list (3)
    assert terms_to_mask(DOC, index, k=2, max_arity=3) == ["galip yalman", "1970", "teacher"]
    assert select_terms(DOC, index, k=2, max_arity=3) == [
        ("galip yalman", None, 1),
        ("1970", ("ankara", "1970"), 1),
        ("teacher", ("ankara", "1961", "teacher"), 1),
    ]


def test_terms_to_mask_greedy_ties_by_term():
    idx = InvertedIndex.from_records([["b", "a"], ["b", "c"], ["a", "c"]])
    # every term has 2 postings; b+a = {0} breaks k=2: tie -> 'a';
    # then b+c = {1}: tie -> 'b'; c alone is left
    assert terms_to_mask(["b", "a", "c"], idx, k=2) == ["a", "b"]


def test_terms_to_mask_masks_everything_when_needed():
    idx = InvertedIndex.from_records([["x", "y"], ["x"], ["y"]])
    assert terms_to_mask(["x", "y"], idx, k=3) == ["x", "y"]  # both alone < 3
    assert terms_to_mask(["x", "y"], idx, k=2) == ["x"]  # x+y = {0}: tie -> x


def test_terms_to_mask_random_is_seeded(index):
    # the only random draws: choice among the breached pair(s), in order
    for seed in range(5):
        rng = random.Random(seed)
        expected = ["galip yalman"]
        first = rng.choice(["ankara", "1970"])
        expected.append(first)
        if first == "ankara":  # remaining 1961, teacher, 1970: teacher+1970 = {2}
            expected.append(rng.choice(["teacher", "1970"]))
        assert terms_to_mask(DOC, index, k=2, selection="random", seed=seed) == expected
    assert terms_to_mask(DOC, index, k=2, selection="random", seed=0) == ["galip yalman", "1970"]
    assert terms_to_mask(DOC, index, k=2, selection="random", seed=1) == ["galip yalman", "ankara", "teacher"]


def test_terms_to_mask_budget(index):
    with pytest.raises(CombinationBudgetExceeded) as info:
        terms_to_mask(DOC, index, k=2, max_arity=3, max_combinations=2)
    assert info.value.partial == ["galip yalman"]
    assert terms_to_mask(DOC, index, k=2, max_arity=2, max_combinations=6) == ["galip yalman", "1970"]


def test_bad_selection(index):
    with pytest.raises(ValueError, match="selection"):
        terms_to_mask(DOC, index, k=2, selection="best")


# -- loaders ----------------------------------------------------------------------


def test_read_records_jsonl():
    records = list(read_records_jsonl(FIX / "people.jsonl", ["city", "birth_year", "occupation"]))
    assert records == [
        ["Ankara", "1961", "teacher"],
        ["Ankara", "1961", "lawyer", "Judge"],
        ["the Ankara", "1970", "teacher"],
        ["Izmir", "1961"],
    ]
    idx = index_from_records_file(FIX / "people.jsonl", ["city", "birth_year", "occupation"])
    assert (idx.n_records, len(idx)) == (4, 7)
    assert [idx.count(t) for t in ["ankara", "1961", "teacher", "judge", "izmir"]] == [3, 3, 2, 1, 1]


@pytest.mark.parametrize(
    "name,fields,message",
    [
        ("bad_json.jsonl", ["city"], "bad_json.jsonl:3: invalid JSON"),
        ("bad_object.jsonl", ["city"], "bad_object.jsonl:2: expected a JSON object"),
        ("bad_value.jsonl", ["city"], "bad_value.jsonl:3: field 'city' holds an object"),
        ("people.jsonl", ["town"], "people.jsonl: no record has any of the fields 'town'"),
        ("people.jsonl", ["unused"], "people.jsonl:4: field 'unused' holds an object"),
    ],
)
def test_read_records_jsonl_errors(name, fields, message):
    with pytest.raises(InputError) as info:
        index_from_records_file(FIX / name, fields)
    assert str(info.value).startswith(str(FIX / message))


def test_read_records_csv():
    records = list(read_records_csv(FIX / "people.csv", ["city", "occupation"], multi_value_sep="|"))
    assert records == [["Ankara", "teacher", "judge"], ["Izmir"], ["Ankara", "teacher"]]
    idx = index_from_records_file(FIX / "people.csv", ["name", "city"])
    assert (idx.n_records, len(idx), idx.count("ankara"), idx.count("b. baysal")) == (3, 5, 2, 1)


def test_read_records_csv_errors():
    with pytest.raises(InputError) as info:
        index_from_records_file(FIX / "bad_row.csv", ["city"])
    assert str(info.value).startswith(f"{FIX / 'bad_row.csv'}:3: row has 2 fields, the header has 3")
    with pytest.raises(InputError, match="unknown column 'town'"):
        index_from_records_file(FIX / "people.csv", ["town"])
    with pytest.raises(InputError, match="records must be JSONL"):
        index_from_records_file(FIX / "docs.txt", ["city"])
