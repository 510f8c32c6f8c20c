"""The textsan command line, end to end, on hand-written fixtures."""

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
import srsly
from spacy.language import Language
from typer.testing import CliRunner

from spacy_textsan.cli import app
from spacy_textsan.run import FAILED_TEXT
from spacy_textsan.tab import parse_tab

FIX = Path(__file__).parent / "fixtures" / "cli"
RULES = str(FIX / "rules_only.cfg")
runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_sanitize_txt(tmp_path):
    src = tmp_path / "in" / "letter.txt"
    src.parent.mkdir()
    src.write_text("Dear Mr Ada Lee, your case 48213/09 of 2 May 2001. Lee, call 0312 555 12 34.\n")
    res = run("sanitize", src, "--out", tmp_path / "out", "--pipeline", RULES)
    assert res.exit_code == 0, res.output
    assert (
        tmp_path / "out" / "letter.txt"
    ).read_text() == "Dear [PERSON 1], your case [CODE 1] of [DATETIME 1]. [PERSON 1], call [CODE 2].\n"
    report = list(srsly.read_jsonl(tmp_path / "out.report" / "report.jsonl"))
    assert len(report) == 1 and report[0]["status"] == "ok" and report[0]["n_masked"] == 5
    assert [(s["text"], s["entity_id"], s["reasons"]) for s in report[0]["spans"]][:2] == [
        ("Mr Ada Lee", "PERSON-1", ["policy:mask_all"]),
        ("48213/09", "CODE-1", ["policy:mask_all"]),
    ]


def test_sanitize_tab_json_writes_the_tab_contract(tmp_path):
    res = run("sanitize", FIX / "tab_small.json", "--out", tmp_path, "--pipeline", RULES)
    assert res.exit_code == 0, res.output
    reports = tmp_path.parent / f"{tmp_path.name}.report"  # the files with original strings: beside OUT
    assert sorted(p.name for p in reports.iterdir()) == ["masked_spans.json", "predictions.json", "report.jsonl"]
    # rules only: "Ankara" after "in" and before a sentence end is a place of the KB, the propagated surname
    # is masked
    assert srsly.read_json(reports / "masked_spans.json") == {
        "case-1": [[15, 30], [44, 48], [52, 58], [60, 66]],
        "case-2": [[16, 24], [39, 52]],
    }
    predictions = srsly.read_json(reports / "predictions.json")
    reread = parse_tab(predictions)
    assert [(m.text, m.entity_type, m.entity_id, m.identifier_type) for m in reread[0].annotations["textsan"]] == [
        ("Mr Galip Yalman", "PERSON", "PERSON-1", "QUASI"),
        ("1961", "DATETIME", "DATETIME-1", "QUASI"),
        ("Ankara", "LOC", "LOC-1", "QUASI"),
        ("Yalman", "PERSON", "PERSON-1", "QUASI"),
    ]
    assert list(srsly.read_jsonl(tmp_path / "sanitized.jsonl")) == [
        {
            "doc_id": "case-1",
            "text": "The applicant, [PERSON 1], was born in [DATETIME 1] in [LOC 1]. [PERSON 1] is Turkish.",
        },
        {"doc_id": "case-2", "text": "Application no. [CODE 1] was lodged on [DATETIME 1]."},
    ]


