"""Wikidata dump importer: small dumps written by the tests (plain, gzip, bz2)."""

import bz2
import gzip
import io
import json
import sys
import tracemalloc

import pytest
import typer
from typer.testing import CliRunner

from spacy_textsan.cli.gazetteer_dump import import_dump_cmd, parse_type_pairs
from spacy_textsan.detect.gazetteer.dump_importer import import_dump, keep_closure
from spacy_textsan.detect.gazetteer.dump_reader import DumpFormatError, chain_step, claim_targets, iter_dump_entities
from spacy_textsan.detect.gazetteer.kb import GazetteerKB

KEEP = {"Q28640": "DEM", "Q486972": "LOC", "Q6256": "LOC"}  # profession, human settlement, country


def claim(target, rank="normal"):
    num = int(target[1:])
    return {
        "mainsnak": {
            "snaktype": "value",
            "property": "P",
            "datavalue": {
                "value": {"entity-type": "item", "numeric-id": num, "id": target},
                "type": "wikibase-entityid",
            },
        },
        "type": "statement",
        "rank": rank,
    }


def item(qid, label=None, *, lang="en", aliases=(), description="", **claims):
    """A dump entity; ``P31=["Q5", ("Q6", "deprecated")]``."""
    ent = {"type": "item", "id": qid, "labels": {}, "aliases": {}, "descriptions": {}, "claims": {}}
    if label:
        ent["labels"][lang] = {"language": lang, "value": label}
    if aliases:
        ent["aliases"]["en"] = [{"language": "en", "value": a} for a in aliases]
    if description:
        ent["descriptions"]["en"] = {"language": "en", "value": description}
    for prop, targets in claims.items():
        ent["claims"][prop] = [claim(*t) if isinstance(t, tuple) else claim(t) for t in targets]
    return ent


ENTITIES = [
    item("Q62", "Earth"),  # before its referrer: a third pass
    {
        "type": "property",
        "id": "P31",
        "datatype": "wikibase-item",
        "labels": {"en": {"language": "en", "value": "instance of"}},
    },
    item(
        "Q1",
        "drummer",
        aliases=["drum player"],
        description="percussionist who plays drums",
        P31=["Q28640"],
        P279=["Q2"],
    ),
    item("Q2", "percussionist", P31=["Q28640"], P279=["Q3"]),
    item("Q3", "musician", P31=["Q28640"], P279=["Q4"]),
    item("Q4", "performer", P279=["Q215627"]),
    item("Q215627", "person"),
    item("Q28640", "profession", P279=["Q12737077"]),
    item("Q12737077", "occupation"),
    item("Q486972", "human settlement", P279=["Q60"]),
    item("Q60", "geographic location", P361=["Q62"]),  # only "part of"
    item("Q515", "city", P31=["Q7"], P279=["Q486972"]),
    item("Q50", "national capital", P279=["Q515"]),  # kept transitively
    item(
        "Q585",
        "Oslo",
        aliases=["Christiania"],
        description="capital of Norway",
        P31=["Q515", ("Q50", "preferred")],
        P361=["Q20"],
    ),
    item("Q64", "Berlin", aliases=["Berlin, Germany"], P31=[("Q6256", "deprecated"), "Q515"]),
    item("Q6256", "country", P279=["Q63"]),
    item("Q63", "entité politique", lang="fr"),  # no English label
    item("Q20", "Norway", P31=["Q6256"]),
    {"type": "lexeme", "id": "L1", "lemmas": {"en": {"language": "en", "value": "drum"}}},
    item("Q900", "cycle A", P279=["Q901", "Q486972"]),
    item("Q901", "cycle B", P279=["Q900"]),
    item("Q902", "cyclic thing", P31=["Q900"]),
    item("Q800", "Atlantis", P31=[("Q515", "deprecated"), "Q801"]),
    item("Q801", "legendary place"),
    item("Q850", "Dorf", lang="de", P31=["Q486972"]),
    item("Q851", "Trondheim", lang="mul", P31=["Q515"]),
]

