"""The rule layer of privacy_ner, as pure functions (no pipeline)."""

import pytest

from spacy_textsan.detect.privacy_ner.combine import Candidate, claim_names, resolve_overlaps
from spacy_textsan.detect.privacy_ner.network import find_network_ids
from spacy_textsan.detect.privacy_ner.rules import (
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
    cands = [
        Candidate(m.start, m.end, m.label, m.name, 2 if m.label == "CODE" else 1)
        for m in find_rule_matches(text, COMPILED)
    ]
    return [(text[c.start : c.end], c.label, c.source) for c in resolve_overlaps(cands)]


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
    text = (
        "IBAN GB82 WEST 1234 5698 7654 32, phone +44 20 7946 0958 or 0312 555 12 34, SSN 123-45-6789, "
        "NINO AB 12 34 56 C, car AB12 CDE, plate 34 ABC 123"
    )
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
    text = (
        "On 6 November 1991, on November 6, 1991, in March 1994, on 12 May, on 12.03.1999, "
        "on 1999-03-12, in the 1990s, in 1960, at 10.30 p.m. and 14:45."
    )
    assert [s[0] for s in rule_spans(text)] == [
        "6 November 1991",
        "November 6, 1991",
        "March 1994",
        "12 May",
        "12.03.1999",
        "1999-03-12",
        "1990s",
        "1960",
        "10.30 p.m.",
        "14:45",
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
    # a currency's name as judgments capitalise it
    text = "a fine of 100,000,000 Turkish Liras (TRL), 1,579 New Turkish liras (YTL) and 33,658 Austrian Schillings."
    assert [s[0] for s in rule_spans(text)] == [
        "100,000,000 Turkish Liras (TRL)",
        "1,579 New Turkish liras (YTL)",
        "33,658 Austrian Schillings",
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


@pytest.mark.parametrize(
    "text,allowed",
    [
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
    ],
)
def test_default_allow_patterns(text, allowed):
    assert is_allowed(text, compile_allow_patterns(DEFAULT_ALLOW_PATTERNS)) is allowed


def test_family_status():
    text = (
        "She is married with three children. He was recently married, a father of four. They are separated. "
        "The applicant married Ms X in 1990; he is separated from the proceedings; a divorced nurse."
    )
    assert [t for t, label, name in rule_spans(text) if name == "family_status"] == [
        "married with three children",
        "recently married",
        "a father of four",
        "separated",
        "divorced",
    ]


def test_a_role_in_apposition_to_a_name():
    text = (
        "Mr Jan Kowalski, a tax inspector, was born in 1961. Ana Silva, 44, a warehouse operative living in Leeds. "
        "Mr Yalman, a result, was heard. Mr Yalman, an oral hearing, took place. The Court, a body, sat."
    )
    assert [t for t, label, name in rule_spans(text) if name == "role_apposition"] == [
        "tax inspector",
        "warehouse operative",
    ]


def test_family_status_as_one_attribute_of_a_list_or_a_field():
    text = (
        "Patient: Ana Silva, 44, nurse, separated, presenting with fatigue. Marital status: single\n"
        "Your personnel record lists you as widowed. Single, separated and married: the same rights. "
        "The two cases, separated in 1999, were joined."
    )
    assert [t for t, label, name in rule_spans(text) if name == "family_status"] == ["separated", "single", "widowed"]


# --------------------------------------------------------------------------- #
# issue 25: identifiers left in clear
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text,address",
    [
        ("Invoices to j.o'connor+invoices@firm.co.uk today", "j.o'connor+invoices@firm.co.uk"),
        ("Write to zoë.müller@example.de.", "zoë.müller@example.de"),
        ("mail: zoë-ann.o'neill@bbc.co.uk", "zoë-ann.o'neill@bbc.co.uk"),
        ("Copy kári.jónsson!urgent@simnet.is on it", "kári.jónsson!urgent@simnet.is"),
        ("odd but valid: a#b$c%d&e*f/g=h?i^j`k{l|m}n~o@x.org", "a#b$c%d&e*f/g=h?i^j`k{l|m}n~o@x.org"),
        ("'d'angelo.rossi@libero.it'", "d'angelo.rossi@libero.it"),  # an opening quote is not part of it
        ("(j.o’connor@firm.ie)", "j.o’connor@firm.ie"),  # a typographic apostrophe
    ],
)
def test_email_local_parts_are_rfc_5322_atext(text, address):
    assert rule_spans(text) == [(address, "CODE", "email")]


@pytest.mark.parametrize(
    "text,date,rule",
    [
        ("DOB 03-Apr-1985", "03-Apr-1985", "date_dmy_sep"),
        ("born 3-April-85 in Bergen", "3-April-85", "date_dmy_sep"),
        ("date Apr-03-1985 noted", "Apr-03-1985", "date_mdy_sep"),
        ("on 03/Apr/1985 he left", "03/Apr/1985", "date_dmy_sep"),
        ("on 03.APR.85 he left", "03.APR.85", "date_dmy_sep"),
        ("on 3 APRIL 1985 he left", "3 APRIL 1985", "date_dmy_sep"),
        ("APR 3, 1985 was a Wednesday", "APR 3, 1985", "date_mdy_sep"),
        ("1985-Apr-03 in the register", "1985-Apr-03", "date_ymd_words"),
        ("Urodzony 3.IV.1985 w Krakowie", "3.IV.1985", "date_roman_month"),
        ("born 3 IV 1985", "3 IV 1985", "date_roman_month"),
        ("on 03/XII/85 at noon", "03/XII/85", "date_roman_month"),
        ("Date of birth: 3rd of March, 1979", "3rd of March, 1979", "date_dmy"),
    ],
)
def test_dates_with_a_month_name_or_a_roman_month(text, date, rule):
    assert [(s, r) for s, label, r in rule_spans(text) if label == "DATETIME"] == [(date, rule)]


@pytest.mark.parametrize("text", ["Room 3.V.12 is free", "Part IV.1985 of the code", "the 3 V 8 engine"])
def test_no_roman_month_dates_in_numbers(text):
    assert [s for s, label, _ in rule_spans(text) if label == "DATETIME" and "V" in s] == []


@pytest.mark.parametrize(
    "text,address",
    [
        ("reply to lena dot fischer at web dot de", "lena dot fischer at web dot de"),
        ("Write to tomas [at] seznam [dot] cz please", "tomas [at] seznam [dot] cz"),
        ("contact: m.rossi(at)libero.it", "m.rossi(at)libero.it"),
        ("mail marco at gmail dot com now", "marco at gmail dot com"),
        ("send to KAREN AT YAHOO DOT COM", "KAREN AT YAHOO DOT COM"),
        ("j dot o'connor at firm dot co dot uk.", "j dot o'connor at firm dot co dot uk"),
        ("zoë dot müller at web dot de", "zoë dot müller at web dot de"),
        ("ingrid [dot] solberg [at] gmail [dot] com", "ingrid [dot] solberg [at] gmail [dot] com"),
        ("write to anna.k (at) uni-graz (dot) at soon", "anna.k (at) uni-graz (dot) at"),
        ("peder at firm.no", "peder at firm.no"),
        ("lena{at}web{dot}de", "lena{at}web{dot}de"),
        ("lena -at- web -dot- de", "lena -at- web -dot- de"),
        ("lena.fischer (ät) web (punkt) de", "lena.fischer (ät) web (punkt) de"),
        ("maria arroba gmail punto com", "maria arroba gmail punto com"),
    ],
)
def test_obfuscated_emails_are_found_whole(text, address):
    found = [(text[m.start : m.end], m.name) for m in find_network_ids(text) if m.name == "obfuscated_email"]
    assert found == [(address, "obfuscated_email")]


@pytest.mark.parametrize(
    "text",
    ["look at example.com", "We met at the station. It rained.", "Reach us at the office at 9.", "located at firm.no"],
)
def test_no_obfuscated_email_in_plain_prose(text):
    assert [m for m in find_network_ids(text) if m.name == "obfuscated_email"] == []


@pytest.mark.parametrize(
    "text,user",
    [
        ("He logged in as jdoe42 yesterday", "jdoe42"),
        ("signed in as kwame_mensah from home", "kwame_mensah"),
        ("She signed on to the portal as lucie.h", "lucie.h"),
        ("logged into Slack as Bartek_W", "Bartek_W"),
        ("The attacker logged on as svc_backup01.", "svc_backup01"),
        ("user petra1987 reset the password", "petra1987"),
        ("The account jan.kowalski was locked", "jan.kowalski"),
        ("Known online as zlatanfan10.", "zlatanfan10"),
        ("he goes by the handle darkstar99", "darkstar99"),
        ("posted under the username xXslayerXx", "xXslayerXx"),
        ("posted by kwame_m77 yesterday", "kwame_m77"),
        ("username: frodo.b", "frodo.b"),
        ("Discord: frodo#1234", "frodo#1234"),
        ("Login name: pkowal", "pkowal"),
    ],
)
def test_user_names_after_a_cue(text, user):
    assert {text[m.start : m.end] for m in find_network_ids(text) if m.name == "user_name"} == {user}


@pytest.mark.parametrize(
    "text",
    [
        "logged in as admin",
        "registered as a refugee",
        "registered as unemployed",
        "the user i.e. the applicant",
        "user interface",
        "account holder",
        "posted by u.s. forces",
        "written by 3 people",
        "login as root",
    ],
)
def test_no_user_names_in_plain_prose(text):
    assert [m for m in find_network_ids(text) if m.name == "user_name"] == []


def test_a_name_misread_by_the_ner_is_claimed_by_the_name_layer():
    text = "Jana Nováková ID 8505123456 and Ayşe Demir TC 10000000146 signed."
    cands = [
        Candidate(0, 16, "MISC", "ner:m:PRODUCT"),  # "Jana Nováková ID"
        Candidate(0, 13, "PERSON", "name:lexicon_name"),  # "Jana Nováková"
        Candidate(17, 27, "CODE", "id:cued_code", 2),
        Candidate(32, 64, "PERSON", "ner:m:PERSON"),  # "Ayşe Demir TC 10000000146 signed"
        Candidate(46, 57, "CODE", "id:long_number", 2),
    ]
    chosen = resolve_overlaps(claim_names(text, cands))
    assert [(text[c.start : c.end], c.label) for c in chosen] == [
        ("Jana Nováková", "PERSON"),
        ("ID", "MISC"),
        ("8505123456", "CODE"),
        ("Ayşe Demir TC", "PERSON"),
        ("10000000146", "CODE"),
        ("signed", "PERSON"),
    ]


def test_a_place_or_organisation_keeps_a_name_with_words_around_it():
    text = "held in the Nowa Sól Detention Centre; the Jan Kowal ID card"
    cands = [
        Candidate(8, 37, "LOC", "ner:m:FAC"),
        Candidate(12, 20, "PERSON", "name:lexicon_name"),
        Candidate(43, 55, "ORG", "ner:m:ORG"),
        Candidate(43, 52, "PERSON", "name:lexicon_name"),
    ]
    assert [(text[c.start : c.end], c.label) for c in resolve_overlaps(claim_names(text, cands))] == [
        ("the Nowa Sól Detention Centre", "LOC"),
        ("Jan Kowal", "PERSON"),
        ("ID", "ORG"),
    ]
