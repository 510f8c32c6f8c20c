"""The review page and the page of ``textsan visualize`` in the reader's
language: their words are data (``serve/static/i18n/<code>.json``), the
service writes the page in the language it chooses (``?ui=``, the service's
first language, else English for the browser's script to change), and
``textsan visualize --lang fr`` writes a French page."""

import json
import re
import shutil
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import spacy
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from spacy_textsan.cli import app as cli_app
from spacy_textsan.extensions import SPANS_KEY
from spacy_textsan.serve.app import STATIC_DIR, create_app
from spacy_textsan.serve.review import page_html, service_ui_language
from spacy_textsan.serve.settings import ServeSettings
from spacy_textsan.visualize import UiText, render_page, residual_line, ui_language, ui_languages, ui_strings

FIX = Path(__file__).parent / "fixtures" / "cli"
TEMPLATE = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
CHROMIUM = "/usr/bin/chromium"
FRENCH = "Le requérant, M. Jean Dupont, est né le 12 mars 1961 à Lyon."


@pytest.fixture(scope="module")
def english(masking_rules):
    return masking_rules("en")


@pytest.fixture(scope="module")
def french(masking_rules):
    return masking_rules("fr")


def _words(code: str) -> dict[str, str]:
    return json.loads((STATIC_DIR / "i18n" / f"{code}.json").read_text(encoding="utf-8"))


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


# -- the words as data ---------------------------------------------------------------------------


def test_every_language_has_every_word_with_the_same_placeholders():
    assert ui_languages() == ("en", "de", "es", "fr")
    english_words = _words("en")
    for code in ("fr", "es", "de"):
        words = _words(code)
        assert sorted(words) == sorted(english_words), code
        for key, text in words.items():
            # a span's tooltip may add the label's name ({name}); English's labels are their own names
            allowed = _placeholders(english_words[key]) | ({"name"} if key == "span.title" else set())
            assert _placeholders(text) <= allowed and _placeholders(english_words[key]) <= _placeholders(text), (
                code,
                key,
            )


def test_the_template_is_the_english_page_and_names_only_known_words():
    assert page_html(TEMPLATE, "en") == TEMPLATE
    keys = set(re.findall(r'data-i18n(?:-[a-z-]+)?="([\w.-]+)"', TEMPLATE))
    assert keys and keys <= set(_words("en"))
    # the selector offers every language that has a file, each named in itself
    options = re.findall(r'<option value="(\w+)" lang="\w+">([^<]+)</option>', TEMPLATE)
    assert sorted(options) == sorted((code, _words(code)["language.name"]) for code in ui_languages())


def test_ui_language_takes_the_first_tag_the_pages_speak():
    assert ui_language("it", None, "fr-CH", "de") == "fr"
    assert ui_language("de_AT") == "de"
    assert ui_language("ES") == "es"
    assert ui_language("it", "", None) is None
    with pytest.raises(ValueError, match="no page strings in 'it': the pages speak en, de, es, fr"):
        ui_strings("it")


def test_plurals_follow_each_languages_rules():
    assert UiText("en").plural("status.to_review", 1, title="a") == "a: 1 span to review"
    assert UiText("en").plural("status.to_review", 0, title="a") == "a: 0 spans to review"
    assert UiText("fr").plural("status.to_review", 0, title="a") == "a : 0 segment à relire"  # French: 0 is one
    assert UiText("fr").plural("status.to_review", 2, title="a") == "a : 2 segments à relire"
    assert UiText("de").plural("counter.done", 3) == "alle 3 Textstellen geprüft"
    assert UiText("es").plural("counter.done", 1) == "1 fragmento revisado"
    assert UiText("it").t("status.up_to_date") == "up to date"  # a language without a file: English


def test_service_language_of_the_page():
    assert service_ui_language(["en"]) is None  # English only: the browser chooses
    assert service_ui_language(["fr"]) == "fr"
    assert service_ui_language(["en", "fr"]) == "en"
    assert service_ui_language(["de", "en"]) == "de"
    assert service_ui_language(["it"]) is None  # a pipeline in a language the page does not speak


