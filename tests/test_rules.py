"""The rule layer of privacy_ner, as pure functions (no pipeline)."""
import pytest

from spacy_textsan.privacy_ner.combine import Candidate, resolve_overlaps
from spacy_textsan.privacy_ner.rules import (
    DEFAULT_ALLOW_PATTERNS,
    DEFAULT_PATTERNS,
    compile_allow_patterns,
    compile_patterns,
    find_rule_matches,
    find_titled_names,
    is_allowed,
    title_start,
)

COMPILED = compile_patterns(DEFAULT_PATTERNS)


def rule_spans(text):
    """Non-overlapping rule matches as (text, label, rule name)."""
    cands = [Candidate(m.start, m.end, m.label, m.name, 2 if m.label == "CODE" else 1)
             for m in find_rule_matches(text, COMPILED)]
    return [(text[c.start:c.end], c.label, c.source) for c in resolve_overlaps(cands)]


def test_codes():
    text = "application (no. 36110/97) and file no. 2004/1187, E.2001/45 and 121/2/3; ref D-4840"
    assert rule_spans(text) == [
        ("36110/97", "CODE", "application_number"),
        ("2004/1187", "CODE", "application_number"),
        ("E.2001/45", "CODE", "file_number"),
        ("121/2/3", "CODE", "file_number"),
        ("D-4840", "CODE", "alphanumeric_code"),
    ]


def test_contact_and_network_codes():
    text = "Write to jane.doe@example.co.uk or see https://www.example.org/page?id=3, server 192.168.10.1."
    assert rule_spans(text) == [
        ("jane.doe@example.co.uk", "CODE", "email"),
        ("https://www.example.org/page?id=3", "CODE", "url"),
        ("192.168.10.1", "CODE", "ipv4"),
    ]


def test_national_ids_phones_plates():
    text = ("IBAN GB82 WEST 1234 5698 7654 32, phone +44 20 7946 0958 or 0312 555 12 34, SSN 123-45-6789, "
            "NINO AB 12 34 56 C, car AB12 CDE, plate 34 ABC 123")
    assert rule_spans(text) == [
        ("GB82 WEST 1234 5698 7654 32", "CODE", "iban"),
        ("+44 20 7946 0958", "CODE", "phone"),
        ("0312 555 12 34", "CODE", "phone"),
        ("123-45-6789", "CODE", "us_ssn"),
        ("AB 12 34 56 C", "CODE", "uk_nino"),
        ("AB12 CDE", "CODE", "uk_licence_plate"),
        ("34 ABC 123", "CODE", "tr_licence_plate"),
    ]


def test_dates_and_times():
    text = ("On 6 November 1991, on November 6, 1991, in March 1994, on 12 May, on 12.03.1999, "
            "on 1999-03-12, in the 1990s, in 1960, at 10.30 p.m. and 14:45.")
    assert [s[0] for s in rule_spans(text)] == [
        "6 November 1991", "November 6, 1991", "March 1994", "12 May", "12.03.1999",
        "1999-03-12", "1990s", "1960", "10.30 p.m.", "14:45",
    ]
    assert {s[1] for s in rule_spans(text)} == {"DATETIME"}


def test_quantities():
    text = "He paid EUR 4,000, 12,500 Turkish liras (TRY), £300, 30,000,000 Turkish liras, 40% and 15 x 10 mm, 5,000 euros."
    assert [s[:2] for s in rule_spans(text)] == [
        ("EUR 4,000", "QUANTITY"),
        ("12,500 Turkish liras (TRY)", "QUANTITY"),
        ("£300", "QUANTITY"),
        ("30,000,000 Turkish liras", "QUANTITY"),
        ("40%", "QUANTITY"),
        ("15 x 10 mm", "QUANTITY"),
        ("5,000 euros", "QUANTITY"),
    ]


def test_no_false_codes_in_plain_numbers():
    # amounts are not phone numbers, a date is not a code, a year inside a code is not a year
    text = "Amounts 30,000,000 and 164.9 and 1,500 are not phones; nor is 12.03.1999; Article 6 § 1 and 1996/302."
    assert rule_spans(text) == [("12.03.1999", "DATETIME", "date_numeric"), ("1996/302", "CODE", "file_number")]


def test_min_digits_filters_matches():
    compiled = compile_patterns([{"label": "CODE", "pattern": r"\d+(?:-\d+)*", "min_digits": 5}])
    assert [(m.start, m.end) for m in find_rule_matches("12-34 and 12-345", compiled)] == [(10, 16)]


def test_user_pattern_errors_name_the_pattern():
    with pytest.raises(ValueError, match="'bad' is not a valid regular expression"):
        compile_patterns([{"name": "bad", "label": "CODE", "pattern": "(unclosed"}])
    with pytest.raises(ValueError, match="lacks the key 'label'"):
        compile_patterns([{"pattern": "x"}])


def test_titled_names():
    tokens = "by Mr Galip Yalman ( the applicant ) and Ms B. Baysal , Dr . Ayşe Öz and mr smith".split()
    spans = find_titled_names(tokens)
    assert [" ".join(tokens[s:e]) for s, e in spans] == ["Mr Galip Yalman", "Ms B. Baysal", "Dr . Ayşe Öz"]
    assert title_start(tokens, tokens.index("Galip")) == 1
    assert title_start(tokens, tokens.index("the")) is None


@pytest.mark.parametrize("text,allowed", [
    ("Article 34 of the Convention for the Protection of Human Rights and Fundamental Freedoms", True),
    ("Rule 26 § 1 of the Rules of Court", True),
    ("Protocol No. 11", True),
    ("European Court of Human Rights", True),
    ("Fourth Section of the Court", True),
    ("Court", True),
    ("Government", True),
    ("Ankara Administrative Court", False),
    ("Article", False),
    ("court", False),
])
def test_default_allow_patterns(text, allowed):
    assert is_allowed(text, compile_allow_patterns(DEFAULT_ALLOW_PATTERNS)) is allowed


def test_family_status():
    text = ("She is married with three children. He was recently married, a father of four. They are separated. "
            "The applicant married Ms X in 1990; he is separated from the proceedings; a divorced nurse.")
    assert [t for t, label, name in rule_spans(text) if name == "family_status"] == [
        "married with three children", "recently married", "a father of four", "separated", "divorced"]
