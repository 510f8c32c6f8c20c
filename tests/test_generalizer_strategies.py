"""The generalizer's pseudonym and hash strategies, the leak sweep, keys, and
reversible mode (mapping, keygen, restore), on hand-written examples."""

import datetime
import re
from pathlib import Path

import pytest
import spacy
import srsly
from spacy.tokens import SpanGroup
from typer.testing import CliRunner

from spacy_textsan.cli import app, parse_strategy
from spacy_textsan.render.keys import MissingKeyError, Secret, read_key
from spacy_textsan.render.leaks import find_leaks
from spacy_textsan.render.mapping import (
    MappingError,
    decrypt_mapping,
    encrypt_mapping,
    generate_key,
    mapping_segments,
    restore_text,
    text_digest,
)
from spacy_textsan.render.render import render
from spacy_textsan.render.surrogates import document_shift, hash_token, scramble, shift_dates

FIX = Path(__file__).parent / "fixtures" / "cli"
RULES = str(FIX / "rules_only.cfg")
runner = CliRunner()


def run(*args, env=None):
    return runner.invoke(app, [str(a) for a in args], env=env)


def _doc(nlp, text, spans):
    """spans: (substring, nth occurrence, label, entity_id), all masked."""
    doc = nlp.make_doc(text)
    group = SpanGroup(doc, name="textsan")
    for needle, nth, label, entity_id in spans:
        m = list(re.finditer(rf"(?<!\w){re.escape(needle)}(?!\w)", text))[nth - 1]
        span = doc.char_span(m.start(), m.end(), label=label)
        span._.entity_id = entity_id
        span._.masked = True
        group.append(span)
    doc.spans["textsan"] = group
    return doc


TEXT = (
    "Ada Lee, born on 14 March 1961, lodged application no. 48213/09 on 20 March 2009 and paid "
    "EUR 15,000. Lee lives in Bergen."
)
SPANS = [
    ("Ada Lee", 1, "PERSON", "P1"),
    ("14 March 1961", 1, "DATETIME", "T1"),
    ("48213/09", 1, "CODE", "C1"),
    ("20 March 2009", 1, "DATETIME", "T2"),
    ("EUR 15,000", 1, "QUANTITY", "Q1"),
    ("Lee", 2, "PERSON", "P1"),
    ("Bergen", 1, "LOC", "L1"),
]


# --------------------------------------------------------------------------- #
# surrogates: pure functions
# --------------------------------------------------------------------------- #


def test_shift_dates_reads_turkish_months_as_the_patterns_match_them():
    # "Mayis", "Kasim", "Aralik" match the date patterns as "Mayıs", "Kasım", "Aralık" do (a KeyError before)
    assert shift_dates("on 3 Mayis 1985 he", 31, 0) == "on 3 Haziran 1985 he"
    assert shift_dates("on 3 Mayıs 1985 he", 31, 0) == "on 3 Haziran 1985 he"
    assert shift_dates("on 3 Kasim 1985", 31, 0) == "on 4 Aralık 1985"
    assert shift_dates("on 30 Aralik 1985", 31, 0) == "on 30 Ocak 1986"
    # in capitals, "İ" lowers to "i" + a combining dot: "NİSAN" is a match of "Nisan" (a KeyError before)
    assert shift_dates("on 3 NİSAN 1985", 31, 0) == "on 4 MAYIS 1985"
    assert shift_dates("on 3 EKİM 1985", 31, 0) == "on 3 KASIM 1985"


def test_shift_dates_keeps_the_format_and_moves_every_date_once():
    assert shift_dates("14 March 2009", 500, 1) == "27 July 2010"
    assert shift_dates("March 14, 2009", -500, -1) == "October 31, 2007"
    assert shift_dates("14.03.2009", 500, 1) == "27.07.2010"
    assert shift_dates("04/03/2009", 30, 0) == "03/04/2009"
    assert shift_dates("2009-03-14", 500, 1) == "2010-07-27"
    assert shift_dates("1 Feb. 2009 to 3 Feb. 2009", 30, 0) == "3 Mar. 2009 to 5 Mar. 2009"
    assert shift_dates("MARCH 2009", 500, 1) == "JULY 2010"  # month and year: the 15th moves
    assert shift_dates("in 1994", 800, 2) == "in 1996"  # a lone year moves by whole years
    assert shift_dates("the following day", 500, 1) is None
    # a day past the month's end is the month's last day: the date moves whole (its year is never kept)
    assert shift_dates("31 February 2009", 5, 0) == "5 March 2009"


