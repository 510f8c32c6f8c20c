"""Detection on a normalised copy: invisible characters, compatibility forms
and homoglyphs are folded for the detectors, and the output masks the
original characters."""

import re

import pytest
import spacy

from spacy_textsan.detect.privacy_ner.normalize import caps_runs, normalize, restore_case

SHY, ZWSP, WJ = "\u00ad", "\u200b", "\u2060"


@pytest.mark.parametrize(
    "original,copy",
    [
        (f"Mr Pe{SHY}der Hal{ZWSP}vor{WJ}sen", "Mr Peder Halvorsen"),
        ("Ｐｅｄｅｒ Ｈａｌｖｏｒｓｅｎ", "Peder Halvorsen"),
        ("Mr \u0420e\u0434er and \u0420\u0435d\u0435r", "Mr Pe\u0434er and Peder"),  # Cyrillic Р, е
        ("\ufb01le no. 5", "file no. 5"),  # ligature fi
        ("Иван Петров in Eskişehir", "Иван Петров in Eskişehir"),  # a Cyrillic name stays Cyrillic
    ],
)
def test_copy(original, copy):
    assert normalize(original).text == copy


def test_offsets_map_back_to_the_original_characters():
    original = f"Mr Pe{SHY}der Hal{ZWSP}vorsen (Ｐｅｄｅｒ) met \u0420\u0435d\u0435r."
    norm = normalize(original)
    words = [(m.group(), original[slice(*norm.to_original(*m.span()))]) for m in re.finditer(r"\w+", norm.text)]
    assert words == [
        ("Mr", "Mr"),
        ("Peder", f"Pe{SHY}der"),
        ("Halvorsen", f"Hal{ZWSP}vorsen"),
        ("Peder", "Ｐｅｄｅｒ"),
        ("met", "met"),
        ("Peder", "\u0420\u0435d\u0435r"),
    ]
    for m in re.finditer(r"\w+", norm.text):
        assert norm.from_original(*norm.to_original(*m.span())) == m.span()


def test_ascii_text_is_its_own_copy():
    norm = normalize("Plain text, 12 words.")
    assert not norm.changed and norm.to_original(3, 7) == (3, 7)


def test_restore_case_keeps_length():
    text = "SIGNED: PEDER HALVORSEN. THE FACTS. NHS no. O'BRIEN-SMITH JR"
    restored = restore_case(text)
    assert restored == "SIGNED: Peder Halvorsen. The Facts. NHS no. O'Brien-Smith Jr"
    assert len(restored) == len(text)


@pytest.fixture(scope="module")
def rules_only():
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": [], "rule_layer": {"deny_list": ["PERSON:Peder Halvorsen"]}})
    nlp.add_pipe("mask_all")
    nlp.add_pipe("generalizer")
    return nlp


def test_pipeline_masks_the_original_characters(rules_only):
    text = (
        f"Pe{SHY}der Hal{ZWSP}vorsen, tel ＋４９ ４０ ８２２１１９, card 4111{ZWSP} 1111 1111 1111, "
        f"e-mail pe{ZWSP}der@firm.no."
    )
    doc = rules_only(text)
    assert [(s.text, s.label_) for s in doc.spans["textsan"]] == [
        (f"Pe{SHY}der Hal{ZWSP}vorsen", "PERSON"),
        ("＋４９ ４０ ８２２１１９", "CODE"),
        (f"4111{ZWSP} 1111 1111 1111", "CODE"),
        (f"pe{ZWSP}der@firm.no", "CODE"),
    ]
    assert doc._.sanitized_text == "[PERSON 1], tel [CODE 1], card [CODE 2], e-mail [CODE 3]."


def test_mentions_with_hidden_characters_are_one_entity(rules_only):
    doc = rules_only(f"Peder Halvorsen wrote; Pe{SHY}der Hal{ZWSP}vorsen signed.")
    assert doc._.sanitized_text == "[PERSON 1] wrote; [PERSON 1] signed."


def test_caps_runs():
    assert caps_runs("SIGNED: PEDER HALVORSEN\nTHE FACTS and NHS") == [
        (8, 23, "Peder Halvorsen"),
        (24, 33, "The Facts"),
    ]


def test_all_caps_names_found_by_the_source_ner(model_available):
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": [model_available]})
    doc = nlp("THE FACTS\n\nThe letter was signed on behalf of the company.\n\nSIGNED: PEDER HALVORSEN")
    assert [(s.text, s.label_) for s in doc.spans["textsan"] if s.label_ == "PERSON"] == [("PEDER HALVORSEN", "PERSON")]
