"""The dense attacker of reid_risk (reid_dense): the loop on a bag-of-words encoder whose numbers are
worked out by hand, and the real transformers loading code on a tiny BERT the test builds itself."""

import math
import re

import numpy as np
import pytest

from spacy_textsan.risk.reid_attack import Occurrence
from spacy_textsan.risk.reid_dense import DenseBackground, TransformerEncoder, build_dense, passages_of, plan_dense

WORDS = ["golden", "seals", "painter", "silver", "coins", "bronze", "medals", "collects"]


class BagOfWords:
    """An encoder whose token vectors are one-hot words: the text's embedding is its normalised word count."""

    name = "bag-of-words"

    def token_vectors(self, text):
        rows, offsets = [], []
        for m in re.finditer(r"\w+", text):
            if m.group().lower() in WORDS:
                row = np.zeros(len(WORDS))
                row[WORDS.index(m.group().lower())] = 1.0
                rows.append(row)
                offsets.append((m.start(), m.end()))
        if not rows:
            return np.zeros((0, len(WORDS))), np.zeros((0, 2), dtype=int)
        return np.array(rows), np.array(offsets)

    def encode(self, texts):
        out = []
        for text in texts:
            rows, _ = self.token_vectors(text)
            v = rows.mean(axis=0) if len(rows) else np.zeros(len(WORDS))
            out.append(v / max(np.linalg.norm(v), 1e-9))
        return np.array(out)


RECORDS = ["golden seals painter", "silver coins painter", "bronze medals painter"]


def test_passages_overlap():
    text = " ".join(f"w{i}" for i in range(10))
    assert passages_of(text, 4, 1) == ["w0 w1 w2 w3", "w3 w4 w5 w6", "w6 w7 w8 w9"]
    assert passages_of("a b", 4, 1) == ["a b"]


def test_build_and_load(tmp_path):
    built = build_dense(tmp_path, RECORDS, BagOfWords(), words=2, overlap=0)
    assert built.record.tolist() == [0, 0, 1, 1, 2, 2]
    loaded = DenseBackground.load(tmp_path)
    assert loaded is not None and loaded.n_records == 3 and loaded.model == "bag-of-words"
    assert DenseBackground.load(tmp_path / "nothing") is None
    # a record scores its best passage: "golden seals" is 1.0 for record 0
    scores = loaded.record_scores(BagOfWords().encode(["golden seals"]))[0]
    assert scores == pytest.approx([1.0, 0.0, 0.0], abs=1e-3)


def test_plan_dense_masks_until_the_person_hides(tmp_path):
    # The query "painter collects golden seals" is at cosine 3 / (2 sqrt 3) = 0.866 from record 0 and
    # 1 / (2 sqrt 3) = 0.289 from the others, which are not close (under 0.75 of the best): the attacker
    # names record 0 for certain. Without golden, record 0 is at 2 / 3 and the others at 1 / 3, still not
    # close (P = 1), but closer: all records counted, P = 1 / (1 + 2 * 0.5 ** 10) = 0.998 (against 1 -
    # 2e-5 before); without seals too, the three tie at 1 / sqrt(6) and P = 1/3.
    background = build_dense(tmp_path, RECORDS, BagOfWords(), words=10, overlap=0)
    text = "The painter collects golden seals"
    spans = [(4, 11), (12, 20), (21, 27), (28, 33)]
    occurrences = [
        Occurrence("painter", "painter", 0),
        Occurrence("collect", "collects", 1),
        Occurrence("golden", "golden", 2),
        Occurrence("seal", "seals", 3),
    ]
    prior = np.array([1.0, 0.0, 0.0])
    steps, view = plan_dense(BagOfWords(), background, text, occurrences, spans, [7, 8, 6, 5], prior, k=2, margin=0.1)
    assert [s.text for s in steps] == ["golden", "seals"]
    assert steps[0].reason == "reid (dense): 'golden' brings the person's record closer (chance 1.00 -> 1.00)"
    # the three records tie with "painter collects" (collects is in none)
    assert view["risk"] == pytest.approx(1 / 3, abs=1e-6) and view["k"] == 3 and view["reached"]
    # already masked stretches are left out of the query; a flat prior is never at risk
    steps, view = plan_dense(
        BagOfWords(), background, text, occurrences, spans, [7, 8, 6, 5], np.full(3, 1 / 3), k=2, margin=0.1
    )
    assert steps == [] and view["risk"] == pytest.approx(1 / 3, abs=1e-6)
    steps, _ = plan_dense(
        BagOfWords(), background, text, occurrences, spans, [7, 8, 6, 5], prior, k=2, margin=0.1, hidden=[(28, 33)]
    )
    assert [s.text for s in steps] == ["golden"]


