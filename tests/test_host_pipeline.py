"""Issue 17, item 11: a decision component or the generalizer added to a stock
spaCy pipeline, without privacy_ner. It says so once (NoDetectorWarning) and,
unless ``add_rules = false``, adds privacy_ner's rule layer (phones, e-mails,
codes) to the host's entities; components out of stage order are an error at
``nlp.initialize()`` and at the first call."""

import re
import warnings

import pytest
import spacy
from spacy.language import Language

from spacy_textsan.detect.privacy_ner.host_rules import find_rule_layer
from spacy_textsan.pipeline import complete_pipeline
from spacy_textsan.stages import NoDetectorWarning, check_stage_order

TEXT = "Ada Lee lives in Leeds. Call her on +44 20 7946 0958 or write to ada.lee@example.com. Ada Lee replies fast."
MASKED = "[PERSON 1] lives in [GPE 1]. Call her on [CODE 1] or write to [CODE 2]. [PERSON 1] replies fast."
STOCK = "tok2vec, tagger, parser, attribute_ruler, lemmatizer, ner"


WARN_RULES = (
    "spacy-textsan: 'generalizer' runs in a pipeline without privacy_ner (no detect-stage component): its "
    "candidates are the pipeline's entities (doc.ents) and the rule layer of privacy_ner (phone numbers, "
    "e-mail addresses, URLs, IP addresses, codes, standard numbers), added to them. Add privacy_ner before it "
    "for its full detection (names, places, identifiers): "
    'nlp.add_pipe("privacy_ner", before="generalizer", config={"sources": ["doc.ents"]}), or set '
    "add_rules = false to read doc.ents alone."
)
WARN_NO_RULES = (
    "spacy-textsan: 'generalizer' runs in a pipeline without privacy_ner (no detect-stage component) and with "
    "add_rules = false: its candidates are the pipeline's entities (doc.ents) alone, and phone numbers, "
    "e-mail addresses and codes that the NER does not tag stay in clear. Add privacy_ner before it for its "
    "full detection (names, places, identifiers): "
    'nlp.add_pipe("privacy_ner", before="generalizer", config={"sources": ["doc.ents"]}).'
)


def run_three_times(nlp: Language, text: str = TEXT) -> tuple[list[str], list[str]]:
    """The sanitized texts of three calls (two through nlp(), one through
    nlp.pipe) and the NoDetectorWarning messages they gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outputs = [nlp(text)._.sanitized_text, nlp(text)._.sanitized_text]
        outputs += [doc._.sanitized_text for doc in nlp.pipe([text])]
    return outputs, [str(w.message) for w in caught if issubclass(w.category, NoDetectorWarning)]


@pytest.fixture
def stock(model_available):
    return spacy.load(model_available)


def test_a_generalizer_on_a_stock_pipeline_masks_phones_and_emails_and_warns_once(stock):
    stock.add_pipe("generalizer")
    outputs, warned = run_three_times(stock)
    assert outputs == [MASKED] * 3
    assert warned == [WARN_RULES]
    doc = stock(TEXT)
    assert [(s.text, s.label_, s._.source, s._.entity_id) for s in doc.spans["textsan"]] == [
        ("Ada Lee", "PERSON", "ner:doc.ents:PERSON", "PERSON-1"),
        ("Leeds", "GPE", "ner:doc.ents:GPE", "GPE-1"),
        ("+44 20 7946 0958", "CODE", "rule:phone", "CODE-1"),
        ("ada.lee@example.com", "CODE", "rule:email", "CODE-2"),
        ("Ada Lee", "PERSON", "ner:doc.ents:PERSON", "PERSON-1"),
    ]


def test_mask_optimizer_on_a_stock_pipeline_adds_the_rule_layer_once_and_warns_once(stock):
    stock.add_pipe("mask_optimizer")
    stock.add_pipe("generalizer")
    outputs, warned = run_three_times(stock)
    assert outputs == [MASKED] * 3
    # the first component to read the host's entities warns, for the whole pipeline
    assert warned == [
        WARN_RULES.replace("'generalizer'", "'mask_optimizer'").replace(
            'before="generalizer"', 'before="mask_optimizer"'
        )
    ]
    doc = stock(TEXT)
    phone = doc.spans["textsan"][2]
    assert (phone.text, phone._.masked, phone._.reasons) == (
        "+44 20 7946 0958",
        True,
        ["direct identifier (label CODE)"],
    )


def test_a_code_wins_over_the_host_entity_it_overlaps(stock):
    stock.add_pipe("generalizer")
    text = "Ring 020 7946 0958 or 07700 900123."
    with stock.select_pipes(disable=["generalizer"]):
        # the stock NER reads "Ring 020 7946 0958" as an ORG and "07700 900123" as a DATE
        assert [(e.text, e.label_) for e in stock(text).ents] == [
            ("Ring 020 7946 0958", "ORG"),
            ("07700 900123", "DATE"),
        ]
    with pytest.warns(NoDetectorWarning):
        assert stock(text)._.sanitized_text == "Ring [CODE 1] or [CODE 2]."


def test_add_rules_false_reads_doc_ents_alone_and_leaves_the_phone(stock):
    """The opt-out: the host's entities alone, as before (and said once)."""
    stock.add_pipe("generalizer", config={"add_rules": False})
    outputs, warned = run_three_times(stock)
    assert (
        outputs
        == [
            "[PERSON 1] lives in [GPE 1]. Call her on +44 20 7946 0958 or write to ada.lee@example.com. "
            "[PERSON 2] replies fast."
        ]
        * 3
    )
    assert warned == [WARN_NO_RULES]
    assert "textsan" not in stock(TEXT).spans


