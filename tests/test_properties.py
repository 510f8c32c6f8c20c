"""Property-based leak checks (hypothesis) over generated documents mixing
names, codes, dates, amounts, Unicode (combining marks, right-to-left
scripts, zero-width characters, emoji), very long lines and tiny inputs.

For every generated document and every strategy:

1. no masked character range is carried into the sanitized text: every kept
   stretch of the offset map lies outside the masked ranges, and no masked
   string occurs again in the sanitized text (the leak sweep's rule: 4+
   characters anywhere, case-insensitively, shorter ones with a letter as
   whole words);
2. the offsets in the report slice the original text to the reported span text;
3. the offset map covers both texts in order and round-trips: the original is
   rebuilt exactly from the sanitized text and the replaced strings;
4. the same input and config give byte-identical output (text and report).

`make test` runs a few hundred documents; `make test-slow` runs
``TEXTSAN_FUZZ_EXAMPLES`` (default 10,000) per property test.
"""

import json
import os
import re
from pathlib import Path
from typing import cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spacy.language import Language

from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.render.mapping import mapping_segments, restore_text
from spacy_textsan.run import sanitize_texts

RULES = str(Path(__file__).parent / "fixtures" / "cli" / "rules_only.cfg")
FAST = 150
SLOW = int(os.environ.get("TEXTSAN_FUZZ_EXAMPLES", "10000"))

NAMES = [
    "Mr Ada Lee",
    "Ms Zoë Ångström",
    "Dr José Nuñez",
    "Mr Galip Yalman",
    "Mrs O'Neil-Smith",
    "Mr Lee",
    "Mr Ba\u0301tor Erdene",
    "Ms \u05e9\u05e8\u05d4 \u05db\u05d4\u05df",
    "Mr \u0645\u062d\u0645\u062f Ali",
]
CODES = [
    "48213/09",
    "no. 12345/06",
    "application no. 7/2001",
    "AB-12-CD",
    "+90 312 555 14 27",
    "galip.yalman@example.org",
    "TR-06-1961",
    "0312 555 12 34",
]
DATES = ["14 March 2009", "2009-03-14", "12.03.1994", "March 14, 2009", "in 1961", "the 1990s"]
AMOUNTS = ["EUR 15,000", "12,500 Turkish liras", "5 per cent", "€ 3.000"]
NOISE = [
    "\u200b",
    "\u200d",
    "\u200e",
    "\u202e",
    "\ufeff",
    "e\u0301",
    "\u0928\u093f",
    "👩‍⚖️",
    "🇹🇷",
    "\t",
    "\n",
    "\r\n",
    "  ",
    "\u00a0",
    "ß",
    "İ",
    "ﬁ",
    "Ⅻ",
    "\u3000",
    "\U0001d400",
]
WORDS = [
    "the",
    "applicant",
    "lives",
    "in",
    "Ankara",
    "court",
    "was",
    "born",
    "on",
    "and",
    ",",
    ".",
    "(",
    ")",
    "Lee",
    "Leeds",
    "Yalmanlar",
    "YALMAN",
    "lee",
    "ADA",
]

fragment = st.one_of(
    st.sampled_from(NAMES),
    st.sampled_from(CODES),
    st.sampled_from(DATES),
    st.sampled_from(AMOUNTS),
    st.sampled_from(NOISE),
    st.sampled_from(WORDS),
    st.text(max_size=6),
)
documents = st.one_of(
    st.lists(fragment, max_size=40).map(" ".join),
    st.lists(fragment, max_size=40).map("".join),
    st.sampled_from(["", " ", "a", "\n", "Lee", "\u200b", "48213/09"]),
    st.tuples(st.sampled_from(WORDS + NAMES), st.integers(200, 1500)).map(lambda t: " ".join([t[0]] * t[1])),
)

_PIPELINES: dict[tuple[str, bool], Language] = {}
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]


