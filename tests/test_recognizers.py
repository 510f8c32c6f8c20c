"""privacy_ner's recognizers (spacy_textsan.detect.privacy_ner.recognizers): the registry, composition
through the config, languages, and IBANs and phone numbers found once."""

import catalogue
import pytest
import spacy

import spacy_textsan  # noqa: F401 (registers the factories)
from spacy_textsan.detect.privacy_ner import recognizer_blocks
from spacy_textsan.detect.privacy_ner.combine import PRIORITY_DEFAULT, Candidate
from spacy_textsan.detect.privacy_ner.recognizers import (
    DEFAULT_RECOGNIZERS,
    RECOGNIZER_PREFIX,
    Context,
    Recognizer,
    registered_recognizers,
    supports,
)
from spacy_textsan.detect.privacy_ner.rule_layer import RuleLayer
from spacy_textsan.extensions import SPANS_KEY

DEFAULT_NAMES = [
    "codes",
    "iban",
    "phone",
    "dates",
    "quantities",
    "family_status",
    "national_ids",
    "standard_numbers",
    "network_ids",
    "addresses",
    "cued_codes",
    "mixed_codes",
    "long_numbers",
    "table_cells",
    "log_fields",
    "script_names",
    "lexicon_names",
    "cued_names",
    "titled_names",
    "id_holders",
    "cued_places",
]


def spans(doc):
    return [(s.text, s.label_, s._.source, s._.recognizer) for s in doc.spans[SPANS_KEY]]


def test_the_registry_lists_every_package_recognizer_with_its_languages_and_types():
    registered = registered_recognizers()
    # the default list, and the recognizers a language's config names (not run by default)
    extra = ["case_citations", "german_case_numbers", "initials"]
    assert sorted(registered) == sorted(f"{RECOGNIZER_PREFIX}{n}.v1" for n in [*DEFAULT_NAMES, *extra])
    languages = {name: registered[f"{RECOGNIZER_PREFIX}{name}.v1"]().languages for name in extra}
    assert languages == {"case_citations": ("fr", "es"), "german_case_numbers": ("de",), "initials": ("fr", "es")}
    made = {name: registered[f"{RECOGNIZER_PREFIX}{name}.v1"]() for name in DEFAULT_NAMES}
    assert {name: r.name for name, r in made.items()} == {name: name for name in DEFAULT_NAMES}
    assert made["iban"].languages == ("*",) and made["iban"].types == ("CODE",)
    assert made["family_status"].languages == ("en",) and made["family_status"].types == ("DEM",)
    assert made["dates"].types == ("DATETIME",)
    # the recognizers that read word lists read the languages that have a data folder
    assert made["cued_places"].languages == ("de", "en", "es", "fr") and made["addresses"].types == ("LOC",)


def test_the_default_config_is_the_default_list_and_the_pipe_says_what_runs():
    nlp = spacy.blank("en")
    ner = nlp.add_pipe("privacy_ner", config={"sources": []})
    assert list(DEFAULT_RECOGNIZERS) == DEFAULT_NAMES
    assert list(ner.recognizers) == DEFAULT_NAMES and ner.skipped_recognizers == ()
    assert nlp.config["components"]["privacy_ner"]["recognizers"]["iban"] == {
        "@misc": "spacy_textsan.recognizer.iban.v1"
    }


def test_each_span_names_its_recognizer_and_keeps_its_source():
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    doc = nlp("Mr John Smith was born on 3 April 1985; call +44 20 7946 0958 or mail ada.lee@example.com.")
    assert spans(doc) == [
        ("Mr John Smith", "PERSON", "rule:titled_name", "titled_names"),
        ("3 April 1985", "DATETIME", "rule:date_dmy", "dates"),
        ("+44 20 7946 0958", "CODE", "rule:phone", "phone"),
        ("ada.lee@example.com", "CODE", "rule:email", "codes"),
    ]


class Badge(Recognizer):
    """A test's recognizer: the code names of operations (``Operation Bluebird``)."""

    name = "badge"
    languages = ("en", "fr")
    types = ("MISC",)

    def find(self, text, context):
        start = text.find("Operation ")
        end = text.find(" ", start + 10)
        return [] if start < 0 else [Candidate(start, end, "MISC", "badge:operation", PRIORITY_DEFAULT)]


@pytest.fixture
def badge_recognizer():
    """``spacy_textsan.recognizer.badge.v1`` registered for this test only."""
    name = f"{RECOGNIZER_PREFIX}badge.v1"
    spacy.registry.misc.register(name, func=Badge)
    yield name
    catalogue._remove((*spacy.registry.misc.namespace, name))
    assert name not in registered_recognizers()


