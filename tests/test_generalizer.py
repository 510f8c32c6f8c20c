"""Rendering, the mask generalizer and the mask_all policy."""

import pytest
import spacy
from spacy.tokens import SpanGroup

from spacy_textsan.extensions import masked_offsets
from spacy_textsan.render import render, to_original
from spacy_textsan.render.render import merge_replacements
from spacy_textsan.stages import NoDetectorWarning


def test_render_and_offset_map():
    text = "Mr Yalman lives in Ankara."
    sanitized, omap = render(text, [(19, 25, "[LOC 1]"), (0, 9, "[PERSON 1]")])
    assert sanitized == "[PERSON 1] lives in [LOC 1]."
    assert omap == [[0, 10, 0, 9], [10, 20, 9, 19], [20, 27, 19, 25], [27, 28, 25, 26]]
    # every sanitized position maps back: kept text char by char, a replacement to its whole span
    assert to_original(omap, 0) == (0, 9)
    assert to_original(omap, 12) == (11, 12)
    assert text[slice(*to_original(omap, 12))] == sanitized[12]
    assert to_original(omap, 27) == (25, 26)
    with pytest.raises(IndexError):
        to_original(omap, 28)


def test_render_merges_overlaps_and_handles_edges():
    assert merge_replacements([(5, 9, "B"), (0, 6, "A"), (20, 20, "empty")]) == [(0, 9, "A")]
    assert render("", []) == ("", [[0, 0, 0, 0]])
    assert render("abc", [(0, 3, "X")]) == ("X", [[0, 1, 0, 3]])
    assert render("abc", []) == ("abc", [[0, 3, 0, 3]])


def _doc_with_spans(nlp, text, spans, masked=None):
    doc = nlp.make_doc(text)
    group = SpanGroup(doc, name="textsan")
    for (start, end, label, entity_id), m in zip(spans, masked or [None] * len(spans), strict=False):
        span = doc.char_span(start, end, label=label)
        span._.entity_id = entity_id
        span._.masked = m
        group.append(span)
    doc.spans["textsan"] = group
    return doc


def test_generalizer_numbers_entities_consistently():
    nlp = spacy.blank("en")
    gen = nlp.add_pipe("generalizer")
    text = "Ada Lee met Bo Chan. Lee left Oslo; Chan stayed."
    doc = _doc_with_spans(
        nlp,
        text,
        [
            (0, 7, "PERSON", "PERSON-1"),
            (12, 19, "PERSON", "PERSON-2"),
            (21, 24, "PERSON", "PERSON-1"),
            (30, 34, "LOC", "LOC-1"),
            (36, 40, "PERSON", "PERSON-2"),
        ],
        masked=[True, True, True, False, True],
    )
    doc = gen(doc)
    assert doc._.sanitized_text == "[PERSON 1] met [PERSON 2]. [PERSON 1] left Oslo; [PERSON 2] stayed."
    reps = [s._.replacement for s in doc.spans["textsan"]]
    assert reps == ["[PERSON 1]", "[PERSON 2]", "[PERSON 1]", None, "[PERSON 2]"]
    assert masked_offsets(doc) == [[0, 7], [12, 19], [21, 24], [36, 40]]


def test_generalizer_fails_closed_on_undecided_spans_and_custom_format():
    nlp = spacy.blank("en")
    gen = nlp.add_pipe("generalizer", config={"mask_format": "***"})
    doc = gen(_doc_with_spans(nlp, "Call Ada now.", [(5, 8, "PERSON", None)]))
    assert doc._.sanitized_text == "Call *** now."
    span = doc.spans["textsan"][0]
    assert span._.masked is True
    assert span._.reasons == ["undecided: masked (fail closed)"]


def test_generalizer_rejects_bad_format():
    with pytest.raises(ValueError, match="bad mask_format: .*kind.* is not a field"):
        spacy.blank("en").add_pipe("generalizer", config={"mask_format": "[{kind}]"})