def _nlp(strategy: str, model: bool = False):
    key = (strategy, model)
    if key not in _PIPELINES:
        overrides: dict[str, object] = {"components.generalizer.strategy": strategy}
        if strategy in ("hash", "pseudonym"):
            overrides["components.generalizer.key_env"] = None
            overrides["components.generalizer.key_file"] = str(_key_file())
        _PIPELINES[key] = load_pipeline(None if model else RULES, overrides)
    return _PIPELINES[key]


_KEY: dict[str, Path] = {}


def _key_file() -> Path:
    return _KEY["path"]


def _leaks(masked: str, sanitized: str) -> bool:
    """The leak sweep's rule (see spacy_textsan/render/leaks.py)."""
    masked = " ".join(masked.split())
    if len(masked) < 2:
        return False
    body = r"\s+".join(re.escape(w) for w in masked.split(" "))
    if len(masked) >= 4:
        return re.search(body, sanitized, re.IGNORECASE) is not None
    if any(c.isalpha() for c in masked):
        return re.search(rf"(?<!\w){body}(?!\w)", sanitized, re.IGNORECASE) is not None
    return False


def check_document(text: str, nlp) -> None:
    res = next(sanitize_texts(nlp, [text]))
    again = next(sanitize_texts(nlp, [text]))
    # 4. determinism
    assert res.sanitized == again.sanitized
    assert json.dumps(res.spans, sort_keys=True) == json.dumps(again.spans, sort_keys=True)
    assert res.ok, res.errors
    # 2. report offsets slice the original
    for span in res.spans:
        assert text[span["start"] : span["end"]] == span["text"]
    masked = [(s["start"], s["end"]) for s in res.spans if s["masked"] is not False]
    assert sorted([list(m) for m in masked]) == res.masked
    # 3. the offset map covers both texts in order and round-trips
    omap = cast(list[list[int]], res.offset_map)
    assert omap[0][0] == 0 and omap[0][2] == 0
    assert omap[-1][1] == len(res.sanitized) and omap[-1][3] == len(text)
    for a, b in zip(omap, omap[1:], strict=False):
        assert a[1] == b[0] and a[3] == b[2]
    assert restore_text(res.sanitized, mapping_segments(text, res.sanitized, omap)) == text
    # 1. nothing masked is kept: kept stretches avoid masked ranges, masked strings do not come back
    for s_start, s_end, o_start, o_end in omap:
        if res.sanitized[s_start:s_end] == text[o_start:o_end]:
            assert not any(o_start < end and start < o_end for start, end in masked if end > start), (
                text[o_start:o_end],
                masked,
            )
    for start, end in masked:
        assert not _leaks(text[start:end], res.sanitized), (text[start:end], res.sanitized)


@pytest.fixture(scope="module", autouse=True)
def fuzz_key(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "key"
    path.write_text("fuzz-key")
    _KEY["path"] = path
    _PIPELINES.clear()


@pytest.mark.parametrize("strategy", ["mask", "generalize", "pseudonym", "hash"])
@settings(max_examples=FAST, deadline=None, suppress_health_check=HEALTH)
@given(text=documents)
def test_properties_rules_pipeline(strategy, text):
    check_document(text, _nlp(strategy))


@settings(max_examples=FAST // 3, deadline=None, suppress_health_check=HEALTH)
@given(text=documents)
def test_properties_default_pipeline(model_available, text):
    check_document(text, _nlp("generalize", model=True))


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["mask", "pseudonym"])
@settings(max_examples=SLOW, deadline=None, suppress_health_check=HEALTH)
@given(text=documents)
def test_properties_many_documents(strategy, text):
    check_document(text, _nlp(strategy))


@pytest.mark.slow
@settings(max_examples=SLOW // 4, deadline=None, suppress_health_check=HEALTH)
@given(text=documents)
def test_properties_many_documents_default_pipeline(model_available, text):
    check_document(text, _nlp("mask", model=True))