# -- the served page ------------------------------------------------------------------------------


def test_a_french_service_serves_the_page_in_french(french, english):
    with TestClient(create_app(french, ServeSettings(pipeline="rules_fr"), {"en": english})) as c:
        page = c.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert '<html lang="fr" data-service-lang="fr">' in page.text
        assert '<title data-i18n="page.title">spacy-textsan — relecture</title>' in page.text
        assert (
            '<button id="review-paste" type="button" data-i18n="load.review_paste">Relire ce texte</button>'
            in page.text
        )
        assert 'placeholder="Collez un document ici" data-i18n-placeholder="load.paste_placeholder"' in page.text
        assert (
            '<button id="btn-keep" type="button" title="conserver toutes les mentions de l&#x27;entité (k)" '
            'data-i18n-title="button.keep_title" data-i18n="button.keep">conserver</button>'
        ) in page.text
        # the labels stay TAB's codes; the legend and the tooltips name them
        assert '<span class="swatch" data-label="LOC">LOC</span> <span data-i18n="label.LOC">lieu</span>' in page.text
        assert '<option value="LOC" title="lieu" data-i18n-title="label.LOC">LOC</option>' in page.text
        assert "Paste a document here" not in page.text and "Review this text" not in page.text
        # ?ui= wins over the service's language
        german = c.get("/?ui=de")
        assert '<html lang="de" data-service-lang="fr">' in german.text
        assert '<h1 data-i18n="page.title">spacy-textsan — Prüfung</h1>' in german.text
        # a language the page does not speak is not reflected: the service's
        other = c.get("/?ui=%22%3E%3Cscript%3E")
        assert '<html lang="fr" data-service-lang="fr">' in other.text and "<script>" not in other.text
        # the words the script shows, in the files it fetches
        words = c.get("/static/i18n/fr.json")
        assert words.status_code == 200 and words.headers["content-type"].startswith("application/json")
        assert words.json()["counter.open.other"] == "{n} non relus sur {total}"
        assert words.json()["status.up_to_date"] == "à jour"
        script = c.get("/static/review.js").text
        assert 'import { chooseLanguage, language, languageOfRun, plural, t, useLanguage } from "./i18n.js";' in script
        assert 'plural("counter.open", open, { total })' in script
        assert "fetch(`static/i18n/${lang}.json`)" in c.get("/static/i18n.js").text


def test_an_english_service_leaves_the_choice_to_the_browser(english):
    with TestClient(create_app(english, ServeSettings(pipeline="rules_only"))) as c:
        assert c.get("/").text == TEMPLATE  # English, no service language: the script asks the browser
        spanish = c.get("/?ui=es-MX").text
        assert spanish.startswith('<!DOCTYPE html>\n<html lang="es">\n')
        assert '<span data-i18n="keys.next_prev">fragmento siguiente / anterior</span>' in spanish


# -- textsan visualize ----------------------------------------------------------------------------


def _french_doc(nlp):
    doc = nlp.make_doc(FRENCH)
    spans = [doc.char_span(14, 28, label="PERSON"), doc.char_span(55, 59, label="LOC")]
    assert all(spans)
    doc.spans[SPANS_KEY] = spans
    spans[0]._.masked, spans[1]._.masked = True, False
    spans[0]._.replacement, spans[0]._.reasons = "[PERSON 1]", ["policy:mask_all"]
    doc._.sanitized_text = "Le requérant, [PERSON 1], est né le 12 mars 1961 à Lyon."
    doc._.offset_map = [[0, 14, 0, 14], [14, 24, 14, 28], [24, 56, 28, 60]]
    return doc


