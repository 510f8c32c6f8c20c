"""A pseudonym shows no word of a name it hides: neither of the original value it
replaces nor of another masked name of the document (case- and accent-folded,
split at apostrophes and hyphens). Keys are searched whose first draw would
reuse a word, so that each case reaches the redraw."""

import re
from pathlib import Path

import pytest
import spacy
from faker import Faker
from spacy.tokens import SpanGroup

from spacy_textsan.render.surrogates import canonical_text, entity_seed, fake_value, name_words, shares_word

FAKER = Faker("en_US")
NLP = spacy.blank("en")
ROOT = Path(__file__).resolve().parents[1]
SENTENCE = "N'Golo Kanté and D'Angelo Russell met."


def _doc(nlp, text, spans):
    """spans: (substring, label), one entity each, all masked."""
    doc = nlp.make_doc(text)
    group = SpanGroup(doc, name="textsan")
    for i, (needle, label) in enumerate(spans):
        m = re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", text)
        span = doc.char_span(m.start(), m.end(), label=label)
        span._.entity_id = f"E{i}"
        span._.masked = True
        group.append(span)
    doc.spans["textsan"] = group
    return doc


def _first_draw(key: str, label: str, name: str) -> str:
    """The surrogate the pseudonym operator draws first for ``name`` with ``key``."""
    value = fake_value(label, entity_seed(key.encode(), label, canonical_text(name), "0"), FAKER)
    assert value is not None
    return value


def _keys_reusing(label: str, name: str, words: set[str], n: int = 4, tries: int = 6000) -> list[str]:
    """The first ``n`` keys whose first draw for ``name`` holds one of ``words``."""
    keys = [k for k in (f"key{i}" for i in range(tries)) if shares_word(_first_draw(k, label, name), words)][:n]
    assert keys, f"no key in {tries} draws a surrogate of {name!r} with a word of {sorted(words)}"
    return keys


def _pseudonyms(tmp_path, key: str, text: str, spans) -> dict[str, str]:
    path = tmp_path / "key"
    path.write_text(key)
    gen = NLP.add_pipe("generalizer", config={"strategy": "pseudonym", "key_file": str(path), "key_env": None})
    try:
        doc = gen(_doc(NLP, text, spans))
    finally:
        NLP.remove_pipe("generalizer")
    return {s.text: s._.replacement for s in doc.spans["textsan"]}


# --------------------------------------------------------------------------- #
# the words of a name
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "name,words",
    [
        ("N'Golo Kanté", {"golo", "ngolo", "kante"}),  # an apostrophe, an accent
        ("D’Angelo Russell", {"angelo", "dangelo", "russell"}),  # a typographic apostrophe
        ("Mary-Jane O'Brien", {"mary", "jane", "maryjane", "brien", "obrien"}),  # a hyphen
        ("Thomas van der Berg", {"thomas", "van", "der", "berg"}),  # particles are words too
        ("Maria de Souza", {"maria", "de", "souza"}),
        ("JOHNSON", {"johnson"}),  # one word, in capitals
        ("J. R. Smith", {"smith"}),  # an initial is no word
        ("Søren Ørsted", {"soren", "orsted"}),  # letters without a combining mark
    ],
)
def test_name_words_fold_case_accents_apostrophes_and_hyphens(name, words):
    assert name_words(name) == words


def test_a_candidate_shares_a_word_only_as_a_whole_word():
    words = name_words("D'Angelo Russell") | name_words("N'Golo Kanté")
    assert shares_word("Russell Li", words)
    assert shares_word("RUSSELL li", words)
    assert shares_word("Angelo Brown", words)  # a part of "D'Angelo"
    assert shares_word("Dangelo Brown", words)  # "D'Angelo" without its apostrophe
    assert shares_word("Kante Miller", words)  # accent-folded
    assert shares_word("Port Golo", words)
    assert not shares_word("Russellville Li", words)  # a longer word is another word
    assert not shares_word("Kenneth Thornton", words)


# --------------------------------------------------------------------------- #
# the generalizer's pseudonyms
# --------------------------------------------------------------------------- #