@pytest.mark.parametrize(
    "text,days,years,expected",
    [
        ("3rd of March, 1979", 500, 1, "15th of July, 1980"),  # ordinal day, "of", a comma
        ("1987-02-29", 500, 1, "1988-07-12"),  # no 29 February in 1987: the 28th moves
        ("29.02.1987", 5, 0, "05.03.1987"),
        ("03-Apr-1985", 500, 1, "16-Aug-1986"),
        ("3-April-85", 500, 1, "16-August-86"),  # a two-digit year stays two digits
        ("Apr-03-1985", 500, 1, "Aug-16-1986"),
        ("03/Apr/1985", 500, 1, "16/Aug/1986"),
        ("03/APR/1985", -30, -1, "04/MAR/1985"),
        ("3.IV.1985", 500, 1, "16.VIII.1986"),  # a Roman month
        ("April 3rd, 1985", 500, 1, "August 16th, 1986"),
        ("3 de abril de 1985", 100, 0, "12 de julio de 1985"),  # the words between the parts stay
        ("04/23/2009", 10, 0, "05/03/2009"),  # month first: it stays first
        ("3 and 4 May 1985", 500, 1, "15 and 16 September 1986"),  # the first day of a range moves too
        ("3rd-5th June 2001", 10, 0, "13th-15th June 2001"),
        ("Monday, 3 March 1980", 10, 0, "Thursday, 13 March 1980"),  # the weekday of the new date
        ("14:30 on 3 May 1985", 10, 0, "14:30 on 13 May 1985"),  # a time of day is no part of the date
        ("3 March", 30, 0, "2 April"),  # no year
        ("the 1980s", 800, 2, "the 1990s"),  # a decade moves by one at least
        ("Q3 1985", 500, 1, "1986"),  # not understood: its year, moved, alone
    ],
)
def test_shift_dates_moves_every_part_of_a_date(text, days, years, expected):
    assert shift_dates(text, days, years) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Date of birth: 3rd of March, 1979",
        "Date of birth: 1987-02-29",
        "DOB 03-Apr-1985",
        "on 3.IV.1985 he left",
        "date Apr-03-1985 noted",
    ],
)
def test_shift_dates_keeps_no_part_of_the_original_date(text):
    for seed in range(20):
        days, years = document_shift(seed)
        out = shift_dates(text, days, years)
        assert out is not None
        year = re.search(r"19\d\d", text).group()
        assert year not in out and re.search(r"\d.*\d", text).group() not in out


def test_document_shift_is_large_enough_to_hide_the_date():
    shifts = [document_shift(seed) for seed in range(200)]
    assert all(400 <= abs(days) <= 3650 and years != 0 and (days > 0) == (years > 0) for days, years in shifts)
    assert {days > 0 for days, _ in shifts} == {True, False}
    assert document_shift(7) == document_shift(7)


def test_scramble_keeps_the_shape():
    out = scramble("48213/09", 1)
    assert re.fullmatch(r"[1-9]\d{4}/\d\d", out) and out != "48213/09"
    assert re.fullmatch(r"EUR [1-9]\d,\d{3}", scramble("EUR 15,000", 1, letters=False))
    assert re.fullmatch(r"[A-Z]{2}-[1-9]\d", scramble("AB-12", 2))
    assert scramble("--", 3) == "--"
    assert scramble("48213/09", 1) == out


def test_hash_token_is_keyed_and_ignores_case_and_spacing():
    a = hash_token(b"key-1", "PERSON", "Ada  Lee")
    assert re.fullmatch(r"[0-9a-f]{10}", a)
    assert hash_token(b"key-1", "PERSON", "ada lee") == a
    assert hash_token(b"key-2", "PERSON", "Ada Lee") != a
    assert hash_token(b"key-1", "LOC", "Ada Lee") != a
    assert len(hash_token(b"key-1", "PERSON", "Ada Lee", 16)) == 16


