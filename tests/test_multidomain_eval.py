"""The multi-domain evaluation set and its leak counter (benchmarks/multidomain*): fast, no pipeline run."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "benchmarks" / "multidomain"))

generate = pytest.importorskip("generate")
md = pytest.importorskip("multidomain_eval")


@pytest.fixture(scope="module")
def sample():
    return generate.generate(200, seed=14)


def mentions(doc):
    return doc["annotations"][generate.ANNOTATOR]["entity_mentions"]


def test_generator_is_deterministic_for_a_seed(sample):
    assert generate.generate(200, seed=14) == sample
    other = generate.generate(20, seed=15)
    assert [d["text"] for d in other] != [d["text"] for d in sample[:20]]


def test_every_gold_span_matches_its_text(sample):
    n = 0
    for doc in sample:
        for m in mentions(doc):
            assert doc["text"][m["start_offset"] : m["end_offset"]] == m["span_text"]
            assert m["category"] in generate.CATEGORIES
            assert (m["entity_type"], m["identifier_type"]) == generate.CATEGORIES[m["category"]]
            n += 1
    assert n > 2000


def test_locales_domains_and_categories_are_covered(sample):
    locales = {d["meta"]["locale"] for d in sample}
    domains = {d["meta"]["domain"] for d in sample}
    assert len(locales) >= 12 and locales == set(generate.LOCALES)
    assert len(domains) >= 5 and domains == set(generate.DOMAINS)
    cats = {m["category"] for d in sample for m in mentions(d)}
    assert cats == set(generate.CATEGORIES)


def test_national_ids_have_valid_check_digits():
    import datetime
    import importlib
    import random

    modules = {
        "en_US": "us.ssn",
        "en_GB": "gb.nhs",
        "en_IN": "in_.aadhaar",
        "fr_FR": "fr.nir",
        "de_DE": "de.idnr",
        "nl_NL": "nl.bsn",
        "pl_PL": "pl.pesel",
        "it_IT": "it.codicefiscale",
        "es_ES": "es.dni",
        "tr_TR": "tr.tckimlik",
        "no_NO": "no.fodselsnummer",
        "pt_BR": "br.cpf",
        "ja_JP": "jp.in_",
        "ar_SA": "luhn",
        "he_IL": "il.idnr",
        "hi_IN": "in_.aadhaar",
        "ko_KR": "kr.rrn",
        "ru_RU": "ru.inn",
    }
    rng = random.Random(0)
    for loc, name in modules.items():
        module = importlib.import_module(f"stdnum.{name}")
        for dob in (datetime.date(1985, 4, 3), datetime.date(2003, 11, 30)):
            _, number = generate.national_id(loc, dob, loc < "m", rng)
            assert module.is_valid(number), (loc, number)


@pytest.mark.parametrize(
    "gold,output,left",
    [
        ("peder", "PEDER was here", True),  # case folding
        ("Peder", "Ｐeder was here", False),  # full-width is not folded (NFC, not NFKC)
        ("Ｐeder", "ｐeder was here", True),  # ... but folds case within full-width
        ("Peder Halvorsen", "Pe\u00adder Hal\u200bvorsen", True),  # invisible format characters removed
        ("Ma\u2060rta", "marta", True),
        ("Jose\u0301", "JOSÉ", True),  # NFC
        ("Peder", "Pedersen", False),  # not inside a longer word
        ("41", "[PERSON 410]", False),
        ("41", "aged 41.", True),
        ("@phalv", "x@phalvorsen", False),
        ("@phalv", "x@phalv", True),  # a non-word edge needs no boundary
        ("王小明", "联系人王小明先生", True),  # no word boundaries in CJK
        ("Реder", "Peder", False),  # Cyrillic homoglyphs stay distinct
    ],
)
def test_left_in_clear(gold, output, left):
    assert md.left_in_clear(gold, output) is left


def test_count_left_hand_checked():
    text = "Mr Peder Halvorsen (peder@firm.no), 41, taxi driver. Peder lives in Oslo."
    spans = [
        ("Peder Halvorsen", "person_name"),
        ("peder@firm.no", "email"),
        ("41", "age"),
        ("taxi driver", "occupation"),
        ("Peder", "person_name"),
        ("Oslo", "city"),
    ]
    ms, pos = [], 0
    for s, cat in spans:
        start = text.index(s, pos)
        pos = start + len(s)
        ms.append(
            {
                "span_text": s,
                "start_offset": start,
                "end_offset": pos,
                "category": cat,
                "identifier_type": generate.CATEGORIES[cat][1],
            }
        )
    doc = {"text": text, "annotations": {generate.ANNOTATOR: {"entity_mentions": ms}}}
    ms.append(dict(ms[0]))  # a repeated mention of the same string counts once
    # the full-width "ｐeder" is not the gold "Peder"; "OSLO-Nord" holds "Oslo" as a word
    out = "Mr [PERSON 1] ([CODE 1]), [DEM 1], taxi driver. ｐeder lives in OSLO-Nord."
    counts = md.count_left([doc], [out])
    assert counts == {
        "person_name": {"type": "DIRECT", "tried": 2, "left": 0, "partly": 0},
        "email": {"type": "DIRECT", "tried": 1, "left": 0, "partly": 0},
        "age": {"type": "QUASI", "tried": 1, "left": 0, "partly": 0},
        "occupation": {"type": "QUASI", "tried": 1, "left": 1, "partly": 1},
        "city": {"type": "QUASI", "tried": 1, "left": 1, "partly": 1},
    }
    assert md.totals(counts, "DIRECT") == {"tried": 3, "left": 0, "partly": 0, "left_share": 0.0, "partly_share": 0.0}
    assert md.totals(counts, "QUASI") == {
        "tried": 3,
        "left": 2,
        "partly": 2,
        "left_share": 2 / 3,
        "partly_share": 2 / 3,
    }
    # the same document left as it is: every identifier is left
    assert md.totals(md.count_left([doc], [text]), "DIRECT")["left"] == 3
    # a surname and the e-mail's domain survive: the full name and the e-mail are partly left, not left
    # ("peder" of the e-mail is the first name, masked; "firm" of "firm.no" survives)
    partial = "Mr [PERSON 1] Halvorsen ([CODE 1]@firm.no), [DEM 1], [DEM 2]. [PERSON 2] lives in [LOC 1]."
    counts = md.count_left([doc], [partial])
    assert {c: (x["left"], x["partly"]) for c, x in counts.items()} == {
        "person_name": (0, 1),
        "email": (0, 1),
        "age": (0, 0),
        "occupation": (0, 0),
        "city": (0, 0),
    }


def test_pieces_skip_short_words_and_context_words():
    context = md.normalize("Mr \n lives in \n. The flat is small.")
    assert md.pieces(md.normalize("Flat 90, Mill Road 2BR"), context) == ["mill", "road", "2br"]
    assert not md.partly_left("flat 90", context, "flat [LOC 1]")
    assert md.partly_left("mill road", context, md.normalize("[ADDRESS] Road"))


def test_probe_file_parses():
    probes = md.parse_probes(md.DEFAULT_PROBES.read_text(encoding="utf-8"))
    assert len(probes) >= 80
    for text, strings in probes:
        assert strings, text
        assert any(md.left_in_clear(s, text) for s in strings), text
    assert md.probe_leaks(["KX4410983", "Peder"], "Passport [CODE 1] of peder") == ["Peder"]


def test_kept_share():
    assert md.kept_share("abcd", "abcd") == 1.0
    assert md.kept_share("abcdefgh", "abcd[X]") == 0.5


def test_generator_does_not_depend_on_the_hash_seed():
    import os
    import subprocess

    code = (
        "import hashlib, json, sys; sys.path.insert(0, sys.argv[1]); import generate; "
        "print(hashlib.sha256(json.dumps(generate.generate(40)).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code, str(ROOT / "benchmarks" / "multidomain")],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1