def test_evaluate_masked_file_gives_hand_computed_metrics(tmp_path):
    masked = tmp_path / "masked.json"
    srsly.write_json(masked, {"case-1": [[15, 30], [44, 48], [60, 66]], "case-2": [[16, 24], [39, 52]]})
    res = run("evaluate", FIX / "tab_small.json", "--masked", masked, "--output", tmp_path / "m.json")
    assert res.exit_code == 0, res.output
    m = srsly.read_json(tmp_path / "m.json")["metrics"]
    # tokens to mask: Mr Galip Yalman + Yalman (4, DIRECT), 1961, Ankara, 48213 09 (DIRECT),
    # 14 March 2009 -> 11 tokens, all but "Ankara" masked
    assert m["recall"] == pytest.approx(10 / 11)
    assert m["recall_direct"] == 1.0
    assert m["recall_quasi"] == pytest.approx(4 / 5)
    assert m["mention_recall"] == pytest.approx(5 / 6)
    assert m["er_di"] == 1.0
    assert m["er_qi"] == pytest.approx(2 / 3)  # Ankara's entity is not masked
    assert m["precision"] == 1.0  # all 10 masked tokens are gold DIRECT/QUASI
    assert m["per_type_recall"]["LOC"] == 0.0
    assert m["weighted_precision"] is None
    # weighted precision: add the false positive "The" (case-1 [0, 3]); each token weighs -log P(word)
    from spacy_textsan.risk.lm_backends import WordfreqBackend

    masked_fp = tmp_path / "masked_fp.json"
    srsly.write_json(masked_fp, {"case-1": [[0, 3], [15, 30], [44, 48], [60, 66]], "case-2": [[16, 24], [39, 52]]})
    weighted = run(
        "evaluate",
        FIX / "tab_small.json",
        "--masked",
        masked_fp,
        "--weights",
        "wordfreq",
        "--output",
        tmp_path / "w.json",
    )
    assert weighted.exit_code == 0, weighted.output
    w = srsly.read_json(tmp_path / "w.json")["metrics"]
    assert w["precision"] == pytest.approx(10 / 11)
    backend = WordfreqBackend()
    weight = {
        t: -backend.span_logprobs(t, [(0, len(t))])[0]
        for t in ["The", "Mr", "Galip", "Yalman", "1961", "48213", "09", "14", "March", "2009"]
    }
    true = sum(weight[t] for t in ["Mr", "Galip", "Yalman", "1961", "Yalman", "48213", "09", "14", "March", "2009"])
    assert w["weighted_precision"] == pytest.approx(true / (true + weight["The"]))
    assert w["weighted_precision"] > w["precision"]  # "The" carries little information


def test_evaluate_runs_a_pipeline(tmp_path):
    res = run("evaluate", FIX / "tab_small.json", "--pipeline", RULES, "--output", tmp_path / "m.json")
    assert res.exit_code == 0, res.output
    out = srsly.read_json(tmp_path / "m.json")
    assert out["metrics"]["recall"] == 1.0  # the 11 tokens, Ankara by the cued-place rule
    assert out["timing"]["docs_per_s"] > 0
    assert "ERdi" in res.output


def test_sanitize_csv_keeps_rows_and_other_columns(tmp_path):
    res = run("sanitize", FIX / "notes.csv", "--column", "note", "--out", tmp_path, "--pipeline", RULES)
    assert res.exit_code == 0, res.output
    assert (tmp_path / "notes.csv").read_text() == (
        "id,note,ward\n"
        '1,"[PERSON 1], born [DATETIME 1], called [CODE 1].",north\n'
        '2,"No identifiers, just a ""quoted"" remark\non two lines.",south\n'
        "3,[PERSON 1] paid [QUANTITY 1] on [DATETIME 1].,east\n"
    )


def test_sanitize_jsonl_field(tmp_path):
    res = run(
        "sanitize",
        FIX / "notes.jsonl",
        "--field",
        "text",
        "--out",
        tmp_path,
        "--pipeline",
        RULES,
        "--mask-format",
        "***",
    )
    assert res.exit_code == 0, res.output
    assert list(srsly.read_jsonl(tmp_path / "notes.jsonl")) == [
        {"id": "a", "text": "*** wrote on ***.", "lang": "en"},
        {"id": "b", "text": "Nothing to hide.", "lang": "en"},
    ]


