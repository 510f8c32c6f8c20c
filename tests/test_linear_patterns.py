"""The detector patterns are linear in the text: each one that backtracked
over long runs of the characters it accepts (quadratic, or exponential in the
length of a run) is written with bounded quantifiers, a start only where a run
starts, or an unambiguous split of a run.

No test here times anything (speed targets live in benchmarks:
benchmarks/hostile_inputs.py times every pattern on hostile runs at n and 4n
characters, and the whole pipeline at 20k and 200k). Instead, for each pattern
that changed, hand-written examples pin the exact spans that the bounded form
still finds, the bounds themselves are pinned where a bound is the fix, and a
long hostile run gives the expected matches (usually none).
"""

import re
from types import SimpleNamespace

import pytest

from spacy_textsan.detect.gazetteer.patterns import INSTITUTIONS_PATH, InstitutionFinder
from spacy_textsan.detect.privacy_ner import (
    addresses,
    adjacent_names,
    names,
    normalize,
    phones,
    places,
    script_names,
    standard_numbers,
    tables,
)
from spacy_textsan.detect.privacy_ner.adjacent_names import extend_person_names
from spacy_textsan.detect.privacy_ner.combine import PRIORITY_DEFAULT, Candidate
from spacy_textsan.detect.privacy_ner.network import find_network_ids
from spacy_textsan.detect.privacy_ner.privacy_ner import PrivacyNER
from spacy_textsan.detect.privacy_ner.rules import DEFAULT_PATTERNS, compile_patterns, find_rule_matches
from spacy_textsan.word_lists import read_list

#: Length of the hostile runs: long enough that a quadratic pattern would take seconds and an
#: exponential one forever, short enough that a linear one takes milliseconds.
N = 20_000


def run(unit: str, n: int = N) -> str:
    """``unit`` repeated, whole, to at most ``n`` characters."""
    return unit * (n // len(unit))


def rule_spans(name: str, text: str) -> list[str]:
    compiled = compile_patterns([p for p in DEFAULT_PATTERNS if p["name"] == name])
    return [text[m.start : m.end] for m in find_rule_matches(text, compiled)]


# --------------------------------------------------------------------------- #
# rules: e-mail, alphanumeric codes, amounts
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Write to j.o'connor+invoices@firm.co.uk today.", ["j.o'connor+invoices@firm.co.uk"]),
        ("ada.lee@example.com, b_c@d-e.org", ["ada.lee@example.com", "b_c@d-e.org"]),
        ("mail " + "a" * 64 + "@example.com", ["a" * 64 + "@example.com"]),  # a local part of 64
        ("mail x@" + "b" * 63 + ".com", ["x@" + "b" * 63 + ".com"]),  # a label of 63
        ("no address: a@b, a.@b.c, @x.com", []),
    ],
)
def test_email_spans(text, expected):
    assert rule_spans("email", text) == expected


def test_email_parts_are_bounded():
    assert rule_spans("email", "a" * 65 + "@example.com") == []  # RFC 5321: 64 at most
    assert rule_spans("email", "x@" + "b" * 64 + ".com") == []  # RFC 1035: 63 at most


@pytest.mark.parametrize("unit", ["O'", "A", "a.b-c_d", "a@", "a'a@b-"])
def test_email_on_hostile_runs(unit):
    assert rule_spans("email", run(unit)) == []


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Ref AB-12345 and 12-A4 and X1-2B", ["AB-12345", "X1-2B"]),
        ("case 2001-4578-AB", ["2001-4578-AB"]),
    ],
)
def test_alphanumeric_code_spans(text, expected):
    assert rule_spans("alphanumeric_code", text) == expected


@pytest.mark.parametrize("unit", ["A-", "1-", "A1-"])
def test_alphanumeric_code_on_hostile_runs(unit):
    assert rule_spans("alphanumeric_code", run(unit)) == []


def test_alphanumeric_codes_in_a_run_of_codes():
    found = rule_spans("alphanumeric_code", run("AB-1"))
    assert len(found) == 1000 and {len(f) for f in found} <= {19, 20}  # 23 characters at most


@pytest.mark.parametrize(
    "text,expected",
    [
        ("fined 1,000 euros and 2 500 000 pounds", ["1,000 euros", "2 500 000 pounds"]),
        ("two hundred thousand euros", ["two hundred thousand euros"]),
        ("12 345 678 901 234 dollars", ["12 345 678 901 234 dollars"]),
    ],
)
def test_amount_spans(text, expected):
    assert rule_spans("money_amount_first", text) == expected


