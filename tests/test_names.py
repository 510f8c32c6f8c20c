"""privacy_ner.names: person-name candidates as pure functions over strings."""

import gzip
import time

import pytest

from spacy_textsan.detect.privacy_ner.adjacent_names import extend_person_names
from spacy_textsan.detect.privacy_ner.combine import PRIORITY_CODE, Candidate
from spacy_textsan.detect.privacy_ner.name_mentions import find_name_mentions, name_variants
from spacy_textsan.detect.privacy_ner.names import (
    COMMON,
    FIRST,
    LEXICON_PATH,
    find_lexicon_names,
    is_common_word,
    is_first_name,
    name_lexicon,
)
from spacy_textsan.detect.privacy_ner.normalize import normalize
from spacy_textsan.detect.privacy_ner.places import find_cued_places
from spacy_textsan.detect.privacy_ner.script_names import find_script_names


def spans(text, cands):
    return [(text[s:e], label, rule) for s, e, label, rule in cands]


def names(text):
    return [t for t, _, _ in spans(text, find_lexicon_names(text))]


# --- foreign scripts -------------------------------------------------------

PADDING = "The applicant lodged a complaint with the public prosecutor in the city. " * 3


@pytest.mark.parametrize(
    "name",
    [
        "محمد العلي",
        "王小明",
        "山田 太郎",
        "김민준",
        "דוד כהן",
        "राहुल शर्मा",
        "Иван Петров",
        "Γιώργος Παπαδόπουλος",
        "გიორგი ბერიძე",
        "Արամ Պետրոսյան",
        "สมชาย ใจดี",
        "ジョン・スミス",
    ],
)
def test_script_name_is_person(name):
    text = f"{PADDING}He met {name} in Paris."
    start = text.index(name)
    assert find_script_names(text) == [(start, start + len(name), "PERSON", "foreign_script_name")]


def test_script_names_exact_offsets():
    text = "He met محمد العلي and 王小明 (and 김민준) in Paris; Иван Петров, too."
    assert spans(text, find_script_names(text)) == [
        ("محمد العلي", "PERSON", "foreign_script_name"),
        ("王小明", "PERSON", "foreign_script_name"),
        ("김민준", "PERSON", "foreign_script_name"),
        ("Иван Петров", "PERSON", "foreign_script_name"),
    ]


def test_foreign_sentence_is_misc_text():
    quote = "Я не знаю, что вы хотите от меня сегодня вечером, друг мой"
    text = f"{PADDING}He wrote: {quote}. Then he left."
    assert spans(text, find_script_names(text)) == [(quote, "MISC", "foreign_script_text")]
    cjk = "我们今天下午去北京看朋友了"  # one long unspaced word: running text
    text = f"{PADDING}She wrote {cjk} on the card."
    assert spans(text, find_script_names(text)) == [(cjk, "MISC", "foreign_script_text")]


def test_script_names_ignore_symbols_and_latin():
    assert find_script_names("A dose of 5 μg, angle α and Ω resistance; café Zürich.") == []


def test_mostly_foreign_text_is_left_to_the_ner():
    text = "Иван Петров пришёл домой поздно вечером и лёг спать. " * 10 + "OK"
    assert find_script_names(text) == []


# --- the lexicon -----------------------------------------------------------


def test_lexicon_loads_fast_and_is_large():
    name_lexicon.cache_clear()
    start = time.perf_counter()
    lexicon = name_lexicon()
    assert time.perf_counter() - start < 1.0
    assert sum(1 for v in lexicon.values() if v & FIRST) > 20000
    with gzip.open(LEXICON_PATH, "rt", encoding="utf8") as f:
        assert all(line.count("\t") == 1 for line in f)


@pytest.mark.parametrize(
    "word",
    [
        "Will",
        "May",
        "Mark",
        "Bill",
        "Rose",
        "Hope",
        "Grace",
        "Young",
        "White",
        "Long",
        "Green",
        "The",
        "Court",
        "Facts",
    ],
)
def test_common_words_are_not_first_names(word):
    assert not is_first_name(word)
    assert is_common_word(word)


@pytest.mark.parametrize("word", ["Peder", "John", "Maria", "Mehmet", "Hasan", "Wolfgang", "PEDER", "peder"])
def test_first_names(word):
    assert is_first_name(word)
    assert not name_lexicon()[word.casefold()] & COMMON


# --- lexicon-anchored names --------------------------------------------------


