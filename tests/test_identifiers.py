"""Direct identifiers found through phonenumbers, python-stdnum and the
format rules of privacy_ner's identifier layer (pure functions, no pipeline)."""

import pytest

from spacy_textsan.detect.privacy_ner.addresses import find_addresses
from spacy_textsan.detect.privacy_ner.combine import Candidate, resolve_overlaps
from spacy_textsan.detect.privacy_ner.identifiers import find_identifiers
from spacy_textsan.detect.privacy_ner.network import find_network_ids
from spacy_textsan.detect.privacy_ner.phones import find_phones
from spacy_textsan.detect.privacy_ner.rules import DEFAULT_PATTERNS, compile_patterns, find_rule_matches
from spacy_textsan.detect.privacy_ner.standard_numbers import find_cued_codes, find_standard_numbers


def spans(text, matches):
    return [(text[m.start : m.end], m.label, m.name) for m in sorted(matches, key=lambda m: (m.start, m.end))]


def resolved(text):
    """What privacy_ner keeps of the identifier detectors: one span per stretch."""
    cands = [Candidate(m.start, m.end, m.label, m.name, 2) for m in find_identifiers(text)]
    return [(text[c.start : c.end], c.label) for c in resolve_overlaps(cands)]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Call 415.555.0132 today.", ["415.555.0132"]),
        ("Ring 555-0147 after six.", ["555-0147"]),
        ("Office +49 40 822119 in Hamburg.", ["+49 40 822119"]),
        ("Tel (212) 555-0199 x123.", ["(212) 555-0199 x123"]),
        ("Direct line +1-202-555-0173 ext. 44 or 020 7946 0958.", ["+1-202-555-0173 ext. 44", "020 7946 0958"]),
        (
            "Mobil 0151 23456789, bureau 06 12 34 56 78, Ankara 0312 555 12 34.",
            ["0151 23456789", "06 12 34 56 78", "0312 555 12 34"],
        ),
        ("phone +44 20 7946 0958", ["+44 20 7946 0958"]),
    ],
)
def test_phones(text, expected):
    assert [s[0] for s in spans(text, find_phones(text))] == expected


def test_numbers_that_are_not_phones():
    text = (
        "Application no. 48213/09 of 14 March 2009; 12,500 liras, 30,000,000 liras, 164.9 km, on 12.03.1999, "
        "in 1998-2001, Article 6 § 1 and file 2004/1187."
    )
    assert find_phones(text) == []


def test_standard_numbers_validated_by_checksum():
    text = (
        "IBAN DE89 3704 0044 0532 0130 00, card 4111 1111 1111 1111, PESEL 44051401359, "
        "BSN 111222333 and 4111 1111 1111 1112 (bad checksum)."
    )
    assert spans(text, find_standard_numbers(text)) == [
        ("DE89 3704 0044 0532 0130 00", "CODE", "iban"),
        ("4111 1111 1111 1111", "CODE", "payment_card"),
        ("44051401359", "CODE", "pl_pesel"),
        ("111222333", "CODE", "nl_bsn"),
    ]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Passport KX4410983 was seized.", "KX4410983"),
        ("Aadhaar 4821 7733 0912 on file.", "4821 7733 0912"),
        ("NHS number 485 777 3456 recorded.", "485 777 3456"),
        ("MRN 0044521; seen today.", "0044521"),
        ("hospital no. 55-1234 and more", "55-1234"),
        ("INSEE 1 85 05 78 006 084 36 ;", "1 85 05 78 006 084 36"),
        ("Policy number: PL-88321 Renewal", "PL-88321"),
    ],
)
def test_numbers_announced_by_a_context_word(text, expected):
    assert [s[0] for s in spans(text, find_cued_codes(text))] == [expected]


def test_context_word_without_number_is_nothing():
    assert find_cued_codes("The passport was lost; his account of events; NHS staff; reference to 12.") == []