@pytest.mark.parametrize("unit", ["123 ", "123,", "one ", "one-"])
def test_amounts_on_hostile_runs(unit):
    assert rule_spans("money_amount_first", run(unit)) == []


# --------------------------------------------------------------------------- #
# cued codes
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Passport KX4410983 was presented.", ["KX4410983"]),
        ("NHS number 485 777 3456 on file", ["485 777 3456"]),
        ("IBAN DE89370400440532013000.", ["DE89370400440532013000"]),
    ],
)
def test_cued_code_spans(text, expected):
    assert [text[m.start : m.end] for m in standard_numbers.find_cued_codes(text)] == expected


def test_cued_value_groups_are_bounded():
    value = standard_numbers._CUED_VALUE
    assert value.match("A1" * 24).group() == "A1" * 24  # 48 characters
    assert value.match("A1" * 24 + "B") is None


@pytest.mark.parametrize("text", ["ID " + run("A"), run("ID A "), run("Passport " + "AB-" * 20)])
def test_cued_codes_on_hostile_runs(text):
    assert standard_numbers.find_cued_codes(text) == []


# --------------------------------------------------------------------------- #
# name tokens, ALL-CAPS runs, mixed-script words, spelt-out letters
# --------------------------------------------------------------------------- #


def _token_texts(text: str) -> list[str]:
    return [text[s:e] for s, e, *_ in names._tokens(text)]


def test_name_token_spans():
    text = "O'Neill's file, J. Jean-Pierre Marie-Anne-Sophie-Claire and Yalman'ın"
    assert _token_texts(text) == [
        "O'Neill",
        "file",
        "J.",
        "Jean-Pierre",
        "Marie-Anne-Sophie-Claire",
        "and",
        "Yalman",
    ]
    chain = "-".join(["part"] * 21)  # 21 parts: the most a word has
    assert _token_texts(chain) == [chain]


@pytest.mark.parametrize("unit", ["O'", "A-", "a'", "A"])
def test_name_tokens_on_hostile_runs(unit):
    text = run(unit) + "-"  # a run that no word can end
    assert names._tokens(text) == []
    assert names.find_lexicon_names(text) == []


def test_caps_runs_spans():
    assert normalize.caps_runs("SIGNED: PEDER HALVORSEN and O'BRIEN-SMITH JR") == [
        (8, 23, "Peder Halvorsen"),
        (28, 44, "O'Brien-Smith Jr"),
    ]
    word = "A" * 40
    assert normalize.caps_runs(f"{word} SMITH") == [(0, 46, word.title() + " Smith")]
    assert normalize.caps_runs(f"{word}A SMITH") == []  # an ALL-CAPS word has 40 characters at most


@pytest.mark.parametrize("unit", ["O'", "A-", "AB'", "O'A "])
def test_caps_runs_on_hostile_runs(unit):
    runs = normalize.caps_runs(run(unit))
    if unit == "O'A ":  # "O'A O'A ...": short words, one run of all of them
        assert [(s, e) for s, e, _ in runs] == [(0, N - 1)]
    else:
        assert runs == []


def test_mixed_script_words_are_folded_whole():
    assert normalize.normalize("Mr \u0420e\u0434er and \u0420\u0435d\u0435r").text == "Mr Pe\u0434er and Peder"
    word = "A" * 3000 + "\u0430"  # Latin letters and a Cyrillic а: one word, folded whole
    assert normalize.normalize(f"{word} {word}").text == f"{'A' * 3000}a {'A' * 3000}a"
    assert normalize._MIXED_WORD.findall("ab\u0430 \u0430\u0430 x1_\u0441") == ["ab\u0430", "x1_\u0441"]


def test_spelt_out_letters():
    assert normalize.normalize("J O H N S M I T H").text == "JOHN SMITH"
    assert normalize.normalize("A " * 1999 + "A").text == "A" * 2000  # too long for a name: not split


