"""Three forms the detectors used to leave partly in clear, through the
default pipeline (the exact sanitized text) and through the pure detectors
(the exact spans):

1. a national identification number, with or without its label word, with
   or without a colon, with its separators, is one CODE span, and a given
   name right after it is a PERSON;
2. a single given name after a contact, greeting or sign-off cue of several
   languages is a PERSON, and the detectors leave the cue itself;
3. the values of personal keys in ``key=value``, ``key: value`` and JSON-like
   log lines are masked with a fitting label; an IP address with its port is
   one span.
"""

import pytest

from spacy_textsan.detect.privacy_ner.combine import CUE, PRIORITY_DEFAULT, Candidate, claim_names, resolve_overlaps
from spacy_textsan.detect.privacy_ner.cued_names import find_cued_names_and_cues, find_names_after_ids
from spacy_textsan.detect.privacy_ner.identifiers import find_identifiers
from spacy_textsan.detect.privacy_ner.log_fields import find_log_fields
from spacy_textsan.detect.privacy_ner.national_ids import find_national_ids
from spacy_textsan.detect.privacy_ner.network import find_network_ids
from spacy_textsan.detect.privacy_ner.rules import DEFAULT_PATTERNS, compile_patterns, find_rule_matches

RULES = compile_patterns(DEFAULT_PATTERNS)


@pytest.fixture(scope="module")
def nlp(model_available):
    from spacy_textsan.pipeline import load_pipeline

    return load_pipeline()


def sanitized(nlp, text: str) -> str:
    return nlp(text)._.sanitized_text


def resolved_identifiers(text: str) -> list[str]:
    """What privacy_ner keeps of the identifier layer: one span per stretch."""
    cands = [Candidate(m.start, m.end, m.label, m.name, 2) for m in find_identifiers(text)]
    return [text[c.start : c.end] for c in resolve_overlaps(cands)]


# --------------------------------------------------------------------------- #
# 1. national identification numbers
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text,expected",
    [
        # Swedish, no colon: the label and the number are one span, the holder's name is found
        ("Personnummer 811218-9876 belongs to Sven.", "[CODE 1] belongs to [PERSON 1]."),
        # (kanon_risk masks "tillhör", a word rare in English, on its own)
        ("Personnummer 811218-9876 tillhör Sven", "[CODE 1] [MISC 1] [PERSON 1]"),
        # Finnish, a colon, the century sign inside the number
        ("Henkilötunnus: 131052-308T belongs to Matti.", "[CODE 1] belongs to [PERSON 1]."),
        # Norwegian, its check digits wrong: a label announces a number all the same
        ("Fødselsnummer 01129955131 belongs to Ola.", "[CODE 1] belongs to [PERSON 1]."),
        ("CPR-nr. 211062-5629 belongs to Mette.", "[CODE 1] belongs to [PERSON 1]."),
        ("BSN: 1112.22.333 belongs to Anna.", "[CODE 1] belongs to [PERSON 1]."),
        ("Rijksregisternummer 85.07.30-033.28 belongs to Lotte.", "[CODE 1] belongs to [PERSON 1]."),
        ("NIE X-2482300-W belongs to Carlos.", "[CODE 1] belongs to [PERSON 1]."),
        ("Steuer-ID 36 574 261 809 belongs to Lukas.", "[CODE 1] belongs to [PERSON 1]."),
        # "to Oliver" is not read as the town of Oliver: the holder of the number
        ("NI number AB 12 34 56 C belongs to Oliver.", "[CODE 1] belongs to [PERSON 1]."),
        ("His SSN is 536-90-4399 and he lives alone.", "His [CODE 1] and he lives alone."),
        ("Codice fiscale: RCCMNL83S18D969H, Giulia Rossi.", "[CODE 1], [PERSON 1]."),
        ("Personnummer 811218-9876 Sven Andersson", "[CODE 1] [PERSON 1]"),
        # without a label: no postcode is read in "Stockholm 811218", the number is whole
        ("Stockholm 811218-9876 belongs to Sven.", "[LOC 1] [CODE 1] belongs to [PERSON 1]."),
        ("The form lists 811218-9876 for Sven.", "The form lists [CODE 1] for [PERSON 1]."),
    ],
)
def test_a_national_id_is_one_code_span_and_its_holder_a_person(nlp, text, expected):
    assert sanitized(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Personnummer 811218-9876 tillhör Sven", "Personnummer 811218-9876"),
        ("personnummer: 19811218-9876.", "personnummer: 19811218-9876"),
        ("Henkilötunnus 131052-308T kuuluu Matti", "Henkilötunnus 131052-308T"),
        ("Fødselsnummer 01129955131 tilhører Ola", "Fødselsnummer 01129955131"),
        ("Her fødselsnummer is 151086 95088.", "fødselsnummer is 151086 95088"),
        ("CPR nr. 211062-5629", "CPR nr. 211062-5629"),
        ("Kennitala 450401-3150", "Kennitala 450401-3150"),
        ("BSN 111 222 333 en", "BSN 111 222 333"),
        ("numéro de registre national 85.07.30-033 28", "numéro de registre national 85.07.30-033 28"),
        ("DNI 54362315-K, expedido en Madrid", "DNI 54362315-K"),
        ("Codice fiscale RCCMNL83S18D969H del ricorrente", "Codice fiscale RCCMNL83S18D969H"),
        ("N° de sécurité sociale : 2 95 10 99 126 111 93 ;", "N° de sécurité sociale : 2 95 10 99 126 111 93"),
        ("Steuer-ID: 36574261809 wurde geprüft", "Steuer-ID: 36574261809"),
        ("AHV-Nr. 756.9217.0769.85", "AHV-Nr. 756.9217.0769.85"),
        ("PESEL 44051401359 i", "PESEL 44051401359"),
        ("rodné číslo 710319/2745", "rodné číslo 710319/2745"),
        ("TC KİMLİK NO: 17291716060", "TC KİMLİK NO: 17291716060"),  # a dotted capital I
        ("SSN 536-90-4399 2019", "SSN 536-90-4399"),  # the valid run of groups, not the year after it
        ("national insurance number: AB 12 34 56 C.", "national insurance number: AB 12 34 56 C"),
    ],
)
def test_national_id_spans(text, expected):
    assert [text[m.start : m.end] for m in find_national_ids(text)] == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "The personnummer was missing from the form.",
        "CPR 21.10.62 is a date, not a number.",  # six digits that read as a date
        "The BSN 12 345 was too short.",
        "He would nie have said so.",
    ],
)
def test_no_national_id_without_a_number(text):
    assert find_national_ids(text) == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # no postcode is read in "Stockholm 811218": no piece of the number is left beside it
        ("Stockholm 811218-9876 belongs to Sven.", ["811218-9876"]),
        ("Madrid X-2482300-W ok", ["X-2482300-W"]),
        ("id 131052-308T ok", ["131052-308T"]),
        ("Brussel 85.07.30-033.28 ok", ["85.07.30-033.28"]),
    ],
)
def test_a_number_without_its_label_is_read_whole(text, expected):
    assert resolved_identifiers(text) == expected


