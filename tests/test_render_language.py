"""The generalizer in the document's language (spacy_textsan/render/phrases.py): generalizations written in
French, Spanish and German, pseudonyms from Faker's locale of the pipeline's language; English as it was."""

from pathlib import Path

import pytest
import spacy

from spacy_textsan.extensions import SPANS_KEY
from spacy_textsan.render.phrases import (
    PHRASES_FILE,
    echoes,
    faker_locale,
    phrase_languages,
    territory_name,
    translate_phrase,
    translates,
)
from spacy_textsan.render.surrogates import fake_value
from spacy_textsan.word_lists import table_rows

Spans = list[tuple[str, str, list[str] | None]]

FRENCH = (
    "Jean Dupont, né en 1961, vit à Bergen, en Norvège ; batteur, il a payé 15 000 EUR à la cour d'assises d'Ankara.",
    [
        ("Jean Dupont", "PERSON", None),
        ("1961", "DATETIME", None),
        ("Bergen", "LOC", ["city in Norway", "city"]),
        ("Norvège", "LOC", ["country in Europe", "country"]),
        ("batteur", "DEM", ["percussionist", "musician", "performer", "person"]),
        ("15 000 EUR", "QUANTITY", None),
        ("cour d'assises d'Ankara", "ORG", ["assize court in Turkey", "assize court", "criminal court", "court"]),
    ],
)
SPANISH = (
    "María García, nacida el 3 de mayo de 1975, vive en Oslo, es turca y trabaja en el Hospital de Sant Pau.",
    [
        ("María García", "PERSON", None),
        ("3 de mayo de 1975", "DATETIME", None),
        ("Oslo", "LOC", ["national capital", "city in Norway", "city"]),
        ("turca", "DEM", ["nationality of Turkey", "nationality"]),
        ("Hospital de Sant Pau", "ORG", ["hospital", "health care institution", "organization"]),
    ],
)
GERMAN = (
    "Hans Müller, geboren am 2. März 1958, wohnt in Lyon und ist Mitglied der Gewerkschaft IG Metall.",
    [
        ("Hans Müller", "PERSON", None),
        ("2. März 1958", "DATETIME", None),
        ("Lyon", "LOC", ["city in France", "city"]),
        ("Gewerkschaft IG Metall", "ORG", ["trade union", "association", "organization"]),
    ],
)
ENGLISH = (
    "Ada Lee, born in 1961, lives in Bergen and works for Acme Corp in May.",
    [
        ("Ada Lee", "PERSON", None),
        ("1961", "DATETIME", None),
        ("Bergen", "LOC", ["city in Norway", "city"]),
        ("Acme Corp", "ORG", ["company", "business", "organization"]),
    ],
)


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("keys")
    (folder / "k1").write_bytes(b"a-test-key-for-languages\n")
    (folder / "k2").write_bytes(b"another-test-key\n")
    return folder / "k1", folder / "k2"


def sanitize(lang: str, strategy: str, example: tuple[str, Spans], key: Path, **config) -> str:
    """The sanitized text of ``example`` (every span masked, its KB chain set by hand) by a pipeline of ``lang``."""
    text, spans = example
    nlp = spacy.blank(lang)
    settings = {"strategy": strategy, "add_rules": False, "key_file": str(key), "key_env": None, **config}
    generalizer = nlp.add_pipe("generalizer", config=settings)
    doc = nlp.make_doc(text)
    group = []
    for needle, label, chain in spans:
        start = text.index(needle)
        span = doc.char_span(start, start + len(needle), label=label)
        assert span is not None, needle
        span._.kb_chain = chain
        span._.masked = True
        group.append(span)
    doc.spans[SPANS_KEY] = group
    return generalizer(doc)._.sanitized_text


# -- the phrases, pure functions ---------------------------------------------------------------------------


def test_phrases_are_written_in_each_language():
    phrases = ["city in Norway", "national capital", "country in Europe", "court in the Netherlands", "DATE"]
    phrases += ["date in the 1990s", "1994", "X EUR", "province of Türkiye", "ministry of justice"]
    assert [translate_phrase(p, "fr") for p in phrases] == [
        "ville, Norvège",
        "capitale nationale",
        "pays, Europe",
        "tribunal, Pays-Bas",
        "DATE",
        "date des années 1990",
        "1994",
        "X EUR",
        "province, Turquie",
        "ministère de la Justice",
    ]
    assert [translate_phrase(p, "es") for p in phrases] == [
        "ciudad, Noruega",
        "capital nacional",
        "país, Europa",
        "tribunal, Países Bajos",
        "FECHA",
        "fecha de la década de 1990",
        "1994",
        "X EUR",
        "provincia, Turquía",
        "ministerio de Justicia",
    ]
    assert [translate_phrase(p, "de") for p in phrases] == [
        "Stadt, Norwegen",
        "Hauptstadt",
        "Land, Europa",
        "Gericht, Niederlande",
        "DATUM",
        "Datum in den 1990er-Jahren",
        "1994",
        "X EUR",
        "Provinz, Türkei",
        "Justizministerium",
    ]


def test_country_names_are_cldrs_in_the_language():
    assert territory_name("Norway", "fr") == "Norvège"
    assert territory_name("Turkey", "de") == "Türkei"  # GeoNames' name, which CLDR's English no longer is
    assert territory_name("the Netherlands", "es") == "Países Bajos"
    assert territory_name("Saint Kitts and Nevis", "fr") == "Saint-Christophe-et-Niévès"  # CLDR: "St. Kitts & Nevis"
    assert territory_name("Ivory Coast", "de") == "Côte d’Ivoire"
    assert territory_name("South America", "es") == "Sudamérica"
    assert territory_name("Atlantis", "fr") is None