EXPECTED = {  # id: (label, type, aliases, chain)
    "Q1": ("drummer", "DEM", ["drum player"], ["percussionist", "musician", "performer", "person"]),
    "Q2": ("percussionist", "DEM", [], ["musician", "performer", "person"]),
    "Q3": ("musician", "DEM", [], ["performer", "person"]),
    "Q515": ("city", "LOC", [], ["human settlement", "geographic location", "Earth"]),
    "Q50": ("national capital", "LOC", [], ["city", "human settlement", "geographic location", "Earth"]),
    "Q585": (
        "Oslo",
        "LOC",
        ["Christiania"],
        ["national capital", "city", "human settlement", "geographic location", "Earth"],
    ),
    "Q64": ("Berlin", "LOC", ["Berlin, Germany"], ["city", "human settlement", "geographic location", "Earth"]),
    "Q20": ("Norway", "LOC", [], ["country", "Q63"]),
    "Q900": ("cycle A", "LOC", [], ["cycle B"]),
    "Q901": ("cycle B", "LOC", [], ["cycle A"]),
    "Q902": ("cyclic thing", "LOC", [], ["cycle A", "cycle B"]),
    "Q851": ("Trondheim", "LOC", [], ["city", "human settlement", "geographic location", "Earth"]),
}


def write_dump(path, entities, *, framing=True, extra_lines=()):
    """A dump in Wikidata's layout (``[``, entity lines ending with ``,``, ``]``)."""
    lines = [json.dumps(e, ensure_ascii=False) for e in entities] + list(extra_lines)
    if framing:
        text = "[\n" + ",\n".join(lines) + "\n]\n"
    else:
        text = "\n".join(lines) + "\n"
    data = text.encode("utf-8")
    name = str(path)
    if name.endswith(".gz"):
        data = gzip.compress(data)
    elif name.endswith(".bz2"):
        data = bz2.compress(data)
    path.write_bytes(data)
    return path


def summary(kb):
    return {e.id: (e.label, e.tab_type, e.aliases, e.chain) for e in kb.entries}


@pytest.mark.parametrize("name", ["dump.json", "dump.json.gz", "dump.json.bz2"])
def test_import_exact_entries(tmp_path, name):
    dump = write_dump(tmp_path / name, ENTITIES)
    kb, stats = import_dump(dump, keep_classes=set(KEEP), class_types=KEEP, progress=False)
    assert summary(kb) == EXPECTED
    assert list(summary(kb)) == list(EXPECTED)  # dump order
    drummer = kb.get("Q1")
    assert drummer.source == "wikidata-dump" and drummer.description == "percussionist who plays drums"
    assert kb.get("Q585").description == "capital of Norway"
    assert [e.id for e in kb.lookup("Berlin, Germany")] == ["Q64"]
    assert stats["read"] == len(ENTITIES) == 26
    assert stats["skipped"] == 2 and stats["items"] == 24 and stats["malformed"] == 0
    assert stats["kept"] == 12 and stats["no_label"] == 1
    assert stats["passes"] == 3  # Earth comes before "geographic location"
    assert stats["kept_classes"] == 7  # 3 keep + city, national capital, cycle A/B
    assert stats["by_type"] == {"LOC": 9, "ORG": 0, "DEM": 3, "MISC": 0}


def test_two_passes_when_ancestors_come_later(tmp_path):
    entities = [e for e in ENTITIES if e["id"] != "Q62"] + [ENTITIES[0]]
    kb, stats = import_dump(write_dump(tmp_path / "d.json", entities), class_types=KEEP, progress=False)
    assert summary(kb) == EXPECTED and stats["passes"] == 2


def test_max_chain_and_literal_order(tmp_path):
    dump = write_dump(tmp_path / "d.json", ENTITIES)
    kb, _ = import_dump(dump, class_types=KEEP, max_chain=2, progress=False)
    assert kb.get("Q585").chain == ["national capital", "city"]
    kb, _ = import_dump(dump, class_types=KEEP, max_chain=0, progress=False)
    assert all(e.chain == [] for e in kb.entries)
    kb, _ = import_dump(dump, class_types=KEEP, prefer_subclass=False, progress=False)
    assert kb.get("Q1").chain == ["profession", "occupation"]  # P31 first at every node
    assert kb.get("Q515").chain == ["Q7"]  # city P31 Q7: not in the dump


