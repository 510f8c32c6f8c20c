"""German, a language added from data alone: privacy_ner's German rules (detect/privacy_ner/data/de,
babel's German month names, chains of titles and nouns that end a titled name) on a blank German
pipeline without a NER, and the full default German pipeline (configs/default_de.cfg with the
project's German NER, spacy_textsan/assets/ner/de) on a hand-written sentence."""

import json
from functools import cache

import pytest
import spacy
from spacy.language import Language
from typer.testing import CliRunner

import spacy_textsan  # noqa: F401 (registers the factories)
from spacy_textsan.cli import app
from spacy_textsan.detect.privacy_ner.addresses import address_patterns
from spacy_textsan.detect.privacy_ner.dates import month_forms
from spacy_textsan.detect.privacy_ner.german_case_numbers import GermanCaseNumbers, find_german_case_numbers
from spacy_textsan.detect.privacy_ner.lang_data import read_list
from spacy_textsan.detect.privacy_ner.names import find_lexicon_names
from spacy_textsan.detect.privacy_ner.noun_names import common_noun, name_continues, title_parts
from spacy_textsan.detect.privacy_ner.rules import TITLES, find_titled_names, title_start, titles
from spacy_textsan.extensions import SPANS_KEY
from spacy_textsan.languages import LANGUAGES, missing_language_message, word_frequency_language
from spacy_textsan.pipeline import load_pipeline

GERMAN = (
    "Der Beschwerdeführer, Herr Dr. Hans Müller, wurde am 12. März 1961 in München geboren und wohnt in der "
    "Hauptstraße 5. Aktenzeichen 3 K 123/20, Tel. 089 1234567."
)
CASE_NUMBERS = {"@misc": "spacy_textsan.recognizer.german_case_numbers.v1"}
GERMAN_SANITIZED = (
    "Der [MISC 1], [PERSON 1], wurde am [DATETIME 1] in [LOC 1] geboren und wohnt in der [LOC 2]. "
    "Aktenzeichen [CODE 1], Tel. [CODE 2]."
)


@cache
def rules() -> Language:
    """privacy_ner alone, no NER source, on a blank German pipeline."""
    nlp = spacy.blank("de")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    return nlp


def detect(text: str) -> list[tuple[str, str]]:
    doc = rules()(text)
    return [(s.text, s.label_) for s in doc.spans[SPANS_KEY]]


# -- the data folder --------------------------------------------------------------------------------------------


def test_the_german_lists_are_germans_own_and_the_shared_ones():
    assert {"herr", "frau", "dr", "prof", "dipl.-ing"} <= titles("de") and "richter" not in titles("de")
    assert {"med", "rer", "nat", "h.c"} <= title_parts("de") and title_parts("en") == frozenset()
    compound = read_list("de", "street_types_compound.txt")
    assert compound[:3] == ("straße", "strasse", "str.") and {"graben", "twiete"} <= set(compound)
    cues = read_list("de", "code_cues.txt")
    assert {"aktenzeichen", "az", "sv-nummer"} <= set(cues) and cues[: len(read_list("en", "code_cues.txt"))] == (
        read_list("en", "code_cues.txt")
    )
    assert read_list("de", "place_cues.txt")[:3] == ("geboren in", "geb. in", "wohnhaft in")


def test_the_month_names_are_babels_german_ones():
    wide, short = month_forms("de")
    assert {"Januar", "März", "Mai", "Dezember", "Maerz"} <= set(wide) and {"Jan", "Feb", "Okt", "Dez"} <= set(short)


# -- German through privacy_ner alone ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,date",
    [
        ("Er wurde am 12. März 1961 geboren.", "12. März 1961"),
        ("Sie ist am 3. Mai 2004 eingezogen.", "3. Mai 2004"),
        ("Am 1. Januar 2000 trat er ein.", "1. Januar 2000"),
        ("Montag, 3. Mai 2004, Sitzung.", "Montag, 3. Mai 2004"),
        ("Im Februar 2010 zog sie um.", "Februar 2010"),  # a date, not the street "Im Winkel 12"
    ],
)
def test_a_german_date_is_one_span(text, date):
    assert detect(text) == [(date, "DATETIME")]


def test_streets_written_as_one_compound_word_or_after_a_preposition():
    assert detect("Die Kanzlei liegt in der Goethestr. 12, die Praxis in der Lindenallee 7a, das Büro Am Markt 3.") == [
        ("Goethestr. 12", "LOC"),
        ("Lindenallee 7a", "LOC"),
        ("Am Markt 3", "LOC"),
    ]
    assert detect("Sie wohnt Im Winkel 12.") == [("Im Winkel 12", "LOC")]


def test_a_german_sentence():
    assert detect("Herr Prof. Dr. med. Hans Müller wohnt in der Hauptstraße 5 in Hamburg.") == [
        ("Herr Prof. Dr. med. Hans Müller", "PERSON"),
        ("Hauptstraße 5", "LOC"),
        ("Hamburg", "LOC"),
    ]


def test_a_titled_name_ends_before_a_noun():
    assert detect("Frau Anna Schmidt erhob Beschwerde Nr. 12345/09 am 3. Mai 2004.") == [
        ("Frau Anna Schmidt", "PERSON"),
        ("12345/09", "CODE"),
        ("3. Mai 2004", "DATETIME"),
    ]
    assert detect("Am Montag reichte Anna Schmidt Beschwerde ein.") == [("Anna Schmidt", "PERSON")]
    assert detect("Frau Dr. rer. nat. Anna Schulze-Wagner und Frau Richter kamen.") == [
        ("Frau Dr. rer. nat. Anna Schulze-Wagner", "PERSON"),
        ("Frau Richter", "PERSON"),
    ]


