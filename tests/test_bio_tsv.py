"""BIO token files (French / Spanish ECHR format) -> documents with TAB types -> DocBins, the shipped
French and Spanish NER folders, and the token metrics of benchmarks/fr_es_eval.py. Fixtures are
hand-written snippets."""

import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_textsan.training.bio_tsv import (
    MANUAL_TO_TAB,
    PROJECTED_TO_TAB,
    BioFormatError,
    parse_bio_lines,
    read_bio_tsv,
    scheme_for,
    split_documents,
    to_spacy_doc,
    token_gaps,
    write_docbin,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from fr_es_eval import covering_labels, token_metrics  # noqa: E402

TAB_TYPES = {"PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC"}

FRENCH = """\
PROCÉDURE O

L O
' O
affaire O
concerne O
M B-PER
. I-PER
Jean I-PER
Dupont I-PER
( O
no O
12345 B-CODE
/ I-CODE
06 I-CODE
) O
, O
né O
le O
3 B-DATE
mars I-DATE
1961 I-DATE
à O
Lyon B-LOC
. O

Le O
juge O
" O
Durand B-LEGAL_PROFESSIONAL
" O
statua O
. O
"""

SPANISH = """\
PROCEDIMIENTO O

El O
demandante O
, O
el O
Sr B-PER
. I-PER
Pérez I-PER
, O
es O
chileno B-NATIONALITY
y O
pagó O
500 B-CURRENCY
euros I-CURRENCY
a O
las O
10 B-TIME
h I-TIME
. O

¿ O
Quién O
pagó O
? O
"""

PROJECTED = """\
PROCEDIMIENTO O

La O
Sra B-PER
. I-PER
Ana I-PER
Gil I-PER
, O
española B-DEM
. O

PROCEDIMIENTO O

Caso O
1 B-CODE
/ I-CODE
99 I-CODE
. O
"""


def parse(text, scheme="manual", source="x.tsv"):
    return parse_bio_lines(text.splitlines(keepends=True), source, scheme)


def spans(doc):
    return [(s.start, s.end, doc.text[s.start : s.end], s.label, s.source_label) for s in doc.spans]


def test_french_manual_snippet_text_and_spans():
    [doc] = parse(FRENCH)
    assert doc.doc_id == "x-001"
    assert (
        doc.text
        == 'PROCÉDURE\nL\'affaire concerne M. Jean Dupont (no 12345/06), né le 3 mars 1961 à Lyon.\nLe juge "Durand" statua.'
    )
    assert spans(doc) == [
        (29, 43, "M. Jean Dupont", "PERSON", "PER"),
        (48, 56, "12345/06", "CODE", "CODE"),
        (65, 76, "3 mars 1961", "DATETIME", "DATE"),
        (79, 83, "Lyon", "LOC", "LOC"),
        (94, 100, "Durand", "PERSON", "LEGAL_PROFESSIONAL"),
    ]
    assert len(doc.tokens) == 31
    assert [doc.text[a:b] for a, b in doc.tokens[1:4]] == ["L", "'", "affaire"]
    assert doc.sentence_starts == (0, 1, 24)
    assert doc.line == 1


def test_spanish_manual_snippet_maps_nationality_currency_time():
    [doc] = parse(SPANISH)
    assert (
        doc.text == "PROCEDIMIENTO\nEl demandante, el Sr. Pérez, es chileno y pagó 500 euros a las 10 h.\n¿Quién pagó?"
    )
    assert spans(doc) == [
        (32, 41, "Sr. Pérez", "PERSON", "PER"),
        (46, 53, "chileno", "DEM", "NATIONALITY"),
        (61, 70, "500 euros", "QUANTITY", "CURRENCY"),
        (77, 81, "10 h", "DATETIME", "TIME"),
    ]


def test_projected_file_splits_documents_at_headings():
    docs = parse(PROJECTED, "projected", "/data/es_projected.tsv")
    assert [d.doc_id for d in docs] == ["es_projected-001", "es_projected-002"]
    assert [d.line for d in docs] == [1, 12]
    assert docs[0].text == "PROCEDIMIENTO\nLa Sra. Ana Gil, española."
    assert spans(docs[0]) == [(17, 29, "Sra. Ana Gil", "PERSON", "PER"), (31, 39, "española", "DEM", "DEM")]
    assert docs[1].text == "PROCEDIMIENTO\nCaso 1/99."
    assert spans(docs[1]) == [(19, 23, "1/99", "CODE", "CODE")]


def test_mappings_cover_every_tag_and_land_on_tab_types():
    assert set(PROJECTED_TO_TAB.values()) == TAB_TYPES
    assert set(MANUAL_TO_TAB.values()) == TAB_TYPES
    assert MANUAL_TO_TAB["LEGAL_PROFESSIONAL"] == MANUAL_TO_TAB["PER"] == PROJECTED_TO_TAB["PER"] == "PERSON"
    assert (MANUAL_TO_TAB["NATIONALITY"], MANUAL_TO_TAB["ETHNIC_CATEGORY"], MANUAL_TO_TAB["CURRENCY"]) == (
        "DEM",
        "DEM",
        "QUANTITY",
    )


def test_token_gaps():
    assert token_gaps(["(", "no", "5", "/", "11", ")", ","]) == ["", " ", "", "", "", "", ""]
    assert token_gaps(['"', "a", '"', "b", '"', "c", '"']) == ["", "", " ", " ", "", "", ""]
    assert token_gaps(["Royaume", "-", "Uni", "-", ",", "x"]) == ["", "", " ", "", " ", ""]


@pytest.mark.parametrize(
    ("text", "scheme", "message"),
    [
        ("PROCÉDURE O\n\nsans_tag\n", "manual", "x.tsv:3: expected 'TOKEN TAG' (a token, one space, a BIO tag)"),
        ("PROCÉDURE O\n\nmot\tO\n", "manual", "x.tsv:3: expected 'TOKEN TAG' (a token, one space, a BIO tag)"),
        ("PROCÉDURE O\nmot B-per\n", "manual", "x.tsv:2: the tag is not O, B-LABEL or I-LABEL"),
        ("PROCÉDURE O\nmot  \n", "manual", "x.tsv:2: the tag is not O, B-LABEL or I-LABEL"),
        (
            "PROCEDIMIENTO O\n\nJuez B-LEGAL_PROFESSIONAL\n",
            "projected",
            "x.tsv:3: label 'LEGAL_PROFESSIONAL' is not in the projected scheme (CODE, DATETIME, DEM, LOC, MISC, ORG, PER, QUANTITY)",
        ),
        ("PROCEDIMIENTO O\n\nel O\nSr I-PER\n", "manual", "x.tsv:4: I-PER does not continue a PER entity"),
        ("PROCEDIMIENTO O\n\nel B-LOC\nSr I-PER\n", "manual", "x.tsv:4: I-PER does not continue a PER entity"),
        ("PROCEDIMIENTO O\n\nSr B-PER\n\nPérez I-PER\n", "manual", "x.tsv:5: I-PER does not continue a PER entity"),
        (
            "Hechos O\n\nPROCEDIMIENTO O\n",
            "manual",
            "x.tsv:1: text before the first document heading (PROCÉDURE, PROCEDURE or PROCEDIMIENTO)",
        ),
        ("\n\n", "manual", "x.tsv: no document (no PROCÉDURE, PROCEDURE or PROCEDIMIENTO heading)"),
        ("PROCEDIMIENTO O\n", "other", "x.tsv: unknown tag scheme 'other'; expected one of ['manual', 'projected']"),
    ],
)
def test_malformed_input_is_one_line_naming_file_and_line(text, scheme, message):
    with pytest.raises(BioFormatError) as err:
        parse(text, scheme)
    assert str(err.value) == message


def test_errors_never_quote_the_tokens():
    with pytest.raises(BioFormatError) as err:
        parse("PROCEDIMIENTO O\n\nSecretoPérez\n")
    assert "Secreto" not in str(err.value)


def test_read_file_scheme_from_name_and_encoding(tmp_path):
    path = tmp_path / "fr_manual.tsv"
    path.write_text(FRENCH, encoding="utf-8")
    assert [s.label for s in read_bio_tsv(path)[0].spans] == ["PERSON", "CODE", "DATETIME", "LOC", "PERSON"]
    assert scheme_for("es_projected.tsv") == "projected"
    with pytest.raises(BioFormatError, match=r"^other\.tsv: cannot tell the tag scheme from the file name"):
        scheme_for("other.tsv")
    bad = tmp_path / "es_manual.tsv"
    bad.write_bytes(b"PROCEDIMIENTO O\n\xff O\n")
    with pytest.raises(BioFormatError) as err:
        read_bio_tsv(bad)
    assert str(err.value) == f"{bad}: not UTF-8 text"


def test_split_documents_holds_out_1_1_plus_n():
    docs = parse("\n".join([PROJECTED] * 3), "projected")
    assert [d.doc_id for d in split_documents(docs, 2, "only")] == ["x-001", "x-003", "x-005"]
    assert [d.doc_id for d in split_documents(docs, 2, "exclude")] == ["x-002", "x-004", "x-006"]
    assert len(split_documents(docs, 0, "exclude")) == 6
    with pytest.raises(ValueError, match="holdout_every must be 0 or 2 or more, not 1"):
        split_documents(docs, 1, "only")


def test_spacy_doc_has_the_file_tokens_and_ents(tmp_path):
    [bio] = parse(FRENCH)
    doc = to_spacy_doc(bio, spacy.blank("fr").vocab)
    assert doc.text == bio.text
    words = [t.text for t in doc]
    assert words[:6] == ["PROCÉDURE", "\n", "L", "'", "affaire", "concerne"]
    assert len(words) == 31 + 2  # the file's tokens and one line break between two sentences
    assert [(e.text, e.label_, e.start_char) for e in doc.ents] == [
        ("M. Jean Dupont", "PERSON", 29),
        ("12345/06", "CODE", 48),
        ("3 mars 1961", "DATETIME", 65),
        ("Lyon", "LOC", 79),
        ("Durand", "PERSON", 94),
    ]
    assert [s.text for s in doc.sents] == [
        "PROCÉDURE\n",
        "L'affaire concerne M. Jean Dupont (no 12345/06), né le 3 mars 1961 à Lyon.\n",
        'Le juge "Durand" statua.',
    ]
    path = tmp_path / "out" / "fr.spacy"
    assert write_docbin([bio, bio], path, spacy.blank("fr").vocab) == 2
    back = list(DocBin().from_disk(path).get_docs(spacy.blank("fr").vocab))
    assert [d.text for d in back] == [bio.text, bio.text]
    assert [(e.text, e.label_) for e in back[1].ents][-1] == ("Durand", "PERSON")
    assert back[0].user_data["doc_id"] == "x-001"


def test_token_metrics_hand_checked():
    [doc] = parse(FRENCH)
    preds = [
        (32, 43, "PERSON"),  # "Jean Dupont": "M ." stays in clear
        (50, 56, "CODE"),  # starts inside "12345": every token it overlaps is masked
        (62, 76, "DATETIME"),  # "le 3 mars 1961": "le" is outside the gold
        (79, 83, "ORG"),  # "Lyon", wrong type
        (85, 87, "MISC"),  # "Le": outside the gold
    ]
    covers = covering_labels(doc, preds)
    assert [i for i, c in enumerate(covers) if c] == [7, 8, 11, 12, 13, 17, 18, 19, 20, 22, 24]
    m = token_metrics([doc], [preds])
    assert m["n_docs"] == 1 and m["n_tokens"] == 31
    assert m["gold_tokens"] == {
        "PERSON": 5,
        "CODE": 3,
        "LOC": 1,
        "ORG": 0,
        "DEM": 0,
        "DATETIME": 3,
        "QUANTITY": 0,
        "MISC": 0,
    }
    assert m["token_recall"] == {
        "all": 0.75,
        "PERSON": 0.4,
        "CODE": 1.0,
        "LOC": 1.0,
        "ORG": None,
        "DEM": None,
        "DATETIME": 1.0,
        "QUANTITY": None,
        "MISC": None,
    }
    assert m["direct_token_recall"] == 0.625
    assert m["entities"] == {
        "PERSON": {
            "n": 2,
            "with_unmasked_token": 2,
            "left_whole": 1,
            "share_with_unmasked_token": 1.0,
            "share_left_whole": 0.5,
        },
        "CODE": {
            "n": 1,
            "with_unmasked_token": 0,
            "left_whole": 0,
            "share_with_unmasked_token": 0.0,
            "share_left_whole": 0.0,
        },
        "PERSON+CODE": {
            "n": 3,
            "with_unmasked_token": 2,
            "left_whole": 1,
            "share_with_unmasked_token": 0.6667,
            "share_left_whole": 0.3333,
        },
    }
    assert (m["masked_tokens"], m["masked_tokens_in_gold"], m["token_precision"]) == (11, 9, 0.8182)
    assert m["label_agreement"] == 0.8889
    assert m["label_agreement_per_type"]["LOC"] == 0.0
    assert m["label_agreement_per_type"]["PERSON"] == 1.0
    assert m["confusion"] == {
        "PERSON": {"PERSON": 2},
        "CODE": {"CODE": 3},
        "LOC": {"ORG": 1},
        "DATETIME": {"DATETIME": 3},
    }


def test_token_metrics_nothing_predicted():
    [doc] = parse(SPANISH)
    m = token_metrics([doc], [[]])
    assert m["token_recall"]["all"] == 0.0
    assert m["token_precision"] is None
    assert m["label_agreement"] is None
    assert m["entities"]["PERSON"]["left_whole"] == 1
    with pytest.raises(ValueError, match="1 documents but 2 prediction lists"):
        token_metrics([doc], [[], []])


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_shipped_ner_folders_load_with_tab_labels(lang):
    folder = ROOT / "spacy_textsan" / "assets" / "ner" / lang
    nlp = spacy.load(folder)
    assert nlp.lang == lang
    assert nlp.pipe_names == ["tok2vec", "ner"]
    assert set(nlp.get_pipe("ner").labels) == TAB_TYPES
    assert sorted(p.name for p in folder.iterdir()) == [
        "config.cfg",
        "meta.json",
        "ner",
        "tok2vec",
        "tokenizer",
        "vocab",
    ]
    assert sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) < 10_000_000


@pytest.mark.slow
def test_train_a_few_steps_and_ship(tmp_path):
    docs = parse("\n".join([FRENCH] * 4))
    corpus = tmp_path / "train.spacy"
    write_docbin(docs, corpus, spacy.blank("fr").vocab)
    out = tmp_path / "model"
    cmd = [sys.executable, "-m", "spacy", "train", str(ROOT / "spacy_textsan" / "configs" / "ner_fr.cfg")]
    cmd += ["--output", str(out), "--paths.train", str(corpus), "--paths.dev", str(corpus)]
    cmd += ["--training.max_steps", "4", "--training.eval_frequency", "2"]
    subprocess.run(cmd, check=True, capture_output=True)
    dest = tmp_path / "ship" / "fr"
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "fr_es_ner.py"), "ship", str(out / "model-best"), str(dest)],
        check=True,
        capture_output=True,
        text=True,
    )
    assert "pipeline ['tok2vec', 'ner']" in done.stdout
    assert sorted(p.name for p in dest.iterdir()) == ["config.cfg", "meta.json", "ner", "tok2vec", "tokenizer", "vocab"]
    assert set(spacy.load(dest).get_pipe("ner").labels) == {"PERSON", "CODE", "DATETIME", "LOC"}
