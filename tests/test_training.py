"""Training workflow: TAB → DocBin conversion, mentions-only files, the
supervised_risk component (suggester, corpus, annotations), silver data, and
smoke trainings of the CPU NER, supervised_risk and transformer configs
(a few steps on fixture documents)."""

import json
import sys
from pathlib import Path

import numpy
import pytest
import spacy
import typer
from spacy.tokens import DocBin, Span
from thinc.api import NumpyOps
from thinc.types import Ragged
from typer.testing import CliRunner

from spacy_textsan.cli.training import convert_cmd, silver_cmd
from spacy_textsan.extensions import SPANS_KEY
from spacy_textsan.risk.supervised_risk import (
    build_candidate_suggester,
    create_candidate_risk_corpus,
    create_risk_corpus,
)
from spacy_textsan.tab import read_tab
from spacy_textsan.tab.reader import TabFormatError
from spacy_textsan.training import GOLD_KEY, convert_tab, tab_to_training_docs
from spacy_textsan.training.convert import is_held_out
from spacy_textsan.training.silver import annotate_silver, silver_doc

ROOT = Path(__file__).parent.parent
FIX = Path(__file__).parent / "fixtures"
TAB = FIX / "tab_two_annotators.json"
RULES = FIX / "cli" / "rules_only.cfg"
runner = CliRunner()
app = typer.Typer()
app.command("convert")(convert_cmd)
app.command("silver")(silver_cmd)


def ents(doc):
    return [(e.text, e.label_) for e in doc.ents]


def gold(doc):
    return [(s.text, s.label_, s.id_, s.kb_id_) for s in doc.spans[GOLD_KEY]]


# --------------------------------------------------------------------------- #
# reading and converting
# --------------------------------------------------------------------------- #


def mentions_only_file(tmp_path):
    data = [
        {
            "doc_id": "m1",
            "text": "Mr Doe lives in Oslo.",
            "annotations": {
                "tae": {
                    "entity_mentions": [
                        {
                            "entity_type": "PERSON",
                            "entity_mention_id": "m1_em1",
                            "start_offset": 3,
                            "end_offset": 6,
                            "span_text": "Doe",
                            "identifier_type": None,
                        },
                        {
                            "entity_type": "LOC",
                            "entity_mention_id": "m1_em2",
                            "start_offset": 16,
                            "end_offset": 20,
                            "span_text": "Oslo",
                        },
                    ]
                }
            },
        }
    ]
    path = tmp_path / "mentions.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_mentions_only_files(tmp_path):
    path = mentions_only_file(tmp_path)
    with pytest.raises(TabFormatError, match="tae mention 0: missing or non-string 'entity_id'"):
        read_tab(path)
    doc = read_tab(path, mentions_only=True)[0]
    assert [(m.text, m.identifier_type, m.entity_id) for m in doc.annotations["tae"]] == [
        ("Doe", "UNKNOWN", "tae_m0"),
        ("Oslo", "UNKNOWN", "tae_m1"),
    ]


def test_convert_one_doc_per_annotator():
    nlp = spacy.blank("en")
    docs = list(tab_to_training_docs(nlp, read_tab(TAB)))
    assert [(d.user_data["tab_doc_id"], d.user_data["tab_annotator"]) for d in docs] == [
        ("d1", "annotator1"),
        ("d1", "annotator2"),
        ("d2", "annotator1"),
    ]
    assert ents(docs[0]) == [
        ("no. 12345/67", "CODE"),
        ("John Doe", "PERSON"),
        ("British", "DEM"),
        ("Kingdom of Sweden", "LOC"),
        ("1 October 2021", "DATETIME"),
        ("Doe", "PERSON"),
    ]
    assert gold(docs[1])[:3] == [
        ("12345/67", "CODE", "DIRECT", "d1_a2_e1"),
        ("Mr John Doe", "PERSON", "DIRECT", "d1_a2_e2"),
        ("researcher", "DEM", "QUASI", "d1_a2_e5"),
    ]
    assert ents(docs[2]) == [("Mr. Smith", "PERSON"), ("Norway", "LOC"), ("Smith", "PERSON"), ("Norway", "LOC")]


