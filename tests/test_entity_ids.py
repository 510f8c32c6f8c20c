from spacy_textsan.detect.privacy_ner.entity_ids import assign_entity_ids, normalize


def test_normalise_drops_titles_articles_and_possessive():
    assert normalize("Mr Galip Yalman's") == ("galip", "yalman")
    assert normalize("the Ankara Court") == ("ankara", "court")


def test_exact_casefolded_surname_and_initials():
    mentions = [
        ("Mr Galip Yalman", "PERSON"),
        ("Ms B. Baysal", "PERSON"),
        ("Yalman", "PERSON"),
        ("G. Yalman", "PERSON"),
        ("GALIP YALMAN", "PERSON"),
        ("Baysal", "PERSON"),
        ("Ayşe Yalman", "PERSON"),  # another Yalman: not linked to Galip (given name differs)
        ("A. Yalman", "PERSON"),  # initial of Ayşe
    ]
    assert assign_entity_ids(mentions) == [
        "PERSON-1",
        "PERSON-2",
        "PERSON-1",
        "PERSON-1",
        "PERSON-1",
        "PERSON-2",
        "PERSON-3",
        "PERSON-3",
    ]


def test_surname_before_full_name_gets_the_same_id():
    assert assign_entity_ids([("Yalman", "PERSON"), ("Galip Yalman", "PERSON")]) == ["PERSON-1", "PERSON-1"]


def test_fuzzy_match_but_exact_only_for_codes_and_dates():
    mentions = [
        ("Istanbul State Security Court", "ORG"),
        ("Istanbul State Security Courts", "ORG"),
        ("Izmir Court", "ORG"),
        ("1520/06", "CODE"),
        ("1521/06", "CODE"),
        ("1520/06", "CODE"),
        ("6 May 1991", "DATETIME"),
        ("6 May 1992", "DATETIME"),
    ]
    assert assign_entity_ids(mentions) == [
        "ORG-1",
        "ORG-1",
        "ORG-2",
        "CODE-1",
        "CODE-2",
        "CODE-1",
        "DATETIME-1",
        "DATETIME-2",
    ]
    # a strict threshold separates the near-duplicate
    assert assign_entity_ids(mentions[:2], fuzzy_threshold=99.5) == ["ORG-1", "ORG-2"]


def test_labels_are_numbered_separately():
    assert assign_entity_ids([("Turkey", "LOC"), ("Turkish", "DEM"), ("Turkey", "LOC")]) == ["LOC-1", "DEM-1", "LOC-1"]