def test_mask_all_masks_everything_but_kept_types():
    nlp = spacy.blank("en")
    policy = nlp.add_pipe("mask_all", config={"keep_identifier_types": ["NO_MASK"]})
    doc = _doc_with_spans(nlp, "Ada met Bo.", [(0, 3, "PERSON", "PERSON-1"), (8, 10, "PERSON", "PERSON-2")])
    doc.spans["textsan"][1]._.identifier_type = "NO_MASK"
    doc = policy(doc)
    assert [(s._.masked, s._.reasons) for s in doc.spans["textsan"]] == [
        (True, ["policy:mask_all"]),
        (False, ["policy:mask_all kept NO_MASK"]),
    ]


def test_mask_all_leaves_earlier_decisions_unless_overwrite():
    nlp = spacy.blank("en")
    doc = _doc_with_spans(nlp, "Ada met Bo.", [(0, 3, "PERSON", "PERSON-1")], masked=[False])
    assert nlp.add_pipe("mask_all")(doc).spans["textsan"][0]._.masked is False
    assert nlp.add_pipe("mask_all", name="m2", config={"overwrite": True})(doc).spans["textsan"][0]._.masked is True


def test_mask_all_uses_doc_ents_without_privacy_ner():
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "PERSON", "pattern": "Ada"}])
    nlp.add_pipe("mask_all")
    nlp.add_pipe("generalizer")
    with pytest.warns(NoDetectorWarning, match="'mask_all' runs in a pipeline without privacy_ner"):
        assert nlp("Ada wrote.")._.sanitized_text == "[PERSON 1] wrote."


# --------------------------------------------------------------------------- #
# generalize strategy (Olstad et al. 2023)
# --------------------------------------------------------------------------- #

from spacy_textsan.render.options import chain_options, datetime_options, quantity_options, safe_options  # noqa: E402


def test_datetime_options():
    assert datetime_options("14 March 2009") == ["2009", "date in the 2000s", "DATE"]
    assert datetime_options("12/03/1994") == ["1994", "date in the 1990s", "DATE"]
    assert datetime_options("in the 1990s") == ["date in the 1990s", "DATE"]
    assert datetime_options("the 1980's") == ["date in the 1980s", "DATE"]
    assert datetime_options("1994-1996") == ["date in the 1990s", "DATE"]  # two years, one decade
    assert datetime_options("between 1989 and 2001") == ["DATE"]
    assert datetime_options("the following day") == ["DATE"]


def test_quantity_options():
    assert quantity_options("EUR 15,000") == ["X EUR"]
    assert quantity_options("15,000 euros") == ["X euros"]
    assert quantity_options("23 €") == ["X €"]
    assert quantity_options("5 per cent") == ["X %"]
    assert quantity_options("12 square metres") == ["X square metres"]
    assert quantity_options("three") == []  # no number
    assert quantity_options("1,000 things") == []  # no known unit


def test_chain_and_safe_options():
    assert chain_options(["national capital", "city in Turkey", "", "City", "city"]) == [
        "national capital",
        "city in Turkey",
        "City",
    ]
    assert chain_options(None) == []
    # a capitalised word of a masked string may not come back; nor an echo of the original
    assert safe_options(
        ["national capital", "city in Turkey", "city"], ["Istanbul", "Republic of Turkey"], original="Istanbul"
    ) == ["national capital", "city"]
    assert safe_options(["nationality of Turkey", "nationality"], ["Turkish"], original="Turkish") == ["nationality"]
    assert safe_options(["2009", "date in the 2000s", "DATE"], ["2009"], original="2009") == [
        "date in the 2000s",
        "DATE",
    ]
    assert safe_options(["teacher", "educator"], ["primary school teacher"], risky_terms=["Educator"]) == ["teacher"]


def _find(text, needle, nth=1):
    """Offsets of the nth occurrence of needle as a whole word."""
    import re

    m = list(re.finditer(rf"(?<!\w){re.escape(needle)}(?!\w)", text))[nth - 1]
    return m.start(), m.end()