def test_a_custom_recognizer_is_composed_through_the_config(badge_recognizer):
    assert badge_recognizer in registered_recognizers()
    nlp = spacy.blank("en")
    ner = nlp.add_pipe("privacy_ner", config={"sources": [], "recognizers": {"badge": {"@misc": badge_recognizer}}})
    # a block the config adds comes before the defaults (spaCy merges the config into them); the order of
    # the recognizers changes no result (overlaps are resolved on priority, length and source)
    assert list(ner.recognizers) == ["badge", *DEFAULT_NAMES]
    doc = nlp("Operation Bluebird began on 3 April 1985.")
    assert spans(doc) == [
        ("Operation Bluebird", "MISC", "badge:operation", "badge"),
        ("3 April 1985", "DATETIME", "rule:date_dmy", "dates"),
    ]
    # a default recognizer set to null is off: only the badge and the titled names are left
    off = {name: None for name in DEFAULT_NAMES if name != "titled_names"}
    nlp = spacy.blank("en")
    ner = nlp.add_pipe(
        "privacy_ner", config={"sources": [], "recognizers": {**off, "badge": {"@misc": badge_recognizer}}}
    )
    assert list(ner.recognizers) == ["badge", "titled_names"]
    assert spans(nlp("Operation Bluebird began on 3 April 1985.")) == [
        ("Operation Bluebird", "MISC", "badge:operation", "badge")
    ]


def test_a_recognizer_of_other_languages_is_skipped_or_refused(badge_recognizer):
    assert supports(Badge(), "fr") and not supports(Badge(), "es") and supports(recognizer_blocks.Iban(), "es")
    nlp = spacy.blank("es")
    ner = nlp.add_pipe("privacy_ner", config={"sources": [], "recognizers": {"badge": {"@misc": badge_recognizer}}})
    assert "badge" not in ner.recognizers and ner.skipped_recognizers == ("badge", "family_status")
    assert spans(nlp("La Operation Bluebird.")) == []
    nlp = spacy.blank("es")
    with pytest.raises(ValueError, match=r"^privacy_ner: recognizer 'family_status' .* reads en, not 'es'") as e:
        nlp.add_pipe("privacy_ner", config={"sources": [], "unsupported": "error"})
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="unsupported must be 'skip' or 'error'"):
        spacy.blank("en").add_pipe("privacy_ner", config={"sources": [], "unsupported": "warn"})


def test_an_iban_and_a_phone_number_are_found_once(monkeypatch):
    text = "Pay into GB82 WEST 1234 5698 7654 32 or call +44 20 7946 0958."
    calls = []
    real = recognizer_blocks.find_standard_numbers
    monkeypatch.setattr(recognizer_blocks, "find_standard_numbers", lambda t: calls.append(t) or real(t))
    cands = RuleLayer().candidates(text)
    # the checksummed numbers are read once, for the iban and standard_numbers recognizers both
    assert calls == [text]
    iban = [(c.source, c.recognizer) for c in cands if text[c.start : c.end] == "GB82 WEST 1234 5698 7654 32"]
    phone = [(c.source, c.recognizer) for c in cands if text[c.start : c.end] == "+44 20 7946 0958"]
    # the pattern and the library read the same characters: one candidate each, the pattern's
    assert iban == [("rule:iban", "iban")]
    assert phone == [("rule:phone", "phone")]
    # a number that only the library reads (dots, dashes) is the library's, still once
    other = "Ring 020.7946.0958 or pay GB82-WEST-1234-5698-7654-32."
    found = [
        (other[c.start : c.end], c.source) for c in RuleLayer().candidates(other) if c.recognizer in ("phone", "iban")
    ]
    assert found == [("GB82-WEST-1234-5698-7654-32", "id:iban"), ("020.7946.0958", "id:phone")]
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    assert [(s, r) for _, _, s, r in spans(nlp(text))] == [("rule:iban", "iban"), ("rule:phone", "phone")]


def test_the_layers_of_the_rule_layer_switch_their_recognizers_off():
    text = "Call +44 20 7946 0958, Kontakt: Sven Larsson."
    names = {c.recognizer for c in RuleLayer().candidates(text)}
    assert names == {"phone", "addresses", "long_numbers", "cued_names", "lexicon_names"}
    assert {c.recognizer for c in RuleLayer(names=False).candidates(text)} == {"phone", "addresses", "long_numbers"}
    assert {c.source for c in RuleLayer(identifiers=False, names=False).candidates(text)} == {"rule:phone"}
    assert RuleLayer(rules=False).candidates(text) == []


def test_a_context_computes_a_shared_finder_once():
    context = Context("en")
    calls = []
    assert context.once("k", lambda: calls.append(1) or [1]) == [1] == context.once("k", lambda: [2])
    assert calls == [1]


def test_a_custom_recognizers_candidate_competes_like_any_other():
    class Everything(Recognizer):
        name = "everything"
        types = ("MISC",)

        def find(self, text, context):
            return [Candidate(0, len(text), "MISC", "everything:all", PRIORITY_DEFAULT)]

    text = "Call +44 20 7946 0958"
    cands = RuleLayer().candidates(text, [Everything(), recognizer_blocks.Phone()])
    assert [(c.source, c.recognizer) for c in cands] == [("everything:all", "everything"), ("rule:phone", "phone")]