@pytest.mark.parametrize(
    "text,end,expected",
    [
        ("Personnummer 811218-9876 tillhör Sven", 24, ["Sven"]),
        ("CPR 211062-5629: Mette Hansen", 15, ["Mette"]),
        ("NIE X-2482300-W belongs to Carlos.", 15, ["Carlos"]),
        ("SSN 536-90-4399 issued on May 3", 15, []),  # a month, not a holder
        ("PESEL 44051401359 Warszawa", 17, []),  # no given name
        ("PESEL 44051401359\nAnna", 17, []),  # another line
    ],
)
def test_a_given_name_after_a_national_id(text, end, expected):
    assert [text[s:e] for s, e, _, _ in find_names_after_ids(text, [(0, end)])] == expected


# --------------------------------------------------------------------------- #
# 2. a single given name after a cue
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Contact: Sven, tel 070-123 45 67", "Contact: [PERSON 1], tel [CODE 1]"),
        ("Attn: Sven, the contract is attached.", "Attn: [PERSON 1], the contract is attached."),
        (
            "Cc: Sven\nSubject: contract\nThe contract is attached.",
            "Cc: [PERSON 1]\nSubject: contract\nThe contract is attached.",
        ),
        ("Från: Sven\nTill: Anna", "Från: [PERSON 1]\nTill: [PERSON 2]"),
        ("Signed: Sven", "Signed: [PERSON 1]"),
        ("Regards, Sven", "Regards, [PERSON 1]"),
        ("Hi Sven, the meeting is at noon.", "Hi [PERSON 1], the meeting is at [DATETIME 1]."),
        ("Ciao Giulia, see you tomorrow.", "Ciao [PERSON 1], see you [DATETIME 1]."),
        # the statistical NER reads "Dear Sven" as one ORG: the cue is no part of it
        (
            "Dear Sven,\nthe contract is attached. Please sign it before Friday.\nRegards,\nAnna",
            "Dear [PERSON 1],\nthe contract is attached. Please sign it before [DATETIME 1].\nRegards,\n[PERSON 2]",
        ),
    ],
)
def test_a_single_given_name_after_a_cue_is_a_person(nlp, text, expected):
    assert sanitized(nlp, text) == expected