# --------------------------------------------------------------------------- #
# addresses
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch, LL61 5UJ",
            ["Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch, LL61 5UJ"],
        ),
        ("Office: New Delhi-110001", ["New Delhi-110001"]),
        ("rue Jean-Baptiste-de-la-Salle 12", ["rue Jean-Baptiste-de-la-Salle 12"]),
        ("Calle Mayor, 5 and Calle Mayor5", ["Calle Mayor, 5", "Calle Mayor5"]),
        (
            "at Bischöflich-Geistlicher-Rat-Josef-Zinnbauer-Straße 12",
            ["Bischöflich-Geistlicher-Rat-Josef-Zinnbauer-Straße 12"],
        ),
        ("Magnus-Kramer-Platz 1, 10115 Berlin", ["Magnus-Kramer-Platz 1, 10115 Berlin"]),
        ("Springfield, IL 62704", ["Springfield, IL 62704"]),
        ("14 Baker Street" + " " * 200 + "10 Downing Street", ["14 Baker Street", "10 Downing Street"]),
    ],
)
def test_address_spans(text, expected):
    assert [text[m.start : m.end] for m in addresses.find_addresses(text)] == expected


def test_a_capitalised_word_is_bounded():
    cap = re.compile(addresses._CAP)
    assert cap.fullmatch("A" * 60) and not cap.fullmatch("A" * 61)
    # it ends where the word ends, before a digit, or before a hyphen and a digit
    assert [m.group() for m in cap.finditer("Saint-Denis Roma-12 Mayor5")] == ["Saint-Denis", "Roma-12", "Mayor5"]
    assert cap.match("Delhi-110001").group() in ("Delhi-110001", "Delhi")


@pytest.mark.parametrize("unit", ["A", "O'", "A-", "Aa-", "rue A-", "1 A", "A" * 60 + "1 "])
def test_addresses_on_hostile_runs(unit):
    text = run(unit)
    for name, regex, *_ in addresses._address_compiled():
        assert all(m.end() - m.start() < 400 for m in regex.finditer(text)), name
    assert all(m.end - m.start < 400 for m in addresses.find_addresses(text))


def test_address_glue_over_a_long_run_of_spaces():
    glue = addresses._ADDRESS_GLUE
    assert glue.match(" ,\n  ") and glue.match("\t\r\n") and glue.match(" , ") and not glue.match("  ")
    assert glue.match(" " * N) is None and glue.match(" " * N + ",") and glue.match(" " * N + "\n" + " " * N)


# --------------------------------------------------------------------------- #
# phones, scripts, records, fields
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Call 415.555.0132 today.", ["415.555.0132"]),
        ("Direct line: (212) 555-0199 x123", ["(212) 555-0199 x123"]),
        ("Reach the Hamburg office on +49 40 822119.", ["+49 40 822119"]),
        ("tel 4155550132", ["4155550132"]),
        ("call 12345 ext 12", ["12345 ext 12"]),
    ],
)
def test_phone_spans(text, expected):
    assert [text[m.start : m.end] for m in phones.find_phones(text)] == expected


def test_phone_regions_may_be_a_list():
    assert [(m.start, m.end) for m in phones.find_phones("tel 4155550132", ["US", "GB"])] == [(4, 14)]


def test_phone_candidates_split_runs_greedily():
    candidates = [m.group() for m in phones._PHONE_CANDIDATE.finditer("4155550132, 1234567890123, 12, (0)30 1234")]
    assert candidates == ["4155550132", "1234567890123", "12", "(0)30 1234"]


@pytest.mark.parametrize("unit", ["1" * 40 + "x ", "1", "1 ", "+1 ", "1-", "1."])
def test_phones_on_hostile_runs(unit):
    text = run(unit, 5000)  # each candidate is checked by libphonenumber: a shorter run
    found = phones.find_phones(text)
    assert all(m.end - m.start <= 60 for m in found)
    if unit.endswith("x "):
        assert found == [] and list(phones._PHONE_CANDIDATE.finditer(text)) == []


def test_script_names_spans():
    text = "Mr Иван Петров, Анна Смирнова and 王小明 met 山田・太郎 here"
    assert [text[s:e] for s, e, *_ in script_names.find_script_names(text, max_foreign_share=1.0)] == [
        "Иван Петров, Анна Смирнова",
        "王小明",
        "山田・太郎",
    ]


@pytest.mark.parametrize("unit", ["中" * 30 + "x ", "Иван" * 10 + "x ", "中", "中a"])
def test_script_names_on_hostile_runs(unit):
    text = run(unit)
    found = script_names.find_script_names(text, max_foreign_share=1.0)
    if unit.endswith("x "):
        assert found == []  # a word glued to a Latin letter is no name
    else:
        assert all(label == "MISC" for *_, label, _ in found)


@pytest.mark.parametrize(
    "cell,is_name",
    [
        ("Peder Halvorsen", True),
        ("St. Olav-Hospital", True),
        ("O'Neill", True),
        ("Ab Cd Ef Gh", True),
        ("Ab Cd Ef Gh Ij", False),  # five words
        ("peder", False),
        ("Ab  Cd", False),  # two spaces
        ("A" * 300 + "1", False),
    ],
)
def test_record_field_names(cell, is_name):
    assert bool(tables._RECORD_NAME.fullmatch(cell)) is is_name


