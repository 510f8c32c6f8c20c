"""keep_public: the mentions that single nobody out (spacy_textsan.decide.public_mentions) and how
mask_optimizer keeps them out of the decision."""

import pytest
import spacy
from spacy.tokens import SpanGroup

from spacy_textsan.decide.public_mentions import PUBLIC_KINDS, PublicText, respondent_state
from spacy_textsan.extensions import add_risky_set, set_risk

JUDGMENT = (
    "The case originated in an application (no. 36110/97) against the Republic of Turkey lodged with the Court "
    "by a Turkish national, Mr Ali Kaya. The Turkish Government were represented by their Agent. "
    "They were represented by Mr B. Ak, of the Ministry of Foreign Affairs, Ankara. He lived in Ankara. "
    "In 1998 he moved to Turkey. Under the Race Relations Act 1976 the police officers and two Turkish nationals "
    "were heard. On 1 November 2001 the Court changed the composition of its Sections. The Fourth Section "
    "met on 3 May 2002. Under Turkish law the claim failed; the Turkish courts said so."
)


def mention(text: str, words: str, occurrence: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(words, start + 1)
    return start, start + len(words)


@pytest.mark.parametrize(
    "words,occurrence,label,kind",
    [
        ("Republic of Turkey", 0, "LOC", "respondent_state"),  # in the phrase of the application
        ("Turkey", 1, "LOC", None),  # "he moved to Turkey": an attribute of the person
        ("Race Relations Act 1976", 0, "MISC", "legislation"),
        ("police officers", 0, "DEM", "group_role"),
        ("Turkish nationals", 0, "DEM", None),  # a nationality stays a quasi-identifier
        ("Turkish national", 0, "DEM", None),
        ("1 November 2001", 0, "DATETIME", "procedural_date"),
        ("3 May 2002", 0, "DATETIME", None),  # the case's own date
        ("Fourth Section", 0, "ORG", "court_section"),
        ("Mr Ali Kaya", 0, "PERSON", None),
        ("Turkish", 1, "DEM", "government"),  # "The Turkish Government": a party
        ("Ankara", 0, "LOC", "institution_seat"),  # "the Ministry of Foreign Affairs, Ankara"
        ("Ankara", 1, "LOC", None),  # "he lived in Ankara"
        ("Turkish", 3, "DEM", "legal_order"),  # "Under Turkish law"
        ("Turkish", 4, "DEM", None),  # "the Turkish courts": they act on the person somewhere
    ],
)
def test_public_kinds_on_a_judgment(words, occurrence, label, kind):
    start, end = mention(JUDGMENT, words, occurrence)
    assert PublicText(JUDGMENT, tuple(PUBLIC_KINDS)).kind(start, end, label) == kind


BODIES = (
    "The claim went to the Ministry of the Interior, then to the Benefits Agency and the Revenue Department. "
    "The Ankara Security Directorate and the Çiğli Directorate of Land Registration replied; so did the "
    "Foreign and Commonwealth Office. The Commanding Officer and the Chief Public Prosecutor heard "
    "Prosecutor Yılmaz, the Istanbul Public Prosecutor and the Prime Minister."
)


@pytest.mark.parametrize(
    "text,kind",
    [
        ("widowers", "group_role"),
        ("trade union representatives", "group_role"),
        ("married with three children", None),  # one person's family, not a group
        ("father of four sons", None),
        ("divorced parents", None),
    ],
)
def test_a_group_role_is_a_group_not_one_persons_family(text, kind):
    doc = f"The applicant is {text}."
    start, end = mention(doc, text)
    assert PublicText(doc, ("group_role",)).kind(start, end, "DEM") == kind


@pytest.mark.parametrize(
    "words,label,kind",
    [
        ("the Ministry of the Interior", "ORG", "state_body"),
        ("Benefits Agency", "ORG", "state_body"),
        ("Revenue Department", "ORG", "state_body"),
        ("Foreign and Commonwealth Office", "ORG", "state_body"),
        ("Ankara Security Directorate", "ORG", None),  # a place narrows it to a town
        ("Çiğli Directorate of Land Registration", "ORG", None),
        ("Revenue Department", "LOC", None),  # only an organisation
        ("Commanding Officer", "ORG", "office_title"),
        ("Chief Public Prosecutor", "DEM", "office_title"),
        ("Prosecutor Yılmaz", "PERSON", None),  # a name
        ("Istanbul Public Prosecutor", "ORG", None),  # a place
        ("Prime Minister", "ORG", None),  # an office held by one person
    ],
)
def test_bodies_of_the_executive_and_titles_of_office(words, label, kind):
    start, end = mention(BODIES, words)
    assert PublicText(BODIES, ("state_body", "office_title")).kind(start, end, label) == kind


COURTS = (
    "The Supreme Administrative Court upheld it, as did the Court of Cassation, the District Court and the 5th "
    "Chamber of the Supreme Administrative Court. The Istanbul State Security Court, the Söke Labour Court and the "
    "Employment Tribunal disagreed; the Court noted it. The Federal Ministry of Justice, the Immigration Appeals "
    "Board and the International Law Department replied, not the Salzburg Federal Police Authority or the "
    "Health Insurance Office."
)


@pytest.mark.parametrize(
    "words,label,kind",
    [
        ("Supreme Administrative Court", "ORG", "generic_court"),
        ("Court of Cassation", "ORG", "generic_court"),
        ("District Court", "ORG", "generic_court"),
        ("5th Chamber of the Supreme Administrative Court", "ORG", "generic_court"),
        ("Istanbul State Security Court", "ORG", None),  # a place narrows it to a town
        ("Söke Labour Court", "ORG", None),
        ("Labour Court", "ORG", None),  # the detector's span without the town before it
        ("Employment Tribunal", "ORG", None),  # a tribunal says what the dispute was about
        ("Court", "ORG", None),  # the kind alone
        ("Supreme Administrative Court", "LOC", None),  # only an organisation
        ("Federal Ministry of Justice", "ORG", "state_body"),
        ("Immigration Appeals Board", "ORG", "state_body"),
        ("International Law Department", "ORG", "state_body"),
        ("Salzburg Federal Police Authority", "ORG", None),
        ("Health Insurance Office", "ORG", None),  # insurance is no function of the State
    ],
)
def test_courts_named_by_their_kind_and_federal_bodies(words, label, kind):
    start, end = mention(COURTS, words, 1 if words == "Court" else 0)
    if words == "Court":  # "the Court noted it", the mention that is the word alone
        start = COURTS.index("the Court noted") + 4
        end = start + 5
    assert PublicText(COURTS, ("state_body", "generic_court")).kind(start, end, label) == kind


@pytest.mark.parametrize(
    "words,kind",
    [
        ("monthly", "generic_time"),
        ("annual", "generic_time"),
        ("the same day", "generic_time"),
        ("the following months", "generic_time"),
        ("many years", "generic_time"),
        ("the late 19th century", "generic_time"),
        ("the 17th, 18th and 19th centuries", "generic_time"),
        ("three months", None),  # a length of time: a sentence, a stay
        ("1998", None),
        ("winter", None),
        ("the age of sixty", None),
        ("every two years", None),
    ],
)
def test_a_time_that_is_no_point_and_no_length_is_generic(words, kind):
    doc = f"The applicant said that {words} mattered."
    start, end = mention(doc, words)
    assert PublicText(doc, ("generic_time",)).kind(start, end, "DATETIME") == kind
    assert PublicText(doc, ("generic_time",)).kind(start, end, "DEM") is None


@pytest.mark.parametrize(
    "text,words,kind",
    [
        (
            "The opinion of the principal public prosecutor was not served.",
            "principal public prosecutor",
            "office_title",
        ),
        ("The public prosecutor appealed.", "public prosecutor", "office_title"),
        ("He worked as a public prosecutor in the town.", "public prosecutor", None),  # someone's job
        ("He was a chief public prosecutor.", "chief public prosecutor", None),
        ("The prosecutor appealed.", "prosecutor", None),  # an office word alone
    ],
)
def test_an_office_in_lower_case_is_public_where_it_acts_in_the_case(text, words, kind):
    start, end = mention(text, words)
    assert PublicText(text, ("office_title",)).kind(start, end, "DEM") == kind


def test_a_procedural_date_in_a_sentence_with_an_abbreviation():
    """The dot of "Protocol No. 11" ends no sentence: the date is the Protocol's entry into force."""
    text = (
        "The application was transmitted to the Court on 1 November 1998, when Protocol No. 11 to the Convention "
        "came into force (Article 5 § 2 of Protocol No. 11).\n\nOn 3 May 1999 he was arrested. It came into force."
    )
    reader = PublicText(text, ("procedural_date",))
    assert reader.kind(*mention(text, "1 November 1998"), "DATETIME") == "procedural_date"
    assert reader.kind(*mention(text, "3 May 1999"), "DATETIME") is None  # the next sentence is another's


def test_a_risky_combination_with_a_public_member_is_no_risk():
    """kanon's minimal risky combination {court, place}: with the court kept as public, the place alone is not
    risky (it would be a set of its own), so nothing is masked for that combination."""
    nlp = spacy.blank("en")
    text = "The Supreme Administrative Court heard him in Kayseri. He was born in Sivas."
    for kinds, expected in (
        ([], [("Supreme Administrative Court", False), ("Kayseri", True), ("Sivas", True)]),
        (["generic_court"], [("Supreme Administrative Court", False), ("Kayseri", False), ("Sivas", True)]),
    ):
        opt = nlp.add_pipe("mask_optimizer", name=f"opt{len(kinds)}", config={"mask_labels": [], "keep_public": kinds})
        doc = spans_of(
            nlp, text, [("Supreme Administrative Court", 0, "ORG"), ("Kayseri", 0, "LOC"), ("Sivas", 0, "LOC")]
        )
        court, kayseri, sivas = doc.spans["textsan"]
        set_risk(court, "kanon", 0.1)  # a longer, dearer span than the town
        set_risk(kayseri, "kanon", 0.1)
        set_risk(sivas, "kanon", 0.5)
        add_risky_set(
            doc, "kanon", [court, kayseri], "'supreme administrative court' + 'kayseri' shared by 2 < 5 records"
        )
        add_risky_set(doc, "kanon", [sivas], "'sivas' appears in 1 < 5 records")
        doc = opt(doc)
        assert [(s.text, s._.masked) for s in doc.spans["textsan"]] == expected
        assert doc._.decision_info["n_risky_sets"] == (1 if kinds else 2) and not doc._.sanitize_errors
        if kinds:
            assert doc.spans["textsan"][0]._.reasons == ["kept: public (generic_court)"]


def test_the_respondent_state_where_the_text_names_it_as_such():
    text = "an application against the United Kingdom of Great Britain and Northern Ireland lodged with the Court"
    assert respondent_state(text) == "United Kingdom of Great Britain and Northern Ireland"
    assert respondent_state("The claim against Sweden, lodged in 2003") == "Sweden"
    assert respondent_state("He complained about the police.") is None
    doc = "An application against the United Kingdom lodged in 2001. The United Kingdom Government replied. " + (
        "Smith v. the United Kingdom was cited. She lived in the United Kingdom."
    )
    reader = PublicText(doc, ("respondent_state",))
    kinds = [reader.kind(*mention(doc, "United Kingdom", i), "LOC") for i in range(4)]
    assert kinds == ["respondent_state", "respondent_state", "respondent_state", None]
    # a detector that reads the State's full name as an organisation: still the respondent, never a person
    full = "an application against the United Kingdom of Great Britain and Northern Ireland lodged"
    state = mention(full, "United Kingdom of Great Britain and Northern Ireland", 0)
    assert [PublicText(full, ("respondent_state",)).kind(*state, label) for label in ("ORG", "DEM", "PERSON")] == [
        "respondent_state",
        "respondent_state",
        None,
    ]


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="keep_public: unknown kind 'states'"):
        PublicText("", ("states",))
    with pytest.raises(ValueError, match="unknown kind"):
        spacy.blank("en").add_pipe("mask_optimizer", config={"keep_public": ["states"]})