# --------------------------------------------------------------------------- #
# keys
# --------------------------------------------------------------------------- #


def test_keys_come_from_a_file_or_the_environment_and_never_print(tmp_path, monkeypatch):
    monkeypatch.delenv("TEXTSAN_TEST_KEY", raising=False)
    with pytest.raises(MissingKeyError, match=r"set \$TEXTSAN_TEST_KEY"):
        read_key(None, "TEXTSAN_TEST_KEY")
    assert read_key(None, "TEXTSAN_TEST_KEY", required=False) is None
    monkeypatch.setenv("TEXTSAN_TEST_KEY", "hunter2\n")
    secret = read_key(None, "TEXTSAN_TEST_KEY")
    assert secret.reveal() == b"hunter2" and "hunter2" not in repr(secret) and "hunter2" not in f"{secret}"
    key_file = tmp_path / "k"
    key_file.write_bytes(b"from-file\n")
    assert read_key(key_file, "TEXTSAN_TEST_KEY") == Secret(b"from-file")  # the file wins
    (tmp_path / "empty").write_bytes(b"\n")
    with pytest.raises(MissingKeyError, match="is empty"):
        read_key(tmp_path / "empty")
    with pytest.raises(MissingKeyError, match="cannot read the key file"):
        read_key(tmp_path / "missing")


# --------------------------------------------------------------------------- #
# pseudonym and hash strategies
# --------------------------------------------------------------------------- #


def _sanitize(config, text=TEXT, spans=SPANS):
    nlp = spacy.blank("en")
    gen = nlp.add_pipe("generalizer", config=config)
    return gen(_doc(nlp, text, spans))


def test_pseudonym_strategy(tmp_path):
    key = tmp_path / "key"
    key.write_text("s3cret")
    doc = _sanitize({"strategy": "pseudonym", "key_file": str(key)})
    reps = {s.text: s._.replacement for s in doc.spans["textsan"]}
    # one surrogate per entity, a plausible one, never the original
    assert reps["Ada Lee"] == reps["Lee"] and re.fullmatch(r"[A-Z][a-z]+ [A-Z][a-z]+", reps["Ada Lee"])
    assert not {"ada", "lee"} & set(reps["Ada Lee"].lower().split())
    assert re.fullmatch(r"[1-9]\d{4}/\d\d", reps["48213/09"]) and reps["48213/09"] != "48213/09"
    assert re.fullmatch(r"EUR [1-9]\d,\d{3}", reps["EUR 15,000"])
    assert reps["Bergen"] not in ("Bergen", "[LOC 1]")
    # both dates moved by the same number of days: the interval is kept
    born = datetime.datetime.strptime(reps["14 March 1961"], "%d %B %Y").date()
    lodged = datetime.datetime.strptime(reps["20 March 2009"], "%d %B %Y").date()
    assert (lodged - born).days == (datetime.date(2009, 3, 20) - datetime.date(1961, 3, 14)).days
    assert 400 <= abs((born - datetime.date(1961, 3, 14)).days) <= 3650
    # the same key and input give the same text; another key other surrogates
    assert _sanitize({"strategy": "pseudonym", "key_file": str(key)})._.sanitized_text == doc._.sanitized_text
    key.write_text("other")
    other = _sanitize({"strategy": "pseudonym", "key_file": str(key)})
    assert other.spans["textsan"][0]._.replacement != reps["Ada Lee"]


def test_pseudonym_with_a_key_is_stable_across_documents_without_one_only_within(tmp_path):
    key = tmp_path / "key"
    key.write_text("s3cret")
    other = ("Ada Lee wrote to Bergen.", [("Ada Lee", 1, "PERSON", "P9"), ("Bergen", 1, "LOC", "L9")])
    with_key = {"strategy": "pseudonym", "key_file": str(key), "key_env": None}
    a, b = _sanitize(with_key), _sanitize(with_key, *other)
    assert a.spans["textsan"][0]._.replacement == b.spans["textsan"][0]._.replacement
    no_key = {"strategy": "pseudonym", "key_env": None}
    c, d = _sanitize(no_key), _sanitize(no_key, *other)
    assert c.spans["textsan"][0]._.replacement != d.spans["textsan"][0]._.replacement
    assert _sanitize(no_key)._.sanitized_text == c._.sanitized_text