def test_convert_mask_only_first_annotator_and_exclusions():
    nlp = spacy.blank("en")
    docs = list(tab_to_training_docs(nlp, read_tab(TAB), annotator="first", identifiers=("DIRECT", "QUASI")))
    assert len(docs) == 2
    # annotator1 marked "Kingdom of Sweden" NO_MASK: not an entity, still in the gold group
    assert ents(docs[0]) == [
        ("no. 12345/67", "CODE"),
        ("John Doe", "PERSON"),
        ("British", "DEM"),
        ("1 October 2021", "DATETIME"),
        ("Doe", "PERSON"),
    ]
    assert ("Kingdom of Sweden", "LOC", "NO_MASK") in [g[:3] for g in gold(docs[0])]
    assert ents(docs[1]) == [("Mr. Smith", "PERSON"), ("Norway", "LOC")]  # the DIRECT "Norway"
    assert docs[1].ents[1].start_char == docs[1].text.rindex("Norway")
    docs = list(tab_to_training_docs(nlp, read_tab(TAB), annotator="annotator2", exclude_ids=["d2"]))
    assert [d.user_data["tab_annotator"] for d in docs] == ["annotator2"]


def test_convert_to_docbin(tmp_path):
    stats = convert_tab(spacy.blank("en"), [TAB], tmp_path / "out" / "train.spacy")
    assert stats == {
        "docs": 3,
        "tokens": 29 + 29 + 12,
        "ents": 16,
        "mentions": 16,
        "mentions_DIRECT": 8,
        "mentions_QUASI": 5,
        "mentions_NO_MASK": 3,
    }
    docs = list(DocBin().from_disk(tmp_path / "out" / "train.spacy").get_docs(spacy.blank("en").vocab))
    assert ents(docs[2]) == [("Mr. Smith", "PERSON"), ("Norway", "LOC"), ("Smith", "PERSON"), ("Norway", "LOC")]
    assert gold(docs[2])[1] == ("Norway", "LOC", "NO_MASK", "d2_a1_e2")
    assert docs[2].user_data["tab_doc_id"] == "d2"


def test_convert_cli(tmp_path):
    res = runner.invoke(app, ["convert", str(TAB), "-o", str(tmp_path / "t.spacy"), "--identifiers", "DIRECT"])
    assert res.exit_code == 0, res.output
    docs = list(DocBin().from_disk(tmp_path / "t.spacy").get_docs(spacy.blank("en").vocab))
    assert [len(d.ents) for d in docs] == [3, 3, 2]
    res = runner.invoke(app, ["convert", str(TAB), "-o", str(tmp_path / "x.spacy"), "--identifiers", "SECRET"])
    assert res.exit_code == 1 and "--identifiers takes DIRECT, QUASI, NO_MASK, UNKNOWN" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text('[{"doc_id": "a",\n "text": 3}]', encoding="utf-8")
    res = runner.invoke(app, ["convert", str(bad), "-o", str(tmp_path / "x.spacy")])
    assert res.exit_code == 1 and "bad.json" in res.output and not (tmp_path / "x.spacy").exists()
    res = runner.invoke(
        app,
        [
            "convert",
            str(mentions_only_file(tmp_path)),
            "-o",
            str(tmp_path / "m.spacy"),
            "--mentions-only",
            "--exclude-docs",
            str(TAB),
        ],
    )
    assert res.exit_code == 0 and "1 docs" in " ".join(res.output.split())


# --------------------------------------------------------------------------- #
# supervised_risk
# --------------------------------------------------------------------------- #