def test_direct_only_and_untyped_keep_class(tmp_path):
    dump = write_dump(tmp_path / "d.json", ENTITIES)
    kb, stats = import_dump(
        dump, keep_classes={"Q486972", "Q28640"}, class_types={"Q28640": "DEM"}, transitive=False, progress=False
    )
    assert {e.id: e.tab_type for e in kb.entries} == {
        "Q1": "DEM",
        "Q2": "DEM",
        "Q3": "DEM",
        "Q515": "MISC",
        "Q900": "MISC",
    }
    with pytest.raises(ValueError, match="not one of"):
        import_dump(dump, class_types={"Q5": "PERSON"}, progress=False)
    with pytest.raises(ValueError, match="class id"):
        import_dump(dump, keep_classes={"city"}, progress=False)


def test_claims_ranks_and_steps():
    ent = item("Q9", "x", P31=["Q1", ("Q2", "deprecated"), ("Q3", "preferred")], P361=["Q4"])
    ent["claims"]["P31"].append({"mainsnak": {"snaktype": "novalue"}, "rank": "normal"})
    assert claim_targets(ent, "P31") == [3, 1]
    assert chain_step(ent) == 3
    assert chain_step(item("Q9", P361=["Q4"], P8225=["Q5"])) == 5
    assert chain_step(item("Q9", P361=["Q4"])) == 4
    assert chain_step(item("Q9")) == -1


def test_keep_closure_is_cycle_safe_and_nearest():
    supers = {10: (11,), 11: (10, 1), 12: (13, 2), 13: (1,), 14: (15,), 15: (14,)}
    closure = keep_closure({1: "LOC", 2: "DEM"}, supers)
    assert closure == {1: "LOC", 2: "DEM", 10: "LOC", 11: "LOC", 12: "DEM", 13: "LOC"}


def test_iter_tolerates_framing_and_jsonl(tmp_path):
    framed = write_dump(tmp_path / "a.json", ENTITIES[:3])
    plain = write_dump(tmp_path / "b.json", ENTITIES[:3], framing=False)
    ids = [e["id"] for e in iter_dump_entities(framed)]
    assert ids == ["Q62", "P31", "Q1"] == [e["id"] for e in iter_dump_entities(plain)]


@pytest.mark.parametrize("name", ["bad.json", "bad.json.bz2"])
def test_malformed_line_names_file_and_line(tmp_path, name):
    dump = write_dump(tmp_path / name, ENTITIES, extra_lines=['{"type": "item", "id": "Q77", "labels": {'])
    bad_line = len(ENTITIES) + 2  # "[" is line 1
    with pytest.raises(DumpFormatError) as err:
        list(iter_dump_entities(dump))
    assert err.value.line == bad_line and err.value.path == str(dump)
    assert f"{dump}:{bad_line}:" in str(err.value)
    with pytest.raises(DumpFormatError, match=f":{bad_line}:"):
        import_dump(dump, class_types=KEEP, progress=False)
    kb, stats = import_dump(dump, class_types=KEEP, on_error="skip", progress=False)
    assert stats["malformed"] == 1 and stats["read"] == len(ENTITIES) and summary(kb) == EXPECTED


def test_non_object_lines(tmp_path):
    dump = write_dump(tmp_path / "d.json", ENTITIES[:2], extra_lines=["[1, 2]", '{"type": "item"}'])
    counts = {}
    assert len(list(iter_dump_entities(dump, on_error="skip", stats=counts))) == 2
    assert counts["malformed"] == 2
    with pytest.raises(DumpFormatError, match="JSON object"):
        list(iter_dump_entities(dump))
    with pytest.raises(ValueError):
        list(iter_dump_entities(dump, on_error="ignore"))


def test_progress_bar_counts_bytes_on_a_tty(tmp_path, monkeypatch):
    dump = write_dump(tmp_path / "d.json.gz", ENTITIES)
    list(iter_dump_entities(dump, progress=True))  # not a TTY under pytest: no bar, no error

    class Tty(io.StringIO):
        def isatty(self):
            return True

    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    kb, stats = import_dump(dump, class_types=KEEP, progress=True)
    size = dump.stat().st_size
    assert len(kb) == 12
    for n in range(1, stats["passes"] + 1):
        assert f"pass {n}:" in err.getvalue()
    assert f"{size}/{size}" in err.getvalue()