def test_pseudonym_never_uses_a_masked_string_and_falls_back():
    # a quantity keeps its known unit only ("Turkish" could identify)...
    text = "He, a Turkish national, claimed 12,500 Turkish liras."
    doc = _sanitize(
        {"strategy": "pseudonym", "key_env": None},
        text,
        [("Turkish", 1, "DEM", "D1"), ("12,500 Turkish liras", 1, "QUANTITY", "Q1")],
    )
    assert re.fullmatch(r"He, a \*\*\* national, claimed [1-9]\d,\d{3} liras\.", doc._.sanitized_text)
    # ...and when every surrogate would hold a masked string ("Liras" is a masked name here), the
    # quantity is generalized, and as "[X liras]" names it too, it ends at ***
    text = "Mr Liras claimed 12,500 liras."
    doc = _sanitize(
        {"strategy": "pseudonym", "key_env": None, "strategy_by_label": {"PERSON": "mask"}},
        text,
        [("Liras", 1, "PERSON", "P1"), ("12,500 liras", 1, "QUANTITY", "Q1")],
    )
    assert doc._.sanitized_text == "Mr [PERSON 1] claimed ***."
    # a word the leak sweep masks takes its entity's surrogate, computed from the entity's own
    # mentions (found by fuzzing: the date was shifted from "196112.03.1994" and kept "1961")
    text = "Ref. TR-06-196112.03.1994, born in 1961."
    doc = _sanitize({"strategy": "pseudonym", "key_env": None}, text, [("1961", 1, "DATETIME", "T1")])
    m = re.fullmatch(r"Ref\. TR-06-(\d{4}), born in (\d{4})\.", doc._.sanitized_text)
    assert m and m[1] == m[2] and 1 <= abs(int(m[1]) - 1961) <= 10


def test_hash_strategy_needs_a_key_and_is_stable_across_documents(tmp_path, monkeypatch):
    monkeypatch.delenv("TEXTSAN_KEY", raising=False)
    with pytest.raises(ValueError, match=r"hash strategy needs a key: no surrogate key: set \$TEXTSAN_KEY"):
        _sanitize({"strategy": "hash"})
    monkeypatch.setenv("TEXTSAN_KEY", "k1")
    doc = _sanitize({"strategy": "hash", "strategy_by_label": {"DATETIME": "generalize", "CODE": "mask"}})
    person = f"[PERSON {hash_token(b'k1', 'PERSON', 'Ada Lee')}]"
    assert doc._.sanitized_text == (
        f"{person}, born on [1961], lodged application no. [CODE 1] on [2009] and paid "
        f"[QUANTITY {hash_token(b'k1', 'QUANTITY', 'EUR 15,000')}]. {person} lives in "
        f"[LOC {hash_token(b'k1', 'LOC', 'Bergen')}]."
    )
    other = _sanitize({"strategy": "hash"}, "Mr ADA LEE left.", [("ADA LEE", 1, "PERSON", "P7")])
    assert other._.sanitized_text == f"Mr {person} left."


# --------------------------------------------------------------------------- #
# leak sweep
# --------------------------------------------------------------------------- #


def test_find_leaks():
    text = "Yalman met YALMAN, the Yalmanlar and Lee of Leeds; Lee\nPark. 12 and 12."
    masked = [(0, 6), (37, 40), (64, 66)]  # "Yalman", "Lee", "12"
    assert find_leaks(text, masked) == [(11, 17, 0), (23, 29, 0), (51, 54, 1)]
    # with min_chars=10 "Yalman" is short: whole words only, so "Yalmanlar" is no leak
    assert find_leaks(text, masked, min_chars=10) == [(11, 17, 0), (51, 54, 1)]
    assert find_leaks(text, []) == []


