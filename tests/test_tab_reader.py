"""Reading and validating TAB files, and converting them to spaCy Docs."""

import copy
import json
from collections import Counter
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Span

from spacy_textsan.tab import (
    GoldMention,
    TabDocument,
    TabFormatError,
    create_tab_reader,
    parse_tab,
    read_tab,
    tab_doc_to_doc,
    tab_to_docs,
)

FIXTURE = Path(__file__).parent / "fixtures" / "tab_two_annotators.json"
DEV = Path("/work/shared/data/tab/dev.json")


@pytest.fixture(scope="module")
def raw():
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("en")


def write(tmp_path, content, name="bad.json"):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    return path


def test_read_fixture():
    docs = read_tab(FIXTURE)
    assert [d.doc_id for d in docs] == ["d1", "d2"]
    d1 = docs[0]
    assert isinstance(d1, TabDocument)
    assert d1.dataset_type == "fixture"
    assert d1.meta == {"applicant": "John Doe", "year": 2021}
    assert list(d1.annotations) == ["annotator1", "annotator2"]
    first = d1.annotations["annotator1"][0]
    assert first == GoldMention(
        start=12,
        end=24,
        text="no. 12345/67",
        entity_type="CODE",
        identifier_type="DIRECT",
        entity_id="d1_a1_e1",
        annotator="annotator1",
        mention_id="d1_a1_em1",
        confidential_status="NOT_CONFIDENTIAL",
    )
    # File order is kept.
    assert [m.text for m in d1.annotations["annotator2"]] == [
        "12345/67",
        "Mr John Doe",
        "researcher",
        "Kingdom of Sweden",
        "1 October 2021",
        "Doe",
    ]
    for doc in docs:
        for mentions in doc.annotations.values():
            for m in mentions:
                assert m.text == doc.text[m.start : m.end]


def test_optional_fields_and_empty_annotations():
    docs = parse_tab([{"doc_id": "x", "text": "Hello", "annotations": {}}])
    assert docs == [TabDocument("x", "Hello", None, {}, {})]
    mention = {
        "entity_type": "PERSON",
        "identifier_type": "QUASI",
        "entity_id": "e",
        "start_offset": 0,
        "end_offset": 5,
    }
    doc = parse_tab([{"doc_id": "x", "text": "Hello", "annotations": {"a": {"entity_mentions": [mention]}}}])[0]
    assert doc.annotations["a"][0].mention_id is None
    assert doc.annotations["a"][0].confidential_status is None


# --------------------------------------------------------------------------- #
# Errors
# --------------------------------------------------------------------------- #


def test_invalid_json_reports_line_and_column(tmp_path):
    path = write(tmp_path, '[\n  {"doc_id": "d1",\n   "text": "abc" "annotations": {}}\n]')
    with pytest.raises(TabFormatError) as err:
        read_tab(path)
    message = str(err.value)
    assert str(path) in message
    # The missing comma is detected at the second string of line 3.
    assert "invalid JSON at line 3, column 18" in message


def test_empty_file(tmp_path):
    for content in ("", "  \n"):
        path = write(tmp_path, content, "empty.json")
        with pytest.raises(TabFormatError, match=r"empty\.json: empty file"):
            read_tab(path)


