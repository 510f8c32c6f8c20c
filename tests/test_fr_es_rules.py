"""The French and Spanish judgment rules: case-law citations, lone initials, a date's article
(spacy_textsan.detect.privacy_ner.citations, .dates), on privacy_ner alone (no NER model)."""

from functools import cache

import pytest
import spacy
from spacy.language import Language

import spacy_textsan  # noqa: F401 (registers the factories)
from spacy_textsan.detect.privacy_ner.citations import find_case_citations, find_initials
from spacy_textsan.detect.privacy_ner.dates import date_patterns
from spacy_textsan.extensions import SPANS_KEY

JUDGMENT_RECOGNIZERS = {
    "dates": {"@misc": "spacy_textsan.recognizer.dates.v1", "article": True},
    "case_citations": {"@misc": "spacy_textsan.recognizer.case_citations.v1"},
    "initials": {"@misc": "spacy_textsan.recognizer.initials.v1"},
}


@cache
def pipeline(lang: str, judgment: bool) -> Language:
    nlp = spacy.blank(lang)
    config: dict = {"sources": []}
    if judgment:
        from spacy_textsan.detect.privacy_ner.recognizers import DEFAULT_RECOGNIZERS

        config["recognizers"] = {**DEFAULT_RECOGNIZERS, **JUDGMENT_RECOGNIZERS}
    nlp.add_pipe("privacy_ner", config=config)
    return nlp


def detect(lang: str, text: str, judgment: bool = True) -> list[tuple[str, str]]:
    doc = pipeline(lang, judgment)(text)
    return [(s.text, s.label_) for s in doc.spans[SPANS_KEY]]


@pytest.mark.parametrize(
    "text,spans",
    [
        ("Richardson v. Ramirez, 418 US 24 (1974)", [("418 US 24", "law_report")]),
        (
            "Sauvé c. Canada (no 1) [1992] 2 SCR 438, où",
            [
                ("2 SCR 438", "law_report"),  # a known reporter, and after a bracketed year: both read it
                ("2 SCR 438", "bracket_report"),
                ("1", "case_number"),
            ],
        ),
        ("Sauvé (no 2) [2000] 2 CF, la disposition", [("2 CF", "bracket_report"), ("2", "case_number")]),
        ("Recueil des arrêts et décisions 1996-V, p. 12", [("1996-V", "reports_volume")]),
        ("no. 46410/99, TEDH 2006-XII, al considerar", [("TEDH 2006-XII", "reports_volume")]),
        ("([2001], vol. 3, Weekly Law Reports, p. 533). Il", [("vol. 3, Weekly Law Reports, p. 533", "volume_page")]),
        ("(requête no 8186/78, §§ 61-62), a", [("8186/78, §§ 61-62", "pinpoint")]),
        ("En 1996, la Cour (article 6 § 1) statua.", []),
        # an application number that a conversion split into groups
        ("Maxwell c. el Reino Unido (no 31 / / 1993 426/505) fueran", [("31 / / 1993 426/505", "split_application")]),
        ("la requête no 12 / 2004, dit-il", [("12 / 2004", "split_application")]),
        ("no 3 de los casos, no 36110/97", []),  # a number without a split slash; the plain rule reads 36110/97
    ],
)
def test_case_citations(text, spans):
    assert [(text[s:e], name) for s, e, name in find_case_citations(text)] == spans


@pytest.mark.parametrize(
    "lang,text,initials",
    [
        ("fr", "En février, [L.] a été présente.", ["[L.]"]),
        ("es", "la declaración de K. debido a su ausencia", ["K."]),
        ("es", "la inasistencia de K., el juicio", ["K."]),
        ("fr", "M. Dupont et M. Durand, dit-il.", []),  # "M." is a French title
        ("es", "D. José dijo que sí", []),  # "D." is a Spanish title
        ("fr", "I. LES CIRCONSTANCES, règlement B. Le juge", []),
        ("en", "the U.S. and J.-C. said", []),
    ],
)
def test_lone_initials(lang, text, initials):
    assert [text[s:e] for s, e in find_initials(text, lang)] == initials


def test_the_article_of_a_date_joins_it_only_when_asked():
    patterns = {p["name"]: p for p in date_patterns("fr", article=True)}
    assert patterns["date_fr"]["pattern"] != {p["name"]: p for p in date_patterns("fr")}["date_fr"]["pattern"]
    assert date_patterns("en", article=True) == date_patterns("en")
    assert detect("fr", "Il est né le 12 mars 1961 à Lyon.") == [("le 12 mars 1961", "DATETIME"), ("Lyon", "LOC")]
    assert detect("fr", "Il est né le 12 mars 1961 à Lyon.", judgment=False) == [
        ("12 mars 1961", "DATETIME"),
        ("Lyon", "LOC"),
    ]
    assert detect("es", "El 3 de mayo de 2004 llegó.") == [("El 3 de mayo de 2004", "DATETIME")]


def test_a_judgment_sentence_through_privacy_ner():
    assert detect("fr", "Selon [L.], voir Richardson v. Ramirez [1974] 418 US 24.") == [
        ("L.", "PERSON"),
        ("1974", "DATETIME"),
        ("418 US 24", "CODE"),
    ]


def test_the_judgment_recognizers_read_french_and_spanish_only():
    with pytest.raises(ValueError, match="case_citations"):
        nlp = spacy.blank("en")
        nlp.add_pipe(
            "privacy_ner",
            config={
                "sources": [],
                "unsupported": "error",
                "recognizers": {"case_citations": JUDGMENT_RECOGNIZERS["case_citations"]},
            },
        )