def test_a_foreign_cue_is_left_by_the_whole_pipeline(nlp):
    """privacy_ner proposes the name and the phone, not "Kontakt"; the risk stages count the detector's
    cue words as common (they announce a name and name no one), so no one masks them."""
    for text, expected in (
        ("Kontakt: Sven, tel 070-123 45 67", "Kontakt: [PERSON 1], tel [CODE 1]"),
        ("Hej Sven, tack! Mvh Anna", "Hej [PERSON 1], tack! Mvh [PERSON 2]"),
        ("Cordialement, Marie", "Cordialement, [PERSON 1]"),
        ("Ansprechpartner: Jonas Weber", "Ansprechpartner: [PERSON 1]"),
    ):
        assert sanitized(nlp, text) == expected, text
    doc = nlp("Kontakt: Sven, tel 070-123 45 67")
    assert [(s.text, s.label_, s._.source) for s in doc.spans["textsan"]] == [
        ("Sven", "PERSON", "name:cued_name"),
        ("070-123 45 67", "CODE", "rule:phone"),
    ]


@pytest.mark.parametrize(
    "text,names,cues",
    [
        ("Kontakt: Sven, tel 070-123 45 67", ["Sven"], ["Kontakt"]),
        ("Hej Sven!", ["Sven"], ["Hej"]),
        ("Hallo Sven,\nanbei der Vertrag.", ["Sven"], ["Hallo"]),
        ("Bonjour Marie, merci.", ["Marie"], ["Bonjour"]),
        ("Mvh Sven", ["Sven"], ["Mvh"]),
        ("Thanks.\nMvh\nSven", ["Sven"], ["Mvh"]),
        ("Med vänlig hälsning\nSven", ["Sven"], ["Med vänlig hälsning"]),
        ("Cordialement,\nMarie", ["Marie"], ["Cordialement"]),
        ("Unterschrift: Lukas", ["Lukas"], ["Unterschrift"]),
        ("An: Lukas\nVon: Anna", ["Lukas", "Anna"], ["An", "Von"]),
        ("Hei Ola,", ["Ola"], ["Hei"]),
        # a cue that is itself a given name ("Cara", Italian "dear") may begin a name: it is no cue span
        ("Cara Giulia,", ["Giulia"], []),
        # not names: a generic addressee, a common word
        ("Hej alla, Hi Team, Kontakt: the Registry", [], []),
    ],
)
def test_cued_names_and_their_cues(text, names, cues):
    found, cue_spans = find_cued_names_and_cues(text)
    assert [text[s:e] for s, e, _, _ in found] == names
    assert [text[s:e] for s, e in cue_spans] == cues


def test_an_entity_over_a_cue_loses_the_cue():
    text = "Dear Sven, thanks"
    cands = [
        Candidate(0, 9, "ORG", "ner:en:ORG", PRIORITY_DEFAULT),
        Candidate(5, 9, "PERSON", "name:cued_name", PRIORITY_DEFAULT),
        Candidate(0, 4, CUE, "cue:name_cue", 0),
    ]
    assert [(text[c.start : c.end], c.label, c.source) for c in resolve_overlaps(claim_names(text, cands))] == [
        ("Sven", "PERSON", "name:cued_name")
    ]


# --------------------------------------------------------------------------- #
# 3. key=value, key: value and JSON-like log lines
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            "2024-05-01 12:03:44,123 INFO login ok ip=172.16.254.1:8080 user=bob",
            "[DATETIME 1] INFO login ok ip=[CODE 1] user=[CODE 2]",
        ),
        (
            'level=info msg="order shipped" user.email=ada@example.org user.name=Ada',
            'level=info msg="order shipped" user.email=[CODE 1] user.name=[PERSON 1]',
        ),
        (
            "2024-05-01 12:03:44,123 INFO login ok user=sven42 ip=10.0.0.7",
            "[DATETIME 1] INFO login ok user=[CODE 1] ip=[CODE 2]",
        ),
        (
            "2024-05-01T12:03:44Z WARN auth failed user: bob ip: 10.1.2.3",
            "[DATETIME 1] WARN auth failed user: [CODE 1] ip: [CODE 2]",
        ),
        (
            '{"event": "login", "user": {"name": "Sven Andersson", "email": "sven@example.org"}, "ip": "10.0.0.7"}',
            '{"event": "login", "user": {"name": "[PERSON 1]", "email": "[CODE 1]"}, "ip": "[CODE 2]"}',
        ),
        (
            "level=info login=ssvensson customer_id=C1029 first_name='Anna' last_name='Berg' msg=\"order shipped\"",
            "level=info login=[CODE 1] customer_id=[CODE 2] first_name='[PERSON 1]' last_name='[PERSON 2]'"
            ' msg="order shipped"',
        ),
        (
            'level=info owner=svc_backup patient="Ada Lee" client_ip=[2001:db8::1]:8080',
            'level=info owner=[CODE 1] patient="[PERSON 1]" client_ip=[CODE 2]',
        ),
        ("{'customer': 'Ada Lee', 'email': 'ada@example.org'}", "{'customer': '[PERSON 1]', 'email': '[CODE 1]'}"),
        ("Note to the user: please restart the service.", "Note to the user: please restart the service."),
    ],
)
def test_personal_values_of_log_lines_are_masked(nlp, text, expected):
    assert sanitized(nlp, text) == expected