def test_find_leaks_folds_case_and_whitespace_with_exact_offsets():
    # whitespace runs (newline, tab, no-break space) repeat a one-space string; offsets are the text's own
    text = "Ada Lee met ADA\n\tLEE and ada\u00a0lee; Σοφία, ΣΟΦΊΑ; İstanbul"
    masked = [(0, 7), (34, 39), (48, 56)]  # "Ada Lee", "Σοφία", "İstanbul" (İ lower-cases to two characters)
    assert find_leaks(text, masked) == [(12, 20, 0), (25, 32, 0), (41, 46, 1)]
    # a string at the start and end of the text, and one repeating itself without overlap
    assert find_leaks("abab abab", [(0, 2)], min_chars=2) == [(2, 4, 0), (5, 7, 0), (7, 9, 0)]
    assert find_leaks("ab ab", [(0, 2)], min_chars=3) == [(3, 5, 0)]
    assert find_leaks("ab abab", [(0, 2)], min_chars=3) == []  # whole words only
    # a masked neighbour is no word character: "नि" stands alone once "TR-06" is masked
    assert find_leaks("निTR-06-1961नि", [(2, 7), (12, 14)], min_chars=4) == [(0, 2, 1)]


def test_find_leaks_finds_what_one_regular_expression_per_string_finds():
    """The folded search against the regular expressions it replaced, on random texts."""
    import random

    def by_regex(text, masked, min_chars=4):
        ranges = sorted(masked)
        found = []
        seen = set()
        for i, (start, end) in enumerate(masked):
            string = " ".join(text[start:end].split())
            if len(string) < 2 or string.casefold() in seen:
                continue
            whole = len(string) < min_chars
            if whole and not any(c.isalpha() for c in string):
                continue
            seen.add(string.casefold())
            body = r"\s+".join(re.escape(w) for w in string.split(" "))
            for m in re.finditer(rf"(?<!\w){body}(?!\w)" if whole else body, text, re.IGNORECASE):
                if not any(s <= m.start() and m.end() <= e for s, e in ranges):
                    found.append((m.start(), m.end(), i))
        found.sort(key=lambda f: (f[0], -f[1]))
        out = []
        for f in found:
            if not (out and f[1] <= out[-1][1]):
                out.append(f)
        return out

    rng = random.Random(18)
    alphabet = "abAB \n\t_1é"
    extra = 0
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
        masked = []
        for _ in range(rng.randint(1, 3)):
            s = rng.randrange(len(text))
            masked.append((s, rng.randint(s + 1, min(len(text), s + 6))))
        # inside words: the same occurrences
        assert find_leaks(text, masked, min_chars=1) == by_regex(text, masked, min_chars=1), (text, masked)
        # whole words: the same, plus those whose neighbour is masked (it will not be there)
        got, want = find_leaks(text, masked, min_chars=10), by_regex(text, masked, min_chars=10)
        assert set(want) <= set(got), (text, masked)
        for start, end, _ in set(got) - set(want):
            assert any(s <= k < e for s, e in masked for k in (start - 1, end)), (text, masked, start, end)
            extra += 1
    assert extra > 0


def test_leak_sweep_masks_other_occurrences_with_the_entity_replacement():
    text = "Mr Yalman met YALMAN's cousin, the Yalmanlar family, and Lee of Leeds."
    doc = _sanitize({}, text, [("Yalman", 1, "PERSON", "P1"), ("Lee", 1, "PERSON", "P2")])
    assert (
        doc._.sanitized_text == "Mr [PERSON 1] met [PERSON 1]'s cousin, the [PERSON 1] family, and [PERSON 2] of Leeds."
    )
    swept = [s for s in doc.spans["textsan"] if s._.source == "leak_sweep"]
    assert [(s.text, s.label_, s._.entity_id, s._.reasons) for s in swept] == [
        ("YALMAN", "PERSON", "P1", ["leak sweep: repeats a masked string"]),
        ("Yalmanlar", "PERSON", "P1", ["leak sweep: repeats a masked string"]),
    ]
    off = _sanitize({"leak_sweep": False}, text, [("Yalman", 1, "PERSON", "P1")])
    assert "YALMAN" in off._.sanitized_text