def spans_of(nlp, text, spans):
    doc = nlp.make_doc(text)
    group = SpanGroup(doc, name="textsan")
    for words, occurrence, label in spans:
        start, end = mention(text, words, occurrence)
        group.append(doc.char_span(start, end, label=label))
    doc.spans["textsan"] = group
    return doc


SPANS = [
    ("Republic of Turkey", 0, "LOC"),
    ("Mr Ali Kaya", 0, "PERSON"),
    ("Turkey", 1, "LOC"),
    ("Race Relations Act 1976", 0, "MISC"),
    ("police officers", 0, "DEM"),
    ("1 November 2001", 0, "DATETIME"),
    ("3 May 2002", 0, "DATETIME"),
]


@pytest.mark.parametrize("keep_public", [[], list(PUBLIC_KINDS)])
def test_mask_optimizer_keeps_public_mentions_out_of_the_decision(keep_public):
    nlp = spacy.blank("en")
    opt = nlp.add_pipe("mask_optimizer", config={"mask_labels": ["DATETIME", "LOC", "DEM"], "keep_public": keep_public})
    doc = spans_of(nlp, JUDGMENT, SPANS)
    spans = list(doc.spans["textsan"])
    for s in spans:
        set_risk(s, "kanon", 0.5)
    add_risky_set(doc, "kanon", [spans[3]], "'race relations act 1976' appears in 1 < 5 records")
    add_risky_set(doc, "kanon", [spans[3], spans[4]], "'act' + 'officers' shared by 2 < 5 records")
    doc = opt(doc)
    decided = [(s.text, s._.masked, s._.reasons) for s in doc.spans["textsan"]]
    if not keep_public:
        assert [m for _, m, _ in decided] == [True] * 7
        assert doc._.decision_info["n_risky_sets"] == 2
        return
    assert decided == [
        ("Republic of Turkey", False, ["kept: public (respondent_state)"]),
        ("Mr Ali Kaya", True, ["direct identifier (label PERSON)"]),
        ("Turkey", True, ["policy: label LOC is always masked"]),
        ("Race Relations Act 1976", False, ["kept: public (legislation)"]),
        ("police officers", False, ["kept: public (group_role)"]),
        ("1 November 2001", False, ["kept: public (procedural_date)"]),
        ("3 May 2002", True, ["policy: label DATETIME is always masked"]),
    ]
    # both risky sets held public mentions only: no risk left, no error
    assert doc._.decision_info["n_risky_sets"] == 0 and not doc._.sanitize_errors