def test_case_numbers_after_their_cue_and_names_after_a_salutation():
    assert detect("Aktenzeichen 3 K 123/20; Az. 5 O 12/19; Geschäftszeichen VI ZR 123/19.") == [
        ("3 K 123/20", "CODE"),
        ("5 O 12/19", "CODE"),
        ("VI ZR 123/19", "CODE"),
    ]
    # the German social insurance number, label and number as one span (data/national_ids.txt: de.rvnr)
    assert detect("SV-Nummer: 20 140154 Z 094") == [("SV-Nummer: 20 140154 Z 094", "CODE")]
    assert detect("Sehr geehrte Frau Meier,\nvielen Dank.\nMit freundlichen Grüßen\nKarl Weber") == [
        ("Frau Meier", "PERSON"),
        ("Karl Weber", "PERSON"),
    ]
    assert detect("Sie ist geboren in Hamburg und wohnhaft in Köln.") == [("Hamburg", "LOC"), ("Köln", "LOC")]


def test_a_court_file_number_without_its_cue_is_one_code_with_the_german_config_recognizer():
    nlp = spacy.blank("de")
    nlp.add_pipe("privacy_ner", config={"sources": [], "recognizers": {"german_case_numbers": CASE_NUMBERS}})
    doc = nlp("Verfahren 82 Js 82006/2003, L 1 U 5312/23 und VI ZR 123/19; Beschwerde Nr. 12345/09.")
    assert [(s.text, s.label_, s._.recognizer) for s in doc.spans[SPANS_KEY]] == [
        ("82 Js 82006/2003", "CODE", "german_case_numbers"),
        ("L 1 U 5312/23", "CODE", "german_case_numbers"),
        ("VI ZR 123/19", "CODE", "german_case_numbers"),
        ("12345/09", "CODE", "codes"),
    ]
    assert find_german_case_numbers("gemäß § 823 Abs. 1 BGB und Art. 8 EMRK, am 12.03.2004 (Blatt 12/13)") == []
    assert GermanCaseNumbers().languages == ("de",)


# -- the pure functions, and English left as it was ------------------------------------------------------------


def test_titled_names_of_a_language_that_capitalises_its_nouns():
    tokens = ["Frau", "Prof", ".", "Dr.", "med", ".", "Anna", "Schmidt", "Beschwerde", "erhob"]
    german = find_titled_names(tokens, title_words=titles("de"), title_parts=title_parts("de"), continues=name_continues("de"))  # fmt: skip
    assert german == [(0, 8)]
    assert title_start(tokens, 6, titles("de"), title_parts("de")) == 0
    # English: no chain, every capitalised word continues the name (as before)
    assert find_titled_names(["Mr", "John", "Smith", "Street"]) == [(0, 4)]
    assert title_start(tokens, 6, TITLES) is None and name_continues("en") is None and common_noun("en") is None
    assert find_lexicon_names("Anna Schmidt Beschwerde") == [(0, 23, "PERSON", "lexicon_name")]
    assert find_lexicon_names("Anna Schmidt Beschwerde", common_noun("de")) == [(0, 12, "PERSON", "lexicon_name")]


def test_the_english_street_patterns_are_unchanged():
    english = {p["name"]: p["pattern"] for p in address_patterns("en")}
    assert english["street_compound_words"] == (
        r"\b(?:Am|An der|Auf der|Im|In der|Zum|Zur|Unter den)\s+[A-ZÄÖÜ][\wäöüß-]+\s+\d{1,4}[a-z]?\b"
    )
    assert {p["name"]: p["pattern"] for p in address_patterns("de")}["street_compound_words"].count("Februar") == 1


# -- the registry and the full pipeline ----------------------------------------------------------------------


def test_german_is_registered_with_its_own_ner():
    spec = LANGUAGES["de"]
    assert (spec.name, spec.config.name, [m for m, _ in spec.models]) == ("German", "default_de.cfg", ["spacy_textsan:ner/de"])  # fmt: skip
    assert missing_language_message("de") is None and word_frequency_language("de") == "de"


@pytest.fixture(scope="module")
def german():
    return load_pipeline(lang="de")


def test_the_default_german_pipeline_masks_a_german_sentence(german):
    assert german.lang == "de" and german.get_pipe("kanon_risk").lang == "de"
    assert german(GERMAN)._.sanitized_text == GERMAN_SANITIZED


def test_sanitize_lang_auto_routes_a_german_document_to_the_german_pipeline(tmp_path):
    src = tmp_path / "docs.jsonl"
    src.write_text(json.dumps({"text": GERMAN}) + "\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["sanitize", str(src), "--out", str(tmp_path / "o"), "--lang", "auto", "--quiet"])
    assert res.exit_code == 0, res.output
    [row] = [json.loads(line) for line in (tmp_path / "o" / "docs.jsonl").read_text().splitlines()]
    assert row["text"] == GERMAN_SANITIZED
    [report] = [json.loads(line) for line in (tmp_path / "o.report" / "report.jsonl").read_text().splitlines()]
    assert (report["language"], report["language_detected"], report["language_fallback"]) == ("de", "de", None)