def test_leak_sweep_finds_a_common_lower_case_word_only_as_itself():
    # "widow" is a common English word written in lower case: "Widow" repeats it, "widows" and "widowers"
    # (a group a rule is about) do not; a rare name ("Yalman") is still found inside "Yalmanlar"
    text = "The widow of Mr Yalman claimed a Widow's Payment; widows and widowers of the Yalmanlar family did not."
    doc = _sanitize({}, text, [("widow", 1, "DEM", "D1"), ("Yalman", 1, "PERSON", "P1")])
    assert doc._.sanitized_text == (
        "The [DEM 1] of Mr [PERSON 1] claimed a [DEM 1]'s Payment; widows and widowers of the [PERSON 1] family "
        "did not."
    )
    assert find_leaks(text, [(4, 9)], whole_word=lambda s: s == "widow") == [(33, 38, 0)]
    assert find_leaks(text, [(4, 9)]) == [(33, 38, 0), (50, 55, 0), (61, 66, 0)]


def test_leak_sweep_masks_a_kept_candidate_that_repeats_a_masked_string():
    nlp = spacy.blank("en")
    gen = nlp.add_pipe("generalizer")
    doc = _doc(nlp, "Ankara said Ankara.", [("Ankara", 1, "LOC", "L1"), ("Ankara", 2, "ORG", "O1")])
    doc.spans["textsan"][1]._.masked = False
    doc = gen(doc)
    assert doc._.sanitized_text == "[LOC 1] said [ORG 1]."
    assert doc.spans["textsan"][1]._.reasons == ["leak sweep: repeats a masked string"]


# --------------------------------------------------------------------------- #
# reversible mapping
# --------------------------------------------------------------------------- #


def test_mapping_segments_and_restore():
    text = "Mr Yalman lives in Ankara."
    sanitized, omap = render(text, [(3, 9, "[PERSON 1]"), (19, 25, "[LOC 1]")])
    segments = mapping_segments(text, sanitized, omap)
    assert segments == [[3, 13, "Yalman"], [23, 30, "Ankara"]]
    assert restore_text(sanitized, segments, text_digest(sanitized)) == text
    assert mapping_segments(text, "[REDACTED]", None) == [[0, 10, text]]
    with pytest.raises(MappingError, match="changed after the run"):
        restore_text(sanitized + " ", segments, text_digest(sanitized))
    with pytest.raises(MappingError, match="does not fit"):
        restore_text("short", segments)


def test_mapping_encryption():
    key = Secret(generate_key())
    token = encrypt_mapping({"files": [{"x": "Yalman"}]}, key)
    assert b"Yalman" not in token
    assert decrypt_mapping(token, key) == {"version": 1, "files": [{"x": "Yalman"}]}
    with pytest.raises(MappingError, match="wrong key"):
        decrypt_mapping(token, Secret(generate_key()))
    with pytest.raises(MappingError, match="not a Fernet key"):
        decrypt_mapping(token, Secret(b"hunter2"))