def test_candidate_suggester():
    nlp = spacy.blank("en")
    a = nlp("Mr Doe lives in Oslo with Ms Roe.")
    a.spans[SPANS_KEY] = [Span(a, 4, 5, "LOC"), Span(a, 1, 2, "PERSON"), Span(a, 1, 2, "MISC")]
    b = nlp("Oslo is big.")
    b.ents = [Span(b, 0, 1, "LOC")]
    c = nlp("Nothing here.")
    out = build_candidate_suggester()([a, b, c], ops=NumpyOps())
    assert out.dataXd.tolist() == [[1, 2], [4, 5], [0, 1]]  # sorted, duplicates once, doc.ents fallback
    assert out.lengths.tolist() == [2, 1, 0]
    empty = build_candidate_suggester()([c], ops=NumpyOps())
    assert empty.dataXd.shape == (0, 2) and empty.lengths.tolist() == [0]


def test_risk_corpus(tmp_path):
    convert_tab(spacy.blank("en"), [TAB], tmp_path / "all.spacy")
    examples = list(create_risk_corpus(tmp_path / "all.spacy")(spacy.blank("en")))
    assert len(examples) == 3
    eg = examples[2]
    assert [(s.text, s.label_) for s in eg.predicted.spans[SPANS_KEY]] == [
        ("Mr. Smith", "PERSON"),
        ("Norway", "LOC"),
        ("Smith", "PERSON"),
        ("Norway", "LOC"),
    ]
    assert [(s.text, s.label_) for s in eg.reference.spans["textsan_risk"]] == [
        ("Mr. Smith", "DIRECT"),
        ("Norway", "NO_MASK"),
        ("Smith", "NO_MASK"),
        ("Norway", "DIRECT"),
    ]
    assert eg.predicted.text == eg.reference.text


def test_candidate_risk_corpus(tmp_path):
    """v2: the gold mentions plus the candidates a detection pipeline proposes, each labelled by the gold
    mentions it overlaps (DIRECT before QUASI; none or only NO_MASK: NO_MASK)."""
    convert_tab(spacy.blank("en"), [TAB], tmp_path / "all.spacy")
    read = create_candidate_risk_corpus(tmp_path / "all.spacy", RULES, stop_at="mask_all")
    examples = list(read(spacy.blank("en")))
    assert len(examples) == 3
    first = examples[0]
    assert [(s.text, s.label_) for s in first.predicted.spans[SPANS_KEY]] == [
        ("no. 12345/67", "CODE"),
        ("12345/67", "CANDIDATE"),  # the rule layer's, inside a DIRECT mention
        ("Mr John Doe", "CANDIDATE"),
        ("John Doe", "PERSON"),
        ("British", "DEM"),
        ("Kingdom of Sweden", "LOC"),
        ("Sweden", "CANDIDATE"),  # inside a NO_MASK mention of this annotator
        ("1 October 2021", "DATETIME"),
        ("Doe", "PERSON"),
    ]
    assert [s.label_ for s in first.reference.spans["textsan_risk"]] == [
        "DIRECT", "DIRECT", "DIRECT", "DIRECT", "QUASI", "NO_MASK", "NO_MASK", "QUASI", "DIRECT"
    ]  # fmt: skip
    second = examples[1]  # the other annotator of the same text: the same candidates, its own labels
    assert [(s.text, s.label_) for s in second.reference.spans["textsan_risk"]] == [
        ("12345/67", "DIRECT"),
        ("Mr John Doe", "DIRECT"),
        ("researcher", "QUASI"),
        ("Kingdom of Sweden", "QUASI"),
        ("Sweden", "QUASI"),
        ("1 October 2021", "QUASI"),
        ("Doe", "DIRECT"),
    ]
    assert all(eg.predicted.text == eg.reference.text for eg in examples)
    again = list(read(spacy.blank("en")))  # a second epoch reuses the candidates found once
    assert [[s.text for s in eg.predicted.spans[SPANS_KEY]] for eg in again] == [
        [s.text for s in eg.predicted.spans[SPANS_KEY]] for eg in examples
    ]


