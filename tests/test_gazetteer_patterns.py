"""The rule proposals of wikidata_gazetteer (institutions, health conditions),
the curated quasi-identifiers and the compact KB file, on small inputs."""

import pytest
import spacy

from spacy_textsan.detect.gazetteer.curated import quasi_identifier_entries, read_quasi_identifiers
from spacy_textsan.detect.gazetteer.kb import KB_FILE, KB_FILE_GZ, GazetteerKB, KBEntry, load_shared_kb
from spacy_textsan.detect.gazetteer.patterns import (
    INSTITUTIONS_PATH,
    InstitutionFinder,
    body_parts,
    condition_words,
    extend_condition,
    harm_heads,
    harm_words,
    read_list,
)
from spacy_textsan.detect.gazetteer.wikidata_gazetteer import WikidataGazetteer

NLP = spacy.blank("en")


def words(text):
    return [t.text for t in NLP.make_doc(text)]


@pytest.fixture(scope="module")
def finder():
    return InstitutionFinder(read_list(INSTITUTIONS_PATH))


@pytest.mark.parametrize(
    "text, found",
    [
        ("He was moved from HMP Wakefield to Wakefield Prison in 2010.", ["HMP Wakefield", "Wakefield Prison"]),
        (
            "Admitted to St Mary's Hospital; she attended Lincoln High School.",
            ["St Mary's Hospital", "Lincoln High School"],
        ),
        (
            "A graduate of the University of Leeds, now at Sunny Meadows Care Home.",
            ["University of Leeds", "Sunny Meadows Care Home"],
        ),
        ("Interviewed at Brixton Police Station.", ["Brixton Police Station"]),
        # generic words are no name; a sentence start is no part of one
        ("The Hospital refused. At the State Hospital and the High School, nobody.", []),
        ("The Prison Service replied.", []),
    ],
)
def test_institutions(finder, text, found):
    assert [text[s:e] for s, e in finder(text)] == found


@pytest.mark.parametrize(
    "text, start, end, expected",
    [
        ("fracture of the left kneecap", 0, 1, "fracture of the left kneecap"),
        ("fracture of the 4th sacral vertebra healed", 0, 1, "fracture of the 4th sacral vertebra"),
        ("loss of vision in his left eye .", 0, 3, "loss of vision in his left eye"),
        ("complications affecting her ears and eyes", 0, 1, "complications affecting her ears and eyes"),
        ("37 % of loss of sight", 3, 6, "37 % of loss of sight"),
        ("a 40 per cent disability", 4, 5, "40 per cent disability"),
        ("fracture of the law", 0, 1, "fracture"),  # no body part: nothing added
        ("depression in the winter", 0, 1, "depression"),
    ],
)
def test_extend_condition(text, start, end, expected):
    w = words(text)
    s, e = extend_condition(w, start, end, body_parts())
    assert " ".join(w[s:e]) == expected


def test_condition_words():
    w = words("X-rays show gonarthrosis and discopathy, not a diagnosis; amblyopia; sympathy; arthritis")
    assert [w[i] for i in condition_words(w)] == ["gonarthrosis", "discopathy", "amblyopia", "arthritis"]


@pytest.mark.parametrize(
    "text, found",
    [
        ("severe burns to his hands", ["burns"]),
        ("bruises on her arms and legs", ["bruises"]),
        ("complications affecting her ears and eyes", ["complications"]),
        ("an injury to the 4th lumbar vertebra and pain in his back", ["injury", "pain"]),
        ("damage to the back of the house", []),  # a part of a thing
        ("legal complications and damage to his car", []),  # no body part
        ("pecuniary and non-pecuniary damage", []),
        ("Burns to the face", ["Burns"]),
    ],
)
def test_harm_words(text, found):
    w = words(text)
    assert [w[i] for i in harm_words(w, body_parts(), harm_heads())] == found


def test_quasi_identifier_table(tmp_path):
    table = read_quasi_identifiers()
    entries = {e.label: e for e in quasi_identifier_entries(table)}
    assert entries["nurse"].aliases == ["nurses"] and entries["nurse"].chain[-1] == "person"
    assert entries["taxi driver"].aliases == ["taxi drivers"] and entries["widow"].aliases == []
    assert entries["HIV"].tab_type == "DEM" and entries["retired"].aliases == []
    assert entries["nurse"].id == "qi:DEM:nurse" and entries["nurse"].source == "textsan-quasi"
    assert {e.label: e.aliases for e in quasi_identifier_entries(table, exclude=["nurses"])}["nurse"] == []
    bad = tmp_path / "bad.txt"
    bad.write_text("DEM | person | yes | nurse\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.txt:1"):
        read_quasi_identifiers(bad)


