"""--engine spark / spacy_textsan.run.spark in Spark local mode: the same
output as the single-process run (text, counts, spans, order, fail-closed)."""

import csv
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import srsly
from typer.testing import CliRunner

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install spacy-textsan[spark])")
if shutil.which("java") is None:
    pytest.skip("Spark needs Java (17) on PATH: `java` not found", allow_module_level=True)

from spacy_textsan.cli import app  # noqa: E402
from spacy_textsan.pipeline import load_pipeline  # noqa: E402
from spacy_textsan.run import FAILED_TEXT, sanitize_texts  # noqa: E402
from spacy_textsan.run import spark as spark_engine  # noqa: E402
from spacy_textsan.run.spark_ship import ShipError  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")

FIX = Path(__file__).parent / "fixtures" / "cli"
RULES = str(FIX / "rules_only.cfg")

NOTES = [
    "Mr Ada Lee, born 2 May 1961, lodged application no. 48213/09.",
    'No identifiers, just a "quoted" remark, with commas.',
    "Ms Bo Chan paid EUR 300 on 1 May 2001; call +44 20 7946 0958.",
    "The case 12345/98 was joined to 48213/09 on 14 March 2003.",
    "Dr Jan Novak and Mr Ada Lee met in 1999.",
    "Mr Carl Berg says BOOM and names 55555/01.",  # the test component raises on BOOM: fail closed
    "",
    "On 3 June 2010 Mrs Eva Holm wrote to the Registry.",
    "Application 77777/05, lodged 12 January 2005 by Mr Tom Ray.",
    "Nothing here.",
    "Mr Ada Lee (48213/09) again, 2 May 2001 and 2 May 2001.",
    "Ms Li Wei, 21 August 1987, case 30303/12.",
]

CODE = """
import os
from spacy.language import Language

@Language.factory("spark_test_boom")
def make_boom(nlp, name):
    with open({log!r}, "a") as f:  # one line per pipeline load, with the loading process
        f.write(f"{{os.getpid()}}\\n")
    def boom(doc):
        if "BOOM" in doc.text:
            raise RuntimeError("component crashed")
        return doc
    return boom
"""


KEY = "spark-test-key-0123456789abcdef"


@pytest.fixture(scope="module")
def spark():
    # set before the session starts; $TEXTSAN_KEY (pseudonym strategy) is passed on
    # to the executors, the same for every job, so that the Python workers are reused
    saved = {k: os.environ.get(k) for k in ("SPARK_LOCAL_IP", "TEXTSAN_KEY")}
    os.environ.update(SPARK_LOCAL_IP="127.0.0.1", TEXTSAN_KEY=KEY)
    session, created = spark_engine.get_spark("local[2]")
    yield session
    if created:
        session.stop()
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="module")
def boom(tmp_path_factory):
    """A rules-only pipeline with a component that raises on "BOOM", its code
    file (for the executors) and the log of its loads."""
    base = tmp_path_factory.mktemp("boom")
    log, code = base / "loads.txt", base / "boom_code.py"
    code.write_text(CODE.format(log=str(log)))
    cfg = base / "boom.cfg"
    cfg.write_text(
        Path(RULES).read_text().replace('pipeline = ["privacy_ner"', 'pipeline = ["spark_test_boom","privacy_ner"')
        + '\n[components.spark_test_boom]\nfactory = "spark_test_boom"\n'
    )
    spark_engine._import_code(str(code.resolve()))  # registers the factory here too, once
    return {"cfg": str(cfg), "code": str(code), "log": log}


def _local(cfg, texts):
    return list(sanitize_texts(load_pipeline(cfg), texts))