def _filler(start, n, *, kept=False):
    """Items that are not kept (instances of an unknown class), or kept cities."""
    target = "Q515" if kept else "Q5"
    return [
        item(
            f"Q{start + i}",
            f"filler {i}",
            aliases=[f"alias {i}"],
            description="some item " * 5,
            P31=[target],
            P361=[f"Q{start + i + 1}"],
        )
        for i in range(n)
    ]


def _peak(dump):
    tracemalloc.start()
    try:
        kb, stats = import_dump(dump, class_types=KEEP, progress=False)
        return tracemalloc.get_traced_memory()[1], stats
    finally:
        tracemalloc.stop()


def test_memory_flat_in_the_number_of_items_not_kept(tmp_path):
    small = write_dump(tmp_path / "small.json.gz", ENTITIES + _filler(10**6, 200))
    big = write_dump(tmp_path / "big.json.gz", ENTITIES + _filler(10**6, 2000))
    kept = write_dump(tmp_path / "kept.json.gz", ENTITIES + _filler(10**6, 2000, kept=True))
    _peak(write_dump(tmp_path / "warm.json.gz", ENTITIES))  # first-call allocations (caches) out of the way
    peak_small, s_small = _peak(small)
    peak_big, s_big = _peak(big)
    peak_kept, s_kept = _peak(kept)
    assert s_big["read"] - s_small["read"] == 1800 and s_big["kept"] == s_small["kept"] == 12
    # 10x more items that are not kept: the peak stays flat (parsing one line at a time)
    assert peak_big < peak_small * 1.25 + 64 * 1024, (peak_small, peak_big)
    # what does grow: the kept entities (the measure is not blind)
    assert s_kept["kept"] == 2012 and peak_kept > peak_big + 400 * 1024, (peak_big, peak_kept)


# -- CLI -------------------------------------------------------------------------------
app = typer.Typer()
app.command("import-dump")(import_dump_cmd)


@app.command()
def version():  # a second command, so typer keeps the sub-command name
    pass


runner = CliRunner()


def test_cli_writes_kb(tmp_path):
    dump = write_dump(tmp_path / "d.json.bz2", ENTITIES)
    out = tmp_path / "kb"
    args = ["import-dump", str(dump), str(out), "--no-progress"]
    for qid, tab_type in KEEP.items():
        args += ["--keep", qid, "--type", f"{qid}={tab_type.lower()}"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "(12 entries)" in text and "kept LOC 9" in text
    assert summary(GazetteerKB.from_disk(out)) == EXPECTED
    meta = json.loads((out / "meta.json").read_text())
    assert meta["source"] == "wikidata-dump" and meta["keep_classes"] == KEEP
    assert meta["import_stats"]["kept"] == 12 and meta["n_entries"] == 12


def test_cli_default_preset_and_errors(tmp_path):
    dump = write_dump(tmp_path / "d.json", ENTITIES, extra_lines=["not json"])
    out = tmp_path / "kb"
    result = runner.invoke(app, ["import-dump", str(dump), str(out), "--no-progress"])
    assert result.exit_code == 1 and f"{dump}:{len(ENTITIES) + 2}:" in result.output
    result = runner.invoke(app, ["import-dump", str(dump), str(out), "--on-error", "skip", "--no-progress"])
    assert result.exit_code == 0, result.output
    kb = GazetteerKB.from_disk(out)  # preset: profession (DEM), human settlement and country (LOC), ...
    assert kb.get("Q1").tab_type == "DEM" and kb.get("Q585").tab_type == "LOC"
    assert len(kb) == 13 and kb.get("Q28640").chain == ["occupation"]  # profession: subclass of occupation
    assert runner.invoke(app, ["import-dump", str(dump), str(out), "--type", "Q5=PERSON"]).exit_code == 1
    assert runner.invoke(app, ["import-dump", str(dump), str(out), "--keep", "city"]).exit_code == 1
    assert runner.invoke(app, ["import-dump", str(tmp_path / "nope.json"), str(out)]).exit_code == 1
    assert parse_type_pairs(["Q515=loc"]) == {"Q515": "LOC"}
    with pytest.raises(ValueError):
        parse_type_pairs(["Q515"])
