"""The re-identification attack reads a background's language (issue 37): its analyser (stop words, Snowball
stemmer) is the one the background was built with (``textsan background build --lang``), and a document of
that language is measured against it; a document of another language is not."""

import json

import pytest
import spacy
from typer.testing import CliRunner

from spacy_textsan.cli import app
from spacy_textsan.decide.reid_risk import ReidRisk
from spacy_textsan.extensions import SPANS_KEY
from spacy_textsan.languages import LANGUAGES as PIPELINES
from spacy_textsan.risk.background import SHIPPED_BACKGROUND, SHIPPED_BACKGROUNDS, Background, create_background
from spacy_textsan.risk.reid_index import analyse_terms, load_background
from spacy_textsan.risk.reid_words import analyse, analyser

runner = CliRunner()

#: four painters and a sculptor's records, in French; Kim's alone holds "sceaux"
RECORDS = [
    {"id": "kim", "text": "Kim, peintre, collectionne des sceaux dorés."},
    {"id": "lee", "text": "Lee, peintre, collectionne des pièces argentées."},
    {"id": "ray", "text": "Ray, peintre, collectionne des médailles de bronze."},
    {"id": "sam", "text": "Sam, sculpteur, collectionne des pièces dorées."},
]
TEXT = "Kim, une peintre, collectionne des sceaux dorés."


def build(tmp_path, *options):
    docs = tmp_path / "painters.jsonl"
    docs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS), encoding="utf-8")
    out = tmp_path / ("bg" + "".join(options).replace("-", "_"))
    res = runner.invoke(app, ["background", "build", str(out), "--docs", str(docs), "--id-field", "id", *options])
    assert res.exit_code == 0, res.output
    return out


def kim_doc(lang: str):
    """``TEXT`` with its name a masked PERSON candidate."""
    doc = spacy.blank(lang)(TEXT)
    name = doc.char_span(0, 3, label="PERSON")
    assert name is not None
    name._.masked = True
    doc.spans[SPANS_KEY] = [name]
    return doc


def test_the_french_analyser_drops_french_stop_words_and_stems_in_french():
    text = "Le requérant, M. Jean Dupont, est né le 12 mars 1961 à Lyon; il a ainsi saisi la Cour de cassation."
    # le, est, né (ne), à, il, a, ainsi, la, de: stop words (Snowball's and spaCy's lists); M.: a lone letter
    assert analyser("fr").analyse_terms(text) == [
        "requer",
        "jean",
        "dupont",
        "12",
        "mar",
        "1961",
        "lyon",
        "sais",
        "cour",
        "cassat",
    ]
    assert [(t.term, t.start, t.end) for t in analyser("fr").analyse("L'intéressé présentèrent")] == [
        ("interess", 2, 11),
        ("present", 12, 24),  # stemmed with its accents (not the folded "presenterent"), then folded
    ]
    assert analyser("es").analyse_terms("El demandante nació en Sevilla") == ["demand", "nac", "sevill"]


def test_the_english_analyser_is_unchanged():
    assert analyse_terms("The Golden SEALS of Ödön, 1888") == ["golden", "seal", "odon", "1888"]
    assert analyser("en").analyse_terms("The Golden SEALS of Ödön, 1888") == ["golden", "seal", "odon", "1888"]
    assert load_background(SHIPPED_BACKGROUND).manifest["analyser"] == {
        "fold": "casefold+nfkd",
        "stopwords": "en",
        "stemmer": "snowball-english",
        "initials": "joined",
    }
    with pytest.raises(ValueError, match="the attack reads en, fr, es, de, not 'it'"):
        analyser("it")


def test_letters_written_with_dots_are_one_word_read_without_them():
    # a lone letter is no term, so U.H.T. was three nothings while an attacker that keeps letters matched
    # "u" and "h" on the one record that holds the band's name: now one word, "uht", as UHT is
    text = "The boyband U.H.T. (UHT), J.R.R. Tolkien, x.com, the U.S.A. and O'Connor"
    assert analyse_terms(text) == ["boyband", "uht", "uht", "jrr", "tolkien", "com", "usa", "connor"]
    assert [text[t.start : t.end] for t in analyse(text)][:4] == ["boyband", "U.H.T.", "UHT", "J.R.R."]
    assert analyser("fr").analyse_terms("la société A.B.C. de M. Dupont") == ["societ", "abc", "dupont"]