GEN_TEXT = (
    "Mr Ada Lee, a teacher from Bergen, paid EUR 15,000 on 14 March 2009 under no. 48213/09. "
    "Lee moved to Oslo and to Xland in 2011."
)
GEN_SPANS = [
    ("Ada Lee", 1, "PERSON", "P1"),
    ("teacher", 1, "DEM", "D1"),
    ("Bergen", 1, "LOC", "L1"),
    ("EUR 15,000", 1, "QUANTITY", "Q1"),
    ("14 March 2009", 1, "DATETIME", "T1"),
    ("48213/09", 1, "CODE", "C1"),
    ("Lee", 2, "PERSON", "P1"),
    ("Oslo", 1, "LOC", "L2"),
    ("Xland", 1, "LOC", "L3"),
    ("2011", 1, "DATETIME", "T2"),
]


def _gen_doc(nlp):
    doc = _doc_with_spans(
        nlp, GEN_TEXT, [(*_find(GEN_TEXT, t, n), lb, e) for t, n, lb, e in GEN_SPANS], masked=[True] * len(GEN_SPANS)
    )
    group = doc.spans["textsan"]
    group[1]._.kb_chain = ["educator", "professional", "person"]
    group[2]._.kb_chain = ["city in Norway", "city"]
    group[7]._.kb_chain = ["national capital", "city in Norway", "city"]
    return doc


def test_generalize_strategy_end_to_end():
    nlp = spacy.blank("en")
    gen = nlp.add_pipe("generalizer", config={"strategy": "generalize"})
    doc = gen(_gen_doc(nlp))
    assert doc._.sanitized_text == (
        "Mr [PERSON 1], a [educator] from [city in Norway], paid [X EUR] on [2009] under no. ***. "
        "[PERSON 1] moved to [national capital] and to *** in [date in the 2010s]."
    )
    # a lone year masked is not replaced by itself: the decade


def test_generalize_drops_an_option_that_names_a_masked_string():
    nlp = spacy.blank("en")
    gen = nlp.add_pipe("generalizer", config={"strategy": "generalize"})
    text = "He was born on 14 March 2009 and left in 2009 for Oslo, Norway."
    doc = _doc_with_spans(
        nlp,
        text,
        [
            (*_find(text, "14 March 2009"), "DATETIME", "T1"),
            (*_find(text, "2009", 2), "DATETIME", "T2"),
            (*_find(text, "Oslo"), "LOC", "L1"),
            (*_find(text, "Norway"), "LOC", "L2"),
        ],
        masked=[True] * 4,
    )
    doc.spans["textsan"][2]._.kb_chain = ["national capital", "city in Norway", "city"]
    doc = gen(doc)
    # "2009" is masked on its own, so the year is not a safe option for the date; "Norway" is masked,
    # so "city in Norway" is not safe for Oslo ("national capital" comes first anyway)
    assert doc._.sanitized_text == (
        "He was born on [date in the 2000s] and left in [date in the 2000s] for [national capital], ***."
    )


def test_generalize_same_entity_same_replacement_and_per_label_strategy():
    nlp = spacy.blank("en")
    gen = nlp.add_pipe("generalizer", config={"strategy": "generalize", "strategy_by_label": {"DATETIME": "mask"}})
    text = "Oslo is big. The city of Oslo grew in 2009."
    second, year = text.index("Oslo", 5), text.index("2009")
    doc = _doc_with_spans(
        nlp,
        text,
        [(0, 4, "LOC", "L1"), (second, second + 4, "LOC", "L1"), (year, year + 4, "DATETIME", "T1")],
        masked=[True, True, True],
    )
    doc.spans["textsan"][1]._.kb_chain = ["national capital", "city"]  # only the second mention is linked
    doc = gen(doc)
    assert [s._.replacement for s in doc.spans["textsan"]] == [
        "[national capital]",
        "[national capital]",
        "[DATETIME 1]",
    ]
    with pytest.raises(ValueError, match="strategy \\(LOC\\) must be one of"):
        nlp.add_pipe("generalizer", name="g2", config={"strategy_by_label": {"LOC": "shuffle"}})


