"""The lm_risk component: scores, risky sets, fail closed, config and
serialisation, and the information-content weights in TAB's precision."""

import math
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Span

import spacy_textsan  # noqa: F401
from spacy_textsan.risk.lm_backends import SpanLogProbBackend, WordfreqBackend, token_weighting
from spacy_textsan.risk.lm_risk import DEFAULT_THRESHOLD, LMRisk, risk_reason
from spacy_textsan.tab import evaluate, precision
from spacy_textsan.tab.reader import GoldMention, TabDocument

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "lm"))
from tiny_mlm import build_tiny_mlm  # noqa: E402

wordfreq = pytest.importorskip("wordfreq")

TEXT = "Mr Galip Yalman lives in Ankara and the Court met."


def logfreq(word, floor=1e-8):
    return math.log(max(wordfreq.word_frequency(word, "en"), floor))


def make_doc(nlp, text=TEXT, spans=(("Galip Yalman", "PERSON"), ("Ankara", "LOC"), ("Court", "ORG"))):
    doc = nlp.make_doc(text)
    group = []
    for needle, label in spans:
        start = text.index(needle)
        group.append(doc.char_span(start, start + len(needle), label=label))
    doc.spans["textsan"] = group
    return doc


class FailingBackend(SpanLogProbBackend):
    def __init__(self, fail_on=None):
        self.fail_on = fail_on
        self.calls = 0

    def span_logprobs(self, text, spans):
        self.calls += 1
        if self.fail_on is None or self.fail_on in text:
            raise RuntimeError("model exploded")
        return [-1.0] * len(spans)


class CountingBackend(WordfreqBackend):
    def __init__(self):
        super().__init__()
        self.batches = []

    def docs_span_logprobs(self, items):
        self.batches.append(len(items))
        return super().docs_span_logprobs(items)


@pytest.fixture
def nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("lm_risk")
    return nlp


def test_default_scores_and_risky_sets(nlp):
    doc = nlp(make_doc(nlp))
    person, loc, org = doc.spans["textsan"]
    expected = {
        "Galip Yalman": logfreq("galip") + logfreq("yalman"),
        "Ankara": logfreq("ankara"),
        "Court": logfreq("court"),
    }
    assert expected["Galip Yalman"] < DEFAULT_THRESHOLD and expected["Ankara"] < DEFAULT_THRESHOLD
    assert expected["Court"] > DEFAULT_THRESHOLD
    for span in (person, loc, org):
        assert span._.info_content == pytest.approx(-expected[span.text], abs=1e-12)
        assert span._.risk == {"lm": pytest.approx(-expected[span.text], abs=1e-12)}
    assert doc._.risky_sets == [
        {
            "measure": "lm",
            "spans": [[person.start_char, person.end_char]],
            "reason": f"log-probability {expected['Galip Yalman']:.1f} < -12",
        },
        {
            "measure": "lm",
            "spans": [[loc.start_char, loc.end_char]],
            "reason": f"log-probability {expected['Ankara']:.1f} < -12",
        },
    ]
    assert doc._.risky_sets[0]["reason"] == "log-probability -36.7 < -12"
    assert doc._.sanitize_errors is None


def test_threshold_labels_and_other_risks_kept():
    nlp = spacy.blank("en")
    nlp.add_pipe("lm_risk", config={"threshold": -40.0, "labels": ["PERSON", "ORG"]})
    doc = make_doc(nlp)
    person = doc.spans["textsan"][0]
    person._.risk = {"kanon": 0.5}
    doc = nlp(doc)
    person, loc, org = doc.spans["textsan"]
    assert doc._.risky_sets is None  # nothing below -40
    assert set(person._.risk) == {"kanon", "lm"} and person._.risk["kanon"] == 0.5
    assert loc._.risk is None and loc._.info_content is None  # LOC not assessed
    assert org._.info_content == pytest.approx(-logfreq("court"))
    assert risk_reason(-9.06, -3.5) == "log-probability -9.1 < -3.5"


def test_docs_without_candidates_and_ents_fallback(nlp):
    empty = nlp("")
    assert empty._.risky_sets is None
    doc = nlp.make_doc("Yalman met Smith")
    doc.ents = [Span(doc, 0, 1, label="PERSON")]  # no span group: doc.ents are the candidates
    doc = nlp(doc)
    assert doc.ents[0]._.info_content == pytest.approx(-math.log(1e-8))
    assert len(doc._.risky_sets) == 1


def test_pipe_batches_documents():
    nlp = spacy.blank("en")
    component = nlp.add_pipe("lm_risk")
    counting = CountingBackend()
    component.backend = counting
    docs = [make_doc(nlp) for _ in range(5)] + [nlp.make_doc("no candidates")]
    out = list(nlp.pipe(docs, batch_size=4))
    assert counting.batches == [4, 1]  # the doc without candidates is not sent
    reference = nlp(make_doc(nlp))
    assert all(d._.risky_sets == reference._.risky_sets for d in out[:5])