def test_dataframe_equals_single_process(spark, boom):
    rows = [
        (i * 10, note, f"ward-{i % 3}", None if i % 4 == 1 else f"Summary {i}: Mr Ada Lee, 2 May 2001.")
        for i, note in enumerate(NOTES)
    ]
    # 3 partitions, rows not in id order: the output must keep the input's order
    rows = rows[5:] + rows[:5]
    df = spark.sparkContext.parallelize(rows, 3).toDF("id long, note string, ward string, summary string")
    out = spark_engine.sanitize_dataframe(
        df, ["note", "summary"], boom["cfg"], code=boom["code"], batch_size=4, index_column="row_index"
    )
    got = out.collect()
    assert out.columns[:4] == ["id", "note", "ward", "summary"]
    assert [r["row_index"] for r in got] == list(range(len(rows)))
    assert [(r["id"], r["note"], r["ward"], r["summary"]) for r in got] == rows  # untouched, same order
    for column in ("note", "summary"):
        texts = [r[column] for r in got]
        expected = iter(_local(boom["cfg"], [t for t in texts if t is not None]))
        for r, text in zip(got, texts, strict=False):
            if text is None:
                assert r[f"{column}_sanitized"] is None and r[f"{column}_status"] is None
                continue
            res = next(expected)
            assert r[f"{column}_sanitized"] == res.sanitized
            assert r[f"{column}_status"] == ("ok" if res.ok else "failed")
            assert r[f"{column}_n_masked"] == res.n_masked and r[f"{column}_n_spans"] == len(res.spans)
            assert json.loads(r[f"{column}_spans"]) == res.spans
            assert list(r[f"{column}_errors"]) == res.errors
    by_id = {r["id"]: r for r in got}
    failed = by_id[50]
    assert failed["note_sanitized"] == FAILED_TEXT and failed["note_status"] == "failed"
    assert failed["note_errors"] == [
        "RuntimeError: component crashed; fallback (mask every candidate) failed: RuntimeError: component crashed"
    ]
    assert by_id[0]["note_sanitized"].startswith("[PERSON 1], born [DATETIME 1]")
    assert "[CODE 1]" in by_id[0]["note_sanitized"] and "48213/09" not in by_id[0]["note_sanitized"]
    assert sum(r["note_status"] == "failed" for r in got) == 1


def test_dataframe_rejects_bad_columns(spark):
    df = spark.createDataFrame([(1, "x")], "id long, note string")
    with pytest.raises(ValueError, match="not a column"):
        spark_engine.sanitize_dataframe(df, "text", RULES)
    with pytest.raises(ValueError, match="not string"):
        spark_engine.sanitize_dataframe(df, "id", RULES)
    with pytest.raises(ValueError, match="already exist"):
        spark_engine.sanitize_dataframe(df.withColumnRenamed("id", "note_status"), "note", RULES)
    empty = spark_engine.sanitize_dataframe(df.limit(0), "note", RULES)
    assert empty.collect() == [] and "note_sanitized" in empty.columns


