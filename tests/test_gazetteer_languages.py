"""The gazetteer in French, Spanish and German: the KB's surfaces in those languages (countries, cities,
nationalities), read by the pipelines of that language only; English unchanged."""

import hashlib

import pytest
import spacy
import srsly
from wikidata_server import wikidata_server  # noqa: F401  (fixture)

from spacy_textsan.detect.gazetteer.kb import GazetteerKB, KBEntry, load_shared_kb
from spacy_textsan.detect.gazetteer.languages import (
    LANGUAGES,
    german_adjective_forms,
    language_files,
    language_surfaces,
    read_demonyms,
    read_places,
)
from spacy_textsan.detect.gazetteer.paths import SHIPPED_KB_PATH
from spacy_textsan.detect.gazetteer.wikidata_client import WikidataClient
from spacy_textsan.detect.gazetteer.wikidata_gazetteer import WikidataGazetteer

NORWAY = ["country in Europe", "country"]
NORWEGIAN = ["nationality of Norway", "nationality"]
OSLO = ["national capital", "city in Norway", "city"]


def make_nlp(pipeline_lang, deny=(), **config):
    """A blank pipeline of ``pipeline_lang``: privacy_ner's rules (``deny`` standing in for a NER's places)
    and the gazetteer over the shipped KB."""
    nlp = spacy.blank(pipeline_lang)
    nlp.add_pipe("privacy_ner", config={"sources": [], "rule_layer": {"deny_list": list(deny)}})
    nlp.add_pipe("wikidata_gazetteer", config={"kb_path": str(SHIPPED_KB_PATH), **config})
    return nlp


def rows(doc):
    return [(s.text, s.label_, s.start_char, s.end_char, s._.kb_id, s._.kb_chain) for s in doc.spans["textsan"]]


# --------------------------------------------------------------------------- the pipelines


def test_french_nationality_country_and_capital():
    doc = make_nlp("fr", deny=["LOC:Norvège", "LOC:Oslo"])("Il est norvégien et vit en Norvège, à Oslo.")
    assert rows(doc) == [
        ("norvégien", "DEM", 7, 16, "geo:nationality:NO", NORWEGIAN),
        ("Norvège", "LOC", 27, 34, "geo:country:NO", NORWAY),
        ("Oslo", "LOC", 38, 42, "geo:city:3143244", OSLO),
    ]
    assert doc.spans["textsan"][0]._.source == "gazetteer:countryinfo"


def test_french_feminine_plural_capitalised_and_other_countries():
    nlp = make_nlp("fr", deny=["LOC:Allemagne", "LOC:Suisse", "LOC:Londres"])
    doc = nlp("Les Norvégiennes, une Suisse allemande, vivent en Allemagne et à Londres.")
    assert [(t, label, kb_id, chain) for t, label, _, _, kb_id, chain in rows(doc)] == [
        ("Norvégiennes", "DEM", "geo:nationality:NO", NORWEGIAN),
        ("Suisse", "LOC", "geo:country:CH", ["country in Europe", "country"]),
        ("allemande", "DEM", "geo:nationality:DE", ["nationality of Germany", "nationality"]),
        ("Allemagne", "LOC", "geo:country:DE", ["country in Europe", "country"]),
        ("Londres", "LOC", "geo:city:2643743", ["national capital", "city in United Kingdom", "city"]),
    ]


def test_a_french_nationality_does_not_take_the_noun_before_it():
    doc = make_nlp("fr")("Le requérant, ressortissant turc, a la nationalité turque.")
    assert [(t, kb_id) for t, _, _, _, kb_id, _ in rows(doc)] == [
        ("turc", "geo:nationality:TR"),
        ("turque", "geo:nationality:TR"),
    ]


def test_spanish_sentence():
    doc = make_nlp("es", deny=["LOC:Noruega", "LOC:Oslo"])("Es noruego y vive en Noruega, en Oslo.")
    assert rows(doc) == [
        ("noruego", "DEM", 3, 10, "geo:nationality:NO", NORWEGIAN),
        ("Noruega", "LOC", 21, 28, "geo:country:NO", NORWAY),  # not the feminine demonym "noruega"
        ("Oslo", "LOC", 33, 37, "geo:city:3143244", OSLO),
    ]


def test_german_sentence_with_an_inflected_adjective():
    nlp = make_nlp("de", deny=["LOC:Norwegen", "LOC:Oslo"])
    doc = nlp("Er ist Norweger und lebt in Norwegen, in Oslo, bei norwegischen Freunden.")
    assert rows(doc) == [
        ("Norweger", "DEM", 7, 15, "geo:nationality:NO", NORWEGIAN),
        ("Norwegen", "LOC", 28, 36, "geo:country:NO", NORWAY),
        ("Oslo", "LOC", 41, 45, "geo:city:3143244", OSLO),
        ("norwegischen", "DEM", 51, 63, "geo:nationality:NO", NORWEGIAN),
    ]