def test_render_page_in_french():
    page = render_page([_french_doc(spacy.blank("fr"))], ["lettre"], lang="fr")
    assert page.startswith('<!DOCTYPE html>\n<html lang="fr">')
    assert (
        '<span class="status">vue en lecture seule (textsan visualize) ; '
        "relisez et changez les décisions avec textsan serve</span>"
    ) in page
    assert '<p class="residual">2 segments — masqués : 1, conservés : 1</p>' in page
    assert "<h3>Original</h3>" in page and "<h3>Anonymisé</h3>" in page
    assert (
        '<mark class="span" id="d1-m0" data-i="0" data-label="PERSON" data-decision="masked" '
        'title="PERSON (personne) masqué → [PERSON 1] — policy:mask_all">M. Jean Dupont</mark>'
    ) in page
    assert (
        '<mark class="span" id="d1-m1" data-i="1" data-label="LOC" data-decision="kept" data-kept="conservé" '
        'title="LOC (lieu) conservé">Lyon</mark>'
    ) in page
    assert "<th>segment</th><th>type</th><th>entité</th><th>source</th><th>décision</th>" in page
    assert '<span class="swatch" data-label="DATETIME">DATETIME</span> date ou heure</span>' in page
    assert "read-only view" not in page and "background records" not in page


def test_residual_line_in_german():
    residual = {"k": 2, "n_background": 5, "min_k": 3, "reached": False, "narrowing": [["ankara", 3]]}
    assert residual_line(residual, UiText("de")) == (
        "Restrisiko: k = 2 von 5 Hintergrund-Datensätzen; am stärksten eingrenzend sichtbar: 'ankara' (3); "
        "min_k 3 NICHT erreicht"
    )


def test_visualize_lang_fr_writes_a_french_page(tmp_path):
    rules = (FIX / "rules_only.cfg").read_text(encoding="utf-8").replace('lang = "en"', 'lang = "fr"')
    (tmp_path / "rules_fr.cfg").write_text(rules, encoding="utf-8")
    src = tmp_path / "lettre.txt"
    src.write_text(FRENCH, encoding="utf-8")
    out = tmp_path / "v.html"
    args = ["visualize", str(src), "--out", str(out), "--pipeline", str(tmp_path / "rules_fr.cfg"), "--lang", "fr"]
    res = CliRunner().invoke(cli_app, args)
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    assert page.startswith('<!DOCTYPE html>\n<html lang="fr">')
    assert '<p class="residual">3 segments — masqués : 3, conservés : 0</p>' in page
    assert 'title="PERSON (personne) masqué → [PERSON 1] — policy:mask_all">M. Jean Dupont</mark>' in page
    # English without --lang, as before
    english = tmp_path / "en.html"
    res = CliRunner().invoke(
        cli_app, ["visualize", str(src), "--out", str(english), "--pipeline", str(FIX / "rules_only.cfg")]
    )
    assert res.exit_code == 0, res.output
    assert english.read_text(encoding="utf-8").startswith('<!DOCTYPE html>\n<html lang="en">')


# -- the page in a browser ------------------------------------------------------------------------

NEEDS_CHROMIUM = pytest.mark.skipif(
    shutil.which(CHROMIUM) is None,
    reason=f"{CHROMIUM} is missing: `apt-get install -y chromium` (make test installs it)",
)


@contextmanager
def _serving(app):
    """``app`` on a free loopback port, in a thread of this process: its URL."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the service did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


@contextmanager
def _browser_page(locale: str):
    """A page of headless Chromium whose language is ``locale``, and the errors it reports."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_context(locale=locale, viewport={"width": 1400, "height": 900}).new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page, errors
        finally:
            browser.close()


