"""privacy_ner's rules as data, one folder per language (spacy_textsan.detect.privacy_ner.lang_data), and
French and Spanish text through privacy_ner alone (no NER model)."""

from functools import cache

import pytest
import spacy
from babel.dates import get_month_names
from spacy.language import Language
from stdnum.fr import nir

import spacy_textsan  # noqa: F401 (registers the factories)
from spacy_textsan.detect.privacy_ner import lang_data
from spacy_textsan.detect.privacy_ner.dates import date_patterns, month_forms
from spacy_textsan.detect.privacy_ner.lang_data import languages, list_path, read_list
from spacy_textsan.detect.privacy_ner.rules import DEFAULT_PATTERNS, TITLES, titles
from spacy_textsan.extensions import SPANS_KEY
from spacy_textsan.word_lists import read_list as read_file


@cache
def pipeline(lang: str) -> Language:
    """privacy_ner alone, no NER source, on a blank pipeline of ``lang``."""
    nlp = spacy.blank(lang)
    nlp.add_pipe("privacy_ner", config={"sources": []})
    return nlp


def detect(lang: str, text: str) -> list[tuple[str, str]]:
    doc = pipeline(lang)(text)
    return [(s.text, s.label_) for s in doc.spans[SPANS_KEY]]


# -- the data folders and their reader ----------------------------------------------------------------------------


def test_the_languages_are_the_folders():
    assert languages() == ("de", "en", "es", "fr")


def test_a_list_is_the_shared_one_then_the_languages_own_else_englishs():
    # a language's own list only
    assert titles("en") is TITLES and "mr" in TITLES and "sr" not in TITLES
    assert {"m", "mme", "mlle", "me", "dr"} <= titles("fr") and "mr" not in titles("fr")
    assert {"sr", "sra", "d", "dña", "don", "doña"} <= titles("es")
    # a list that the language's folder lacks is English's
    assert list_path("fr", "street_types_after.txt") == "detect/privacy_ner/data/en/street_types_after.txt"
    assert read_list("fr", "street_types_after.txt") == read_list("en", "street_types_after.txt")
    # a shared list, then the language's additions, each item once
    shared = read_list("en", "code_cues.txt")
    assert list_path("en", "code_cues.txt") is None and len(shared) == 146
    french = read_list("fr", "code_cues.txt")
    assert french[: len(shared)] == shared and {"requête", "affaire", "dossier"} <= set(french[len(shared) :])
    assert len(french) == len(set(french))
    street = read_list("fr", "street_types_before.txt")
    assert street[: len(read_list("en", "street_types_before.txt"))] == read_list("en", "street_types_before.txt")
    assert "lotissement" in street and "lotissement" not in read_list("es", "street_types_before.txt")


def test_a_list_that_is_nowhere_is_an_error_naming_it():
    with pytest.raises(FileNotFoundError, match=r"no word list 'nothing\.txt' in detect/privacy_ner/data"):
        read_list("fr", "nothing.txt")


def test_a_new_language_is_a_folder_of_data(tmp_path, monkeypatch):
    data = tmp_path / "data"
    (data / "en").mkdir(parents=True)
    (data / "it").mkdir()
    (data / "en" / "titles.txt").write_text("mr\n", encoding="utf-8")
    (data / "it" / "titles.txt").write_text("# Italian\nsig\nsig.ra\n", encoding="utf-8")
    monkeypatch.setattr(lang_data, "PACKAGE_DIR", tmp_path)
    monkeypatch.setattr(lang_data, "DATA_DIR", data)
    monkeypatch.setattr(lang_data, "word_list", lambda rel: tuple(read_file(tmp_path / rel)))
    # the functions themselves, not their caches (the package's lists stay read once)
    assert lang_data.languages.__wrapped__() == ("en", "it")
    assert lang_data.read_list.__wrapped__("it", "titles.txt") == ("sig", "sig.ra")
    assert lang_data.read_list.__wrapped__("de", "titles.txt") == ("mr",)  # no folder: English's


# -- dates by language ----------------------------------------------------------------------------------------------


