"""reid_risk's ``release``: the label policy's and kanon_risk's masks taken back where the attack measures
the document and reaches 1 / k (spacy_textsan/decide/reid_release.py), on a hand-made background of four
records."""

import pytest
import spacy
from test_reid_risk import RECORDS  # kim, lee, ray: painters; sam: a sculptor

from spacy_textsan.decide.reid_release import Snapshot, day_precise, releasable
from spacy_textsan.decide.reid_risk import ReidRisk
from spacy_textsan.extensions import DIRECT, SPANS_KEY
from spacy_textsan.risk.background import Background
from spacy_textsan.risk.reid_index import BackgroundIndex

TEXT = "Kim, a painter, collects golden seals."
POLICY = "policy: label DEM is always masked"
KANON = "risky: kanon: 'golden seals' appears in 1 < 5 records"
SPECIAL = "policy: religion is always masked"
SETTINGS = {"k": 3, "margin": 0.1, "rank_floor": None}


@pytest.fixture(scope="module")
def index() -> BackgroundIndex:
    return BackgroundIndex.build(RECORDS)


def decided(nlp, spans):
    """``TEXT`` with candidates ``(text, label, reasons)``, each masked with its reasons (Kim: a direct
    identifier)."""
    doc = nlp(TEXT)
    group = []
    for text, label, reasons in spans:
        start = TEXT.index(text)
        span = doc.char_span(start, start + len(text), label=label)
        span._.masked = True
        span._.reasons = list(reasons)
        if label == "PERSON":
            span._.identifier_type = DIRECT
        group.append(span)
    doc.spans[SPANS_KEY] = group
    return doc


def outcome(doc):
    return [(s.text, s._.masked, s._.reasons) for s in doc.spans[SPANS_KEY]]


CANDIDATES = [
    ("Kim", "PERSON", ["direct identifier (label PERSON)"]),
    ("painter", "DEM", ["kb:exact:painter", POLICY]),
    ("golden seals", "ORG", [KANON]),
]


def test_the_attack_keeps_what_it_does_not_need_and_masks_the_rest_again(index):
    nlp = spacy.blank("en")
    doc = ReidRisk(index=index, release="always", **SETTINGS)(decided(nlp, CANDIDATES))
    # painter is held by three of the four records: with 'golden seals' masked the person hides among
    # kim, lee and ray (1/3 = 1/k); 'seals' is kim's alone, so the ORG is masked again, for the attack
    assert outcome(doc) == [
        ("Kim", True, ["direct identifier (label PERSON)"]),
        ("painter", False, [f"kept: reid_risk released it, the attack reaches k >= 3 without it ({POLICY})"]),
        ("golden seals", True, [KANON, "reid (stem): 'seals' separates 1 of 4 background records"]),
    ]
    report = doc._.reid_risk
    assert report["measured"] is True and report["reached"] is True and report["k"] == 3


def test_nothing_is_released_when_the_attack_does_not_reach_1_over_k(index):
    nlp = spacy.blank("en")
    # no step allowed: with its masks taken back the text names kim; the masks stand as they were
    doc = ReidRisk(index=index, release="always", max_steps=0, **SETTINGS)(decided(nlp, CANDIDATES))
    assert outcome(doc) == [(text, True, reasons) for text, _, reasons in CANDIDATES]
    assert doc._.reid_risk["reached"] is True  # the view of the doc as it stands: all three masked


def test_a_person_the_background_does_not_hold_keeps_every_mask(index):
    nlp = spacy.blank("en")
    doc = nlp("Zed, a painter, collects golden seals.")
    spans = [doc.char_span(0, 3, label="PERSON"), doc.char_span(7, 14, label="DEM")]
    for span, reasons in zip(spans, [["direct identifier (label PERSON)"], [POLICY]], strict=True):
        span._.masked, span._.reasons = True, reasons
    spans[0]._.identifier_type = DIRECT
    doc.spans[SPANS_KEY] = spans
    doc = ReidRisk(index=index, release="always", **SETTINGS)(doc)
    assert [(s.text, s._.masked, s._.reasons) for s in doc.spans[SPANS_KEY]] == [
        ("Zed", True, ["direct identifier (label PERSON)"]),
        ("painter", True, [POLICY]),
    ]