def test_a_phrase_the_table_cannot_write_is_none_and_english_is_the_phrase_itself():
    assert translate_phrase("percussionist", "fr") is None
    assert translate_phrase("council area of United Kingdom", "es") is None  # a phrase it does not know
    assert translate_phrase("city in Atlantis", "de") is None  # a place that is no country
    assert translate_phrase("percussionist", "en") == "percussionist"
    assert [translates(lang) for lang in ("en", "fr", "es", "de", "it", None)] == [False, True, True, True] + [
        False,
        False,
    ]


def test_the_table_writes_every_phrase_in_every_language_once():
    header, *rows = table_rows(PHRASES_FILE)
    assert header == phrase_languages() == ("en", "fr", "es", "de")
    assert all(len(row) == 4 and all(row) for row in rows)
    english = [row[0].casefold() for row in rows]
    assert len(english) == len(set(english))


def test_faker_locale_of_each_language():
    assert [faker_locale(lang) for lang in ("en", "fr", "es", "de", "it", None)] == [
        "en_US",
        "fr_FR",
        "es_ES",
        "de_DE",
        "en_US",
        "en_US",
    ]
    assert fake_value("PERSON", 1, locale="fr_FR") == "Grégoire Colas"
    assert fake_value("PERSON", 1) == "Dennis Boone"  # en_US, as before


def test_a_written_country_that_starts_like_the_original_echoes_it():
    assert echoes("nationalité, Grèce", "grecque")
    assert echoes("nacionalidad, Turquía", "turca")
    assert not echoes("nationalité", "grecque")  # lower case: a class, no name
    assert not echoes("ville, Norvège", "Bergen")


# -- the generalizer ---------------------------------------------------------------------------------------


def test_a_french_document_is_generalized_in_french(keys):
    # "Bergen": "ville, Norvège" names the masked "Norvège", so "ville"; "batteur": "percussionist" has no French
    # in the table, so the next ancestor, "musicien"; the lone year is never itself
    assert sanitize("fr", "generalize", FRENCH, keys[0]) == (
        "[PERSON 1], né en [date des années 1960], vit à [ville], en [pays, Europe] ; [musicien], il a payé "
        "[X EUR] à la [cour d'assises, Turquie]."
    )


def test_a_french_document_gets_french_pseudonyms(keys):
    # names, cities, countries, companies from Faker's fr_FR; DEM has none: generalized in French
    assert sanitize("fr", "pseudonym", FRENCH, keys[0]) == (
        "Léon Monnier, né en 1965, vit à Buisson, en Hongrie ; [musicien], il a payé 22 490 EUR à la Guichard."
    )


def test_a_spanish_document_in_spanish(keys):
    # "turca": "nacionalidad, Turquía" echoes the original (tur-), so "nacionalidad"
    assert sanitize("es", "generalize", SPANISH, keys[0]) == (
        "[PERSON 1], nacida el [1975], vive en [capital nacional], es [nacionalidad] y trabaja en el [hospital]."
    )
    assert sanitize("es", "pseudonym", SPANISH, keys[0]) == (
        "Fátima Prieto, nacida el 14 de septiembre de 1967, vive en Sevilla, es [nacionalidad] y trabaja en el "
        "Despacho YNJ S.L.L.."
    )


def test_a_german_document_in_german(keys):
    # "Gewerkschaft" is a capitalised word of the masked "Gewerkschaft IG Metall": the next ancestor, "Verein"
    assert sanitize("de", "generalize", GERMAN, keys[0]) == (
        "[PERSON 1], geboren am [1958], wohnt in [Stadt, Frankreich] und ist Mitglied der [Verein]."
    )
    assert sanitize("de", "pseudonym", GERMAN, keys[0]) == (
        "Hinrich Schleich, geboren am 28. November 1961, wohnt in Meißen und ist Mitglied der Seidel."
    )


def test_a_chain_the_table_cannot_write_is_masked_not_left_in_english(keys):
    example = ("Il vit à Dundee.", [("Dundee", "LOC", ["council area of United Kingdom", "council area"])])
    assert sanitize("fr", "generalize", example, keys[0]) == "Il vit à [LOC 1]."
    assert sanitize("fr", "generalize", example, keys[0], label_language="fr") == "Il vit à [LIEU 1]."
    assert sanitize("en", "generalize", example, keys[0]) == "Il vit à [council area of United Kingdom]."


def test_the_same_key_gives_the_same_pseudonyms_another_key_others(keys):
    first = sanitize("fr", "pseudonym", FRENCH, keys[0])
    assert sanitize("fr", "pseudonym", FRENCH, keys[0]) == first
    assert sanitize("fr", "pseudonym", FRENCH, keys[1]) == (
        "Patrick Guillou, né en 1967, vit à Peltier, en Montserrat ; [musicien], il a payé 77 925 EUR à la "
        "Wagner S.A.S.."
    )


def test_english_is_as_it_was(keys):
    assert sanitize("en", "generalize", ENGLISH, keys[0]) == (
        "[PERSON 1], born in [date in the 1960s], lives in [city in Norway] and works for [company] in May."
    )
    assert sanitize("en", "pseudonym", ENGLISH, keys[0]) == (
        "Julie Patterson, born in 1955, lives in Willieton and works for Flores-Greene in May."
    )