def test_supervised_risk_annotations():
    """Scores → span._.risk["supervised"] = P(DIRECT) + P(QUASI); unknown identifier types filled."""
    nlp = spacy.blank("en")
    risk = nlp.add_pipe("supervised_risk")
    for label in ("DIRECT", "QUASI", "NO_MASK"):
        risk.add_label(label)
    doc = nlp.make_doc("Mr Doe lives in Oslo.")
    doc.spans[SPANS_KEY] = [Span(doc, 1, 2, "PERSON"), Span(doc, 4, 5, "LOC")]
    doc.spans[SPANS_KEY][1]._.identifier_type = "QUASI"  # already known: kept
    indices = Ragged(numpy.asarray([[1, 2], [4, 5]], dtype="i"), numpy.asarray([2], dtype="i"))
    scores = numpy.asarray([[0.7, 0.2, 0.1], [0.05, 0.15, 0.8]], dtype="f")
    risk.set_annotations([doc], (indices, scores))
    person, loc = doc.spans[SPANS_KEY]
    assert person._.risk == {"supervised": pytest.approx(0.9)} and person._.identifier_type == "DIRECT"
    assert loc._.risk == {"supervised": pytest.approx(0.2)} and loc._.identifier_type == "QUASI"
    assert [(s.text, s.label_) for s in doc.spans["textsan_risk"]] == [("Doe", "DIRECT"), ("Oslo", "NO_MASK")]


def train(config, output, overrides):
    from spacy.cli.train import train as spacy_train

    spacy_train(
        config,
        output,
        overrides={"training.eval_frequency": 2, "training.max_steps": 4, "training.patience": 0, **overrides},
    )
    return spacy.load(output / "model-last")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("corpus")
    convert_tab(spacy.blank("en"), [TAB], tmp / "mask.spacy", identifiers=("DIRECT", "QUASI"))
    convert_tab(spacy.blank("en"), [TAB], tmp / "all.spacy")
    return tmp


def test_train_supervised_risk_smoke(corpus, tmp_path):
    paths = {"paths.train": str(corpus / "all.spacy"), "paths.dev": str(corpus / "all.spacy")}
    nlp = train(ROOT / "configs" / "supervised_risk.cfg", tmp_path / "risk", paths)
    assert nlp.pipe_names == ["supervised_risk"]
    assert sorted(nlp.get_pipe("supervised_risk").labels) == ["DIRECT", "NO_MASK", "QUASI"]
    doc = nlp.make_doc("Mr John Doe lives in Oslo.")
    doc.spans[SPANS_KEY] = [Span(doc, 1, 3, "PERSON"), Span(doc, 5, 6, "LOC")]
    doc = nlp(doc)
    scores = [s._.risk["supervised"] for s in doc.spans[SPANS_KEY]]
    assert all(0.0 <= p <= 1.0 for p in scores)
    assert all(s._.identifier_type in ("DIRECT", "QUASI", "NO_MASK") for s in doc.spans[SPANS_KEY])
    again = spacy.load(tmp_path / "risk" / "model-last")(doc.copy())
    assert [s._.risk["supervised"] for s in again.spans[SPANS_KEY]] == scores  # deterministic


def test_train_cpu_ner(corpus, tmp_path, model_available):
    """The CPU NER trains on TAB labels; its assembly with the zero-shot pipeline is tested in
    tests/test_trained_pipeline.py."""
    paths = {"paths.train": str(corpus / "mask.spacy"), "paths.dev": str(corpus / "mask.spacy")}
    ner = train(ROOT / "configs" / "privacy_ner_cpu.cfg", tmp_path / "ner", paths)
    assert ner.pipe_names == ["ner"]
    assert {"CODE", "DEM", "DATETIME"} <= set(ner.get_pipe("ner").labels)  # the TAB labels of the fixture