def test_patterns_allow_and_deny_lists(tmp_path):
    src = tmp_path / "t.txt"
    src.write_text("Patient PX-77 of Dr Ada Lee at St Olav ward, EUR 300.")
    (tmp_path / "deny.txt").write_text("# wards\nLOC\tSt Olav\n")
    (tmp_path / "allow.txt").write_text("EUR 300\n")
    res = run(
        "sanitize",
        src,
        "--out",
        tmp_path / "o",
        "--pipeline",
        RULES,
        "--pattern",
        r"CODE=PX-\d+",
        "--deny-list",
        tmp_path / "deny.txt",
        "--allow-list",
        tmp_path / "allow.txt",
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o" / "t.txt").read_text() == "Patient [CODE 1] of [PERSON 1] at [LOC 1] ward, EUR 300."
    bad = run("sanitize", src, "--out", tmp_path / "o", "--pattern", "NAME=x")
    assert bad.exit_code != 0 and "LABEL=REGEX" in bad.output


def test_bad_input_names_file_and_line_and_writes_nothing(tmp_path):
    res = run("sanitize", FIX / "notes.jsonl", FIX / "broken.jsonl", "--out", tmp_path / "o", "--pipeline", RULES)
    assert res.exit_code == 1
    assert "broken.jsonl:2:" in res.output
    assert not (tmp_path / "o").exists()
    missing = run("sanitize", tmp_path / "nope.txt", "--out", tmp_path / "o")
    assert missing.exit_code == 1 and "nope.txt" in missing.output
    assert "Traceback" not in missing.output


@Language.factory("test_explode_on_boom")
def make_explode(nlp, name):
    def explode(doc):
        if "BOOM" in doc.text:
            raise RuntimeError("component crashed")
        return doc

    return explode


def _rules_with(tmp_path, factory: str, after: str) -> Path:
    """The rules-only pipeline with the component ``factory`` inserted after ``after``."""
    cfg = tmp_path / f"{factory}.cfg"
    cfg.write_text(
        Path(RULES).read_text().replace(f'"{after}"', f'"{after}","{factory}"', 1)
        + f'\n[components.{factory}]\nfactory = "{factory}"\n'
    )
    return cfg


def test_a_crashing_component_fails_closed(tmp_path):
    cfg = _rules_with(tmp_path, "test_explode_on_boom", "privacy_ner")
    src = tmp_path / "rows.jsonl"
    src.write_text('{"text": "Mr Ada Lee is fine."}\n{"text": "Mr Bo Chan says BOOM."}\n{"text": "2 May 2001"}\n')
    res = run("sanitize", src, "--out", tmp_path / "o", "--pipeline", cfg)
    assert res.exit_code == 2
    rows = list(srsly.read_jsonl(tmp_path / "o" / "rows.jsonl"))
    assert [r["text"] for r in rows] == ["[PERSON 1] is fine.", FAILED_TEXT, "[DATETIME 1]"]
    everything = "".join(p.read_text() for p in (tmp_path / "o").iterdir())
    assert "Bo Chan" not in everything
    report = list(srsly.read_jsonl(tmp_path / "o.report" / "report.jsonl"))
    assert [r["status"] for r in report] == ["ok", "failed", "ok"]
    # the detector-level crash also breaks the mask-all fallback: the redaction notice
    assert report[1]["errors"] == [
        "RuntimeError: component crashed; fallback (mask every candidate) failed: RuntimeError: component crashed"
    ]


class _RiskThatCrashes:
    """A risk measure that raises on "BOOM" and hangs on "HANG" (fault injection)."""

    textsan_skippable = True

    def __call__(self, doc):
        if "BOOM" in doc.text:
            raise MemoryError("risk measure ran out of memory")
        if "HANG" in doc.text:
            import time

            time.sleep(5)
        return doc


@Language.factory("test_risk_crash")
def make_risk_crash(nlp, name):
    return _RiskThatCrashes()


def _crash_cfg(tmp_path):
    cfg = _rules_with(tmp_path, "test_risk_crash", "privacy_ner")
    src = tmp_path / "rows.jsonl"
    src.write_text(
        '{"text": "Mr Ada Lee is fine."}\n{"text": "Mr Bo Chan says BOOM on 2 May 2001."}\n'
        '{"text": "Mr Cy Dunn says HANG."}\n'
    )
    return cfg, src


def test_on_error_mask_all_masks_every_candidate_and_reports(tmp_path):
    cfg, src = _crash_cfg(tmp_path)
    res = run("sanitize", src, "--out", tmp_path / "o", "--pipeline", cfg, "--doc-timeout", "0.5", "--batch-size", "1")
    assert res.exit_code == 2, res.output
    assert [r["text"] for r in srsly.read_jsonl(tmp_path / "o" / "rows.jsonl")] == [
        "[PERSON 1] is fine.",
        "[PERSON 1] says BOOM on [DATETIME 1].",
        "[PERSON 1] says HANG.",
    ]
    report = list(srsly.read_jsonl(tmp_path / "o.report" / "report.jsonl"))
    assert [r["status"] for r in report] == ["ok", "fallback", "fallback"]
    assert report[1]["errors"] == [
        "MemoryError: risk measure ran out of memory",
        "fallback: every candidate span masked",
    ]
    assert report[2]["errors"] == [
        "DocumentTimeout: time budget of 0.5s exceeded",
        "fallback: every candidate span masked",
    ]
    assert all(s["masked"] for r in report for s in r["spans"])
    summary = " ".join(res.output.split())
    assert "3 documents in" in summary and "1 ok, 0 degraded, 2 fallback, 0 failed" in summary


def test_on_error_skip_and_fail(tmp_path):
    cfg, src = _crash_cfg(tmp_path)
    res = run("sanitize", src, "--out", tmp_path / "s", "--pipeline", cfg, "--on-error", "skip", "--doc-timeout", "0.5")
    assert res.exit_code == 2
    assert [r["text"] for r in srsly.read_jsonl(tmp_path / "s" / "rows.jsonl")] == [
        "[PERSON 1] is fine.",
        FAILED_TEXT,
        FAILED_TEXT,
    ]
    res = run("sanitize", src, "--out", tmp_path / "f", "--pipeline", cfg, "--on-error", "fail", "--doc-timeout", "0.5")
    assert res.exit_code == 1
    assert (
        "rows.jsonl: a document could not be sanitized (MemoryError: risk measure ran out of memory); "
        "--on-error fail: nothing written" in " ".join(res.output.split())
    )
    assert not (tmp_path / "f").exists()
    bad = run("sanitize", src, "--out", tmp_path / "x", "--on-error", "ignore")  # a bad option: 1, like bad input
    assert bad.exit_code == 1 and not (tmp_path / "x").exists()


class _PageReader(HTMLParser):
    """The documents of a ``textsan visualize`` page: per article its title, the
    character data of its original and sanitized panes (entities decoded, as a
    browser reads them), and its marks as (text, label, decision, title)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.docs, self.pane, self.mark, self.in_title = [], None, None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "article":
            self.docs.append({"title": "", "original": "", "sanitized": "", "marks": []})
        elif tag == "h2" and self.docs:
            self.in_title = True
        elif tag == "div" and a.get("class") in ("doc original", "doc sanitized"):
            self.pane = a["class"].split()[1]
        elif tag == "mark" and self.pane == "original":
            self.mark = [a["data-label"], a["data-decision"], a["title"], ""]

    def handle_endtag(self, tag):
        if tag == "div":
            self.pane = None
        elif tag == "h2":
            self.in_title = False
        elif tag == "mark" and self.mark:
            label, decision, title, text = self.mark
            self.docs[-1]["marks"].append((text, label, decision, title))
            self.mark = None

    def handle_data(self, data):
        if self.in_title:
            self.docs[-1]["title"] += data
        if self.pane:
            self.docs[-1][self.pane] += data
        if self.mark:
            self.mark[3] += data


def read_page(path):
    reader = _PageReader()
    reader.feed(Path(path).read_text(encoding="utf-8"))
    return reader.docs


def test_visualize(tmp_path):
    res = run("visualize", FIX / "tab_small.json", "--out", tmp_path / "v.html", "--pipeline", RULES)
    assert res.exit_code == 0, res.output
    page = (tmp_path / "v.html").read_text(encoding="utf-8")
    assert "<script" not in page  # read-only, no script: the review page's stylesheet is embedded
    texts = {d["doc_id"]: d["text"] for d in json.loads((FIX / "tab_small.json").read_text())}
    docs = read_page(tmp_path / "v.html")
    assert [d["title"] for d in docs] == ["case-1 (text)", "case-2 (text)"]
    # the text exactly as written: the original pane's character data is the document's text
    assert [d["original"] for d in docs] == [texts["case-1"], texts["case-2"]]
    assert [d["sanitized"] for d in docs] == [
        "The applicant, [PERSON 1], was born in [DATETIME 1] in [LOC 1]. [PERSON 1] is Turkish.",
        "Application no. [CODE 1] was lodged on [DATETIME 1].",
    ]
    assert docs[1]["marks"] == [
        ("48213/09", "CODE", "masked", "CODE masked → [CODE 1] — policy:mask_all"),
        ("14 March 2009", "DATETIME", "masked", "DATETIME masked → [DATETIME 1] — policy:mask_all"),
    ]


def test_default_pipeline_on_the_bundled_sample(tmp_path, model_available):
    sample = Path(__file__).parent.parent / "spacy_textsan" / "assets" / "sample.txt"
    res = run("sanitize", sample, "--out", tmp_path)
    assert res.exit_code == 0, res.output
    out = (tmp_path / "sample.txt").read_text()
    for secret in (
        "Yalman",
        "Galip",
        "48213/09",
        "14 March 2009",
        "Korkmaz",
        "galip.yalman@example.org",
        "+90 312 555 14 27",
        "2004/1187",
        "12,500",
    ):
        assert secret not in out
    # every mention of the applicant gets the same replacement
    assert out.count("[PERSON 1]") == 3
    # the output docs/install.md shows is this one, label for label (Eskişehir `[LOC 2]`, the dismissed
    # worker's job `[DEM 2]`)
    install = (Path(__file__).parent.parent / "docs" / "install.md").read_text(encoding="utf-8")
    shown = install.split("<!-- demo-output -->\n```text\n", 1)[1].split("\n```", 1)[0]
    assert shown == out.rstrip("\n")
    assert "lives in [LOC 2]" in out
    assert "Article 34 of the Convention" in out  # legal provisions stay readable


def test_same_output_with_several_processes_and_on_rerun(tmp_path):
    args = [
        "sanitize",
        FIX / "tab_small.json",
        FIX / "notes.csv",
        "--column",
        "note",
        "--pipeline",
        RULES,
        "--batch-size",
        "1",
    ]
    assert run(*args, "--out", tmp_path / "a").exit_code == 0
    assert run(*args, "--out", tmp_path / "b", "--n-process", "2").exit_code == 0
    assert run(*args, "--out", tmp_path / "c").exit_code == 0
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["notes.csv", "sanitized.jsonl"]
    assert sorted(p.name for p in (tmp_path / "a.report").iterdir()) == [
        "masked_spans.json",
        "predictions.json",
        "report.jsonl",
    ]
    for name in (
        "notes.csv",
        "sanitized.jsonl",
        "../a.report/masked_spans.json",
        "../a.report/predictions.json",
        "../a.report/report.jsonl",
    ):
        a = (tmp_path / "a" / name).read_bytes()
        b, c = (name.replace("a.report", x + ".report") for x in "bc")
        assert a == (tmp_path / "b" / b).read_bytes() == (tmp_path / "c" / c).read_bytes(), name


def test_the_ner_in_a_process_of_its_own_gives_the_same_files(tmp_path, model_available):
    sample = Path(__file__).parent.parent / "spacy_textsan" / "assets" / "sample.txt"
    assert run("sanitize", sample, "--out", tmp_path / "off", "--ner-process", "off").exit_code == 0
    res = run("sanitize", sample, "--out", tmp_path / "on", "--ner-process", "on")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "on" / "sample.txt").read_bytes() == (tmp_path / "off" / "sample.txt").read_bytes()
    assert "[PERSON 1]" in (tmp_path / "on" / "sample.txt").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ner-process", "maybe"], "--ner-process must be one of auto, on, off, not 'maybe'"),
        (["--ner-process", "on", "--n-process", "2"], "--ner-process on works with --engine local and --n-process 1"),
    ],
)
def test_bad_ner_process_options_are_one_line(tmp_path, args, message):
    sample = Path(__file__).parent.parent / "spacy_textsan" / "assets" / "sample.txt"
    res = run("sanitize", sample, "--out", tmp_path / "o", *args)
    assert res.exit_code == 1
    assert message in res.output
    assert not (tmp_path / "o").exists()
