"""Writing masked spans and TAB-format predictions."""

from pathlib import Path

import pytest
import srsly

import spacy_textsan.tab.writer as writer_module
from spacy_textsan.tab import (
    evaluate,
    masked_spans_json,
    parse_tab,
    predictions_to_tab,
    read_tab,
    write_masked_spans,
)

FIXTURE = Path(__file__).parent / "fixtures" / "tab_two_annotators.json"


def test_masked_spans_json_sorts_and_deduplicates_without_merging():
    pred = {
        "d2": [(45, 51), [4, 9], (4, 9)],
        "d1": [(39, 50), (42, 50), (30, 39), (42, 50)],
        "empty": [],
    }
    assert masked_spans_json(pred) == {
        "d2": [[4, 9], [45, 51]],
        # Overlapping and adjacent spans are kept as they are.
        "d1": [[30, 39], [39, 50], [42, 50]],
        "empty": [],
    }


def test_masked_spans_json_converts_integer_likes():
    np = pytest.importorskip("numpy")
    out = masked_spans_json({"d": [(np.int64(1), np.int32(3))]})
    assert out == {"d": [[1, 3]]}
    assert all(type(x) is int for x in out["d"][0])


@pytest.mark.parametrize("span", [(3, 3), (5, 2), (-1, 2), (1.5, 3), ("1", "2"), (1, 2, 3)])
def test_masked_spans_json_rejects_bad_spans(span):
    with pytest.raises(ValueError, match="document d"):
        masked_spans_json({"d": [span]})


def test_write_masked_spans(tmp_path):
    path = tmp_path / "masked.json"
    assert write_masked_spans(path, {"d1": [(42, 50), (16, 24)]}) == path
    assert srsly.read_json(path) == {"d1": [[16, 24], [42, 50]]}
    assert [p.name for p in tmp_path.iterdir()] == ["masked.json"]  # no temp file left


def test_write_masked_spans_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "masked.json"
    write_masked_spans(path, {"d1": [(1, 2)]})

    def failing_write(tmp_name, data):
        Path(tmp_name).write_text('{"d1": [[', encoding="utf-8")  # half written
        raise OSError("disk full")

    monkeypatch.setattr(writer_module.srsly, "write_json", failing_write)
    with pytest.raises(OSError, match="disk full"):
        write_masked_spans(path, {"d1": [(3, 4)]})
    # The previous file is intact and the temporary file is gone.
    assert srsly.read_json(path) == {"d1": [[1, 2]]}
    assert [p.name for p in tmp_path.iterdir()] == ["masked.json"]


def test_written_spans_evaluate_like_in_memory(tmp_path):
    gold = read_tab(FIXTURE)
    pred = {"d1": [(109, 123), (42, 50)], "d2": []}
    path = write_masked_spans(tmp_path / "m.json", pred)
    assert evaluate(gold, srsly.read_json(path)) == evaluate(gold, pred)


def test_predictions_to_tab_round_trip():
    gold = read_tab(FIXTURE)
    predictions = {
        "d1": [
            {"start": 109, "end": 123, "label": "DATETIME", "entity_id": "date", "identifier_type": "QUASI"},
            {"start": 42, "end": 50, "label": "PERSON", "entity_id": "P1", "identifier_type": "DIRECT"},
            {"start": 125, "end": 128, "label": "PERSON", "entity_id": "P1", "identifier_type": "DIRECT"},
            {"start": 0, "end": 11, "label": "MISC"},  # defaults
            {"start": 54, "end": 61, "label": "DEM", "identifier_type": "UNKNOWN"},
        ]
    }
    out = predictions_to_tab(gold, predictions, annotator="textsan")
    assert [d["doc_id"] for d in out] == ["d1", "d2"]
    d1 = out[0]
    assert d1["text"] == gold[0].text
    assert d1["dataset_type"] == "fixture"
    assert d1["meta"] == gold[0].meta
    mentions = d1["annotations"]["textsan"]["entity_mentions"]
    # Sorted by offsets, numbered from 1.
    assert mentions[0] == {
        "entity_type": "MISC",
        "entity_mention_id": "d1_textsan_em1",
        "start_offset": 0,
        "end_offset": 11,
        "span_text": "Application",
        "edit_type": "check",
        "identifier_type": "QUASI",
        "entity_id": "d1_textsan_e1",
        "confidential_status": "NOT_CONFIDENTIAL",
    }
    assert [(m["span_text"], m["identifier_type"], m["entity_id"]) for m in mentions] == [
        ("Application", "QUASI", "d1_textsan_e1"),
        ("John Doe", "DIRECT", "P1"),
        ("British", "QUASI", "d1_textsan_e3"),
        ("1 October 2021", "QUASI", "date"),
        ("Doe", "DIRECT", "P1"),
    ]
    assert out[1]["annotations"] == {"textsan": {"entity_mentions": []}}

    # Re-readable, and usable as a gold file (our annotations as "gold").
    again = parse_tab(out, source="predictions")
    assert [m.text for m in again[0].annotations["textsan"]][1] == "John Doe"
    masked = {"d1": [(42, 50), (125, 128)], "d2": []}
    assert evaluate(again, masked)["er_di"] == 1.0


def test_predictions_to_tab_from_pairs():
    out = predictions_to_tab(
        [("a", "Anna lives in Oslo.")],
        {"a": [{"start": 14, "end": 18, "label": "LOC", "entity_id": 7}]},
        annotator="sys",
    )
    assert out[0]["dataset_type"] is None and out[0]["meta"] == {}
    mention = out[0]["annotations"]["sys"]["entity_mentions"][0]
    assert (mention["span_text"], mention["entity_id"]) == ("Oslo", "7")
    parse_tab(out)


def test_predictions_to_tab_errors():
    pairs = [("a", "Anna lives in Oslo.")]
    with pytest.raises(KeyError, match="zzz"):
        predictions_to_tab(pairs, {"zzz": []})
    with pytest.raises(ValueError, match="lacks label"):
        predictions_to_tab(pairs, {"a": [{"start": 0, "end": 4}]})
    with pytest.raises(ValueError, match="beyond text length 19"):
        predictions_to_tab(pairs, {"a": [{"start": 0, "end": 40, "label": "X"}]})
    with pytest.raises(ValueError, match="invalid identifier_type 'HIGH'"):
        predictions_to_tab(pairs, {"a": [{"start": 0, "end": 4, "label": "X", "identifier_type": "HIGH"}]})
