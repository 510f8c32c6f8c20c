"""The generalizer's masks in the document's language (label_language)."""

import pytest
import spacy
from spacy.tokens import Span

from spacy_textsan.extensions import SPANS_KEY
from spacy_textsan.render.label_names import label_languages, label_names

TEXT = "Le requérant, Jean Dupont, est né le 12 mars 1961 à Lyon."
SPANS = [(14, 25, "PERSON"), (37, 49, "DATETIME"), (52, 56, "LOC")]


def masked(lang: str, **config) -> str:
    nlp = spacy.blank(lang)
    generalizer = nlp.add_pipe("generalizer", config={"add_rules": False, **config})
    doc = nlp.make_doc(TEXT)
    spans: list[Span] = []
    for start, end, label in SPANS:
        span = doc.char_span(start, end, label=label)
        assert span is not None
        spans.append(span)
    for span in spans:
        span._.masked = True
    doc.spans[SPANS_KEY] = spans
    return generalizer(doc)._.sanitized_text


def test_the_masks_keep_their_labels_by_default():
    assert masked("fr") == "Le requérant, [PERSON 1], est né le [DATETIME 1] à [LOC 1]."


def test_the_masks_in_french_spanish_and_german():
    assert masked("fr", label_language="fr") == "Le requérant, [PERSONNE 1], est né le [DATE 1] à [LIEU 1]."
    assert masked("fr", label_language="es") == "Le requérant, [PERSONA 1], est né le [FECHA 1] à [LUGAR 1]."
    assert masked("fr", label_language="de") == "Le requérant, [PERSON 1], est né le [DATUM 1] à [ORT 1]."


def test_auto_takes_the_pipelines_language_and_english_keeps_the_labels():
    assert masked("fr", label_language="auto") == "Le requérant, [PERSONNE 1], est né le [DATE 1] à [LIEU 1]."
    assert masked("en", label_language="auto") == "Le requérant, [PERSON 1], est né le [DATETIME 1] à [LOC 1]."


def test_an_unknown_label_language_is_one_line_listing_the_known_ones():
    assert label_languages() == ("en", "fr", "es", "de")
    with pytest.raises(ValueError, match=r"^no mask labels in 'xx': label_language is one of en, fr, es, de$"):
        label_names("xx")
    with pytest.raises(ValueError, match=r"^generalizer: no mask labels in 'it': .* or auto$"):
        masked("fr", label_language="it")


def test_a_label_the_table_does_not_name_keeps_its_own():
    names = label_names("fr")
    assert names["QUANTITY"] == "QUANTITÉ" and "EMAIL" not in names