def test_binary_file(tmp_path):
    path = write(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00", "image.json")
    with pytest.raises(TabFormatError, match=r"image\.json: not UTF-8.*byte offset 0"):
        read_tab(path)
    path = write(tmp_path, b'[{"doc_id": "\xff"}]', "latin.json")
    with pytest.raises(TabFormatError, match=r"latin\.json: .*0xff at byte offset 13"):
        read_tab(path)


def test_utf8_bom_is_accepted(tmp_path):
    path = write(tmp_path, "\ufeff" + FIXTURE.read_text(encoding="utf-8"), "bom.json")
    assert len(read_tab(path)) == 2


def test_wrong_offsets(tmp_path, raw):
    bad = copy.deepcopy(raw)
    bad[1]["annotations"]["annotator1"]["entity_mentions"][2]["end_offset"] = 900
    path = write(tmp_path, bad, "dev.json")
    with pytest.raises(TabFormatError) as err:
        read_tab(path)
    assert str(err.value) == (f"{path}: document 1, annotator1 mention 2: end_offset 900 beyond text length 59")
    cases = [
        ({"start_offset": -1}, "negative start_offset -1"),
        ({"start_offset": 9, "end_offset": 9}, "start_offset 9 not before end_offset 9"),
        ({"start_offset": 1.0}, "missing or non-integer 'start_offset'"),
        ({"end_offset": True}, "missing or non-integer 'end_offset'"),
        ({"end_offset": "9"}, "missing or non-integer 'end_offset'"),
    ]
    for change, expected in cases:
        bad = copy.deepcopy(raw)
        bad[0]["annotations"]["annotator2"]["entity_mentions"][1].update(change)
        with pytest.raises(TabFormatError) as err:
            parse_tab(bad, source="x.json")
        assert str(err.value) == (f"x.json: document 0, annotator2 mention 1: {expected}")


@pytest.mark.parametrize(
    "doc_key,mention_key,value,expected",
    [
        ("doc_id", None, None, "document 0: missing or non-string 'doc_id'"),
        ("doc_id", None, 12, "document 0: missing or non-string 'doc_id'"),
        ("text", None, None, "document 0: missing or non-string 'text'"),
        ("annotations", None, None, "document 0: missing 'annotations'"),
        ("meta", None, [], "document 0: 'meta' must be an object"),
        (None, "entity_id", None, "document 0, annotator1 mention 0: missing or non-string 'entity_id'"),
        (
            None,
            "entity_type",
            None,
            "document 0, annotator1 mention 0: missing or non-string 'entity_type'",
        ),
        (
            None,
            "identifier_type",
            "MAYBE",
            "document 0, annotator1 mention 0: identifier_type 'MAYBE' not in DIRECT, QUASI, NO_MASK",
        ),
        (
            None,
            "identifier_type",
            None,
            "document 0, annotator1 mention 0: identifier_type None not in DIRECT, QUASI, NO_MASK",
        ),
        (
            None,
            "start_offset",
            None,
            "document 0, annotator1 mention 0: missing or non-integer 'start_offset'",
        ),
    ],
)
def test_missing_or_invalid_keys(raw, doc_key, mention_key, value, expected):
    bad = copy.deepcopy(raw)
    target = bad[0] if doc_key else bad[0]["annotations"]["annotator1"]["entity_mentions"][0]
    key = doc_key or mention_key
    if value is None:
        del target[key]
    else:
        target[key] = value
    with pytest.raises(TabFormatError) as err:
        parse_tab(bad, source="f.json")
    assert str(err.value) == f"f.json: {expected}"


def test_structural_errors(raw):
    with pytest.raises(TabFormatError, match="top level must be a list of documents, got dict"):
        parse_tab({"doc_id": "x"})
    with pytest.raises(TabFormatError, match="document 0: must be an object, got str"):
        parse_tab(["x"])
    bad = copy.deepcopy(raw)
    bad[0]["annotations"]["annotator1"] = [1, 2]
    with pytest.raises(TabFormatError, match="annotator1: must be an object with an 'entity_mentions' list"):
        parse_tab(bad)
    with pytest.raises(
        TabFormatError,
        match=r"document 1: duplicate doc_id "
        r"\(also document 0\)",
    ):
        parse_tab([raw[0], raw[0]])


def test_duplicate_entity_id_across_annotators(raw):
    bad = copy.deepcopy(raw)
    # annotator2 reuses annotator1's person entity id.
    bad[0]["annotations"]["annotator2"]["entity_mentions"][5]["entity_id"] = "d1_a1_e2"
    with pytest.raises(TabFormatError) as err:
        parse_tab(bad, source="dup.json")
    assert str(err.value) == (
        "dup.json: document 0, annotator2 mention 5: entity_id 'd1_a1_e2' "
        "is also used by annotator 'annotator1' (entity ids must be unique per annotator)"
    )
    # The same id in two documents is fine.
    ok = copy.deepcopy(raw)
    ok[1]["annotations"]["annotator1"]["entity_mentions"][0]["entity_id"] = "d1_a1_e2"
    parse_tab(ok)


# --------------------------------------------------------------------------- #
# Messages name documents and mentions by position, never by their data
# --------------------------------------------------------------------------- #

NAME_ID = "Galip Yalman"  # a doc_id that is a person's name
NAME_TEXT = "Mr Galip Yalman lives in Ankara."


def _mention(**changes):
    """A mention of "Galip Yalman" in NAME_TEXT."""
    return {
        "entity_type": "PERSON",
        "identifier_type": "DIRECT",
        "entity_id": "e1",
        "start_offset": 3,
        "end_offset": 15,
        **changes,
    }


def _named_doc(**changes):
    """A document whose doc_id and text hold a person's name, with ``changes``
    (``mention=``: changes to its one mention)."""
    mention = _mention(**changes.pop("mention", {}))
    doc = {"doc_id": NAME_ID, "text": NAME_TEXT, "annotations": {"annotator1": {"entity_mentions": [mention]}}}
    doc.update(changes)
    return doc


@pytest.mark.parametrize(
    "doc,expected",
    [
        (
            _named_doc(text=None),
            "document 1: missing or non-string 'text'",
        ),
        (
            _named_doc(annotations=None),
            "document 1: 'annotations' must be an object",
        ),
        (
            _named_doc(mention={"end_offset": 99}),
            "document 1, annotator1 mention 0: end_offset 99 beyond text length 32",
        ),
        (
            _named_doc(mention={"identifier_type": "Galip Yalman"}),
            "document 1, annotator1 mention 0: identifier_type (a string, not shown: it may be data) "
            "not in DIRECT, QUASI, NO_MASK",
        ),
        (
            _named_doc(mention={"identifier_type": 19751204}),
            "document 1, annotator1 mention 0: identifier_type (a number, not shown: it may be data) "
            "not in DIRECT, QUASI, NO_MASK",
        ),
        (
            _named_doc(
                annotations={
                    "annotator1": {"entity_mentions": [_mention(entity_id="Galip Yalman")]},
                    "annotator2": {"entity_mentions": [_mention(entity_id="Galip Yalman")]},
                }
            ),
            "document 1, annotator2 mention 0: entity_id (a string, not shown: it may be data) is also used by "
            "annotator 'annotator1' (entity ids must be unique per annotator)",
        ),
    ],
)
def test_messages_name_a_document_by_position(tmp_path, doc, expected):
    ok = {"doc_id": "first", "text": "Nothing here.", "annotations": {}}
    path = write(tmp_path, [ok, doc], "names.json")
    with pytest.raises(TabFormatError) as err:
        read_tab(path)
    message = str(err.value)
    assert message == f"{path}: {expected}"
    assert "Galip" not in message
    assert "Ankara" not in message


def test_duplicate_doc_id_is_not_quoted(tmp_path):
    ok = {"doc_id": "first", "text": "Nothing here.", "annotations": {}}
    path = write(tmp_path, [_named_doc(), ok, _named_doc()], "dup.json")
    with pytest.raises(TabFormatError) as err:
        read_tab(path)
    message = str(err.value)
    assert message == f"{path}: document 2: duplicate doc_id (also document 0)"
    assert NAME_ID not in message
    assert "Galip" not in message
    # An integer doc_id read as its string is not quoted either.
    with pytest.raises(TabFormatError) as err:
        parse_tab([{**ok, "doc_id": "19751204"}, {**ok, "doc_id": "19751204"}], source="ids.json")
    assert str(err.value) == "ids.json: document 1: duplicate doc_id (also document 0)"
    assert "19751204" not in str(err.value)


def test_skipped_mention_warning_names_no_data(nlp):
    # The mention [15, 16) is the space after "Yalman", which belongs to no token of its own.
    first, blank = _mention(), _mention(start_offset=15, end_offset=16)
    ok = {"doc_id": "first", "text": "Nothing here.", "annotations": {}}
    named = {"doc_id": NAME_ID, "text": NAME_TEXT, "annotations": {"annotator1": {"entity_mentions": [first, blank]}}}
    tab_docs = parse_tab([ok, named])
    expected = "TAB document 1, annotator1 mention 1 (start_offset 15, end_offset 16): covers no token; skipped"
    with pytest.warns(UserWarning) as record:
        docs = tab_to_docs(nlp, tab_docs)
    assert [str(w.message) for w in record] == [expected]
    assert [s.text for s in docs[1].spans["tab_gold_annotator1"]] == ["Galip Yalman"]
    # One document on its own has no position.
    with pytest.warns(UserWarning) as record:
        tab_doc_to_doc(nlp, tab_docs[1])
    assert [str(w.message) for w in record] == [expected.replace("TAB document 1", "a TAB document")]
    for warning in record:
        assert "Galip" not in str(warning.message)
        assert "'" not in str(warning.message)


# --------------------------------------------------------------------------- #
# spaCy Docs
# --------------------------------------------------------------------------- #


def test_tab_to_docs(nlp):
    tab_docs = read_tab(FIXTURE)
    docs = tab_to_docs(nlp, tab_docs)
    assert [d.user_data["tab_doc_id"] for d in docs] == ["d1", "d2"]
    d1 = docs[0]
    assert d1.text == tab_docs[0].text
    assert set(d1.spans) == {"tab_gold_annotator1", "tab_gold_annotator2"}
    group = d1.spans["tab_gold_annotator2"]
    assert [(s.text, s.label_, s.kb_id_, s.id_) for s in group] == [
        ("12345/67", "CODE", "d1_a2_e1", "DIRECT"),
        ("Mr John Doe", "PERSON", "d1_a2_e2", "DIRECT"),
        ("researcher", "DEM", "d1_a2_e5", "QUASI"),
        ("Kingdom of Sweden", "LOC", "d1_a2_e3", "QUASI"),
        ("1 October 2021", "DATETIME", "d1_a2_e4", "QUASI"),
        ("Doe", "PERSON", "d1_a2_e2", "DIRECT"),
    ]
    assert [s.id_ for s in d1.spans["tab_gold_annotator1"]].count("NO_MASK") == 1


def test_gold_is_not_written_to_span_extensions(nlp):
    import spacy_textsan.extensions  # noqa: F401  (declares the extensions)

    doc = tab_to_docs(nlp, read_tab(FIXTURE))[0]
    span = doc.spans["tab_gold_annotator1"][0]
    assert span._.entity_id is None
    assert span._.identifier_type == "UNKNOWN"
    assert set(doc.user_data) == {"tab_doc_id"}


def test_offsets_expand_to_tokens_and_empty_groups(nlp):
    text = "Mr Johnson went to Oslo."
    mention = {
        "entity_type": "PERSON",
        "identifier_type": "DIRECT",
        "entity_id": "e1",
        "start_offset": 5,
        "end_offset": 10,
    }  # "hnson" inside "Johnson"
    tab_doc = parse_tab(
        [
            {
                "doc_id": "x",
                "text": text,
                "annotations": {"a": {"entity_mentions": [mention]}, "b": {"entity_mentions": []}},
            }
        ]
    )[0]
    doc = tab_doc_to_doc(nlp, tab_doc)
    assert [s.text for s in doc.spans["tab_gold_a"]] == ["Johnson"]
    assert isinstance(doc.spans["tab_gold_a"][0], Span)
    assert len(doc.spans["tab_gold_b"]) == 0


def test_whitespace_mention_is_skipped_with_warning(nlp):
    # The single space after "a" belongs to the token "a" (no token of its own).
    mention = {"entity_type": "MISC", "identifier_type": "QUASI", "entity_id": "e1", "start_offset": 1, "end_offset": 2}
    tab_doc = parse_tab([{"doc_id": "x", "text": "a b", "annotations": {"a": {"entity_mentions": [mention]}}}])[0]
    with pytest.warns(UserWarning, match="covers no token"):
        doc = tab_doc_to_doc(nlp, tab_doc)
    assert len(doc.spans["tab_gold_a"]) == 0


def test_registered_reader(nlp):
    make_reader = spacy.registry.misc.get("spacy_textsan.tab_reader.v1")
    assert make_reader is create_tab_reader
    docs = list(make_reader(path=str(FIXTURE))(nlp))
    assert [d.user_data["tab_doc_id"] for d in docs] == ["d1", "d2"]
    assert len(docs[1].spans["tab_gold_annotator1"]) == 4


# --------------------------------------------------------------------------- #
# Real TAB dev documents
# --------------------------------------------------------------------------- #


def test_read_dev_json(nlp):
    if not DEV.exists():
        pytest.skip(f"{DEV} not available")
    docs = read_tab(DEV)
    assert len(docs) == 21
    mentions = [m for doc in docs for ms in doc.annotations.values() for m in ms]
    assert len(mentions) == 818
    assert Counter(m.identifier_type for m in mentions) == {"DIRECT": 45, "QUASI": 515, "NO_MASK": 258}
    raw = json.loads(DEV.read_text(encoding="utf-8"))
    for doc, raw_doc in zip(docs, raw, strict=False):
        for annotator, mentions in doc.annotations.items():
            raw_mentions = raw_doc["annotations"][annotator]["entity_mentions"]
            for m, raw_m in zip(mentions, raw_mentions, strict=False):
                assert m.text == doc.text[m.start : m.end] == raw_m["span_text"]
    spacy_docs = tab_to_docs(nlp, docs)
    assert sum(len(g) for d in spacy_docs for g in d.spans.values()) == 818
