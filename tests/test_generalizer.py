"""Rendering, the mask generalizer and the mask_all policy."""
import pytest
import spacy
from spacy.tokens import Span, SpanGroup

from spacy_textsan.extensions import masked_offsets
from spacy_textsan.generalizer import render, to_original
from spacy_textsan.generalizer.render import merge_replacements


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
    for (start, end, label, entity_id), m in zip(spans, masked or [None] * len(spans)):
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
    doc = _doc_with_spans(nlp, text, [
        (0, 7, "PERSON", "PERSON-1"), (12, 19, "PERSON", "PERSON-2"), (21, 24, "PERSON", "PERSON-1"),
        (30, 34, "LOC", "LOC-1"), (36, 40, "PERSON", "PERSON-2"),
    ], masked=[True, True, True, False, True])
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
    with pytest.raises(ValueError, match="bad mask_format"):
        spacy.blank("en").add_pipe("generalizer", config={"mask_format": "[{kind}]"})


def test_mask_all_masks_everything_but_kept_types():
    nlp = spacy.blank("en")
    policy = nlp.add_pipe("mask_all", config={"keep_identifier_types": ["NO_MASK"]})
    doc = _doc_with_spans(nlp, "Ada met Bo.", [(0, 3, "PERSON", "PERSON-1"), (8, 10, "PERSON", "PERSON-2")])
    doc.spans["textsan"][1]._.identifier_type = "NO_MASK"
    doc = policy(doc)
    assert [(s._.masked, s._.reasons) for s in doc.spans["textsan"]] == [
        (True, ["policy:mask_all"]), (False, ["policy:mask_all kept NO_MASK"])]


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
    assert nlp("Ada wrote.")._.sanitized_text == "[PERSON 1] wrote."
