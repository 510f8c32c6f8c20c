"""privacy_ner.lone_names: a given name or surname alone as the subject of an English sentence."""

import pytest

from spacy_textsan.detect.privacy_ner.lone_names import find_lone_names


def lone(text):
    return [(text[s:e], label, rule) for s, e, label, rule in find_lone_names(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # after a clause: the verb says a person acts
        ("In the 2008 Six Nations Championship, Barnes became the first English official.", ["Barnes"]),
        ("Hicks was born in Tunisia but was raised in West Sussex.", ["Hicks"]),
        ("Griffith starred at Louisville Male High School.", ["Griffith"]),  # a town too: a person's verb
        ("McCann personally profited from the sale.", ["McCann"]),  # one adverb between
        ("The fund grew. McCann's wealth stemmed from golf.", ["McCann"]),  # a possessive before a noun
        ("Then Walsh went home; however, Walsh said no.", ["Walsh", "Walsh"]),  # after a common capitalised word
    ],
)
def test_a_lone_name_before_its_verb_is_a_person(text, expected):
    assert [t for t, label, rule in lone(text) if (label, rule) == ("PERSON", "lone_name")] == expected


@pytest.mark.parametrize(
    "text",
    [
        "Hell was a child prodigy.",  # common as a word (Zipf 5.1)
        "Grant was refused by the ministry.",  # common as a word (Zipf 4.7)
        "The Court held that there had been a violation.",  # no name
        "Jordan was invaded.",  # a place, and "was" is not a person's verb only
        "Mr Barnes was late.",  # after a title: the titled-name rule's
        "Biography McCann's wealth stemmed from golf.",  # after a rarer capitalised word: a longer name?
        "WALSH was late.",  # all capitals: the lexicon rule's
        "Walsh, the applicant, was late.",  # no verb right after it
        "Walsh Street was closed.",  # a capitalised word after it
    ],
)
def test_no_lone_name_without_the_evidence(text):
    assert lone(text) == []


def test_the_exact_offsets_and_a_long_text_in_linear_time():
    text = "On 3 May, Barnes became a referee. " * 2000
    found = find_lone_names(text)
    assert len(found) == 2000 and found[:2] == [(10, 16, "PERSON", "lone_name"), (45, 51, "PERSON", "lone_name")]


def test_privacy_ner_reads_a_lone_name_as_a_person_in_english_only():
    import spacy

    text = "In the 2008 Six Nations Championship, Barnes became the first English official."
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    doc = nlp(text)
    spans = [(s.text, s.label_, s._.source) for s in doc.spans["textsan"] if s.label_ == "PERSON"]
    assert spans == [("Barnes", "PERSON", "name:lone_name")]
    nl = spacy.blank("nl")
    nl.add_pipe("privacy_ner", config={"sources": []})
    dutch = nl(text)
    assert [s.text for s in dutch.spans["textsan"] if s.label_ == "PERSON"] == []
