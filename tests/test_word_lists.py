"""Word lists and tables shipped as data files (spacy_textsan.word_lists), the
field names two readers share, and the confusable letters taken from
Unicode's data."""

import configparser
from fnmatch import fnmatch
from pathlib import Path

from confusable_homoglyphs.confusables import confusables_data

from spacy_textsan.detect.privacy_ner import tables
from spacy_textsan.detect.privacy_ner.cued_names import LABEL_WORDS, NAME_FIELDS, NOT_NAME_WORDS, SALUTATIONS
from spacy_textsan.detect.privacy_ner.lang_data import read_set
from spacy_textsan.detect.privacy_ner.names import NOT_PERSON_WORDS
from spacy_textsan.detect.privacy_ner.normalize import CONFUSABLE_LETTERS, EXTRA_CONFUSABLES, confusables
from spacy_textsan.detect.privacy_ner.rules import TITLES
from spacy_textsan.detect.privacy_ner.standard_numbers import CODE_CUES
from spacy_textsan.detect.privacy_ner.tables import FIELD_LABELS, personal_fields
from spacy_textsan.run.personal_columns import HEADER_TERMS, header_term
from spacy_textsan.word_lists import PACKAGE_DIR, data_rows, read_list, table_rows, word_list, word_set

ROOT = Path(__file__).resolve().parent.parent


def test_the_reader(tmp_path):
    path = tmp_path / "list.txt"
    path.write_text("# a comment\n  mr  \n\ndr # a note\na/c\nsurname | PERSON | text columns\n", encoding="utf-8")
    assert read_list(path) == ["mr", "dr", "a/c", "surname | PERSON | text columns"]
    assert [fields for _, _, fields in data_rows(path)][-1] == ["surname", "PERSON", "text columns"]
    assert [lineno for lineno, _, _ in data_rows(path)] == [2, 4, 5, 6]


def test_a_package_list_is_read_once():
    name = "detect/privacy_ner/data/en/titles.txt"
    assert word_list(name) is word_list(name) and word_set(name) == TITLES and read_set("en", "titles.txt") is TITLES
    assert TITLES == set("mr mrs ms miss mx dr prof professor judge sir dame lady lord mme mlle m herr frau".split())


def test_the_moved_lists_hold_what_the_modules_held():
    assert (len(CODE_CUES), CODE_CUES[:3], CODE_CUES[-3:]) == (
        146,
        ("passport", "passport no", "id"),
        ("no", "nr", "number"),
    )
    assert {"a/c", "driver's license", "t.c. kimlik", "numéro de sécurité sociale"} <= set(CODE_CUES)
    assert (len(NAME_FIELDS), NAME_FIELDS[:2], NAME_FIELDS[-1]) == (114, ("patient", "patient name"), "adı soyadı")
    assert (len(SALUTATIONS), SALUTATIONS[0], SALUTATIONS[-1]) == (34, "dear", "sayın")
    assert (len(NOT_NAME_WORDS), len(LABEL_WORDS), len(NOT_PERSON_WORDS)) == (52, 30, 61)
    assert {"n/a", "whom"} <= NOT_NAME_WORDS and "moderator" in LABEL_WORDS and {"a.ş", "gmbh"} <= NOT_PERSON_WORDS


def test_every_data_file_is_shipped():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    patterns = [p.strip() for p in config["options.package_data"]["spacy_textsan"].split(",")]
    for folder in ("detect/privacy_ner/data", "detect/gazetteer/data"):
        for path in (PACKAGE_DIR / folder).rglob("*.txt"):
            relative = path.relative_to(PACKAGE_DIR).as_posix()
            assert any(fnmatch(relative, p) for p in patterns), relative


# -- the personal field names of running text (tables) and of columns (personal_columns) ------------------------


def test_the_field_names_are_read_once_and_both_readers_see_them(monkeypatch):
    calls = []
    monkeypatch.setattr(tables, "table_rows", lambda name: calls.append(name) or table_rows(name))
    personal_fields.cache_clear()
    try:
        rows = [personal_fields() for _ in range(3)]
    finally:
        personal_fields.cache_clear()
    assert calls == [tables.PERSONAL_FIELDS_FILE] and rows[0] is rows[2]
    fields = personal_fields()
    assert FIELD_LABELS == {f.name: f.label for f in fields if "text" in f.readers}
    assert HEADER_TERMS == tuple(f.name for f in fields if "columns" in f.readers)
    assert len({f.name for f in fields}) == len(fields)
    assert {f.label for f in fields} == {"PERSON", "LOC", "ORG", "DATETIME", "DEM", "CODE"}
    assert set().union(*(f.readers for f in fields)) == {"text", "columns"}


def test_each_reader_keeps_the_names_it_read_before():
    """A name of one reader only stays unread by the other (``id``, ``city``
    would make every ``id`` column personal; ``courriel`` would label fields
    of running text that were not labelled)."""
    assert (len(FIELD_LABELS), len(HEADER_TERMS)) == (150, 129)
    assert FIELD_LABELS["surname"] == "PERSON" and "surname" in HEADER_TERMS
    assert FIELD_LABELS["d.o.b."] == "DATETIME" and FIELD_LABELS["e-mail"] == "CODE"
    assert "courriel" not in FIELD_LABELS and "id" not in HEADER_TERMS and "city" not in HEADER_TERMS
    assert HEADER_TERMS.index("email") < HEADER_TERMS.index("e mail")  # both read "email": the first is reported
    assert header_term("E-Mail") == "email" and header_term("Téléphone") == "telephone"
    assert header_term("city") is None


# -- the confusable letters of the detection copy ---------------------------------------------------------------------

#: The hand-written table of normalize.py that Unicode's data replaced.
OLD_CONFUSABLES: dict[str, str] = dict(
    (pair[0], pair[1])
    for pair in "аa вb еe кk мm нh оo рp сc тt уy хx ѕs іi јj ԁd ԛq ԝw һh ӏl АA ВB ЕE КK МM НH ОO РP СC ТT УY ХX ЅS ІI ЈJ "
    "ԀD ԚQ ԜW ҺH ӀI ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX οo νv ιi κk ρp τt υu χx αa ϲc ϳj".split()
)


def test_the_confusables_are_the_old_table():
    assert confusables() == OLD_CONFUSABLES and confusables() is confusables()
    assert set(CONFUSABLE_LETTERS) == set(OLD_CONFUSABLES) and len(CONFUSABLE_LETTERS) == len(OLD_CONFUSABLES)


def test_the_extra_confusables_are_only_what_unicode_reads_otherwise():
    unicode_latin = {
        letter: {g["c"] for g in confusables_data.get(letter, ()) if len(g["c"]) == 1 and g["c"].isascii()}
        for letter in CONFUSABLE_LETTERS
    }
    assert all(
        unicode_latin[letter] == {OLD_CONFUSABLES[letter]} for letter in set(OLD_CONFUSABLES) - set(EXTRA_CONFUSABLES)
    )
    assert all(unicode_latin[letter] != {latin} for letter, latin in EXTRA_CONFUSABLES.items())
    assert len(EXTRA_CONFUSABLES) == 15