def test_cli_reversible_round_trip_and_refusals(tmp_path):
    key = tmp_path / "mapping.key"
    res = run("keygen", "--out", key)
    assert res.exit_code == 0, res.output
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    assert run("keygen", "--out", key).exit_code == 1  # never overwrites a key
    src = tmp_path / "in"
    src.mkdir()
    csv_text = 'id,note,other\n1,"Mr Ada Lee, case 48213/09,\nseen 2 May 2001.",keep me\n2,Lee called.,x\n'
    (src / "notes.csv").write_text(csv_text)
    (src / "notes.jsonl").write_text('{"id": 1, "text": "Dr Bo Chan, 48213/10."}\n{"id": 2, "text": "none"}\n')
    out = tmp_path / "out"
    secret = key.read_text().strip()
    res = run(
        "sanitize",
        src / "notes.csv",
        src / "notes.jsonl",
        "--out",
        out,
        "--pipeline",
        RULES,
        "--column",
        "note",
        "--reversible",
        "--mapping-key-file",
        key,
    )
    assert res.exit_code == 0, res.output
    assert (out / "notes.csv").read_text() == (
        'id,note,other\n1,"[PERSON 1], case [CODE 1],\nseen [DATETIME 1].",keep me\n2,Lee called.,x\n'
    )
    # (each row is a document of its own: "Lee" alone is no name to the rules-only pipeline)
    # no run output holds the key; the mapping holds no original in clear
    for path in out.iterdir():
        assert secret not in path.read_text(errors="replace"), path
    assert "Ada" not in (out / "mapping.enc").read_text()
    assert secret not in res.output
    # without the key, with a wrong one, or after an edit: refused with a clear error
    res = run("restore", out, "--out", tmp_path / "r", env={"TEXTSAN_MAPPING_KEY": ""})
    assert res.exit_code == 1 and "no mapping key: set $TEXTSAN_MAPPING_KEY" in " ".join(res.output.split())
    wrong = tmp_path / "wrong.key"
    run("keygen", "--out", wrong)
    res = run("restore", out, "--out", tmp_path / "r", "--key-file", wrong)
    assert res.exit_code == 1 and "cannot decrypt the mapping: wrong key" in " ".join(res.output.split())
    assert not (tmp_path / "r").exists()
    res = run("restore", out, "--out", tmp_path / "r", env={"TEXTSAN_MAPPING_KEY": secret})
    assert res.exit_code == 0, res.output
    assert (tmp_path / "r" / "notes.csv").read_text() == csv_text
    assert [r["text"] for r in srsly.read_jsonl(tmp_path / "r" / "notes.jsonl")] == ["Dr Bo Chan, 48213/10.", "none"]
    edited = (out / "notes.jsonl").read_text().replace("[CODE 1]", "[CODE 9]")
    (out / "notes.jsonl").write_text(edited)
    res = run("restore", out, "--out", tmp_path / "r2", "--key-file", key)
    assert res.exit_code == 1
    assert "notes.jsonl:1: the sanitized text was changed after the run" in " ".join(res.output.split())
    assert not (tmp_path / "r2").exists()  # all or nothing: notes.csv was fine, but not written