@pytest.mark.parametrize(
    "text,expected",
    [
        ("MAC 00:1A:2B:3C:4D:5E", [("00:1A:2B:3C:4D:5E", "mac_address")]),
        (
            "from 2001:0db8:85a3:0000:0000:8a2e:0370:7334 and fe80::1ff:fe23:4567:890a.",
            [("2001:0db8:85a3:0000:0000:8a2e:0370:7334", "ipv6"), ("fe80::1ff:fe23:4567:890a", "ipv6")],
        ),
        (
            "See linkedin.com/in/peder-h or @phalvorsen or u/peder_h, user id = phalv.",
            [
                ("linkedin.com/in/peder-h", "url"),
                ("@phalvorsen", "handle"),
                ("u/peder_h", "profile_path"),
                ("phalv", "user_name"),
            ],
        ),
        (
            "Write peder at mail dot no or peder(at)firm.no.",
            [
                ("peder at mail dot no", "obfuscated_email"),
                ("peder(at)firm.no", "obfuscated_email"),
                ("firm.no", "url"),
            ],
        ),
        ("password: Tr0ub4dor&3 and PIN 4821.", [("Tr0ub4dor&3", "secret"), ("4821", "secret")]),
    ],
)
def test_network_and_account_identifiers(text, expected):
    assert [(s[0], s[2]) for s in spans(text, find_network_ids(text))] == expected


def test_no_network_ids_in_prose():
    text = "He met them at 10:30, e.g. at the station, i.e. No. 5 at home; the time was 12:45:30."
    assert find_network_ids(text) == []


@pytest.mark.parametrize(
    "text,expected",
    [
        ("He lives at 14 rue des Lilas, 75011 Paris.", "14 rue des Lilas, 75011 Paris"),
        ("Address: 221B Baker Street, London EC1A 1BB.", "221B Baker Street, London EC1A 1BB"),
        ("Send to 1200 SW Main St, Portland, OR 97201.", "1200 SW Main St, Portland, OR 97201"),
        ("Wohnhaft Hauptstraße 5, 10115 Berlin.", "Hauptstraße 5, 10115 Berlin"),
        ("Keizersgracht 123, 1015 CJ Amsterdam.", "Keizersgracht 123, 1015 CJ Amsterdam"),
        ("ul. Długa 5/7, 00-238 Warszawa.", "ul. Długa 5/7, 00-238 Warszawa"),
        ("Via Roma 12, 00184 Roma.", "Via Roma 12, 00184 Roma"),
        ("Calle Mayor 5, 28013 Madrid.", "Calle Mayor 5, 28013 Madrid"),
        ("12 High Road\nLondon N1 9GU", "12 High Road\nLondon N1 9GU"),
    ],
)
def test_postal_addresses_are_one_span(text, expected):
    assert spans(text, find_addresses(text)) == [(expected, "LOC", "address")]


def test_identifier_layer_resolved():
    text = "Card 4111 1111 1111 1111, tel +49 40 822119, Passport KX4410983."
    assert resolved(text) == [("4111 1111 1111 1111", "CODE"), ("+49 40 822119", "CODE"), ("KX4410983", "CODE")]


RULES = compile_patterns(DEFAULT_PATTERNS)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("né le 3 avril 1985 à Lyon", "3 avril 1985"),
        ("geboren am 3. April 1985", "3. April 1985"),
        ("nacido el 3 de abril de 1985", "3 de abril de 1985"),
        ("3 Nisan 1985 doğumlu", "3 Nisan 1985"),
        ("urodzony 3 kwietnia 1985", "3 kwietnia 1985"),
        ("DOB 3 Apr 85.", "3 Apr 85"),
    ],
)
def test_dates_of_birth_in_other_forms(text, expected):
    found = [text[m.start : m.end] for m in find_rule_matches(text, RULES) if m.label == "DATETIME"]
    assert max(found, key=len) == expected


def test_ages():
    text = "aged 45, a 45-year-old nurse, 45 years old, age: 45, 45 y/o, 38 Jahre alt; 12 years ago, for 5 years."
    assert [text[m.start : m.end] for m in find_rule_matches(text, RULES) if m.name == "age"] == [
        "aged 45",
        "45-year-old",
        "45 years old",
        "age: 45",
        "45 y/o",
        "38 Jahre alt",
    ]


def test_licence_plates_of_other_countries():
    text = "Cars AB-123-CD, 1234 BCD, B-AB 1234 and 12-ABC-3; not COVID-19, A-1, 2009 THE, UK-based or 1998-2001."
    assert [(s[0], s[2]) for s in spans(text, find_network_ids(text))] == [
        ("AB-123-CD", "licence_plate"),
        ("1234 BCD", "licence_plate"),
        ("B-AB 1234", "licence_plate"),
        ("12-ABC-3", "licence_plate"),
    ]


