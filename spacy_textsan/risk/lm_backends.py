"""Log-probability backends for ``lm_risk``: how predictable is a span in its text?

A backend answers one question (Papadopoulou et al. 2022a, §3.2.1): the natural-log probability
of each character span of a text, ``log P(span) <= 0``. A span with a low
log-probability is specific, hence informative and risky; its information
content ``IC(span) = -log P(span)`` is also the masking cost of the optimizer
(Papadopoulou et al. 2022a, §3.3) and the token weight of TAB's weighted precision.

Two backends:

* :class:`WordfreqBackend` (default, offline, no model): the sum of the
  unigram log-frequencies of the span's words, from ``wordfreq``. Rare words
  (surnames, place names, long numbers) are identifying; frequent words are not.
  It ignores the context.
* :class:`MaskedLMBackend`: any local Hugging Face masked language model. The
  span's subword tokens are masked and the log-probabilities of the original
  tokens are summed, as in the paper (which used RoBERTa).

Both implement :class:`SpanLogProbBackend`: ``span_logprobs(text, spans)``
and the batched ``docs_span_logprobs([(text, spans), ...])``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import spacy

from .lm_windows import DocPlan, Offsets, Piece, Window, group_pieces, make_windows, split_span, token_range

#: One document to score: its text and the character spans to score in it.
DocItem = tuple[str, Sequence[Offsets]]


def check_spans(text: str, spans: Iterable[Sequence[int]]) -> list[Offsets]:
    """The spans as (start, end) tuples; ``ValueError`` for a span outside the text."""
    out = []
    for span in spans:
        start, end = int(span[0]), int(span[1])
        if not 0 <= start <= end <= len(text):
            raise ValueError(f"span [{start}, {end}] outside the text (length {len(text)})")
        out.append((start, end))
    return out


class SpanLogProbBackend:
    """Interface of the log-probability backends.

    Subclasses implement :meth:`span_logprobs`; :meth:`docs_span_logprobs`
    batches several documents (the default loops over them).
    """

    #: Short name shown in reasons and reports.
    name = "backend"

    def span_logprobs(self, text: str, spans: Sequence[Offsets]) -> list[float]:
        """Natural-log probability (<= 0) of each span of ``text``, in order."""
        raise NotImplementedError

    def docs_span_logprobs(self, items: Sequence[DocItem]) -> list[list[float]]:
        """:meth:`span_logprobs` for several documents at once."""
        return [self.span_logprobs(text, spans) for text, spans in items]


# --------------------------------------------------------------------------- #
# wordfreq
# --------------------------------------------------------------------------- #


class WordfreqBackend(SpanLogProbBackend):
    """Unigram log-probability of a span from ``wordfreq`` word frequencies.

    ``log P(span) = sum(log(max(word_frequency(w), floor)) for w in words)``,
    where ``words = wordfreq.tokenize(span_text, lang)``: case-folded,
    NFC-normalised words split on Unicode word boundaries, punctuation dropped
    (``"48213/09"`` -> ``["48213", "09"]``, ``"Ms B. Baysal"`` -> ``["ms", "b",
    "baysal"]``). A span without words (punctuation, spaces) gets 0.

    Numbers: wordfreq smooths multi-digit numbers, estimating their frequency
    from the frequency of numbers of the same shape with a prior that favours
    years 1800-2100 (``"2009"`` ~ 4e-5, ``"1234"`` ~ 1e-7, ``"48213"`` ~ 7e-10),
    so long case numbers come out rare (risky) and recent years fairly common.

    Words unknown to wordfreq (most surnames) get ``floor`` (1e-8 by default,
    about the lowest frequency wordfreq lists, so ``log(floor)`` = -18.4).
    Results are cached per word, the ``cache_size`` last looked up (the oldest go first: a
    service that sees new names all day keeps a bounded cache).
    """

    name = "wordfreq"
    #: how many words the cache holds
    cache_size = 16_384

    def __init__(self, lang: str = "en", floor: float = 1e-8, wordlist: str = "best"):
        import wordfreq  # imported here: only this backend needs it

        if not 0 < floor <= 1:
            raise ValueError(f"wordfreq backend: floor must be in (0, 1], not {floor}")
        self._wordfreq = wordfreq
        self.lang = lang
        self.floor = float(floor)
        self.wordlist = wordlist
        self._cache: dict = {}

    def words(self, text: str) -> list[str]:
        """The words of ``text`` that are looked up (wordfreq's tokenizer)."""
        return self._wordfreq.tokenize(text, self.lang)

    def word_logprob(self, word: str) -> float:
        """``log(max(word_frequency(word), floor))``."""
        value = self._cache.get(word)
        if value is None:
            freq = self._wordfreq.word_frequency(word, self.lang, wordlist=self.wordlist)
            if len(self._cache) >= self.cache_size:
                del self._cache[next(iter(self._cache))]  # the oldest (dicts keep their insertion order)
            value = self._cache[word] = math.log(max(freq, self.floor))
        return value

    def text_logprob(self, text: str) -> float:
        """The log-probability of a piece of text, out of context."""
        return float(sum(self.word_logprob(w) for w in self.words(text)))

    def span_logprobs(self, text: str, spans: Sequence[Offsets]) -> list[float]:
        return [self.text_logprob(text[start:end]) for start, end in check_spans(text, spans)]


# --------------------------------------------------------------------------- #
# Masked language model
# --------------------------------------------------------------------------- #


class MaskedLMBackend(SpanLogProbBackend):
    """Span log-probabilities from a local Hugging Face masked language model.

    For each span, the subword tokens overlapping it are replaced by the mask
    token and ``log P(span) = sum(log_softmax(logits)[original_id])`` over
    them (Papadopoulou et al. 2022a, §3.2.1). A span covering no token gets 0.

    Batching: each document is tokenised once and cut into windows of at
    most ``max_length`` tokens (special tokens included) starting every
    ``stride`` tokens (default: half a window); each span is scored in the
    window where it has the most context. Within a window the spans are put
    into groups of spans at least ``min_gap`` tokens apart (at most
    ``max_group_size`` spans per group), and one sequence is built per group
    with all the spans of the group masked. The sequences of all windows and
    documents are sorted by length and run ``batch_size`` at a time, so the
    number of forward passes is about (windows x groups) / batch_size, not
    one per span or per token. With ``max_group_size=1`` every span is
    masked alone (more sequences, context unchanged by other masks).

    ``n_sequences`` and ``n_batches`` count the sequences and forward passes
    run so far. ``model_path`` is any directory with a fast tokenizer and a
    ``AutoModelForMaskedLM`` checkpoint (BERT, RoBERTa, …); nothing is
    downloaded (``local_files_only=True``).
    """

    name = "masked_lm"

    def __init__(
        self,
        model_path: str,
        device: str = "cpu",
        batch_size: int = 8,
        max_length: int = 512,
        stride: int | None = None,
        min_gap: int = 1,
        max_group_size: int | None = None,
    ):
        import torch
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        self._torch = torch
        self.model_path = str(model_path)
        if not Path(self.model_path).is_dir():
            raise FileNotFoundError(
                f"masked LM backend: {model_path} is not a directory (a local Hugging Face "
                f"masked LM saved with save_pretrained is needed; nothing is downloaded)"
            )
        self.tokenizer = AutoTokenizer.from_pretrained(self.model_path, local_files_only=True)
        if not getattr(self.tokenizer, "is_fast", False):
            raise ValueError(f"masked LM backend: {model_path} has no fast tokenizer (character offsets are needed)")
        if self.tokenizer.mask_token_id is None:
            raise ValueError(f"masked LM backend: the tokenizer of {model_path} has no mask token")
        self.model = AutoModelForMaskedLM.from_pretrained(self.model_path, local_files_only=True)
        self.model.to(device)
        self.model.eval()
        self.device = device
        if batch_size < 1:
            raise ValueError("masked LM backend: batch_size must be >= 1")
        if min_gap < 0:
            raise ValueError("masked LM backend: min_gap must be >= 0")
        if max_group_size is not None and max_group_size < 1:
            raise ValueError("masked LM backend: max_group_size must be >= 1 or None")
        self.batch_size = int(batch_size)
        self.min_gap = int(min_gap)
        self.max_group_size = max_group_size

        # Special tokens around one window, e.g. [CLS] ... [SEP] or <s> ... </s>.
        sentinel = self.tokenizer.mask_token_id
        wrapped = self.tokenizer.build_inputs_with_special_tokens([sentinel])
        self._prefix = wrapped[: wrapped.index(sentinel)]
        self._suffix = wrapped[wrapped.index(sentinel) + 1 :]
        limit = max_length
        model_max = getattr(self.tokenizer, "model_max_length", None)
        if model_max is not None and model_max < 10**6:
            limit = min(limit, model_max)
        positions = getattr(self.model.config, "max_position_embeddings", None)
        if positions:
            limit = min(limit, positions)
        self.max_length = int(limit)
        self.window_length = self.max_length - len(self._prefix) - len(self._suffix)
        if self.window_length < 1:
            raise ValueError(f"masked LM backend: max_length {max_length} leaves no room for text")
        self.stride = int(stride) if stride else max(1, self.window_length // 2)
        if not 0 < self.stride <= self.window_length:
            raise ValueError(f"masked LM backend: stride must be in [1, {self.window_length}]")
        self._split = _split_head(self.model)
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        self.n_sequences = 0
        self.n_batches = 0

    # -- planning ----------------------------------------------------------- #

    def plan(self, text: str, spans: Sequence[Offsets]) -> DocPlan:
        """Tokenise ``text`` and decide the windows and mask groups (no model call)."""
        spans = check_spans(text, spans)
        encoding = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        input_ids = list(encoding["input_ids"])
        offsets = [tuple(o) for o in encoding["offset_mapping"]]
        token_ends = [end for _, end in offsets]
        # Make the ends non-decreasing for bisect (they already are for usual tokenizers).
        for i in range(1, len(token_ends)):
            token_ends[i] = max(token_ends[i], token_ends[i - 1])
        windows = [Window(s, e) for s, e in make_windows(len(input_ids), self.window_length, self.stride)]
        per_window: list[list[Piece]] = [[] for _ in windows]
        bounds = [(w.start, w.end) for w in windows]
        for span_index, (start, end) in enumerate(spans):
            first, last = token_range(offsets, token_ends, start, end) if start < end else (0, 0)
            for window_index, piece in split_span(bounds, span_index, first, last):
                per_window[window_index].append(piece)
        for window, pieces in zip(windows, per_window, strict=False):
            window.groups = group_pieces(pieces, self.min_gap, self.max_group_size)
        return DocPlan(input_ids, windows, len(spans))

    def sequence(self, plan: DocPlan, window: Window, group: Sequence[Piece]) -> tuple[list[int], list[int], list[int]]:
        """The model input of one group: (input ids, masked positions, original ids)."""
        ids = list(self._prefix) + plan.input_ids[window.start : window.end] + list(self._suffix)
        positions, targets = [], []
        for piece in group:
            for token in range(piece.start, piece.end):
                position = len(self._prefix) + token - window.start
                positions.append(position)
                targets.append(ids[position])
                ids[position] = self.tokenizer.mask_token_id
        return ids, positions, targets

    # -- scoring ------------------------------------------------------------ #

    def span_logprobs(self, text: str, spans: Sequence[Offsets]) -> list[float]:
        return self.docs_span_logprobs([(text, spans)])[0]

    def docs_span_logprobs(self, items: Sequence[DocItem]) -> list[list[float]]:
        plans = [self.plan(text, spans) for text, spans in items]
        results = [[0.0] * plan.n_spans for plan in plans]
        jobs = []  # (ids, positions, targets, doc index, span index per position)
        for doc_index, plan in enumerate(plans):
            for window in plan.windows:
                for group in window.groups:
                    ids, positions, targets = self.sequence(plan, window, group)
                    owners = [p.span_index for p in group for _ in range(p.start, p.end)]
                    jobs.append((ids, positions, targets, doc_index, owners))
        # Longest first (stable): little padding, deterministic order.
        order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][0]))
        for batch_start in range(0, len(order), self.batch_size):
            batch = [jobs[i] for i in order[batch_start : batch_start + self.batch_size]]
            scores = self._score_batch([(ids, pos, tgt) for ids, pos, tgt, _, _ in batch])
            for (_, _, _, doc_index, owners), token_scores in zip(batch, scores, strict=False):
                for span_index, score in zip(owners, token_scores, strict=False):
                    results[doc_index][span_index] += score
        return results

    def _score_batch(self, batch: Sequence[tuple[list[int], list[int], list[int]]]) -> list[list[float]]:
        """One forward pass: the log-probability of each target id at each masked position."""
        torch = self._torch
        width = max(len(ids) for ids, _, _ in batch)
        input_ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        attention = torch.zeros((len(batch), width), dtype=torch.long)
        rows, cols, targets = [], [], []
        for row, (ids, positions, target_ids) in enumerate(batch):
            input_ids[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
            attention[row, : len(ids)] = 1
            rows.extend([row] * len(positions))
            cols.extend(positions)
            targets.extend(target_ids)
        self.n_batches += 1
        self.n_sequences += len(batch)
        if not rows:
            return [[] for _ in batch]
        with torch.inference_mode():
            input_ids = input_ids.to(self.device)
            attention = attention.to(self.device)
            rows_t = torch.tensor(rows, dtype=torch.long, device=self.device)
            cols_t = torch.tensor(cols, dtype=torch.long, device=self.device)
            if self._split is not None:
                base, head = self._split
                hidden = base(input_ids=input_ids, attention_mask=attention)[0]
                logits = head(hidden[rows_t, cols_t])
            else:
                logits = self.model(input_ids=input_ids, attention_mask=attention).logits[rows_t, cols_t]
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            picked = logprobs.gather(1, torch.tensor(targets, device=self.device).unsqueeze(1)).squeeze(1)
            picked = picked.cpu().tolist()
        out: list[list[float]] = [[] for _ in batch]
        for row, value in zip(rows, picked, strict=False):
            out[row].append(float(value))
        return out


def _split_head(model):
    """(encoder, LM head) of BERT-like (``cls``) and RoBERTa-like (``lm_head``)
    models, so the head runs on the masked positions only; ``None`` for other
    architectures (the full model then runs and its logits are indexed)."""
    import torch

    base = getattr(model, "base_model", None)
    for attribute in ("cls", "lm_head"):
        head = getattr(model, attribute, None)
        if isinstance(head, torch.nn.Module) and isinstance(base, torch.nn.Module) and base is not model:
            return base, head
    return None


# --------------------------------------------------------------------------- #
# Config and metrics helpers
# --------------------------------------------------------------------------- #


@spacy.registry.misc("spacy_textsan.wordfreq_backend.v1")
def create_wordfreq_backend(lang: str = "en", floor: float = 1e-8, wordlist: str = "best") -> WordfreqBackend:
    """Config: ``[components.lm_risk.backend] @misc = "spacy_textsan.wordfreq_backend.v1"``."""
    return WordfreqBackend(lang=lang, floor=floor, wordlist=wordlist)


@spacy.registry.misc("spacy_textsan.masked_lm_backend.v1")
def create_masked_lm_backend(
    model_path: str,
    device: str = "cpu",
    batch_size: int = 8,
    max_length: int = 512,
    stride: int | None = None,
    min_gap: int = 1,
    max_group_size: int | None = None,
) -> MaskedLMBackend:
    """Config: ``@misc = "spacy_textsan.masked_lm_backend.v1"`` with ``model_path``
    a local Hugging Face masked LM directory."""
    return MaskedLMBackend(
        model_path,
        device=device,
        batch_size=batch_size,
        max_length=max_length,
        stride=stride,
        min_gap=min_gap,
        max_group_size=max_group_size,
    )


def token_weighting(backend: SpanLogProbBackend) -> Callable[[str, list[Offsets]], list[float]]:
    """A ``weights(text, spans)`` function for :func:`spacy_textsan.tab.metrics.precision`
    and :func:`~spacy_textsan.tab.metrics.evaluate`: the information content
    ``-log P(span)`` of each span (nats), so that masking informative tokens
    counts more in the weighted precision. (TAB's ``BertTokenWeighting``
    uses ``-log`` of the smallest subword probability; here the subword
    log-probabilities are summed, as for the risk.)"""

    def weights(text: str, spans: list[Offsets]) -> list[float]:
        return [max(0.0, -lp) for lp in backend.span_logprobs(text, spans)]

    return weights