def test_fail_closed():
    nlp = spacy.blank("en")
    component = nlp.add_pipe("lm_risk")
    component.backend = FailingBackend()
    doc = nlp(make_doc(nlp))
    assert doc._.sanitize_errors == ["lm_risk: lm backend failed: RuntimeError: model exploded"]
    assert [s["spans"] for s in doc._.risky_sets] == [[[s.start_char, s.end_char]] for s in doc.spans["textsan"]]
    assert {s["reason"] for s in doc._.risky_sets} == {"lm backend failed: RuntimeError: model exploded"}
    assert all(s._.info_content is None and s._.risk is None for s in doc.spans["textsan"])


def test_fail_closed_only_the_failing_document():
    nlp = spacy.blank("en")
    component = nlp.add_pipe("lm_risk", config={"threshold": -0.5})
    component.backend = FailingBackend(fail_on="Ankara")
    good = make_doc(nlp, "Mr Galip Yalman met the Court.", (("Galip Yalman", "PERSON"), ("Court", "ORG")))
    docs = list(nlp.pipe([good, make_doc(nlp)]))
    assert docs[0]._.sanitize_errors is None
    assert [s._.info_content for s in docs[0].spans["textsan"]] == [1.0, 1.0]
    assert docs[0]._.risky_sets[0]["reason"] == "log-probability -1.0 < -0.5"
    assert len(docs[1]._.sanitize_errors) == 1 and len(docs[1]._.risky_sets) == 3


@pytest.mark.parametrize("bad", [[float("nan")] * 3, [-1.0]])
def test_unusable_backend_output_fails_closed(bad):
    class Bad(SpanLogProbBackend):
        def span_logprobs(self, text, spans):
            return bad

    component = LMRisk(backend=Bad())
    nlp = spacy.blank("en")
    doc = component(make_doc(nlp))
    assert "lm backend failed: ValueError" in doc._.sanitize_errors[0]
    assert len(doc._.risky_sets) == 3


def test_config_round_trip(nlp, tmp_path):
    config = nlp.config["components"]["lm_risk"]
    assert config["backend"] == {
        "@misc": "spacy_textsan.wordfreq_backend.v1",
        "lang": "en",
        "floor": 1e-8,
        "wordlist": "best",
    }
    assert config["threshold"] == DEFAULT_THRESHOLD and config["labels"] is None
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    assert loaded.config["components"]["lm_risk"] == config
    assert loaded(make_doc(loaded))._.risky_sets == nlp(make_doc(nlp))._.risky_sets


def test_masked_lm_backend_from_config(tmp_path):
    model_path = build_tiny_mlm(tmp_path / "mlm")
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "lm_risk",
        config={
            "threshold": -3.5,
            "backend": {"@misc": "spacy_textsan.masked_lm_backend.v1", "model_path": model_path, "batch_size": 4},
        },
    )
    backend_config = nlp.config["components"]["lm_risk"]["backend"]
    assert backend_config["model_path"] == model_path and backend_config["max_group_size"] is None
    doc = nlp(make_doc(nlp))
    expected = nlp.get_pipe("lm_risk").backend.span_logprobs(
        doc.text, [(s.start_char, s.end_char) for s in doc.spans["textsan"]]
    )
    assert [s._.info_content for s in doc.spans["textsan"]] == pytest.approx([-x for x in expected])
    assert len(doc._.risky_sets) == sum(x < -3.5 for x in expected) > 0
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    again = loaded(make_doc(loaded))
    assert [s._.info_content for s in again.spans["textsan"]] == pytest.approx([-x for x in expected], abs=1e-5)


def test_token_weighting_in_tab_weighted_precision():
    text = "Galip Yalman lives in Ankara."
    mentions = [
        GoldMention(0, 12, "Galip Yalman", "PERSON", "DIRECT", "e1", "ann1"),
        GoldMention(22, 28, "Ankara", "LOC", "NO_MASK", "e2", "ann1"),
    ]
    gold = [TabDocument("d1", text, annotations={"ann1": mentions})]
    masked = {"d1": [(0, 12), (22, 28)]}
    weights = token_weighting(WordfreqBackend())
    w_galip, w_yalman, w_ankara = -logfreq("galip"), -logfreq("yalman"), -logfreq("ankara")
    expected = (w_galip + w_yalman) / (w_galip + w_yalman + w_ankara)
    assert precision(gold, masked, weights=weights) == pytest.approx(expected, abs=1e-12)
    result = evaluate(gold, masked, weights=weights)
    assert result["weighted_precision"] == pytest.approx(expected, abs=1e-12)
    assert result["precision"] == pytest.approx(2 / 3)
    assert result["weighted_precision"] > result["precision"]  # the rare name weighs more