def test_english_is_unchanged_and_reads_no_other_language():
    text = "He is Norwegian and lives in Norway, in Oslo; il est norvégien, er ist Norweger."
    nlp = make_nlp("en")
    gaz = nlp.get_pipe("wikidata_gazetteer")
    assert gaz.kb is load_shared_kb(SHIPPED_KB_PATH) and gaz.kb.language is None
    assert rows(nlp(text)) == [
        ("Norwegian", "DEM", 6, 15, "geo:nationality:NO", NORWEGIAN),
        ("Norway", "LOC", 29, 35, "geo:country:NO", NORWAY),
        ("Oslo", "LOC", 40, 44, "geo:city:3143244", OSLO),
    ]
    # the same spans and chains as with a KB without any other language
    msg = srsly.msgpack_loads(gaz.kb.to_bytes(descriptions=False))
    assert set(msg.pop("languages")) == set(LANGUAGES)
    english_only = GazetteerKB.from_bytes(srsly.msgpack_dumps(msg))
    assert english_only.languages == []
    plain = spacy.blank("en")
    plain.add_pipe("privacy_ner", config={"sources": []})
    plain.add_pipe("wikidata_gazetteer").set_kb(english_only)
    assert rows(plain(text)) == rows(nlp(text))


def test_lang_setting_overrides_the_pipeline_language():
    doc = make_nlp("fr", lang="en")("Il est norvégien.")
    assert rows(doc) == []


# --------------------------------------------------------------------------- the KB


def tiny_kb():
    return GazetteerKB(
        [
            KBEntry("geo:country:NO", "Norway", "LOC", [], NORWAY),
            KBEntry("geo:nationality:NO", "Norwegian", "DEM", ["Norwegians"], NORWEGIAN),
            KBEntry("geo:city:1", "Vienne", "LOC", [], ["city in France", "city"]),
            KBEntry("geo:city:2", "Vienna", "LOC", [], ["national capital", "city in Austria", "city"]),
        ]
    )


def test_language_surfaces_are_apart_and_come_first_in_their_language():
    kb = tiny_kb()
    before = kb.to_bytes()
    assert kb.add_language_surfaces("fr", "geo:country:NO", ["Norvège", "norvège"]) == 1  # one normalised form
    assert kb.add_language_surfaces("fr", "geo:nationality:NO", ["norvégien", "Norvégiens"]) == 2
    assert kb.add_language_surfaces("fr", "geo:city:2", ["Vienne"]) == 1
    with pytest.raises(KeyError):
        kb.add_language_surfaces("fr", "geo:city:3", ["Lyon"])
    assert kb.languages == ["fr"] and kb.lookup("Norvège") == [] and kb.in_language("es") is kb
    fr = kb.in_language("fr")
    assert fr is kb.in_language("fr") and fr.language == "fr"
    assert [e.id for e in fr.lookup("norvège")] == ["geo:country:NO"]
    assert [e.id for e in fr.lookup("Vienne")] == ["geo:city:2", "geo:city:1"]  # the French exonym first
    assert [e.id for e in kb.lookup("Vienne")] == ["geo:city:1"]
    assert fr.is_cased("norvégiens") and not fr.is_cased("norvégien") and fr.n_surfaces == kb.n_surfaces + 3
    # an entry added to the language's KB (live Wikidata) is the KB's; both serialise the same
    fr.add(KBEntry("Q20", "Bergen", "LOC", [], ["city"]))
    assert [e.id for e in kb.lookup("Bergen")] == ["Q20"] and fr.to_bytes() == kb.to_bytes()
    again = GazetteerKB.from_bytes(kb.to_bytes())
    assert again.language_surfaces("fr") == {
        "geo:country:NO": ["Norvège"],
        "geo:nationality:NO": ["norvégien", "Norvégiens"],
        "geo:city:2": ["Vienne"],
    }
    assert [e.id for e in again.in_language("fr").lookup("Norvégien")] == ["geo:nationality:NO"]
    assert tiny_kb().to_bytes() == before  # no other language: the format as it was


def test_a_saved_french_pipeline_keeps_its_surfaces(tmp_path):
    kb = tiny_kb()
    kb.add_language_surfaces("fr", "geo:nationality:NO", ["norvégien"])
    nlp = spacy.blank("fr")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    nlp.add_pipe("wikidata_gazetteer", config={"kb_path": str(tmp_path / "none")}).set_kb(kb)
    nlp.to_disk(tmp_path / "pipe")
    doc = spacy.load(tmp_path / "pipe")("Il est norvégien.")
    assert rows(doc) == [("norvégien", "DEM", 7, 16, "geo:nationality:NO", NORWEGIAN)]


# --------------------------------------------------------------------------- the build