def test_the_reported_sentence_gets_no_word_of_either_name(tmp_path):
    spans = [("N'Golo Kanté", "PERSON"), ("D'Angelo Russell", "PERSON")]
    words = name_words("N'Golo Kanté") | name_words("D'Angelo Russell")
    # keys whose first draw for either person holds a word of either name ("Russell Li" was one such)
    keys = _keys_reusing("PERSON", "D'Angelo Russell", words, n=3) + _keys_reusing("PERSON", "N'Golo Kanté", words, n=2)
    for key in keys:
        reps = _pseudonyms(tmp_path, key, SENTENCE, spans)
        for original, rep in reps.items():
            assert re.fullmatch(r"[A-Z][a-z]+ [A-Z][a-z]+", rep), (key, original, rep)
            assert not shares_word(rep, words), (key, original, rep)
        assert len(set(reps.values())) == 2


@pytest.mark.parametrize(
    "text,name,label,others",
    [
        # a hyphen and an apostrophe
        ("Mary-Jane O'Brien called.", "Mary-Jane O'Brien", "PERSON", []),
        # particles
        ("Thomas van der Berg wrote.", "Thomas van der Berg", "PERSON", []),
        # one word, a common surrogate surname
        ("Johnson left early.", "Johnson", "PERSON", []),
        # every word is a common surrogate name; the other person's words are refused too
        ("James Smith met Mary Johnson.", "James Smith", "PERSON", [("Mary Johnson", "PERSON")]),
        # a company and a city are drawn from names too: they show no word of the masked person
        ("James Smith works at Smith & Sons.", "Smith & Sons", "ORG", [("James Smith", "PERSON")]),
        ("James Smith lives in Port James.", "Port James", "LOC", [("James Smith", "PERSON")]),
    ],
)
def test_a_pseudonym_shows_no_word_of_any_masked_name(tmp_path, text, name, label, others):
    spans = [(name, label), *others]
    words = set().union(*(name_words(n) for n, _ in spans))
    for key in _keys_reusing(label, name, words):
        reps = _pseudonyms(tmp_path, key, text, spans)
        assert not re.fullmatch(r"\[\w+ \d+\]", reps[name]), (key, reps)  # drawn again, not masked
        for original, rep in reps.items():
            assert not shares_word(rep, words), (key, original, rep)


def test_no_pseudonym_of_many_keys_shows_a_word_of_a_masked_name(tmp_path):
    text = "James Smith and N'Golo Kanté of Smith & Sons met D'Angelo Russell in Port James."
    spans = [
        ("James Smith", "PERSON"),
        ("N'Golo Kanté", "PERSON"),
        ("Smith & Sons", "ORG"),
        ("D'Angelo Russell", "PERSON"),
        ("Port James", "LOC"),
    ]
    words = set().union(*(name_words(n) for n, _ in spans))
    for i in range(25):
        reps = _pseudonyms(tmp_path, f"many{i}", text, spans)
        assert all(not shares_word(rep, words) for rep in reps.values()), reps


def test_a_date_may_keep_its_month_word(tmp_path):
    # the word rule is for names: a shifted date keeps the words of its format
    reps = _pseudonyms(tmp_path, "key0", "Ada Lee, May 2009.", [("Ada Lee", "PERSON"), ("May 2009", "DATETIME")])
    assert re.fullmatch(r"[A-Z][a-z]+ \d{4}", reps["May 2009"])
    assert not shares_word(reps["Ada Lee"], name_words("Ada Lee"))


# --------------------------------------------------------------------------- #
# end to end: the model finds the names, the pseudonyms show none of their words
# --------------------------------------------------------------------------- #


def test_the_reported_sentence_end_to_end(tmp_path, model_available):
    from spacy_textsan.pipeline import load_pipeline

    words = name_words("N'Golo Kanté") | name_words("D'Angelo Russell")
    nlp = load_pipeline(str(ROOT / "spacy_textsan" / "configs" / "mask_all.cfg"))
    for key in _keys_reusing("PERSON", "D'Angelo Russell", words, n=2):
        path = tmp_path / "key"
        path.write_text(key)
        nlp.replace_pipe("generalizer", "generalizer", config={"strategy": "pseudonym", "key_file": str(path)})
        out = nlp(SENTENCE)._.sanitized_text
        assert out.endswith(" met.") and " and " in out, out
        assert not shares_word(out.removesuffix(" met.").replace(" and ", " "), words), (key, out)