def test_a_direct_identifier_or_special_category_is_never_kept_as_public():
    nlp = spacy.blank("en")
    opt = nlp.add_pipe(
        "mask_optimizer", config={"keep_public": list(PUBLIC_KINDS), "mask_kb_classes": ["religious organization"]}
    )
    text = "Under the Kaya Family Act and the Church Law he spoke."
    doc = spans_of(nlp, text, [("Kaya Family Act", 0, "PERSON"), ("Church Law", 0, "ORG")])
    doc.spans["textsan"][1]._.kb_chain = ["religious organization"]
    doc = opt(doc)
    assert [(s.text, s._.masked) for s in doc.spans["textsan"]] == [("Kaya Family Act", True), ("Church Law", True)]


def test_the_leak_sweep_leaves_a_public_mention_visible():
    nlp = spacy.blank("en")
    gen = nlp.add_pipe("generalizer")
    text = "An application against the United Kingdom lodged in 2001. She lived in the United Kingdom and in Leeds."

    def sanitized(first_reason: str) -> str:
        doc = spans_of(nlp, text, [("United Kingdom", 0, "LOC"), ("United Kingdom", 1, "LOC"), ("Leeds", 0, "LOC")])
        kept, lived, leeds = doc.spans["textsan"]
        kept._.masked, lived._.masked, leeds._.masked = False, True, True
        kept._.entity_id = lived._.entity_id = "LOC-uk"
        kept._.reasons = [first_reason]
        return gen(doc)._.sanitized_text

    assert sanitized("kept: public (respondent_state)") == (
        "An application against the United Kingdom lodged in 2001. She lived in the [LOC 1] and in [LOC 2]."
    )
    # not public: the sweep masks it as a repeat of a masked string
    assert sanitized("kept: no risk found") == (
        "An application against the [LOC 1] lodged in 2001. She lived in the [LOC 1] and in [LOC 2]."
    )
