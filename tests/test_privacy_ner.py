"""privacy_ner as a pipeline component: exact spans on hand-checked texts."""

import subprocess
import sys

import pytest
import spacy

from spacy_textsan.extensions import get_candidates

TEXT = (
    "The applicant, Mr Galip Yalman, lodged application no. 48213/09 on 14 March 2009. "
    "Yalman paid EUR 4,000 under Article 41 of the Convention. Mr Yalman wrote to galip@example.org."
)


def spans(doc, key="textsan"):
    return [(s.text, s.label_, s._.entity_id, s._.source) for s in doc.spans[key]]


def test_rules_only(rules_nlp):
    assert spans(rules_nlp(TEXT)) == [
        ("Mr Galip Yalman", "PERSON", "PERSON-1", "rule:titled_name"),
        ("48213/09", "CODE", "CODE-1", "rule:application_number"),
        ("14 March 2009", "DATETIME", "DATETIME-1", "rule:date_dmy"),
        # the surname alone is found because the titled full name was
        ("Yalman", "PERSON", "PERSON-1", "propagated:rule:titled_name"),
        ("EUR 4,000", "QUANTITY", "QUANTITY-1", "rule:money_code_first"),
        ("Mr Yalman", "PERSON", "PERSON-1", "rule:titled_name"),
        ("galip@example.org", "CODE", "CODE-2", "rule:email"),
    ]


def test_with_source_model(model_available):
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": [model_available]})
    doc = nlp(TEXT)
    # "Article 41 of the Convention" (LAW) is dropped by the default allow patterns
    assert spans(doc) == [
        ("Mr Galip Yalman", "PERSON", "PERSON-1", "rule:titled_name"),
        ("48213/09", "CODE", "CODE-1", "rule:application_number"),
        ("14 March 2009", "DATETIME", "DATETIME-1", "rule:date_dmy"),
        ("Yalman", "PERSON", "PERSON-1", f"ner:{model_available}:PERSON"),
        ("EUR 4,000", "QUANTITY", "QUANTITY-1", "rule:money_code_first"),
        ("Mr Yalman", "PERSON", "PERSON-1", "rule:titled_name"),
        ("galip@example.org", "CODE", "CODE-2", "rule:email"),
    ]
    assert all(s._.identifier_type == "UNKNOWN" for s in doc.spans["textsan"])


def test_no_propagation(rules_nlp):
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": [], "mentions": {"propagate": False}})
    assert "Yalman" not in [s[0] for s in spans(nlp(TEXT))]


def test_allow_list_deny_list_and_user_patterns():
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "privacy_ner",
        config={
            "sources": [],
            "rule_layer": {
                "allow_list": ["eur 4,000"],
                "deny_list": ["PERSON:applicant", {"text": "Convention", "label": "MISC"}],
                "patterns": [{"name": "ref", "label": "CODE", "pattern": r"PX\d+"}],
            },
        },
    )
    doc = nlp("The applicant paid EUR 4,000 under the Convention, patient PX991.")
    assert spans(doc) == [
        ("applicant", "PERSON", "PERSON-1", "deny_list"),
        ("Convention", "MISC", "MISC-1", "deny_list"),  # deny beats the default allow pattern
        ("PX991", "CODE", "CODE-1", "rule:ref"),
    ]


def test_label_map_drops_and_renames():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns(
        [
            {"label": "NORP", "pattern": "Turkish"},
            {"label": "GPE", "pattern": "Ankara"},
            {"label": "CARDINAL", "pattern": "12"},
            {"label": "CARDINAL", "pattern": "123456"},
        ]
    )
    nlp.add_pipe(
        "privacy_ner",
        config={
            "sources": ["doc.ents"],
            "rule_layer": {"rules": False},
            "label_map": {"NORP": None, "GPE": "LOC", "CARDINAL": "CODE"},
        },
    )
    doc = nlp("A Turkish lawyer in Ankara, case 12 and file 123456.")
    # CARDINAL keeps only numbers with >= 4 digits (min_code_digits)
    assert [(s.text, s.label_) for s in doc.spans["textsan"]] == [("Ankara", "LOC"), ("123456", "CODE")]


