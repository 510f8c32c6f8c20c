"""Backends of lm_risk: wordfreq values by hand, masked-LM batching against
a straightforward one-forward-pass-per-group reference."""

import math
import sys
from pathlib import Path

import pytest
import spacy

from spacy_textsan.risk.lm_backends import MaskedLMBackend, WordfreqBackend, token_weighting
from spacy_textsan.risk.lm_windows import Piece, best_window, group_pieces, make_windows, split_span, token_range

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "lm"))
from tiny_mlm import build_tiny_mlm  # noqa: E402

wordfreq = pytest.importorskip("wordfreq")
torch = pytest.importorskip("torch")

TEXT = "Mr Galip Yalman, a lawyer in Ankara, was born in 1961. Xyzzy lodged no. 48213/09."


def find(text, needle, nth=0):
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    return (start, start + len(needle))


SPANS = [
    find(TEXT, "Galip Yalman"),
    find(TEXT, "Ankara"),
    find(TEXT, "1961"),
    find(TEXT, "Xyzzy"),
    find(TEXT, "48213/09"),
    find(TEXT, "lawyer"),
    find(TEXT, ","),
]


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    return build_tiny_mlm(tmp_path_factory.mktemp("tiny_mlm"))


@pytest.fixture(scope="module")
def reference_model(model_path):
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_path, local_files_only=True)
    model = AutoModelForMaskedLM.from_pretrained(model_path, local_files_only=True).eval()
    return tokenizer, model


def masked_sum(model, ids, positions):
    """Straightforward reference: one forward pass of the full model on `ids`
    with `positions` masked, log-softmax of the full logits."""
    masked = list(ids)
    for p in positions:
        masked[p] = 4  # [MASK] in tests/fixtures/lm/vocab.txt
    with torch.no_grad():
        logits = model(torch.tensor([masked])).logits[0]
    logprobs = torch.log_softmax(logits, dim=-1)
    return {p: float(logprobs[p, ids[p]]) for p in positions}


def reference_one_span(tokenizer, model, text, span):
    """Mask only the tokens of `span` (found from the offsets of the whole text)."""
    enc = tokenizer(text, return_offsets_mapping=True)
    positions = [i for i, (s, e) in enumerate(enc["offset_mapping"]) if s < e and s < span[1] and e > span[0]]
    if not positions:
        return 0.0
    return sum(masked_sum(model, enc["input_ids"], positions).values())


def reference_from_plan(backend, model, text, spans):
    """Mask exactly the groups the backend planned, one forward pass per group."""
    plan = backend.plan(text, spans)
    out = [0.0] * len(spans)
    for window in plan.windows:
        ids = [2] + plan.input_ids[window.start : window.end] + [3]  # [CLS] ... [SEP]
        for group in window.groups:
            positions = {1 + t - window.start: p.span_index for p in group for t in range(p.start, p.end)}
            for position, value in masked_sum(model, ids, list(positions)).items():
                out[positions[position]] += value
    return out


# --------------------------------------------------------------------------- #
# wordfreq
# --------------------------------------------------------------------------- #


def test_wordfreq_exact_values():
    backend = WordfreqBackend()
    wf = wordfreq.word_frequency
    text = "the Ankara court, Yalman; 48213/09 --"
    spans = [find(text, "the Ankara"), find(text, "Yalman"), find(text, "48213/09"), find(text, "--"), (0, 0)]
    expected = [
        math.log(wf("the", "en")) + math.log(wf("ankara", "en")),
        math.log(1e-8),  # unknown to wordfreq: the floor
        # wordfreq smooths numbers; 48213 (7e-10) is below the floor
        math.log(max(wf("48213", "en"), 1e-8)) + math.log(wf("09", "en")),
        0.0,  # no word
        0.0,
    ]
    assert wf("yalman", "en") == 0.0 and wf("48213", "en") < 1e-8 < wf("09", "en")
    assert backend.span_logprobs(text, spans) == pytest.approx(expected, abs=1e-12)
    assert all(x <= 0 for x in backend.span_logprobs(text, spans))


def test_wordfreq_floor_and_batch():
    backend = WordfreqBackend(floor=1e-5)
    assert backend.span_logprobs("Yalman", [(0, 6)]) == pytest.approx([math.log(1e-5)])
    # rare but known words below the floor are raised to it too
    assert backend.span_logprobs("Galip", [(0, 5)]) == pytest.approx([math.log(1e-5)])
    items = [("the Court", [(0, 3), (4, 9)]), ("", [])]
    assert backend.docs_span_logprobs(items) == [backend.span_logprobs(*items[0]), []]