class _NorwayAttack:
    """An attacker for the generalizer's check, by hand: a published text that says "Norway" names the
    person with a chance of 0.5, one that also says "educator" 0.6, any other 0.05 (k = 10)."""

    def __init__(self):
        self.seen: list[str] = []

    def __call__(self, doc):
        return doc

    def rendered_view(self, doc, text):
        self.seen.append(text)
        risk = (0.5 if "Norway" in text else 0.05) + (0.1 if "educator" in text and "Norway" in text else 0.0)
        return {"k": int(1 / risk), "risk": risk, "reached": risk <= 0.1, "target_k": 10, "measured": True}


@spacy.Language.factory("norway_attack")
def _make_norway_attack(nlp, name):
    return _NorwayAttack()


class _NearCopyAttack(_NorwayAttack):
    """A document whose person no mask hides (a near copy of the record): the chance is 0.5 whatever the
    published text says."""

    def rendered_view(self, doc, text):
        self.seen.append(text)
        return {"k": 2, "risk": 0.5, "reached": False, "target_k": 10, "measured": True}


@spacy.Language.factory("near_copy_attack")
def _make_near_copy_attack(nlp, name):
    return _NearCopyAttack()


def _attacked(attack: str):
    """``_gen_doc`` generalized with the attacker factory ``attack`` in the pipeline: (doc, the attacker)."""
    nlp = spacy.blank("en")
    attacker = nlp.add_pipe(attack)
    doc = nlp.add_pipe("generalizer", config={"strategy": "generalize", "attack": attack})(_gen_doc(nlp))
    return doc, attacker


def _last_reason(doc, text: str) -> str:
    return [s for s in doc.spans["textsan"] if s.text == text][0]._.reasons[-1]


def test_generalize_masks_a_replacement_that_keeps_the_attack_above_one_in_k():
    doc, attack = _attacked("norway_attack")
    # "[city in Norway]" (Bergen) and "[national capital]" (Oslo, whose chain says Norway too): masking
    # Bergen's replacement leaves no "Norway", so the chance falls to 0.05; the others stay generalized
    assert doc._.sanitized_text == (
        "Mr [PERSON 1], a [educator] from [LOC 1], paid [X EUR] on [2009] under no. ***. "
        "[PERSON 1] moved to [national capital] and to *** in [date in the 2010s]."
    )
    assert _last_reason(doc, "Bergen") == (
        "reid: the replacement '[city in Norway]' left the attack's chance at 0.60 > 1/10: masked"
    )
    # the attack read the published text, first as generalized, then once with each of the 8 replacements
    # that are not a numbered mask ("***" included) masked in turn, then after the change
    assert "[city in Norway]" in attack.seen[0] and len(attack.seen) == 1 + 8 + 1
    # a document no replacement brings to 1 / k: every replacement that shows words is masked (they only
    # add to what is left), after one look at the text and one per replacement
    doc, attack = _attacked("near_copy_attack")
    assert doc._.sanitized_text == (
        "Mr [PERSON 1], a [DEM 1] from [LOC 1], paid [QUANTITY 1] on [DATETIME 1] under no. [CODE 1]. "
        "[PERSON 1] moved to [LOC 2] and to [LOC 3] in [DATETIME 2]."
    )
    assert _last_reason(doc, "Oslo") == (
        "reid: the replacement '[national capital]' left the attack's chance at 0.50 > 1/10: masked"
    )
    assert len(attack.seen) == 1 + 8 + 1
    # without the attacker in the pipeline: as generalized
    plain = spacy.blank("en")
    doc = plain.add_pipe("generalizer", config={"strategy": "generalize"})(_gen_doc(plain))
    assert "[city in Norway]" in doc._.sanitized_text