def test_a_background_built_with_lang_fr_says_so_in_its_manifest(tmp_path):
    out = build(tmp_path, "--lang", "fr")
    manifest = json.loads((out / "background.json").read_text(encoding="utf-8"))
    assert manifest["analyser"] == {
        "fold": "casefold+nfkd",
        "stopwords": "fr",
        "stemmer": "snowball-french",
        "initials": "joined",
    }
    index = load_background(out)
    assert index.analyser is analyser("fr")
    assert index.term_id("sceau") is not None and index.term_id("sceaux") is None
    assert sorted(index.family["word"].vocab)[:3] == ["argentees", "bronze", "collectionne"]
    # without --terms, the k-anonymity measures count terms in the shipped background of its language
    assert Background(out).terms() is Background(None, "fr").terms()


def test_an_unknown_lang_is_one_line(tmp_path):
    docs = tmp_path / "one.txt"
    docs.write_text("Kim collectionne des sceaux.\n", encoding="utf-8")
    res = runner.invoke(app, ["background", "build", str(tmp_path / "bg"), "--docs", str(docs), "--lang", "it"])
    assert res.exit_code == 1
    assert res.stderr.strip() == "✘ --lang: unknown language 'it': supported are en, fr, es, de"
    assert not (tmp_path / "bg").exists()


def test_a_french_document_is_measured_against_a_french_background(tmp_path):
    background = Background(build(tmp_path, "--lang", "fr"))
    component = ReidRisk(k=3, margin=0.1, rank_floor=None, background=background, lang="fr")
    doc = component(kim_doc("fr"))
    report = doc._.reid_risk
    assert report["measured"] is True and report["k"] == 3 and report["reached"] is True
    assert report["masked"] == ["sceaux", "dorés", "peintre"]
    masked = {s.text: s._.reasons for s in doc.spans[SPANS_KEY] if s.label_ == "MISC"}
    assert masked == {
        "sceaux dorés": [
            "reid (stem): 'sceaux' separates 1 of 4 background records",
            "reid (stem): 'dorés' separates 1 of 4 background records",
        ],
        "peintre": ["reid (pair): 'peintre' separates 3 of 4 background records"],
    }


def test_a_french_document_against_an_english_background_is_not_measured(tmp_path):
    component = ReidRisk(k=3, margin=0.1, rank_floor=None, background=Background(build(tmp_path)), lang="fr")
    doc = component(kim_doc("fr"))
    report = doc._.reid_risk
    assert report["measured"] is False and report["k"] is None and report["masked"] == []
    assert (
        report["why"] == "the background holds English text and this document is French: its words are not the records'"
    )
    assert [s.text for s in doc.spans[SPANS_KEY]] == ["Kim"]


def test_the_shipped_background_is_the_pipelines_languages():
    assert create_background(None).path == SHIPPED_BACKGROUND
    assert create_background(None, lang="fr").path == SHIPPED_BACKGROUNDS["fr"]
    assert create_background(None, lang="es").path == SHIPPED_BACKGROUNDS["es"]
    assert create_background(None, lang="de").path == SHIPPED_BACKGROUND  # none shipped for German
    assert create_background(None, lang="fr").shipped and create_background(None, shipped=False, lang="fr") is None
    for lang in ("fr", "es"):
        assert load_background(SHIPPED_BACKGROUNDS[lang]).analyser is analyser(lang)
        config = spacy.util.load_config(PIPELINES[lang].config, interpolate=True)
        for component in ("kanon_risk", "reid_risk", "residual_risk"):
            block = config["components"][component]["background"]
            assert spacy.registry.resolve({"b": block})["b"].path == SHIPPED_BACKGROUNDS[lang]
    german = spacy.util.load_config(PIPELINES["de"].config, interpolate=True)
    assert (
        spacy.registry.resolve({"b": german["components"]["reid_risk"]["background"]})["b"].path == SHIPPED_BACKGROUND
    )