def test_with_privacy_ner_nothing_is_said_or_added(stock):
    stock.add_pipe("privacy_ner", config={"sources": ["doc.ents"]})
    stock.add_pipe("mask_all")
    stock.add_pipe("generalizer")
    outputs, warned = run_three_times(stock)
    assert warned == []
    assert (
        outputs
        == ["[PERSON 1] lives in [LOC 1]. Call her on [CODE 1] or write to [CODE 2]. [PERSON 1] replies fast."] * 3
    )


def test_a_span_group_set_by_hand_is_read_as_it_is():
    """No detector, but the candidates were given: no warning, no rule layer."""
    nlp = spacy.blank("en")
    gen = nlp.add_pipe("generalizer")
    doc = nlp.make_doc("Ada Lee: +44 20 7946 0958.")
    doc.spans["textsan"] = [doc.char_span(0, 7, label="PERSON")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gen(doc)._.sanitized_text == "[PERSON 1]: +44 20 7946 0958."


def test_a_component_made_without_a_pipeline_checks_nothing():
    from spacy_textsan.render import Generalizer

    nlp = spacy.blank("en")
    doc = nlp("Call +44 20 7946 0958.")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Generalizer()(doc)._.sanitized_text == "Call +44 20 7946 0958."


ORDER_ERROR = (
    "spacy-textsan: 'generalizer' (render) runs before 'mask_optimizer' (decide) in the pipeline "
    "[{pipeline}generalizer (render), mask_optimizer (decide)], but spacy-textsan's stages run in the order "
    "detect, risk, decide, render. Add 'mask_optimizer' before 'generalizer': "
    'nlp.add_pipe("mask_optimizer", before="generalizer") (in a config: list it before \'generalizer\' in '
    "[nlp] pipeline)"
)


def test_a_generalizer_before_the_decision_is_an_error_at_the_first_call(stock):
    stock.add_pipe("mask_optimizer")
    stock.add_pipe("generalizer", before="mask_optimizer")
    with pytest.raises(ValueError) as error:
        stock(TEXT)
    assert str(error.value) == ORDER_ERROR.format(pipeline=STOCK + ", ")
    with pytest.raises(ValueError):  # every call, not only the first
        list(stock.pipe([TEXT]))


def test_a_generalizer_before_the_decision_is_an_error_at_initialize():
    nlp = spacy.blank("en")
    nlp.add_pipe("mask_optimizer")
    nlp.add_pipe("generalizer", before="mask_optimizer")
    with pytest.raises(ValueError) as error:
        nlp.initialize()
    assert str(error.value) == ORDER_ERROR.format(pipeline="")


@Language.component("test_host_risk")
def _risk(doc):
    return doc


_risk.textsan_stage = "risk"  # a risk measure of another package


@pytest.mark.parametrize(
    "pipeline, message",
    [
        (
            ["mask_all", "privacy_ner", "generalizer"],
            "'mask_all' (decide) runs before 'privacy_ner' (detect) in the pipeline [mask_all (decide), "
            "privacy_ner (detect), generalizer (render)]",
        ),
        (
            ["privacy_ner", "mask_optimizer", "test_host_risk", "generalizer"],
            "'mask_optimizer' (decide) runs before 'test_host_risk' (risk) in the pipeline [privacy_ner (detect), "
            "mask_optimizer (decide), test_host_risk (risk), generalizer (render)]",
        ),
    ],
)
def test_a_decision_before_the_detector_or_a_risk_measure_after_it_is_an_error(pipeline, message):
    nlp = spacy.blank("en")
    for name in pipeline:
        nlp.add_pipe(name, config={"sources": []} if name == "privacy_ner" else {})
    with pytest.raises(ValueError, match="^" + re.escape("spacy-textsan: " + message + ", but ")):
        nlp("Ada Lee")
    with pytest.raises(ValueError):
        check_stage_order(nlp)


def test_stages_in_order_with_several_of_one_stage_are_accepted():
    nlp = spacy.blank("en")
    for name in ("privacy_ner", "test_host_risk", "mask_optimizer", "mask_all", "generalizer"):
        nlp.add_pipe(name, config={"sources": []} if name == "privacy_ner" else {})
    check_stage_order(nlp)
    nlp.initialize()
    assert nlp("Mr Ada Lee: +44 20 7946 0958.")._.sanitized_text == "[PERSON 1]: [CODE 1]."


def test_complete_pipeline_puts_the_missing_stages_before_a_generalizer_already_there(stock):
    stock.add_pipe("generalizer")
    complete_pipeline(stock)
    assert stock.pipe_names[-3:] == ["privacy_ner", "mask_all", "generalizer"]
    assert run_three_times(stock)[1] == []


def test_the_rule_layer_is_a_pure_function():
    """Every match of the patterns and the identifier layer, before overlaps are resolved, in the order of
    the recognizers: a phone number or an IBAN that the pattern and the library both read is found once."""
    assert [(TEXT[m.start : m.end], m.label, m.name) for m in find_rule_layer(TEXT)] == [
        ("ada.lee@example.com", "CODE", "email"),
        ("+44 20 7946 0958", "CODE", "phone"),
        ("44 20 7946 0958", "CODE", "id:long_number"),
    ]
    text = "IBAN GB82 WEST 1234 5698 7654 32, IP 192.168.1.20, see https://example.org/u/ada"
    assert [(text[m.start : m.end], m.name) for m in find_rule_layer(text)] == [
        ("https://example.org/u/ada", "url"),
        ("192.168.1.20", "ipv4"),
        ("GB82 WEST 1234 5698 7654 32", "iban"),
        ("192.168.1.20", "id:phone"),
        ("GB82 WEST 1234 5698 7654 32", "id:cued_code"),
        ("1234 5698 7654 32", "id:long_number"),
    ]


def test_a_pipeline_out_of_order_is_refused_when_loaded(tmp_path):
    from spacy_textsan.pipeline import load_pipeline

    cfg = tmp_path / "wrong.cfg"
    cfg.write_text(
        '[nlp]\nlang = "en"\npipeline = ["privacy_ner","generalizer","mask_all"]\n\n[components]\n\n'
        '[components.privacy_ner]\nfactory = "privacy_ner"\nsources = []\n\n'
        '[components.generalizer]\nfactory = "generalizer"\n\n[components.mask_all]\nfactory = "mask_all"\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=re.escape("'generalizer' (render) runs before 'mask_all' (decide)")):
        load_pipeline(str(cfg))