def _write_inputs(base: Path):
    base.mkdir(parents=True, exist_ok=True)
    with open(base / "notes.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "note", "ward"])
        for i, note in enumerate(NOTES):
            if "BOOM" not in note:
                writer.writerow([i, note, f"ward-{i % 3}"])
    with open(base / "letters.jsonl", "w") as f:
        for i, note in enumerate(NOTES):
            f.write(json.dumps({"id": f"L{i}", "text": note, "lang": "en"}) + "\n")
    return [base / "notes.csv", base / "letters.jsonl"]


def _files(directory: Path):
    """The sanitized copies and the reports (report folder beside the output folder)."""
    reports = directory.with_name(f"{directory.name}.report")
    return {p.name: p.read_bytes() for d in (directory, reports) for p in d.iterdir() if p.is_file()}


def test_files_api_equals_local_cli_and_fails_closed(spark, boom, tmp_path):
    inputs = _write_inputs(tmp_path / "in")
    local = CliRunner().invoke(
        app,
        [
            "sanitize",
            *map(str, inputs),
            "--out",
            str(tmp_path / "local"),
            "--pipeline",
            boom["cfg"],
            "--column",
            "note",
        ],
    )
    assert local.exit_code == 2, local.output  # the BOOM letter failed (closed)
    run = spark_engine.sanitize_files_spark(
        inputs, tmp_path / "spark", boom["cfg"], output_format="jsonl", columns=["note"], code=boom["code"], spark=spark
    )
    assert run.n_docs == 2 * len(NOTES) - 1 and run.failures == 1
    assert _files(tmp_path / "spark") == _files(tmp_path / "local")  # copies and report.jsonl, byte for byte
    letters = list(srsly.read_jsonl(tmp_path / "spark" / "letters.jsonl"))
    assert [r["id"] for r in letters] == [f"L{i}" for i in range(len(NOTES))]
    assert (
        letters[5]["text"] == FAILED_TEXT
        and "Carl Berg" not in (tmp_path / "spark.report" / "report.jsonl").read_text()
    )
    # the dataset: part files in order, one row per document, the report columns and the sanitized text
    parts = sorted(run.dataset.glob("part-*.json"))
    rows = [json.loads(line) for p in parts for line in p.read_text().splitlines()]
    report = list(srsly.read_jsonl(tmp_path / "local.report" / "report.jsonl"))
    assert [r["row"] for r in rows] == list(range(len(report)))
    for row, rep in zip(rows, report, strict=True):
        assert list(row) == list(spark_engine.RESULT_COLUMNS)
        for key in ("file", "doc_id", "index", "line", "field", "status", "n_spans", "n_masked", "errors"):
            assert row[key] == rep[key], key
        assert json.loads(row["spans"]) == rep["spans"] and json.loads(row["risky_sets"]) == rep["risky_sets"]
    assert [r["sanitized"] for r in rows[-len(NOTES) :]] == [r["text"] for r in letters]
    # each executor Python worker loaded the pipeline once, over both tests' jobs
    loads = Counter(boom["log"].read_text().split())
    del loads[str(os.getpid())]  # the local runs of these tests
    assert loads and set(loads.values()) == {1}, loads


def test_cli_engine_spark_writes_the_local_outputs_and_parquet(spark, tmp_path):
    inputs = _write_inputs(tmp_path / "in")[:1] + [FIX / "tab_small.json"]
    common = [
        "--pipeline",
        RULES,
        "--column",
        "note",
        "--strategy",
        "pseudonym,DATETIME=generalize",
        "--set",
        'components.privacy_ner.rule_layer.allow_list=["Registry"]',
    ]
    env = {"TEXTSAN_KEY": KEY}  # as the fixture set it
    local = CliRunner().invoke(app, ["sanitize", *map(str, inputs), "--out", str(tmp_path / "local"), *common], env=env)
    assert local.exit_code == 0, local.output
    res = CliRunner().invoke(
        app,
        [
            "sanitize",
            *map(str, inputs),
            "--out",
            str(tmp_path / "spark"),
            *common,
            "--engine",
            "spark",
            "--output-format",
            "parquet",
        ],
        env=env,
    )
    assert res.exit_code == 0, res.output
    assert _files(tmp_path / "spark") == _files(tmp_path / "local")  # incl. masked_spans.json, predictions.json
    report = list(srsly.read_jsonl(tmp_path / "local.report" / "report.jsonl"))
    # the dataset holds original strings: it goes to the report folder
    back = spark.read.parquet(str(tmp_path / "spark.report" / "results.parquet")).orderBy("row").collect()
    assert [(r["doc_id"], r["field"], r["n_masked"], json.loads(r["spans"])) for r in back] == [
        (r["doc_id"], r["field"], r["n_masked"], r["spans"]) for r in report
    ]
    sanitized = [r["note"] for r in csv.DictReader(open(tmp_path / "local" / "notes.csv", newline=""))]
    assert [r["sanitized"] for r in back[: len(sanitized)]] == sanitized


def test_cli_engine_spark_bad_input_and_options(tmp_path):
    res = CliRunner().invoke(
        app,
        ["sanitize", str(FIX / "broken.jsonl"), "--out", str(tmp_path / "o"), "--pipeline", RULES, "--engine", "spark"],
    )
    assert res.exit_code == 1 and "broken.jsonl:2:" in res.output and not (tmp_path / "o").exists()
    res = CliRunner().invoke(
        app, ["sanitize", str(FIX / "notes.jsonl"), "--out", str(tmp_path / "o"), "--engine", "dask"]
    )
    assert res.exit_code != 0 and "--engine" in res.output


# --------------------------------------------------------------------------
# The background folder travels to the executors
# --------------------------------------------------------------------------

#: hand-written background records (who the attacker could look up)
BIOS = [
    {"id": "r1", "bio": "Ada Lee was born in Leeds in 1961; she works as a carpenter in York and keeps three goats."},
    {"id": "r2", "bio": "Omar Haddad, born in Tunis in 1975, is a pharmacist at a clinic in Lyon and plays the oud."},
    {"id": "r3", "bio": "Mira Kovac was born in Split in 1961 and teaches chemistry at a school in Zagreb."},
    {"id": "r4", "bio": "Jon Berg, born in Bergen in 1988, repairs boats in Tromso and sings in a choir."},
    {"id": "r5", "bio": "Eva Holm, a teacher from Leeds, wrote to the Registry in 2010."},
]
DOCS = [
    "Mira Kovac was born in Split in 1961 and teaches chemistry at a school in Zagreb.",
    "The carpenter from Leeds, born 1961, keeps three goats near York.",
    "A pharmacist from Tunis plays the oud in Lyon.",
    "Nothing here.",
    "Mr Tom Ray, a teacher from Leeds, wrote on 3 June 2010 about application 77777/05.",
]
# the risk measures of the default pipeline on the rule layer, all reading paths.background
BACKGROUND_CFG = """
[paths]
background = null

[nlp]
lang = "en"
pipeline = [{log}"privacy_ner","kanon_risk","mask_optimizer","reid_risk","residual_risk","generalizer"]

[components]
{log_block}
[components.privacy_ner]
factory = "privacy_ner"
sources = []

[components.kanon_risk]
factory = "kanon_risk"
k = 2
phrases = true

[components.kanon_risk.background]
@misc = "spacy_textsan.background.v1"
path = ${{paths.background}}

[components.mask_optimizer]
factory = "mask_optimizer"
direct_labels = ["PERSON","CODE"]
num_workers = 1
seed = 0

[components.reid_risk]
factory = "reid_risk"
k = 2

[components.reid_risk.background]
@misc = "spacy_textsan.background.v1"
path = ${{paths.background}}

[components.residual_risk]
factory = "residual_risk"
phrases = true

[components.residual_risk.background]
@misc = "spacy_textsan.background.v1"
path = ${{paths.background}}

[components.generalizer]
factory = "generalizer"
"""
LOG_BLOCK = """
[components.background_log]
factory = "spark_test_background_log"
background = ${paths.background}
"""
LOG_CODE = """
import os
from spacy.language import Language

@Language.factory("spark_test_background_log")
def make_background_log(nlp, name, background: str | None):
    with open({log!r}, "a") as f:  # one line per pipeline load: the process and the folder it was given
        f.write(f"{{os.getpid()}}\\t{{background}}\\n")
    return lambda doc: doc
"""


@pytest.fixture(scope="module")
def background(tmp_path_factory):
    """A background of the 5 records of BIOS (built by the package's own command), the
    pipeline config that reads it, and one that also logs each load (with its code file)."""
    base = tmp_path_factory.mktemp("background")
    records = base / "bios.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in BIOS))
    built = CliRunner().invoke(
        app,
        ["background", "build", str(base / "bg"), "--docs", str(records), "--field", "bio", "--id-field", "id"]
        + ["--terms", "--pipeline", RULES],
    )
    assert built.exit_code == 0, built.output
    cfg, logged_cfg = base / "background.cfg", base / "background_log.cfg"
    cfg.write_text(BACKGROUND_CFG.format(log="", log_block=""))
    logged_cfg.write_text(BACKGROUND_CFG.format(log='"background_log",', log_block=LOG_BLOCK))
    log, code = base / "loads.tsv", base / "log_code.py"
    code.write_text(LOG_CODE.format(log=str(log)))
    spark_engine._import_code(str(code.resolve()))
    return {"dir": base / "bg", "cfg": str(cfg), "logged_cfg": str(logged_cfg), "code": str(code), "log": log}


def _docs_file(path: Path) -> Path:
    path.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(DOCS)))
    return path