def test_record_with_a_long_cell():
    text = "A" * 300 + "1;Peder Halvorsen;Oslo\n"
    assert [(text[m.start : m.end], m.label) for m in tables.find_table_cells(text)] == [
        ("Peder Halvorsen", "MISC"),
        ("Oslo", "MISC"),
    ]


def _field_pieces(text: str) -> list[str]:
    ner = SimpleNamespace(label_map={"PERSON": "PERSON"}, min_code_digits=4, lang="en")
    return [text[c.start : c.end] for c in PrivacyNER._map_ent(ner, text, 0, len(text), "PERSON", "src")]  # type: ignore[arg-type]  # a stand-in self


def test_an_entity_over_fields_is_cut_into_pieces():
    assert _field_pieces("Halvorsen\tPeder\n  Oslo ") == ["Halvorsen", "Peder", "  Oslo "]
    assert _field_pieces(" " * N + "\nPeder") == ["Peder"]


# --------------------------------------------------------------------------- #
# network identifiers, adjacent names, institutions
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text,expected",
    [
        ("username:\tjdoe42", ["jdoe42"]),
        ("user\tjdoe42", ["jdoe42"]),
        ("user \t \t jdoe42", ["jdoe42"]),
        ("Skype: kwame.mensah", ["kwame.mensah"]),
        ("write to lena dot fischer at web dot de", ["lena dot fischer at web dot de"]),
        ("ingrid [dot] solberg [at] gmail [dot] com", ["ingrid [dot] solberg [at] gmail [dot] com"]),
    ],
)
def test_network_id_spans(text, expected):
    assert sorted({text[m.start : m.end] for m in find_network_ids(text)}) == expected


@pytest.mark.parametrize(
    "text", ["user" + "\t" * N, "user:" + " " * N, run("lena dot "), run("x at "), "account is " + run("A")]
)
def test_network_ids_on_hostile_runs(text):
    assert find_network_ids(text) == []


def _person(start: int, end: int) -> Candidate:
    return Candidate(start, end, "PERSON", "test", PRIORITY_DEFAULT)


def test_given_names_join_over_a_few_spaces():
    text = "Jana  Nováková"
    assert [(c.start, c.end) for c in extend_person_names(text, [_person(6, 14)])] == [(0, 14)]
    text = "Nováková," + " " * 41 + "Jana"
    assert extend_person_names(text, [_person(0, 8)]) == [_person(0, 8)]


@pytest.mark.parametrize("unit", [" ", "\t", "\u00a0"])
def test_adjacent_names_on_hostile_runs(unit):
    text = "Nováková" + run(unit)
    assert extend_person_names(text, [_person(0, 8)]) == [_person(0, 8)]
    assert list(adjacent_names._AFTER.finditer(text)) == []


@pytest.fixture(scope="module")
def institutions():
    return InstitutionFinder(read_list(INSTITUTIONS_PATH))


@pytest.mark.parametrize(
    "text,expected",
    [
        ("He was treated at al-Shifa Hospital in Gaza.", ["Shifa Hospital"]),
        ("held in Wakefield Prison", ["Wakefield Prison"]),
        ("a student of the University of Leeds", ["University of Leeds"]),
    ],
)
def test_institution_spans(institutions, text, expected):
    assert [text[a:b] for a, b in institutions(text)] == expected


@pytest.mark.parametrize("unit", ["A-", "O'", "A-A "])
def test_institutions_on_hostile_runs(institutions, unit):
    assert institutions(run(unit)) == []


def test_many_institutions_in_one_text(institutions):
    text = "Wakefield Prison and St Mary's Hospital, then the University of Leeds. " * 300
    found = institutions(text)
    assert len(found) == 900 and found[:3] == [(0, 16), (21, 39), (50, 69)]
    assert all(end <= start for (_, end), (start, _) in zip(found, found[1:], strict=False))


def test_list_gaps_between_places():
    gap = places._LIST_GAP
    assert [gap.match(g).group() for g in (", ", " and ", ", or ", " & ", ",")] == [", ", " and ", ", or ", " & ", ","]
    assert gap.match(" " * 20 + "and Brno") and gap.match(" " * 21 + "and Brno") is None
    assert list(gap.finditer(run(" "))) == []