@pytest.mark.parametrize(
    "text,values,keys",
    [
        ("ip=172.16.254.1:8080 user=bob", [("172.16.254.1:8080", "CODE"), ("bob", "CODE")], ["ip", "user"]),
        (
            '{"user":"bob","email":"x@y.org","first_name":"Sven","uid":1001}',
            [("bob", "CODE"), ("x@y.org", "CODE"), ("Sven", "PERSON"), ("1001", "CODE")],
            ["user", "email", "first_name", "uid"],
        ),
        # a name written without quotes keeps its capitalised words, not the next key
        (
            "name=Sven Andersson user=sven42 level=info",
            [("Sven Andersson", "PERSON"), ("sven42", "CODE")],
            ["name", "user"],
        ),
        # camelCase, a hyphen, an id suffix, a value that is no name, dotted prefixes
        (
            'lastName="Berg" e-mail=x@y.z customer_id=C1029 owner=svc_42 user.email=a@b.org customer.name=Ada',
            [
                ("Berg", "PERSON"),
                ("x@y.z", "CODE"),
                ("C1029", "CODE"),
                ("svc_42", "CODE"),
                ("a@b.org", "CODE"),
                ("Ada", "PERSON"),
            ],
            ["lastName", "e-mail", "customer_id", "owner", "user.email", "customer.name"],
        ),
        ("INFO login failed user: bob ip: 10.1.2.3", [("bob", "CODE"), ("10.1.2.3", "CODE")], ["user", "ip"]),
        ("Patient: Ada Lee\nDOB: 1985-04-03", [("Ada Lee", "PERSON"), ("1985-04-03", "DATETIME")], ["Patient", "DOB"]),
    ],
)
def test_log_field_values_and_keys(text, values, keys):
    found, key_spans = find_log_fields(text)
    assert [(text[m.start : m.end], m.label) for m in found] == values
    assert [text[s:e] for s, e in key_spans] == keys


@pytest.mark.parametrize(
    "text",
    [
        "Note to the user: please restart the service.",  # prose: one "key:" with no pair beside it
        "At 10:30 we met; the name: none of that",
        "service.name=nginx host.name=web-1",  # the name of a thing, not of a person
        'user=null owner=root name=- email="" patient=****',  # values that name no one
        "if name == 'x': pass",
    ],
)
def test_no_log_values_in_prose_or_placeholders(text):
    assert find_log_fields(text) == ([], [])


def test_an_ip_address_with_its_port_is_one_span():
    text = "ip=172.16.254.1:8080, peer [2001:db8::1]:443 and 10.0.0.1 at 12:30"
    assert [text[m.start : m.end] for m in find_rule_matches(text, RULES) if m.name == "ipv4"] == [
        "172.16.254.1:8080",
        "10.0.0.1",
    ]
    assert "[2001:db8::1]:443" in [text[m.start : m.end] for m in find_network_ids(text)]


def test_a_log_timestamp_is_one_date_not_a_code():
    text = "2024-05-01T12:03:44Z WARN; 2024-05-01 12:03:44,123 INFO; time=12:00 level=info"
    codes = [text[m.start : m.end] for m in find_rule_matches(text, RULES) if m.label == "CODE"]
    codes += [text[m.start : m.end] for m in find_identifiers(text)]
    dates = [text[m.start : m.end] for m in find_rule_matches(text, RULES) if m.name == "date_iso"]
    assert codes == [] and dates == ["2024-05-01T12:03:44Z", "2024-05-01 12:03:44,123"]
    # "lev" of "level" is no currency
    assert [m for m in find_rule_matches(text, RULES) if m.label == "QUANTITY"] == []