@pytest.mark.parametrize(
    "text,expected",
    [
        ("SIGNED: PEDER HALVORSEN", ["PEDER HALVORSEN"]),
        ("PATIENT: MARIA GARCIA LOPEZ, born 1970", ["MARIA GARCIA LOPEZ"]),
        ("we spoke to peder halvorsen yesterday", ["peder halvorsen"]),
        ("Signed by Peder\nHalvorsen", ["Peder\nHalvorsen"]),
        ("JOHN WHITE was present", ["JOHN WHITE"]),
        ("Maria de la Cruz arrived", ["Maria de la Cruz"]),
        ("Mehmet Yılmaz'ın evi", ["Mehmet Yılmaz"]),
        ("Peder Halvorsen's lawyer", ["Peder Halvorsen"]),
        ("SIGNED: PEDER J. HALVORSEN", ["PEDER J. HALVORSEN"]),
        ("Peder J. Halvorsen and Maria K. Lopez", ["Peder J. Halvorsen", "Maria K. Lopez"]),
        ("Hasan Kowalczyk and Magdalena Wiśniewska", ["Hasan Kowalczyk", "Magdalena Wiśniewska"]),
    ],
)
def test_lexicon_names(text, expected):
    assert names(text) == expected


def test_lexicon_names_offsets_and_rules():
    text = "Witness: HALVORSEN, Peder. Then Halvorsen, Peder spoke; PEDER HALVORSEN signed."
    assert spans(text, find_lexicon_names(text)) == [
        ("HALVORSEN, Peder", "PERSON", "inverted_name"),
        ("Halvorsen, Peder", "PERSON", "inverted_name"),
        ("PEDER HALVORSEN", "PERSON", "lexicon_name"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "THE FACTS",
        "PROCEDURE",
        "DATE OF BIRTH",
        "MEDICAL HISTORY",
        "THE CIRCUMSTANCES OF THE CASE",
        "Will you come in May 2019?",
        "The White House said so.",
        "Mark Green and Bill White",
        "Hope and Grace were virtues.",
        "Young people live long.",
        "In Ankara, Mehmet was arrested.",
        "Ali Rıza Street",
        "Robert Bosch GmbH",
        "spoke to the judge yesterday",
        "Peder",
        "peder said",
        "J. R. Halvorsen",
    ],
)
def test_lexicon_negatives(text):
    assert names(text) == []


# --- later mentions ----------------------------------------------------------


def test_name_variants():
    assert name_variants("Mr Peder Halvorsen") == [
        "Peder Halvorsen",
        "P. Halvorsen",
        "P Halvorsen",
        "Halvorsen",
        "Peder",
        "P.H.",
    ]
    assert name_variants("Maria de la Cruz") == ["Maria de la Cruz", "M. Cruz", "M Cruz", "Maria", "Cruz", "M.C."]
    assert name_variants("Dr") == ["Dr"]
    assert name_variants("") == []


def test_find_name_mentions_spec_example():
    text = "Mr Peder Halvorsen was arrested. Peder denied it. HALVORSEN's lawyer..."
    assert spans(text, find_name_mentions(text, [(3, 18)])) == [
        ("Peder", "PERSON", "name_mention"),
        ("HALVORSEN", "PERSON", "name_mention"),
    ]


def test_find_name_mentions_forms():
    text = (
        "Peder Halvorsen came. Then P. Halvorsen, P.H. and peder; Halvorsens car, "
        "Halvorsen’s dog and Yalman'ın. PH is a unit."
    )
    assert [t for t, _, _ in spans(text, find_name_mentions(text, [(0, 15)]))] == [
        "P. Halvorsen",
        "P.H.",
        "peder",
        "Halvorsen",
        "Halvorsen",
    ]


def test_find_name_mentions_turkish_suffix_outside_span():
    text = "Galip Yalman complained. Yalman'ın avukatı said"
    assert spans(text, find_name_mentions(text, [(0, 12)])) == [("Yalman", "PERSON", "name_mention")]


def test_common_word_variants_only_capitalised_and_not_sentence_initial():
    text = (
        "Grace Smith arrived. Grace was late. By grace of God. Smith's car. Then Grace left. "
        "SMITH agreed; GRACE too; smith too."
    )
    assert [(text[s:e], s) for s, e, _, _ in find_name_mentions(text, [(0, 11)])] == [
        ("Smith", text.index("Smith's")),
        ("Grace", text.index("Grace left")),
        ("SMITH", text.index("SMITH")),
    ]  # "smith" is a common word: not lower-case


def test_stop_words_and_plain_words_are_no_variants():
    assert name_variants("Will Smith") == ["Will Smith", "W. Smith", "W Smith", "Smith", "W.S."]
    assert name_variants("the Chancellor of Austria") == ["the Chancellor of Austria"]


def test_no_person_spans():
    assert find_name_mentions("Nothing here.", []) == []


# --- speed -------------------------------------------------------------------