def test_language_surfaces_rules():
    kb = tiny_kb()
    kb.add(KBEntry("geo:city:3", "Norvège", "LOC", [], ["city in Norway", "city"]))  # a (made-up) town
    kb.add(KBEntry("geo:nationality:AT", "Austrian", "DEM", [], ["nationality of Austria", "nationality"]))
    places = {"country": {"NO": ["Royaume de Norvège"]}, "city": {"2": ("Vienna", ["Vienne", "Wien"])}}
    demonyms = {"NO": ["noruego", "noruega"], "AT": ["österreichisch"]}
    territories = {"NO": "Noruega", "AT": "Austria"}
    out, counts = language_surfaces(kb, "es", territories=territories, demonyms=demonyms, places=places)
    assert out == {
        "geo:country:NO": ["Noruega", "Royaume de Norvège"],
        "geo:city:2": ["Vienne", "Wien"],
        "geo:nationality:NO": ["noruego"],  # "noruega" is the country
        "geo:nationality:AT": ["österreichisch"],  # no endings but in German; no country entry for AT
    }
    assert counts == {"countries": 1, "cities": 1, "nationalities": 2, "dropped": 1}
    # a CLDR name the KB gives to a city at least as populous as the country is left out
    territories = {"NO": "Norvège"}
    pops = {"geo:country:NO": 5_000_000, "geo:city:3": 5_000_000}
    out, _ = language_surfaces(kb, "fr", territories=territories, demonyms={}, places={}, populations=pops)
    assert out == {}
    pops["geo:city:3"] = 4_999_999
    out, _ = language_surfaces(kb, "fr", territories=territories, demonyms={}, places={}, populations=pops)
    assert out == {"geo:country:NO": ["Norvège"]}
    # German adjectives get their endings
    out, _ = language_surfaces(
        kb, "de", territories={"AT": "Österreich"}, demonyms={"AT": ["österreichisch", "Österreicher"]}, places={}
    )
    assert out["geo:nationality:AT"] == [*german_adjective_forms("österreichisch"), "Österreicher"]
    assert german_adjective_forms("norwegisch")[1:] == [
        "norwegische",
        "norwegischen",
        "norwegischer",
        "norwegisches",
        "norwegischem",
    ]


def test_language_surfaces_checks_the_data():
    kb = tiny_kb()
    places = {"city": {"2": ("Vienna", ["Vienne", "Viena"])}}
    cities = {"2": ("Vienna", ["Vienne", "Wien"])}
    with pytest.raises(ValueError, match="Viena not a GeoNames name of Vienna"):
        language_surfaces(kb, "es", territories={}, demonyms={}, places=places, city_names=cities)
    with pytest.raises(ValueError, match="no city 2 'Vienna'"):
        language_surfaces(kb, "es", territories={}, demonyms={}, places=places, city_names={"2": ("Wien", [])})
    with pytest.raises(ValueError, match="unknown country code: XX"):
        language_surfaces(kb, "es", territories={}, demonyms={"XX": ["x"]}, places={})


def test_data_files_parse_and_reject_malformed_lines(tmp_path):
    for lang in LANGUAGES:
        files = language_files(lang)
        assert len(read_demonyms(files["demonyms"])) >= 90
        assert read_places(files["places"])["city"]
    bad = tmp_path / "demonyms.txt"
    bad.write_text("NO | norvégien\nNorway | norvégien\n", encoding="utf-8")
    with pytest.raises(ValueError, match=":2: expected"):
        read_demonyms(bad)
    bad.write_text("town | 1 Oslo | Oslo\n", encoding="utf-8")
    with pytest.raises(ValueError, match=":1: expected"):
        read_places(bad)


def test_shipped_kb_has_every_language_entry_and_is_up_to_date():
    """Edit data/<lang>/*.txt, then run `make kb`."""
    meta = srsly.read_json(SHIPPED_KB_PATH / "meta.json")
    kb = load_shared_kb(SHIPPED_KB_PATH)
    assert kb.languages == sorted(LANGUAGES)
    for lang in LANGUAGES:
        files = language_files(lang)
        digests = {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in files.items()}
        assert meta["languages"][lang]["inputs"] == digests, f"data/{lang} changed: run `make kb`"
        layer = kb.language_surfaces(lang)
        assert {f"geo:nationality:{iso}" for iso in read_demonyms(files["demonyms"])} <= set(layer)
        assert {f"geo:city:{gid}" for gid in read_places(files["places"])["city"]} <= set(layer)
        assert sum(len(forms) for forms in layer.values()) == meta["languages"][lang]["n_surfaces"]


# --------------------------------------------------------------------------- live Wikidata


def test_a_live_client_searches_in_the_pipeline_language(wikidata_server):  # noqa: F811
    fast = dict(timeout_s=0.3, max_retries=0, backoff_s=0.01, min_interval_s=0.0, cooldown_s=0.0)
    client = WikidataClient(wikidata_server.api_url, wikidata_server.sparql_url, **fast)
    WikidataGazetteer(kb=tiny_kb(), client=client, lang="fr")
    assert (client.language, client.label_language) == ("fr", "en")
    entry = client.lookup("Oslo")
    assert entry is not None and entry.chain[:2] == ["capital city", "city"]
    search, *sparql = wikidata_server.received
    assert search["params"]["language"] == "fr" and search["params"]["uselang"] == "fr"
    assert all('wikibase:language "en,mul"' in r["params"]["query"] for r in sparql)
    # a language set in the config stays
    nb = WikidataClient(wikidata_server.api_url, wikidata_server.sparql_url, language="nb", **fast)
    WikidataGazetteer(kb=tiny_kb(), client=nb, lang="fr")
    assert (nb.language, nb.label_language) == ("nb", "nb")