def test_wordfreq_cache_keeps_the_last_words_and_the_same_values():
    backend = WordfreqBackend()
    backend.cache_size = 2
    first = [backend.word_logprob(w) for w in ("the", "court", "ankara")]
    assert list(backend._cache) == ["court", "ankara"]  # "the" went first
    assert backend.word_logprob("the") == first[0] == math.log(wordfreq.word_frequency("the", "en"))
    assert list(backend._cache) == ["ankara", "the"]


def test_wordfreq_rejects_bad_input():
    with pytest.raises(ValueError):
        WordfreqBackend(floor=0)
    with pytest.raises(ValueError):
        WordfreqBackend().span_logprobs("abc", [(2, 9)])


# --------------------------------------------------------------------------- #
# pure planning helpers
# --------------------------------------------------------------------------- #


def test_make_windows_and_best_window():
    assert make_windows(5, 10, 5) == [(0, 5)]
    assert make_windows(25, 10, 5) == [(0, 10), (5, 15), (10, 20), (15, 25)]
    assert make_windows(12, 10, 5) == [(0, 10), (2, 12)]
    windows = make_windows(25, 10, 5)
    assert best_window(windows, 9, 10) == 1  # most context in (5, 15)
    assert best_window(windows, 7, 8) == 0  # tie: the earlier window
    assert best_window(windows, 0, 1) == 0
    assert best_window(windows, 24, 25) == 3
    assert best_window(windows, 0, 11) == -1


def test_split_span_longer_than_window():
    windows = make_windows(25, 10, 5)
    pieces = split_span(windows, 0, 2, 22)
    assert [(w, p.start, p.end) for w, p in pieces] == [(0, 2, 10), (2, 10, 20), (3, 20, 22)]
    assert split_span(windows, 0, 3, 3) == []


def test_group_pieces():
    pieces = [Piece(0, 0, 2), Piece(1, 2, 3), Piece(2, 4, 5), Piece(3, 5, 6)]
    groups = group_pieces(pieces, min_gap=1)
    assert [[p.span_index for p in g] for g in groups] == [[0, 2], [1, 3]]
    assert [[p.span_index for p in g] for g in group_pieces(pieces, min_gap=0)] == [[0, 1, 2, 3]]
    assert [[p.span_index for p in g] for g in group_pieces(pieces, min_gap=0, max_group_size=1)] == [
        [0],
        [1],
        [2],
        [3],
    ]


def test_token_range():
    offsets = [(0, 2), (3, 8), (8, 10), (10, 10), (11, 15)]
    ends = [2, 8, 10, 10, 15]
    assert token_range(offsets, ends, 3, 10) == (1, 3)
    assert token_range(offsets, ends, 4, 5) == (1, 2)  # inside a token
    assert token_range(offsets, ends, 2, 3) == (0, 0)  # only a space
    assert token_range(offsets, ends, 9, 12) == (2, 5)
    assert token_range(offsets, ends, 10, 11) == (0, 0)  # zero-width token only


# --------------------------------------------------------------------------- #
# masked LM
# --------------------------------------------------------------------------- #


def test_one_span_per_sequence_matches_reference(model_path, reference_model):
    tokenizer, model = reference_model
    backend = MaskedLMBackend(model_path, max_group_size=1)
    values = backend.span_logprobs(TEXT, SPANS)
    expected = [reference_one_span(tokenizer, model, TEXT, span) for span in SPANS]
    assert values == pytest.approx(expected, abs=1e-5)
    assert all(v < 0 for v in values)
    assert backend.n_sequences == len(SPANS)


def test_grouped_masking_matches_reference(model_path, reference_model):
    _, model = reference_model
    backend = MaskedLMBackend(model_path, batch_size=3)
    plan = backend.plan(TEXT, SPANS)
    assert max(len(g) for w in plan.windows for g in w.groups) > 1  # spans really grouped
    values = backend.span_logprobs(TEXT, SPANS)
    assert values == pytest.approx(reference_from_plan(backend, model, TEXT, SPANS), abs=1e-5)
    # grouping changes the context, so it differs from masking one span at a time
    alone = MaskedLMBackend(model_path, max_group_size=1).span_logprobs(TEXT, SPANS)
    assert values != pytest.approx(alone, abs=1e-5)