def test_large_text_is_fast():
    chunk = (
        "On 3 May 2019 the applicant, PEDER HALVORSEN, met محمد العلي and Maria Garcia Lopez "
        "at the Court. THE FACTS were disputed; we spoke to peder halvorsen. "
    )
    text = chunk * (500_000 // len(chunk))
    name_lexicon()
    find_script_names("x")
    start = time.perf_counter()
    found = find_lexicon_names(text)
    find_script_names(text)
    find_name_mentions(text, [(s, e) for s, e, _, _ in found[:50]])
    assert time.perf_counter() - start < 5.0
    assert len(found) == 3 * (500_000 // len(chunk))


def test_names_on_consecutive_lines_are_separate():
    text = "WITNESSES:\nJOHN SMITH\nMARIA GARCIA\n"
    assert names(text) == ["JOHN SMITH", "MARIA GARCIA"]


def test_short_variants_keep_their_case():
    text = "Ali Li spoke. Then Li and ALI left; li and ali are not names here."
    assert [(text[s:e], s) for s, e, _, _ in find_name_mentions(text, [(0, 6)])] == [
        ("Li", text.index("Li and")),
        ("ALI", text.index("ALI")),
    ]


def test_a_name_line_does_not_swallow_the_next_line():
    assert names("Authors: Jakob Schlyter\n\tWesley Griffin") == ["Jakob Schlyter"]


def test_mixed_script_words_are_no_runs():
    assert find_script_names("A spoofed Иvan and Pеter; emoji 👨\u200d👩\u200d👧 here.") == []


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Patient: Julian Middleton.", [("Julian Middleton", "cued_name")]),
        ("Dear Ms Okafor,\nThank you for your letter.", [("Okafor", "cued_name")]),
        ("Signed: P. Halvorsen", [("P. Halvorsen", "cued_name")]),
        ("From: Jan de Vries <jan@example.nl>", [("Jan de Vries", "cued_name")]),
        ("Kind regards,\nSarah Connor\nHR Manager", [("Sarah Connor", "cued_name")]),
        ("Maria: hello there\nAgent (Tom): how can I help?", [("Maria", "speaker"), ("Tom", "speaker")]),
        ("represented by Mr A. Yilmaz, a lawyer", [("A. Yilmaz", "cued_name")]),
        # not names: generic addressees, field values that are not names, prose after "from"/"to"
        ("Dear Sir, To: All staff. Name: N/A. Note: see above. He moved from Ankara to Istanbul.", []),
    ],
)
def test_cued_names(text, expected):
    from spacy_textsan.detect.privacy_ner.cued_names import find_cued_names

    assert [(text[s:e], rule) for s, e, _, rule in find_cued_names(text)] == expected


def test_cue_words_are_whole_words():
    from spacy_textsan.detect.privacy_ner.cued_names import find_cued_names

    assert find_cued_names("The patient has HIV. Discharged to his home. Hello Anna") == [
        (51, 55, "PERSON", "cued_name")
    ]


# --- issue 25: places after a preposition ------------------------------------


@pytest.mark.parametrize(
    "text,expected",
    [
        ("He moved from Brno to Ostrava in 2010.", ["Brno", "Ostrava"]),
        ("She lives near Tampere and works in Lyon.", ["Tampere", "Lyon"]),
        ("She commutes between Tampere and Oulu.", ["Tampere", "Oulu"]),
        ("The family fled from Mostar to Graz, Linz and Salzburg.", ["Mostar", "Graz", "Linz", "Salzburg"]),
        ("born in Ústí nad Labem in 1970", ["Ústí nad Labem"]),
        ("travelled to Frankfurt am Main.", ["Frankfurt am Main"]),
        ("a resident of Newcastle upon Tyne", ["Newcastle upon Tyne"]),
        ("She grew up in Aix-en-Provence", ["Aix-en-Provence"]),
        ("The parcel went via Košice", ["Košice"]),
        ("moved to Zurich, then to Zürich again", ["Zurich", "Zürich"]),  # with or without diacritics
        ("FROM BRNO TO OSTRAVA", ["BRNO", "OSTRAVA"]),
        ("Er zog nach Hradec Králové.", ["Hradec Králové"]),
        ("He was extradited to Turkey.", ["Turkey"]),  # countries too
        # a capitalised word after a sentence or clause end is no part of the name
        ("The applicant lives in Eskişehir. He worked in Ankara; Mr Kaya did not.", ["Eskişehir", "Ankara"]),
    ],
)
def test_cued_places(text, expected):
    assert [(t, label) for t, label, _ in spans(text, find_cued_places(text))] == [(e, "LOC") for e in expected]