def test_plan_dense_budget(tmp_path):
    background = build_dense(tmp_path, RECORDS, BagOfWords(), words=10, overlap=0)
    text = "The painter collects golden seals"
    spans = [(4, 11), (21, 27), (28, 33)]
    occ = [Occurrence("painter", "painter", 0), Occurrence("golden", "golden", 1), Occurrence("seal", "seals", 2)]
    steps, view = plan_dense(
        BagOfWords(), background, text, occ, spans, [7, 6, 5], np.array([1.0, 0, 0]), k=2, margin=0.1, budget=6
    )
    assert [s.text for s in steps] == ["golden"] and not view["reached"]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A 2-layer BERT with a 40-word vocabulary, random weights, saved with its fast tokenizer."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    path = tmp_path_factory.mktemp("tiny-bert")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, "the", "a", "in", "##s"]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(path / "vocab.txt"))
    tokenizer.save_pretrained(str(path))
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(vocab), hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32
    )
    transformers.BertModel(config).save_pretrained(str(path))
    return path


def test_transformer_encoder_loads_a_local_model(tiny_model):
    encoder = TransformerEncoder(tiny_model)
    vectors = encoder.encode(["the painter collects golden seals", "silver coins"])
    assert vectors.shape == (2, 16)
    assert np.linalg.norm(vectors, axis=1) == pytest.approx([1.0, 1.0], abs=1e-5)
    tokens, offsets = encoder.token_vectors("the painter")
    # [CLS] the painter [SEP]: the word pieces carry their character offsets
    assert offsets.tolist() == [[0, 0], [0, 3], [4, 11], [0, 0]]
    pooled = tokens.mean(axis=0)
    assert pooled / np.linalg.norm(pooled) == pytest.approx(encoder.encode(["the painter"])[0], abs=1e-5)
    assert math.isclose(float(np.linalg.norm(encoder.encode(["a"])[0])), 1.0, abs_tol=1e-5)


def test_background_build_dense_cli(tiny_model, tmp_path):
    """textsan background build --dense embeds each record's passages in the index's record order."""
    from typer.testing import CliRunner

    from spacy_textsan.cli import app

    docs = tmp_path / "bios.jsonl"
    docs.write_text(
        '{"id": "kim", "text": "the painter collects golden seals"}\n{"id": "lee", "text": "silver coins"}\n'
    )
    out = tmp_path / "bg"
    result = CliRunner().invoke(
        app,
        [
            "background",
            "build",
            str(out),
            "--docs",
            str(docs),
            "--id-field",
            "id",
            "--dense",
            "--dense-model",
            str(tiny_model),
        ],
    )
    assert result.exit_code == 0, result.output
    dense = DenseBackground.load(out)
    assert dense is not None and dense.n_records == 2 and dense.record.tolist() == [0, 1]
    assert dense.embeddings.shape == (2, 16)
    expected = TransformerEncoder(tiny_model).encode(["the painter collects golden seals"])[0]
    assert np.asarray(dense.embeddings[0], dtype=np.float32) == pytest.approx(expected, abs=2e-3)
    # a rebuild without --dense drops the embeddings of the earlier records
    result = CliRunner().invoke(app, ["background", "build", str(out), "--docs", str(docs), "--id-field", "id"])
    assert result.exit_code == 0, result.output
    assert DenseBackground.load(out) is None