def _uses_the_background(report_dir: Path) -> None:
    """The report's measures ran over the 5 records of BIOS (not the shipped background)."""
    rows = list(srsly.read_jsonl(report_dir / "report.jsonl"))
    assert [r["residual_risk"]["n_background"] for r in rows] == [len(BIOS)] * len(DOCS)
    assert any(s["measure"] == "kanon" for r in rows for s in r["risky_sets"])


def test_cli_background_only_the_driver_can_read(spark, background, tmp_path, monkeypatch):
    # the background as a path relative to the driver's working directory, which the executors do not share
    driver = tmp_path / "driver"
    shutil.copytree(background["dir"], driver / "bg")
    monkeypatch.chdir(driver)
    assert spark.sparkContext.parallelize([0], 1).map(lambda _: os.path.exists("bg")).collect() == [False]
    inputs = [str(_docs_file(driver / "docs.jsonl"))]
    common = ["--pipeline", background["cfg"], "--background", "bg"]
    local = CliRunner().invoke(app, ["sanitize", *inputs, "--out", str(tmp_path / "local"), *common])
    assert local.exit_code == 0, local.output
    _uses_the_background(tmp_path / "local.report")
    res = CliRunner().invoke(
        app,
        [
            "sanitize",
            *inputs,
            "--out",
            str(tmp_path / "spark"),
            *common,
            "--engine",
            "spark",
            "--output-format",
            "none",
        ],
    )
    assert res.exit_code == 0, res.output
    assert _files(tmp_path / "spark") == _files(tmp_path / "local")  # copies and report.jsonl, byte for byte


