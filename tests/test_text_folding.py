"""spacy_textsan.text_folding: the steps the normalizers share, and what each
normalizer makes of them."""

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_textsan.detect.gazetteer.kb import normalize_surface
from spacy_textsan.detect.privacy_ner.entity_ids import normalize as entity_key_words
from spacy_textsan.detect.privacy_ner.normalize import normalize as detection_copy
from spacy_textsan.entities import clean_term
from spacy_textsan.http.cache import normalize_query
from spacy_textsan.render.surrogates import canonical_text
from spacy_textsan.risk.kanon_index import normalize_term
from spacy_textsan.text_folding import (
    collapse_whitespace,
    fold,
    is_mark,
    is_punctuation,
    nfkc,
    strip_marks,
    strip_punctuation,
    translation,
)

APOSTROPHES = translation({"’": "'", "‘": "'"})


def test_the_steps():
    assert nfkc("Ｐｅｄｅｒ ﬁle e\u0301") == "Peder file é"
    assert collapse_whitespace("  Galip \t\n YALMAN\u00a0 ") == "Galip YALMAN"
    assert fold("  Ｍｒ.\u00a0YALMAN ") == "mr. yalman"
    assert fold("Straße  O’Neil", APOSTROPHES) == "strasse o'neil"
    assert fold("Ｐｅｄｅｒ  X", compat=False) == "ｐｅｄｅｒ x"  # no NFKC
    assert fold("\u01f0") == "j\u030c" and fold("\u01f0", renormalize=True) == "\u01f0"  # case folding decomposes
    assert is_mark("\u0301") and not is_mark("e") and is_punctuation("«") and not is_punctuation("$")
    assert strip_punctuation(" (1961). ") == "1961" and strip_punctuation("«»") == ""
    assert strip_marks("Prénom Zürich") == "Prenom Zurich" and strip_marks("ﬁ", "NFD") == "ﬁ"


def test_each_normalizer_keeps_its_own_steps():
    # the k-anonymity key: apostrophes, punctuation, a leading title or article
    assert normalize_term("  Mr.  Galip   YALMAN’s ") == "galip yalman's"
    assert normalize_term("the Ankara Bar.") == "ankara bar"
    # the KB surface key: apostrophes and dashes, no punctuation stripped
    assert normalize_surface(" Côte  d’Ivoire – Nord ") == "côte d'ivoire - nord"
    # the cache key of a query: NFKC, case, whitespace only
    assert normalize_query("  Galip\u00a0YALMAN’s ") == "galip yalman’s"
    # a mention as a search term: no case folding, double quotes dropped
    assert clean_term(' "Galip"  YALMAN ') == "Galip YALMAN"
    assert canonical_text("  Ｇalip  YALMAN ") == "ｇalip yalman"
    # the detection copy keeps offsets; the entity key words are read on it
    assert detection_copy("Pe\u00adder  Ｈalvorsen").text == "Peder  Halvorsen"
    assert entity_key_words("Dr. Pe\u00adder HALVORSEN's") == ("peder", "halvorsen")


def test_whitespace_is_one_thing_everywhere():
    """``str.split()``, ``str.isspace`` and ``re``'s ``\\s`` agree, and case
    folding never makes or unmakes whitespace: the order of the steps is free."""
    space = re.compile(r"\s")
    for code in range(0x3100):
        char = chr(code)
        assert bool(space.fullmatch(char)) == char.isspace() == (f"a{char}b".split() == ["a", "b"])
        assert char.isspace() == any(c.isspace() for c in char.casefold())


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_fold_is_what_the_cache_key_was(text):
    assert fold(text) == " ".join(unicodedata.normalize("NFKC", text).split()).casefold()
    assert fold(text, compat=False) == " ".join(text.split()).casefold()