def test_cli_reversible_needs_a_key_before_any_work(tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("Mr Ada Lee.")
    res = run(
        "sanitize", src, "--out", tmp_path / "o", "--pipeline", RULES, "--reversible", env={"TEXTSAN_MAPPING_KEY": ""}
    )
    assert res.exit_code == 1 and "no mapping key" in res.output
    assert not (tmp_path / "o").exists()


def test_cli_strategy_option(tmp_path):
    assert parse_strategy("generalize") == {"components.generalizer.strategy": "generalize"}
    assert parse_strategy("pseudonym, DATETIME=generalize,CODE=mask") == {
        "components.generalizer.strategy": "pseudonym",
        "components.generalizer.strategy_by_label": {"DATETIME": "generalize", "CODE": "mask"},
    }
    src = tmp_path / "a.txt"
    src.write_text("Mr Ada Lee, case 48213/09 of 2 May 2001.")
    res = run("sanitize", src, "--out", tmp_path / "o", "--pipeline", RULES, "--strategy", "generalize,CODE=mask")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o" / "a.txt").read_text() == "[PERSON 1], case [CODE 1] of [2001]."
    res = run("sanitize", src, "--out", tmp_path / "o", "--pipeline", RULES, "--strategy", "shuffle")
    assert res.exit_code == 1 and "'shuffle' is not one of" in " ".join(res.output.split())
    res = run(
        "sanitize", src, "--out", tmp_path / "o2", "--pipeline", RULES, "--strategy", "hash", env={"TEXTSAN_KEY": ""}
    )
    assert res.exit_code == 1 and "the hash strategy needs a key" in " ".join(res.output.split())


def test_quantity_surrogate_keeps_the_known_unit_only():
    from spacy_textsan.render.surrogates import quantity_surrogate

    assert re.fullmatch(r"EUR [1-9]\d,\d{3}", quantity_surrogate("EUR 15,000", 1))
    assert re.fullmatch(r"[1-9]\d,\d{3} liras", quantity_surrogate("12,500 Turkish liras", 1))
    assert re.fullmatch(r"[1-9] per cent", quantity_surrogate("5 per cent", 1))
    assert re.fullmatch(r"[1-9],\d{3}", quantity_surrogate("1,000 sheep", 1))
    assert quantity_surrogate("three days", 1) is None


def test_visualize_shows_the_original_and_the_sanitized_text_as_written(tmp_path):
    src = tmp_path / "a.txt"
    src.write_bytes(b"Dear Mr Ada Lee,\r\n\r\nyour case ( no. 48213/09 ) <b>.")
    res = run("visualize", src, "--out", tmp_path / "v.html", "--pipeline", RULES)
    assert res.exit_code == 0, res.output
    page = (tmp_path / "v.html").read_text(encoding="utf-8")
    # no re-joined tokens, the paragraph break kept (a CR as &#13;: an HTML parser reads a raw one as LF),
    # the label in an attribute that the stylesheet draws after the span
    assert (
        '<div class="doc original">Dear <mark class="span" id="d1-m0" data-i="0" data-label="PERSON" '
        'data-decision="masked" title="PERSON masked → [PERSON 1] — policy:mask_all">Mr Ada Lee</mark>,&#13;\n&#13;\n'
        'your case ( no. <mark class="span" id="d1-m1" data-i="1" data-label="CODE" data-decision="masked" '
        'title="CODE masked → [CODE 1] — policy:mask_all">48213/09</mark> ) &lt;b&gt;.</div>'
    ) in page
    assert (
        '<div class="doc sanitized">Dear <ins class="repl">[PERSON 1]</ins>,&#13;\n&#13;\n'
        'your case ( no. <ins class="repl">[CODE 1]</ins> ) &lt;b&gt;.</div>'
    ) in page


def test_pseudonym_of_a_country_is_a_country():
    from faker.providers.address.en_US import Provider

    nlp = spacy.blank("en")
    gen = nlp.add_pipe("generalizer", config={"strategy": "pseudonym", "key_env": None})
    doc = _doc(nlp, "He left Norway for Bergen.", [("Norway", 1, "LOC", "L1"), ("Bergen", 1, "LOC", "L2")])
    doc.spans["textsan"][0]._.kb_chain = ["country in Europe", "country"]
    doc = gen(doc)
    country, city = [s._.replacement for s in doc.spans["textsan"]]
    assert country in Provider.countries and country != "Norway"
    assert city not in Provider.countries and city != "Bergen"


@pytest.mark.parametrize(
    "text,date",
    [
        ("Date of birth: 3rd of March, 1979.", "3rd of March, 1979"),
        ("Date of birth: 1987-02-29.", "1987-02-29"),
        ("DOB 03-Apr-1985.", "03-Apr-1985"),
        ("Admitted on 3.IV.1985.", "3.IV.1985"),
        ("Seen in Q3 1985.", "Q3 1985"),
    ],
)
def test_pseudonym_never_writes_the_original_year_of_a_date(tmp_path, text, date):
    key = tmp_path / "key"
    year = re.search(r"19\d\d", date).group()
    for secret in ("a", "b", "c", "d", "e"):
        key.write_text(secret)
        doc = _sanitize({"strategy": "pseudonym", "key_file": str(key)}, text, [(date, 1, "DATETIME", "T1")])
        out = doc._.sanitized_text
        assert year not in out and "[" not in out and "*" not in out, out


def test_pseudonym_masks_a_date_whose_every_shift_is_refused(tmp_path):
    # every year a shift can reach is a masked code of the document: no shifted date is safe, and the
    # date is masked, not generalized to its real year
    years = [str(y) for y in range(1965, 1996)]
    text = "Born 3 May 1979. Codes " + " ".join(years) + "."
    spans = [("3 May 1979", 1, "DATETIME", "T1")] + [(y, 2 if y == "1979" else 1, "CODE", f"C{y}") for y in years]
    key = tmp_path / "key"
    for secret in ("a", "b", "c"):
        key.write_text(secret)
        doc = _sanitize({"strategy": "pseudonym", "key_file": str(key)}, text, spans)
        assert doc._.sanitized_text.startswith("Born [DATETIME 1]. Codes "), doc._.sanitized_text