def test_only_the_label_policy_and_kanon_risk_are_released(index):
    nlp = spacy.blank("en")
    doc = decided(
        nlp,
        [
            ("Kim", "PERSON", ["direct identifier (label PERSON)"]),
            ("painter", "DEM", [POLICY, SPECIAL]),  # a special category too: stays
            ("collects", "MISC", ["supervised risk 0.9 >= 0.5"]),  # another measure's score: stays
            ("golden seals", "ORG", [KANON]),
        ],
    )
    spans = list(doc.spans[SPANS_KEY])
    assert [releasable(s, ["PERSON", "CODE"]) for s in spans] == [False, False, False, True]
    spans[3]._.masked = False
    assert not releasable(spans[3], ["PERSON", "CODE"])  # kept already: nothing to release
    spans[3]._.masked = True
    doc = ReidRisk(index=index, release="always", **SETTINGS)(doc)
    assert [(s.text, s._.masked) for s in doc.spans[SPANS_KEY]] == [
        ("Kim", True),
        ("painter", True),
        ("collects", True),
        ("golden seals", True),
    ]
    assert spans[1]._.reasons == [POLICY, SPECIAL]


def test_own_background_releases_with_the_users_background_only(index, tmp_path):
    nlp = spacy.blank("en")
    index.save(tmp_path / "bg")
    own = ReidRisk(background=Background(tmp_path / "bg"), release="own_background", dense="off", **SETTINGS)
    assert [m for _, m, _ in outcome(own(decided(nlp, CANDIDATES)))] == [True, False, True]
    never = ReidRisk(background=Background(tmp_path / "bg"), release="never", dense="off", **SETTINGS)
    assert [m for _, m, _ in outcome(never(decided(nlp, CANDIDATES)))] == [True, True, True]
    shipped = ReidRisk(background=Background(None), release="own_background", dense="off", **SETTINGS)
    assert shipped._released(decided(nlp, CANDIDATES), shipped.index) is None
    with pytest.raises(ValueError, match="reid_risk: release must be one of never, own_background, always"):
        ReidRisk(index=index, release="sometimes")


def test_a_snapshot_puts_the_candidates_and_their_decisions_back():
    nlp = spacy.blank("en")
    doc = decided(nlp, CANDIDATES)
    snapshot = Snapshot(doc, SPANS_KEY)
    spans = list(doc.spans[SPANS_KEY])
    spans[1]._.masked, spans[1]._.reasons = False, ["kept"]
    doc.spans[SPANS_KEY] = [*spans, doc.char_span(16, 24, label="MISC")]
    doc._.sanitize_errors = ["reid_risk: could not mask 'x' (no token boundary)"]
    snapshot.restore()
    assert doc._.sanitize_errors is None
    assert outcome(doc) == [(text, True, reasons) for text, _, reasons in CANDIDATES]
    bare = nlp(TEXT)
    snapshot = Snapshot(bare, SPANS_KEY)
    bare.spans[SPANS_KEY] = [bare.char_span(0, 3, label="PERSON")]
    snapshot.restore()
    assert SPANS_KEY not in bare.spans


def test_a_date_to_the_day_is_never_released():
    texts = ["13 December 1971", "August 22, 1935", "22/08/1935", "3 avril 1985", "December 1971", "2003 to 2010"]
    assert [day_precise(t) for t in texts] == [True, True, True, True, False, False]
    nlp = spacy.blank("en")
    doc = nlp("Born 13 December 1971, elected in 2016.")
    spans = [doc.char_span(5, 21, label="DATETIME"), doc.char_span(34, 38, label="DATETIME")]
    for span in spans:
        span._.masked, span._.reasons = True, ["policy: label DATETIME is always masked"]
    assert [releasable(s, ["PERSON"]) for s in spans] == [False, True]