def test_intersection_and_union_of_two_sources(model_available):
    # source 1: a rule-based host NER (doc.ents); source 2: the statistical model, which tags
    # "Galip Yalman" PERSON, "Ayse Demir" PERSON and "Eskisehir" GPE in this sentence
    text = "Galip Yalman met Ayse Demir in Eskisehir."

    def build(how):
        nlp = spacy.blank("en")
        nlp.add_pipe("entity_ruler").add_patterns(
            [{"label": "PERSON", "pattern": "Galip Yalman"}, {"label": "ORG", "pattern": "Eskisehir"}]
        )
        nlp.add_pipe(
            "privacy_ner",
            config={
                "sources": ["doc.ents", model_available],
                "combine": how,
                "rule_layer": {"rules": False},
                "mentions": {"propagate": False},
            },
        )
        return nlp

    inter = build("intersection")(text)
    assert [(s.text, s.label_, s._.source) for s in inter.spans["textsan"]] == [
        ("Galip Yalman", "PERSON", f"ner:doc.ents:PERSON+ner:{model_available}:PERSON"),
        ("Eskisehir", "ORG", f"ner:doc.ents:ORG+ner:{model_available}:GPE"),  # first source's label
    ]
    union = build("union")(text)
    assert [(s.text, s.label_) for s in union.spans["textsan"]] == [
        ("Galip Yalman", "PERSON"),
        ("Ayse Demir", "PERSON"),
        ("Eskisehir", "LOC"),
    ]


def test_pipe_gives_the_same_result_as_call(rules_nlp):
    texts = [TEXT, "", "On 1 May 2001 Ms Ada Lee called +44 20 7946 0958.", "nothing here"]
    piped = [spans(d) for d in rules_nlp.pipe(texts, batch_size=2)]
    called = [spans(rules_nlp(t)) for t in texts]
    assert piped == called
    assert piped[1] == [] and piped[3] == []


def test_spans_never_share_offsets(rules_nlp):
    doc = rules_nlp("Mr Galip Yalman Mr Galip Yalman 1 May 2001 1 May 2001")
    offsets = [(s.start_char, s.end_char) for s in doc.spans["textsan"]]
    assert len(offsets) == len(set(offsets))
    assert all(not (a[1] > b[0]) for a, b in zip(offsets, offsets[1:], strict=False))  # sorted, non-overlapping


def test_bad_config_is_rejected():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="combine must be"):
        nlp.add_pipe("privacy_ner", config={"sources": [], "combine": "vote"})
    with pytest.raises(ValueError, match="not TAB labels"):
        nlp.add_pipe("privacy_ner", name="p2", config={"sources": [], "label_map": {"GPE": "PLACE"}})
    with pytest.raises(ValueError, match=r"pattern .user_0. .\(.: RE2 cannot compile this pattern \(missing \)"):
        nlp.add_pipe(
            "privacy_ner",
            name="p3",
            config={"sources": [], "rule_layer": {"patterns": [{"label": "CODE", "pattern": "("}]}},
        )
    with pytest.raises(ValueError, match="has no 'ner'"):
        nlp.add_pipe("privacy_ner", name="p4", config={"sources": ["blank:en"]})


def test_candidates_fall_back_to_doc_ents():
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "PERSON", "pattern": "Ada"}])
    doc = nlp("Ada wrote.")
    assert [s.text for s in get_candidates(doc)] == ["Ada"]