def test_train_transformer_smoke(corpus, tmp_path):
    pytest.importorskip("spacy_transformers")
    pytest.importorskip("torch")
    sys.path.insert(0, str(FIX / "lm"))
    from tiny_mlm import build_tiny_mlm

    model = build_tiny_mlm(tmp_path / "tiny_bert", max_position_embeddings=64)
    nlp = train(
        ROOT / "configs" / "privacy_ner_trf.cfg",
        tmp_path / "trf",
        {
            "paths.train": str(corpus / "mask.spacy"),
            "paths.dev": str(corpus / "mask.spacy"),
            "paths.transformer": model,
            "training.max_steps": 2,
            "components.transformer.model.get_spans.window": 32,
            "components.transformer.model.get_spans.stride": 24,
        },
    )
    assert nlp.pipe_names == ["transformer", "ner"]
    assert "CODE" in nlp.get_pipe("ner").labels
    doc = nlp("Mr Doe lodged application no. 12345/67 in Oslo on 1 October 2021.")
    assert all(e.label_ in {"PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC"} for e in doc.ents)


# --------------------------------------------------------------------------- #
# silver data
# --------------------------------------------------------------------------- #


def test_silver_doc_from_decisions():
    nlp = spacy.blank("en")
    doc = nlp("Mr Doe, a Turkish national, sued Norway on 3 May 2004.")
    spans = [Span(doc, 1, 2, "PERSON"), Span(doc, 4, 6, "DEM"), Span(doc, 8, 9, "LOC"), Span(doc, 10, 13, "DATETIME")]
    doc.spans[SPANS_KEY] = spans
    group = doc.spans[SPANS_KEY]
    group[0]._.identifier_type, group[0]._.masked = "DIRECT", True
    group[1]._.masked = True  # masked, type unknown -> QUASI
    group[2]._.identifier_type, group[2]._.masked = "QUASI", False  # kept -> NO_MASK
    group[3]._.masked = None  # undecided -> masked (fail closed)
    out = silver_doc(doc, source="x")
    assert ents(out) == [("Doe", "PERSON"), ("Turkish national", "DEM"), ("3 May 2004", "DATETIME")]
    assert [(s.text, s.id_) for s in out.spans[GOLD_KEY]] == [
        ("Doe", "DIRECT"),
        ("Turkish national", "QUASI"),
        ("Norway", "NO_MASK"),
        ("3 May 2004", "QUASI"),
    ]
    assert out.user_data["silver_source"] == "x"


def test_silver_leaves_failed_documents_out():
    nlp = spacy.blank("en")
    nlp.add_pipe("privacy_ner", config={"sources": []})
    nlp.add_pipe("mask_all")

    @spacy.Language.component("explode_on_boom")
    def explode(doc):
        if "BOOM" in doc.text:
            raise RuntimeError("boom")
        return doc

    nlp.add_pipe("explode_on_boom")
    out = list(
        annotate_silver(nlp, [("a", "Application no. 48213/09."), ("b", "BOOM"), ("c", "On 3 May 2004.")], batch_size=3)
    )
    assert [(s, d is None, e) for s, d, e in out] == [("a", False, None), ("b", True, "boom"), ("c", False, None)]
    assert ents(out[0][1]) == [("48213/09", "CODE")] and ents(out[2][1]) == [("3 May 2004", "DATETIME")]


def test_silver_cli(tmp_path):
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.txt").write_text("Application no. 48213/09 was lodged on 3 May 2004.", encoding="utf-8")
    (folder / "b.txt").write_text("   ", encoding="utf-8")
    res = runner.invoke(
        app,
        [
            "silver",
            str(folder),
            str(TAB),
            "-o",
            str(tmp_path / "s.spacy"),
            "--pipeline",
            str(RULES),
            "--exclude-docs",
            str(TAB),
        ],
    )
    assert res.exit_code == 0, res.output
    docs = list(DocBin().from_disk(tmp_path / "s.spacy").get_docs(spacy.blank("en").vocab))
    assert [d.user_data["silver_source"] for d in docs] == ["a:text"]  # blank b, TAB docs excluded
    assert ents(docs[0]) == [("48213/09", "CODE"), ("3 May 2004", "DATETIME")]
    res = runner.invoke(
        app, ["silver", str(folder / "b.txt"), "-o", str(tmp_path / "e.spacy"), "--pipeline", str(RULES)]
    )
    assert res.exit_code == 1 and "no text found" in res.output