def test_postcode_given_as_an_answer():
    text = (
        "[13:40] Agent: Can you confirm your date of birth and postcode?\n"
        "[13:41] geir bakke: February 20, 1965, 1035\n[13:43] geir bakke: thanks"
    )
    assert [(s[0], s[2]) for s in spans(text, find_addresses(text))] == [("1035", "address")]


def test_usernames_and_bare_numbers():
    text = (
        "Your account on the staff portal is pergande_v (temporary password: Viola196). "
        "The account of the events is credible. user id\tsbigot\nReply: 7 Aug 50, 03459; 14 marca 2003, 99-621"
    )
    assert [(s[0], s[2]) for s in spans(text, find_identifiers(text)) if s[2] != "secret"] == [
        ("pergande_v", "user_name"),
        ("sbigot", "user_name"),
        ("03459", "bare_number"),
        ("99-621", "bare_number"),
    ]


@pytest.mark.parametrize(
    "text,secret",
    [
        ("my pw is hunter2, don't tell anyone", "hunter2"),
        ("The Wi-Fi key (passphrase) is correct-horse-battery-staple.", "correct-horse-battery-staple"),
        ("password: Tr0ub4dor&3", "Tr0ub4dor&3"),
        ("Door code = 4471#", "4471#"),
    ],
)
def test_secrets_after_a_cue(text, secret):
    assert [s[0] for s in spans(text, find_network_ids(text)) if s[2] == "secret"] == [secret]


def test_no_secret_in_prose():
    assert [
        m
        for m in find_network_ids("The password was reset; the secret documents; a PIN was issued; the token economy")
        if m.name == "secret"
    ] == []


def test_table_cells_under_an_identifying_header():
    from spacy_textsan.detect.privacy_ner.tables import find_table_cells

    text = (
        "Name;IP;Email;user id;Nationality;Comment\nDylan Moore;1.2.3.4;x@y.org;ossola_v;Italian;ok fine\n\n"
        "Name\tAnn Lee\nEmployer | Acme Ltd\nNote\tcall back\nDate of birth: 3 May 1970\n"
        "At 10:30 we met; the name: none of that"
    )
    assert [(text[m.start : m.end], m.label, m.name) for m in find_table_cells(text)] == [
        ("Dylan Moore", "PERSON", "table_cell"),
        ("1.2.3.4", "CODE", "table_cell"),
        ("x@y.org", "CODE", "table_cell"),
        ("ossola_v", "CODE", "table_cell"),
        ("Italian", "DEM", "table_cell"),
        ("Ann Lee", "PERSON", "field_value"),
        ("Acme Ltd", "ORG", "field_value"),
        ("3 May 1970", "DATETIME", "field_value"),
    ]


def test_record_fields_without_a_header():
    from spacy_textsan.detect.privacy_ner.tables import find_table_cells

    text = "42;Halvorsen;Peder;+47 912 34 567;Bergen\nnurse | Bergen\nIn this case; the Court; found that X; and so on"
    assert [(text[m.start : m.end], m.name) for m in find_table_cells(text)] == [
        ("Halvorsen", "record_field"),
        ("Peder", "record_field"),
        ("Bergen", "record_field"),
    ]


def test_the_tokenizer_splits_record_fields():
    import spacy

    nlp = spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_textsan.Tokenizer.v1"}}})
    assert [t.text for t in nlp("42;Halvorsen;Peder|Bergen; ok")] == [
        "42",
        ";",
        "Halvorsen",
        ";",
        "Peder",
        "|",
        "Bergen",
        ";",
        "ok",
    ]


@pytest.mark.parametrize(
    "lang,text,expected",
    [
        ("es", "Estaba registrada con el número 5299, hoja/plano 13/40.", ["5299"]),
        ("es", "El número de productores pasó de 4 a 3.", []),  # a count, not a number given to a thing
        ("es", "registrada con el número 1993 en el catastro", []),  # four digits that may be a year stay
        ("fr", "enregistrée sous le numéro 5299, feuille 13", ["5299"]),
        ("en", "Account 0421 was closed in 1999.", ["0421"]),  # no year starts with 0
    ],
)
def test_four_digits_after_a_cue_are_a_number_unless_they_may_be_a_year(lang, text, expected):
    assert [text[m.start : m.end] for m in find_cued_codes(text, lang=lang)] == expected