def test_dataframe_background_deleted_before_the_tasks_run(spark, background, tmp_path):
    folder = tmp_path / "bg"
    shutil.copytree(background["dir"], folder)
    overrides = {"paths.background": str(folder)}
    expected = list(sanitize_texts(load_pipeline(background["cfg"], overrides), DOCS))
    df = spark.createDataFrame(list(enumerate(DOCS)), "id long, text string")  # no Python worker reads it
    out = spark_engine.sanitize_dataframe(df, "text", background["logged_cfg"], overrides, code=background["code"])
    shutil.rmtree(folder)  # shipped when the transformation was made; the tasks run below
    for _ in range(2):  # two jobs: the Python workers keep the pipeline, and its background
        got = out.collect()
        assert [r["text_sanitized"] for r in got] == [res.sanitized for res in expected]
        assert [json.loads(r["text_spans"]) for r in got] == [res.spans for res in expected]
        assert [r["text_status"] for r in got] == ["ok"] * len(DOCS)
    loads = [line.split("\t") for line in background["log"].read_text().splitlines()]
    assert loads and len({pid for pid, _ in loads}) == len(loads), loads  # once per executor Python process
    assert str(os.getpid()) not in {pid for pid, _ in loads}
    for _, copy in loads:  # the executor's copy, not the driver's folder
        assert Path(copy).name.startswith("textsan-background-") and Path(copy) != folder


def test_background_that_cannot_be_shipped(spark, background, tmp_path, monkeypatch):
    inputs = [_docs_file(tmp_path / "docs.jsonl")]
    missing = tmp_path / "missing"
    with pytest.raises(
        ShipError, match="^paths.background=.*missing: cannot send it to the Spark executors: not found$"
    ):
        spark_engine.sanitize_files_spark(
            inputs, tmp_path / "o", background["cfg"], {"paths.background": str(missing)}, spark=spark
        )
    assert not (tmp_path / "o").exists()
    res = CliRunner().invoke(
        app,
        ["sanitize", str(inputs[0]), "--out", str(tmp_path / "o"), "--pipeline", background["cfg"]]
        + ["--set", f"paths.background={inputs[0]}", "--engine", "spark"],
    )
    assert res.exit_code == 1 and not (tmp_path / "o").exists()
    assert res.stderr.strip().count("\n") == 0, res.stderr
    assert (
        f"--engine spark: paths.background={inputs[0]}: cannot send it to the Spark executors: not a folder"
        in res.stderr
    )
    # a file below the folder that cannot be read (as root, os.access says so)
    folder = tmp_path / "bg"
    shutil.copytree(background["dir"], folder)
    secret = folder / "unreadable"
    secret.write_text("x")
    secret.chmod(0)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == secret else real_access(p, mode))
    res = CliRunner().invoke(
        app,
        ["sanitize", str(inputs[0]), "--out", str(tmp_path / "o"), "--pipeline", background["cfg"]]
        + ["--background", str(folder), "--engine", "spark"],
    )
    assert res.exit_code == 1 and not (tmp_path / "o").exists()
    assert f"cannot send it to the Spark executors: Permission denied: {secret}" in res.stderr, res.stderr


@pytest.mark.slow
def test_cli_local_cluster_executors_in_their_own_folders(background, tmp_path, monkeypatch):
    """Executors in JVMs of their own (``local-cluster``), each working in a folder of its own, as on a
    cluster: the background reaches them through the driver's file server (about 100 s)."""
    driver = tmp_path / "driver"
    shutil.copytree(background["dir"], driver / "bg")
    monkeypatch.chdir(driver)
    inputs = [str(_docs_file(driver / "docs.jsonl"))]
    common = ["--pipeline", background["cfg"], "--background", "bg"]
    local = CliRunner().invoke(app, ["sanitize", *inputs, "--out", str(tmp_path / "local"), *common])
    assert local.exit_code == 0, local.output
    _uses_the_background(tmp_path / "local.report")
    # a Spark application of its own (the module's session is local[2]); SPARK_TESTING gives each worker
    # of the local cluster a temporary work folder (else SPARK_HOME/work, inside the installed pyspark)
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_TESTING": "1"}
    script = "import sys; from spacy_textsan.cli import main; sys.argv[0] = 'textsan'; main()"
    args = ["sanitize", *inputs, "--out", str(tmp_path / "spark"), *common, "--engine", "spark"]
    args += ["--spark-master", "local-cluster[1,1,1024]", "--output-format", "none"]
    res = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True, text=True, timeout=400)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert _files(tmp_path / "spark") == _files(tmp_path / "local")