def test_project_yml_is_valid():
    """spacy project can load project.yml (weasel validates it: unique names, workflows of
    known commands), `train` runs the training workflow, and every config a command trains
    or assembles from exists."""
    from weasel.util import load_project_config

    config = load_project_config(ROOT)
    commands = {c["name"]: c for c in config["commands"]}
    assert config["workflows"]["train"] == [
        "convert",
        "train-ner",
        "train-risk",
        "assemble",
        "evaluate-trained",
        "package",
    ]
    assert set(config["workflows"]["all"]) >= set(config["workflows"]["train"]) | {"silver"}
    for name in ("train-ner", "train-risk", "train-trf", "assemble"):
        cfgs = [w for line in commands[name]["script"] for w in line.split() if w.endswith(".cfg")]
        assert cfgs and all((ROOT / c).exists() for c in cfgs), name


def test_holdout_splits_by_the_doc_id_alone():
    # CRC-32: "d1" = 295091302 (divisible by 2 and 11), "d2" = 2292182492 (divisible by 2 and 4)
    assert [is_held_out(i, 4) for i in ("d1", "d2")] == [False, True]
    assert [is_held_out(i, 11) for i in ("d1", "d2")] == [True, False]
    assert [is_held_out(i, 3) for i in ("d1", "d2")] == [False, False]
    with pytest.raises(ValueError, match="holdout_every must be 2 or more, not 1"):
        is_held_out("d1", 1)


def test_convert_holdout_parts_are_disjoint_and_complete(tmp_path):
    train = convert_tab(spacy.blank("en"), [TAB], tmp_path / "train.spacy", holdout_every=4, holdout="exclude")
    valid = convert_tab(spacy.blank("en"), [TAB], tmp_path / "valid.spacy", holdout_every=4, holdout="only")
    vocab = spacy.blank("en").vocab

    def ids(path):
        return [d.user_data["tab_doc_id"] for d in DocBin().from_disk(path).get_docs(vocab)]

    # d1 has two annotators (two Docs), d2 one
    assert ids(tmp_path / "train.spacy") == ["d1", "d1"] and ids(tmp_path / "valid.spacy") == ["d2"]
    assert (train["docs"], valid["docs"]) == (2, 1)
    with pytest.raises(ValueError, match="holdout must be one of exclude, only, not 'some'"):
        convert_tab(spacy.blank("en"), [TAB], tmp_path / "x.spacy", holdout_every=4, holdout="some")
    assert not (tmp_path / "x.spacy").exists()


def test_convert_cli_holdout(tmp_path):
    out = tmp_path / "v.spacy"
    res = runner.invoke(app, ["convert", str(TAB), "-o", str(out), "--holdout-every", "11", "--holdout", "only"])
    assert res.exit_code == 0, res.output
    assert [d.user_data["tab_doc_id"] for d in DocBin().from_disk(out).get_docs(spacy.blank("en").vocab)] == [
        "d1",
        "d1",
    ]
    res = runner.invoke(app, ["convert", str(TAB), "-o", str(tmp_path / "y.spacy"), "--holdout-every", "1"])
    assert res.exit_code == 1 and "--holdout-every takes 0 (no split) or 2 or more, not 1" in res.output
    res = runner.invoke(app, ["convert", str(TAB), "-o", str(tmp_path / "y.spacy"), "--holdout", "all"])
    assert res.exit_code == 1 and "--holdout takes exclude, only, not 'all'" in res.output
    assert not (tmp_path / "y.spacy").exists()