def test_full_model_path_matches_head_only(model_path):
    backend = MaskedLMBackend(model_path)
    fast = backend.span_logprobs(TEXT, SPANS)
    backend._split = None  # run the full model and index its logits
    assert backend.span_logprobs(TEXT, SPANS) == pytest.approx(fast, abs=1e-5)


def test_batching_few_forward_passes_and_deterministic(model_path):
    words = TEXT.split()
    texts = [" ".join(words[i:] + words[:i]) for i in range(6)]
    items = [
        (t, [find(t, w) for w in ("Galip", "Yalman", "Ankara", "lawyer", "1961", "Xyzzy", "48213/09")]) for t in texts
    ]
    backend = MaskedLMBackend(model_path, batch_size=8)
    first = backend.docs_span_logprobs(items)
    span_tokens = sum(backend.plan(t, s).n_span_tokens for t, s in items)
    assert span_tokens >= 50
    assert backend.n_sequences <= 3 * len(items)
    assert backend.n_batches == math.ceil(backend.n_sequences / 8) <= 3
    assert backend.n_batches * 10 < span_tokens
    assert backend.docs_span_logprobs(items) == first  # deterministic, bit for bit
    # batched across documents = one document at a time
    single = MaskedLMBackend(model_path)
    for (text, spans), values in zip(items, first, strict=False):
        assert single.span_logprobs(text, spans) == pytest.approx(values, abs=1e-5)


def test_long_document_windows(model_path, reference_model):
    _, model = reference_model
    text = " ".join(["the applicant was born in ankara and lives in istanbul ."] * 6)
    spans = [find(text, "ankara", i) for i in range(6)] + [find(text, "istanbul", 5), (len(text) - 1, len(text))]
    backend = MaskedLMBackend(model_path, max_length=16, stride=7)
    plan = backend.plan(text, spans)
    assert len(plan.input_ids) == 66 and len(plan.windows) >= 8
    used = [i for i, w in enumerate(plan.windows) if w.groups]
    assert used[-1] == len(plan.windows) - 1  # spans at the end are scored in the last window
    values = backend.span_logprobs(text, spans)
    assert all(v < 0 for v in values)
    assert values == pytest.approx(reference_from_plan(backend, model, text, spans), abs=1e-5)


def test_span_longer_than_window(model_path, reference_model):
    _, model = reference_model
    text = "the applicant was born in ankara and lives in istanbul ."
    spans = [(0, len(text))]
    backend = MaskedLMBackend(model_path, max_length=8, stride=3)
    plan = backend.plan(text, spans)
    assert plan.n_span_tokens == 11 and sum(len(w.groups) for w in plan.windows) > 1
    values = backend.span_logprobs(text, spans)
    assert values == pytest.approx(reference_from_plan(backend, model, text, spans), abs=1e-5)


def test_spans_without_tokens_and_empty_docs(model_path):
    backend = MaskedLMBackend(model_path)
    text = "Galip  Yalman"
    assert backend.span_logprobs(text, [(5, 7), (3, 3), (0, 5)])[:2] == [0.0, 0.0]
    assert backend.span_logprobs("", []) == []
    assert backend.span_logprobs("", [(0, 0)]) == [0.0]
    assert backend.docs_span_logprobs([]) == []
    assert backend.n_batches == 1  # only the (0, 5) span needed the model
    with pytest.raises(ValueError):
        backend.span_logprobs(text, [(0, 99)])


def test_registered_constructors(model_path):
    make = spacy.registry.misc.get("spacy_textsan.masked_lm_backend.v1")
    backend = make(model_path=model_path, batch_size=2, max_length=32)
    assert isinstance(backend, MaskedLMBackend) and backend.window_length == 30 and backend.stride == 15
    wf = spacy.registry.misc.get("spacy_textsan.wordfreq_backend.v1")()
    assert isinstance(wf, WordfreqBackend) and wf.lang == "en"
    with pytest.raises(OSError):
        make(model_path=str(Path(model_path) / "missing"))


def test_token_weighting_is_information_content(model_path):
    text = "Galip Yalman lives in Ankara"
    spans = [(0, 5), (6, 12), (22, 28)]
    for backend in (WordfreqBackend(), MaskedLMBackend(model_path)):
        weights = token_weighting(backend)(text, spans)
        assert weights == pytest.approx([-x for x in backend.span_logprobs(text, spans)])
        assert all(w > 0 for w in weights)