@pytest.mark.parametrize(
    "text",
    [
        "a letter from Florence Nightingale",  # a city followed by another capitalised word: a person
        "in Court",
        "in the Court of Appeal",
        "in March",
        "from Mr Smith",
        "to Will",
        "at Home Office",
        "in brno",  # not capitalised
    ],
)
def test_no_cued_places(text):
    assert find_cued_places(text) == []


# --- issue 25: given names beside a detected surname -------------------------


def _grown(text, *chosen):
    cands = [Candidate(text.index(w), text.index(w) + len(w), label, "ner:m", prio) for w, label, prio in chosen]
    return [(text[c.start : c.end], c.label, c.source) for c in extend_person_names(text, cands)]


@pytest.mark.parametrize(
    "text,detected,expected",
    [
        ("Jana Nováková testified.", "Nováková", "Jana Nováková"),
        ("The witness Jana Marie Nováková testified.", "Nováková", "Jana Marie Nováková"),
        ("Nováková, Jana applied for the permit.", "Nováková", "Nováková, Jana"),
        ("KOWALCZYK, AGNIESZKA (tenant)", "KOWALCZYK", "KOWALCZYK, AGNIESZKA"),
        ("Then Jana Xyzová left.", "Jana", "Jana Xyzová"),  # a given name alone: its surname
        ("Lena Fischer wrote.", "Fischer", "Lena Fischer"),
        ("said Grace Okafor", "Okafor", "Grace Okafor"),  # a given name that is a word too
        ("Rose Okafor testified.", "Okafor", "Rose Okafor"),
        ("asked May Okafor", "Okafor", "May Okafor"),
    ],
)
def test_person_spans_grow_over_adjacent_given_names(text, detected, expected):
    assert _grown(text, (detected, "PERSON", 1)) == [(expected, "PERSON", "ner:m+given")]


@pytest.mark.parametrize(
    "text,detected",
    [
        ("May Okafor come in?", "Okafor"),  # a very common word opening a sentence
        ("Will Okafor testify?", "Okafor"),  # no given name
        ("The Court Nováková case", "Nováková"),  # no given name
        ("Jana, Petr and Nováková", "Nováková"),  # not adjacent
        ("Jana Street", "Jana"),  # a place word after it
    ],
)
def test_person_spans_do_not_grow_over_other_words(text, detected):
    assert _grown(text, (detected, "PERSON", 1)) == [(detected, "PERSON", "ner:m")]


def test_a_grown_person_absorbs_what_it_covers_but_no_code():
    text = "Milan Horák 8505123456 and Jana Nováková"
    assert _grown(text, ("Milan", "LOC", 1), ("Horák", "PERSON", 1)) == [("Milan Horák", "PERSON", "ner:m+given")]
    assert _grown(text, ("Jana", "CODE", PRIORITY_CODE), ("Nováková", "PERSON", 1)) == [
        ("Jana", "CODE", "ner:m"),
        ("Nováková", "PERSON", "ner:m"),
    ]


# --- issue 25: decomposed Unicode and spelt-out names --------------------------


@pytest.mark.parametrize(
    "original,copy,name",
    [
        (
            "The file of Zoe\u0308 Mu\u0308ller was closed.",
            "The file of Zo\u00eb M\u00fcller was closed.",
            "Zoe\u0308 Mu\u0308ller",
        ),
        ("Rene\u0301 Lefe\u0300vre testified.", "Ren\u00e9 Lef\u00e8vre testified.", "Rene\u0301 Lefe\u0300vre"),
        ("Contact J o h n  S m i t h today.", "Contact John Smith today.", "J o h n  S m i t h"),
        ("Signed J.O.H.N S.M.I.T.H.", "Signed JOHN SMITH.", "J.O.H.N S.M.I.T.H"),
        ("by J. O. H. N.  S. M. I. T. H. alone", "by JOHN SMITH. alone", "J. O. H. N.  S. M. I. T. H"),
        ("Tenant: K a t a r z y n a N o w a k", "Tenant: Katarzyna Nowak", "K a t a r z y n a N o w a k"),
        ("SIGNED J O H N S M I T H", "SIGNED JOHN SMITH", "J O H N S M I T H"),  # one case: split by the lexicon
        ("J-o-h-n S-m-i-t-h", "John Smith", "J-o-h-n S-m-i-t-h"),
    ],
)
def test_names_are_found_on_the_normalised_copy_and_mapped_back(original, copy, name):
    norm = normalize(original)
    assert norm.text == copy
    found = find_lexicon_names(norm.text)
    assert [original[slice(*norm.to_original(s, e))] for s, e, _, _ in found] == [name]


@pytest.mark.parametrize("text", ["U.S.A. and e.g. J.R.R. Tolkien", "Plain text.", "A-B-C", "a.m. and p.m."])
def test_abbreviations_and_initials_are_not_joined(text):
    assert normalize(text).text == text