def test_english_dates_are_the_package_patterns():
    assert date_patterns("en") == tuple(p for p in DEFAULT_PATTERNS if p["label"] == "DATETIME")


def test_the_month_names_are_babels():
    wide, short = month_forms("fr")
    assert set(get_month_names("wide", locale="fr").values()) <= set(wide) and "fevrier" in wide
    assert {"janv", "févr", "avr", "juil", "sept", "oct", "nov", "déc"} <= set(short)
    wide, short = month_forms("es")
    assert {"enero", "mayo", "septiembre", "diciembre"} <= set(wide) and {"ene", "ago", "dic"} <= set(short)


@pytest.mark.parametrize(
    "lang,text,date",
    [
        ("fr", "Il est né le 12 mars 1961 au matin.", "12 mars 1961"),
        ("fr", "Depuis le 1er janvier 2000, rien.", "1er janvier 2000"),
        ("fr", "Le lundi 3 févr. 2003 au matin.", "lundi 3 févr. 2003"),
        ("fr", "Le 14 juillet, fête.", "14 juillet"),
        ("fr", "En décembre 1999 encore.", "décembre 1999"),
        ("es", "Nacido el 3 de mayo de 2004 allí.", "3 de mayo de 2004"),
        ("es", "El martes 1º de enero de 2019 hubo fiesta.", "martes 1º de enero de 2019"),
        ("es", "En septiembre del 2001 llegó.", "septiembre del 2001"),
    ],
)
def test_a_french_or_spanish_date_is_one_span(lang, text, date):
    assert detect(lang, text) == [(date, "DATETIME")]


# -- French and Spanish through privacy_ner alone -------------------------------------------------------------------


def test_a_french_sentence():
    assert detect("fr", "M. Jean Dupont, né le 12 mars 1961 à Lyon, domicilié 5 rue de la Paix.") == [
        ("M. Jean Dupont", "PERSON"),
        ("12 mars 1961", "DATETIME"),
        ("Lyon", "LOC"),
        ("5 rue de la Paix", "LOC"),
    ]


def test_a_spanish_sentence():
    assert detect("es", "D. José García, nacido el 3 de mayo de 2004 en Sevilla, con domicilio en calle Mayor 5.") == [
        ("D. José García", "PERSON"),
        ("3 de mayo de 2004", "DATETIME"),
        ("Sevilla", "LOC"),
        ("calle Mayor 5", "LOC"),
    ]


def test_an_application_number_is_one_code_without_its_cue_as_in_english():
    assert detect("en", "application no. 48213/09 was lodged") == [("48213/09", "CODE")]
    assert detect("fr", "la requête no 48213/09 a été introduite") == [("48213/09", "CODE")]
    assert detect("fr", "la requête n° 48213/09") == [("48213/09", "CODE")]
    assert detect("es", "la demanda nº 12345/09 fue presentada") == [("12345/09", "CODE")]
    assert detect("es", "el recurso nº 123/2004") == [("123/2004", "CODE")]


def test_a_cued_case_number_of_the_language_is_a_code():
    assert detect("fr", "Voir le dossier 2021-00423 du greffe.") == [("2021-00423", "CODE")]
    assert detect("es", "Consta en el expediente 2021-00423 del juzgado.") == [("2021-00423", "CODE")]


def test_a_french_social_security_number_is_one_code_with_its_label():
    number = nir.format("1841276451089" + nir.calc_check_digits("1841276451089"))
    assert number == "1 84 12 76 451 089 46"
    assert detect("fr", f"numéro de sécurité sociale {number}") == [(f"numéro de sécurité sociale {number}", "CODE")]
    assert detect("fr", f"Son numéro de sécurité sociale est {number}.") == [
        (f"numéro de sécurité sociale est {number}", "CODE")
    ]


def test_french_and_spanish_titles_and_places():
    assert detect("fr", "Mme Claire Martin demeurant à Nantes.") == [("Mme Claire Martin", "PERSON"), ("Nantes", "LOC")]
    assert detect("es", "Sra. Ana López, residente en Madrid.") == [("Sra. Ana López", "PERSON"), ("Madrid", "LOC")]