def test_factories_are_found_through_entry_points_without_import():
    code = (
        "import spacy; nlp = spacy.blank('en'); "
        "[nlp.add_pipe(n) for n in ('mask_all', 'generalizer')]; "
        "nlp.add_pipe('privacy_ner', first=True, config={'sources': []}); "
        "d = nlp('Mr Ada Lee paid EUR 5 on 1 May 2001.'); print(d._.sanitized_text)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[PERSON 1] paid [QUANTITY 1] on [DATETIME 1]."


# --------------------------------------------------------------------------- #
# issue 25: identifiers left in clear
# --------------------------------------------------------------------------- #

NFD_TEXT = (
    "The file of Zoe\u0308 Mu\u0308ller was closed; Zo\u00eb M\u00fcller appealed. Rene\u0301 Lefe\u0300vre agreed."
)


def test_names_in_decomposed_unicode_are_found_and_are_one_entity(rules_nlp):
    doc = rules_nlp(NFD_TEXT)
    assert [(s.text, s.label_, s._.entity_id, s.start_char) for s in doc.spans["textsan"]] == [
        ("Zoe\u0308 Mu\u0308ller", "PERSON", "PERSON-1", 12),
        ("Zo\u00eb M\u00fcller", "PERSON", "PERSON-1", 37),
        ("Rene\u0301 Lefe\u0300vre", "PERSON", "PERSON-2", 58),
    ]


def test_names_spelt_out_letter_by_letter_are_found_in_the_original(rules_nlp):
    doc = rules_nlp("Contact J o h n  S m i t h today. Signed J.O.H.N S.M.I.T.H. and John Smith.")
    assert [(s.text, s.label_, s._.entity_id) for s in doc.spans["textsan"]] == [
        ("J o h n  S m i t h", "PERSON", "PERSON-1"),
        ("J.O.H.N S.M.I.T.H", "PERSON", "PERSON-1"),
        ("John Smith", "PERSON", "PERSON-1"),
    ]


def test_contact_ids_are_found_whole(rules_nlp):
    doc = rules_nlp(
        "Reply to lena dot fischer at web dot de or j.o'connor+invoices@firm.co.uk; "
        "he logged in as jdoe42, she signed in as kwame_mensah and user petra1987 did not."
    )
    assert [(s.text, s.label_, s._.source) for s in doc.spans["textsan"]] == [
        ("lena dot fischer at web dot de", "CODE", "id:obfuscated_email"),
        ("j.o'connor+invoices@firm.co.uk", "CODE", "rule:email"),
        ("jdoe42", "CODE", "id:user_name"),
        ("kwame_mensah", "CODE", "id:user_name"),
        ("petra1987", "CODE", "id:user_name"),
    ]


def test_dates_with_month_names_between_separators(rules_nlp):
    doc = rules_nlp("DOB 03-Apr-1985, admitted 3.IV.1985, seen Apr-03-1985 and 03/Apr/1985.")
    assert [(s.text, s.label_) for s in doc.spans["textsan"]] == [
        ("03-Apr-1985", "DATETIME"),
        ("3.IV.1985", "DATETIME"),
        ("Apr-03-1985", "DATETIME"),
        ("03/Apr/1985", "DATETIME"),
    ]


def test_cities_after_a_preposition_are_places(model_available):
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": [model_available]})
    doc = nlp("He moved from Brno to Ostrava in 2010, then lived near Tampere.")
    assert [(s.text, s.label_, s._.source) for s in doc.spans["textsan"]] == [
        ("Brno", "LOC", "name:cued_place"),  # missed by the NER
        ("Ostrava", "LOC", "name:cued_place"),  # a PERSON to the NER
        ("2010", "DATETIME", "rule:year"),
        ("Tampere", "LOC", "name:cued_place"),
    ]


def test_a_person_read_over_an_id_number_keeps_its_name(model_available):
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": [model_available]})
    # the NER reads "Ayşe Demir TC 10000000146" as one PERSON; the number is a code, the name stays a person
    doc = nlp("Ayşe Demir TC 10000000146 başvurdu.")
    assert [(s.text, s.label_) for s in doc.spans["textsan"]] == [("Ayşe Demir TC", "PERSON"), ("10000000146", "CODE")]


def _mapped(text: str, label: str, lang: str = "en") -> list[tuple[str, str, str]]:
    """What PrivacyNER._map_ent makes of a source entity over the whole of ``text``."""
    from types import SimpleNamespace

    from spacy_textsan.detect.privacy_ner.privacy_ner import PrivacyNER

    ner = SimpleNamespace(label_map={"PERSON": "PERSON", "FAC": "LOC", "ORG": "ORG"}, min_code_digits=4, lang=lang)
    cands = PrivacyNER._map_ent(ner, text, 0, len(text), label, "sm")  # type: ignore[arg-type]  # a stand-in self
    return [(text[c.start : c.end], c.label, c.source) for c in cands]


def test_a_small_ners_person_of_common_words_is_no_one_and_a_country_it_calls_a_person_is_a_place():
    # common English words that are no given name: dropped ("the Law on ...", a heading, a verb)
    assert _mapped("Law", "PERSON") == []
    assert _mapped("RELEVANT LAW", "PERSON") == []
    assert _mapped("carried", "PERSON") == []
    # a given name (Grace, Bell are common words too), an initial, a word the lexicon does not know: kept
    assert _mapped("Grace", "PERSON") == [("Grace", "PERSON", "ner:sm:PERSON")]
    assert _mapped("Bell", "PERSON") == [("Bell", "PERSON", "ner:sm:PERSON")]
    assert _mapped("A. Criminal", "PERSON") == [("A. Criminal", "PERSON", "ner:sm:PERSON")]
    assert _mapped("Wołąsiewicz", "PERSON") == [("Wołąsiewicz", "PERSON", "ner:sm:PERSON")]
    # a country read as a person is a place
    assert _mapped("Austria", "PERSON") == [("Austria", "LOC", "ner:sm:PERSON+label:place")]
    # the English lexicon says nothing of a French NER's persons
    assert _mapped("Law", "PERSON", lang="fr") == [("Law", "PERSON", "ner:sm:PERSON")]


def test_an_entity_stops_before_a_bracket_it_does_not_close():
    assert _mapped("Fourth Section (Rule", "FAC") == [("Fourth Section", "LOC", "ner:sm:FAC")]
    assert _mapped("Court (Grand Chamber)", "ORG") == [("Court (Grand Chamber)", "ORG", "ner:sm:ORG")]