def make_gazetteer(**config):
    kb = GazetteerKB(
        [
            KBEntry("qi:DEM:nurse", "nurse", "DEM", ["nurses"], ["health professional", "person"], "textsan-quasi"),
            KBEntry("wn:1-n", "fracture", "DEM", [], ["injury", "ill health"], "wordnet-3.0"),
            KBEntry(
                "class:ORG:prison", "prison", "ORG", ["jail"], ["penal institution", "organization"], "textsan-classes"
            ),
        ]
    )
    return WikidataGazetteer(kb=kb, **config)


def run(gaz, text, deny=()):
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": [], "rule_layer": {"deny_list": list(deny)}})
    doc = nlp(text)
    return [(s.text, s.label_, s._.source) for s in gaz(doc).spans["textsan"]]


def test_component_conditions_and_institutions():
    gaz = make_gazetteer()
    assert run(gaz, "A nurse with a fracture of the left wrist and gonarthrosis, held in Leeds Prison.") == [
        ("nurse", "DEM", "gazetteer:textsan-quasi"),
        ("fracture of the left wrist", "DEM", "gazetteer:wordnet-3.0"),
        ("gonarthrosis", "DEM", "gazetteer:clinical-ending"),
        ("Leeds Prison", "ORG", "gazetteer:institution"),
    ]
    # an institution replaces a place inside it; a condition keeps clear of other candidates
    assert run(gaz, "Held in Leeds Prison.", deny=["LOC:Leeds"]) == [("Leeds Prison", "ORG", "gazetteer:institution")]
    assert run(gaz, "A fracture of the Leeds hand.", deny=["LOC:Leeds"]) == [
        ("fracture", "DEM", "gazetteer:wordnet-3.0"),
        ("Leeds", "LOC", "deny_list"),
    ]
    off = make_gazetteer(institutions=False, conditions=False)
    assert run(off, "A fracture of the left wrist and gonarthrosis in Leeds Prison.") == [
        ("fracture", "DEM", "gazetteer:wordnet-3.0")
    ]


def test_component_tags_harm_to_the_body_as_a_health_condition():
    gaz = make_gazetteer()
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    doc = gaz(nlp("He suffered severe burns to his hands; damage to the back of the house; legal complications."))
    assert [(s.text, s.label_, s._.source, s._.kb_chain) for s in doc.spans["textsan"]] == [
        ("severe burns to his hands", "DEM", "gazetteer:bodily-harm", ["injury", "ill health"])
    ]
    assert run(make_gazetteer(conditions=False), "He suffered severe burns to his hands.") == []


def test_harm_to_the_body_is_a_special_category_that_no_public_rule_keeps():
    # "bruises on her arms and legs" ends in a plural in lower case, as a group role does ("police officers")
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    opt = nlp.add_pipe("mask_optimizer", config={"keep_public": ["group_role"], "mask_kb_classes": ["ill health"]})
    doc = opt(make_gazetteer()(nlp("The report noted bruises on her arms and legs and police officers.")))
    assert [(s.text, s._.masked, s._.reasons) for s in doc.spans["textsan"]] == [
        ("bruises on her arms and legs", True, ["policy: ill health is always masked"])
    ]


def test_linking_results_are_cached_per_text_and_label():
    gaz = make_gazetteer()
    run(gaz, "Held in Leeds Prison, then in Leeds Prison again.")
    assert list(gaz._links) == [("Leeds Prison", "ORG")]


def test_compact_kb_round_trip(tmp_path):
    kb = GazetteerKB([KBEntry("a", "Oslo", "LOC", ["Christiania"], ["city"], "geo", "capital of Norway")])
    kb.to_disk(tmp_path / "kb", compact=True)
    assert (tmp_path / "kb" / KB_FILE_GZ).exists() and not (tmp_path / "kb" / KB_FILE).exists()
    first = (tmp_path / "kb" / KB_FILE_GZ).read_bytes()
    kb.to_disk(tmp_path / "kb", compact=True)
    assert (tmp_path / "kb" / KB_FILE_GZ).read_bytes() == first  # reproducible bytes
    back = GazetteerKB.from_disk(tmp_path / "kb")
    assert back.get("a").to_list() == ["a", "Oslo", "LOC", ["Christiania"], ["city"], "geo", ""]
    kb.to_disk(tmp_path / "kb")  # plain again: one file only
    assert (tmp_path / "kb" / KB_FILE).exists() and not (tmp_path / "kb" / KB_FILE_GZ).exists()
    assert GazetteerKB.from_disk(tmp_path / "kb").get("a").description == "capital of Norway"


def test_components_share_a_kb_loaded_from_one_path(tmp_path):
    GazetteerKB([KBEntry("a", "nurse", "DEM")]).to_disk(tmp_path / "kb", compact=True)
    one, two = WikidataGazetteer(kb_path=tmp_path / "kb"), WikidataGazetteer(kb_path=tmp_path / "kb")
    assert one.kb is two.kb is load_shared_kb(tmp_path / "kb")
    assert one.matcher is two.matcher