@NEEDS_CHROMIUM
def test_the_page_of_a_french_service_speaks_french(french, english):
    """``textsan serve --lang fr,en`` (the French pipeline first) in an English
    browser: the page, its script's messages and its tooltips are French; the
    selector changes the page to German."""
    app = create_app(french, ServeSettings(pipeline="rules_fr"), {"en": english})
    with _serving(app) as url, _browser_page("en-US") as (page, errors):
        page.goto(url)
        page.wait_for_selector("body[data-ready=yes]")
        assert page.evaluate("document.documentElement.lang") == "fr"
        assert page.inner_text("h1") == "spacy-textsan — relecture"
        assert page.input_value("#ui-lang") == "fr"
        page.fill("#paste", FRENCH)
        page.click("#review-paste")
        page.wait_for_selector("#doc mark.span")
        assert page.inner_text("#status") == "texte collé : 3 segments à relire"
        assert page.inner_text("#counter") == "3 non relus sur 3"
        assert page.inner_text("#sanitized") == "Le requérant, [PERSON 1], est né le [DATETIME 1] à [LOC 1]."
        assert page.get_attribute("#doc mark.span >> nth=2", "title") == "LOC (lieu) masqué → [LOC 1] — policy:mask_all"
        page.keyboard.press("n")
        page.keyboard.press("k")
        page.wait_for_selector("#status[data-state=ok]")
        assert page.inner_text("#status") == "à jour"
        assert page.inner_text("#counter") == "2 non relus sur 3"
        assert page.inner_text("#span-fields dd >> nth=3") == "conserver"
        # the badge of a kept span says so in French
        badge = "getComputedStyle(document.querySelector('#doc mark.span'), '::after').content"
        assert page.evaluate(badge) == '"PERSON conservé"'
        # the reader picks German: the page, the panel and the URL follow
        page.select_option("#ui-lang", "de")
        page.wait_for_selector("html[lang=de]", state="attached")
        assert page.inner_text("h1") == "spacy-textsan — Prüfung"
        assert page.inner_text("#counter") == "2 ungeprüft von 3"
        assert page.inner_text("#span-fields dd >> nth=3") == "behalten"
        assert page.url.endswith("/?ui=de")
        assert errors == []


@NEEDS_CHROMIUM
def test_an_english_service_speaks_the_browsers_language_then_a_french_runs(english, tmp_path):
    """An English service in a German browser: German; a run of ``textsan
    sanitize --lang fr`` opened from its report folder turns the page French
    (the documents' language), unless ``?ui=`` asked for one."""
    rules = (FIX / "rules_only.cfg").read_text(encoding="utf-8").replace('lang = "en"', 'lang = "fr"')
    (tmp_path / "rules_fr.cfg").write_text(rules, encoding="utf-8")
    src = tmp_path / "in" / "lettre.txt"
    src.parent.mkdir()
    src.write_text(FRENCH, encoding="utf-8")
    args = ["sanitize", str(src), "--out", str(tmp_path / "out"), "--pipeline", str(tmp_path / "rules_fr.cfg")]
    res = CliRunner().invoke(cli_app, [*args, "--lang", "fr"])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "out.report" / "report.jsonl").read_text(encoding="utf-8"))["language"] == "fr"
    app = create_app(english, ServeSettings(pipeline="rules_only"))
    with _serving(app) as url, _browser_page("de-DE") as (page, errors):
        page.goto(url)
        page.wait_for_selector("body[data-ready=yes]")
        assert page.evaluate("document.documentElement.lang") == "de"
        assert page.inner_text("#review-paste") == "Diesen Text prüfen"
        page.set_input_files("#outputs", str(tmp_path / "out"))
        page.set_input_files("#folder", str(tmp_path / "out.report"))
        page.wait_for_selector("#doc mark.span")
        page.wait_for_selector("#status[data-state=ok]")
        assert page.evaluate("document.documentElement.lang") == "fr"
        assert page.inner_text("#status") == "à jour"
        assert page.inner_text("#counter") == "3 non relus sur 3"
        assert page.input_value("#ui-lang") == "fr"
        # asked for in the address: the run's language does not change it
        page.goto(url + "?ui=es")
        page.wait_for_selector("body[data-ready=yes]")
        page.set_input_files("#outputs", str(tmp_path / "out"))
        page.set_input_files("#folder", str(tmp_path / "out.report"))
        page.wait_for_selector("#doc mark.span")
        page.wait_for_selector("#status[data-state=ok]")
        assert page.evaluate("document.documentElement.lang") == "es"
        assert page.inner_text("#counter") == "3 sin revisar de 3"
        assert errors == []
