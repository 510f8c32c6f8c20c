"""The hand-written hard probes (benchmarks/multidomain/probes.txt) through the
default pipeline: no probe's string survives, with each strategy."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "benchmarks" / "multidomain"))
md = pytest.importorskip("multidomain_eval")


@pytest.fixture(scope="module")
def probes():
    return md.parse_probes((ROOT / "benchmarks" / "multidomain" / "probes.txt").read_text(encoding="utf-8"))


@pytest.mark.parametrize("strategy", ["mask", "generalize", "pseudonym"])
def test_no_probe_leaks(probes, strategy, model_available, monkeypatch):
    from spacy_textsan.pipeline import load_pipeline
    from spacy_textsan.run import sanitize_texts

    monkeypatch.setenv("TEXTSAN_KEY", "probe-test-key")
    nlp = load_pipeline(None, overrides={"components.generalizer.strategy": strategy})
    results = list(sanitize_texts(nlp, [text for text, _ in probes]))
    assert all(r.status == "ok" for r in results)
    leaked = [
        (text, md.probe_leaks(strings, r.sanitized))
        for (text, strings), r in zip(probes, results, strict=False)
        if md.probe_leaks(strings, r.sanitized)
    ]
    assert leaked == []
