"""Sanitizing at scale with PySpark: DataFrames and files.

The same pipeline as the single-process run (same name or path, same config
overrides), loaded **once per executor Python worker** and applied with
``mapPartitions`` through :func:`spacy_textsan.run.sanitize_texts`, so the
outputs, including the fail-closed behaviour (a document whose processing
raises becomes :data:`~spacy_textsan.run.FAILED_TEXT` with status
``"failed"``), are those of ``textsan sanitize`` without ``--engine spark``.

Two entry points:

* :func:`sanitize_dataframe`: a DataFrame in, the same DataFrame (every
  column, same row order) with, per text column ``c``, the columns
  ``c_sanitized``, ``c_status``, ``c_n_spans``, ``c_n_masked``, ``c_spans``
  (JSON string) and ``c_errors`` (array of strings) out.
* :func:`sanitize_files_spark`: the input files of ``textsan sanitize`` (read
  on the driver with :func:`spacy_textsan.io.read_input`, so a bad input gives
  the same ``file:line`` errors), one row per document and field, written as
  a Parquet or JSONL dataset with the report columns; from Python it also
  writes the sanitized copies and ``report.jsonl``
  (``textsan sanitize --engine spark`` writes those itself, as without Spark).

The folders the pipeline's config names in its ``[paths]`` section
(``paths.background``, the background of kanon_risk, reid_risk and
residual_risk; ``paths.kb``, ...) travel with the job: each is zipped on the
driver and added with ``SparkContext.addArchive``, and the executors load the
pipeline with ``paths.<name>`` pointing to their own unpacked copy
(``SparkFiles.get``), so a path only the driver can read (a relative path, a
local disk) works on any executor.

Requires the ``spark`` extra (``pip install spacy-textsan[spark]``: pyspark
4.3.0) and Java 17. Without a ``spark`` argument a session is created with
``master`` (default ``local[2]``); for local masters the driver binds to
127.0.0.1 (``SPARK_LOCAL_IP`` defaults to 127.0.0.1).
"""

import json
import os
import re
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Any

import spacy.util

from ..io import InputFile, output_name, read_input
from ..io import json_dumps as _json_dumps
from ..pipeline import load_pipeline
from .columns import mask_format_of
from .files import RESERVED_OUTPUTS
from .outputs import MAPPING_FILE, plan_outputs, write_results
from .results import DocResult, report_decision, report_status
from .runner import sanitize_texts
from .spark_ship import config_folders, ship_folders

DEFAULT_MASTER = "local[2]"
OUTPUT_FORMATS = ("parquet", "jsonl")
#: Columns added per text column of :func:`sanitize_dataframe` (``{column}_{suffix}``).
DATAFRAME_SUFFIXES = ("sanitized", "status", "n_spans", "n_masked", "spans", "errors")
#: Columns of the dataset written by :func:`sanitize_files_spark`, in order:
#: ``row`` (0-based position of the document over all inputs, the order of
#: ``report.jsonl``), the report columns and the sanitized text. ``spans``,
#: ``risky_sets``, ``decision`` and ``residual_risk`` are JSON strings.
RESULT_COLUMNS = (
    "row",
    "file",
    "doc_id",
    "index",
    "line",
    "field",
    "status",
    "n_spans",
    "n_masked",
    "spans",
    "risky_sets",
    "errors",
    "decision",
    "residual_risk",
    "sanitized",
)
# carried back to the driver only (the CLI's TAB outputs and --reversible need them)
_INTERNAL_COLUMNS = ("masked", "offset_map")


# --------------------------------------------------------------------------
# Executors: one pipeline per Python worker
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class PipelineSpec:
    """What an executor needs to build the pipeline: the arguments of
    :func:`spacy_textsan.pipeline.load_pipeline` and optional code files
    (custom components), imported before loading."""

    pipeline: str | None = None
    #: config overrides as canonical JSON (hashable; overrides are JSON values)
    overrides_json: str = "{}"
    code: tuple[str, ...] = ()
    batch_size: int = 32
    #: ``(override key, archive name)`` of each folder shipped to the executors
    #: (:func:`ship_folders`): on an executor the override is the unpacked copy
    shipped: tuple[tuple[str, str], ...] = ()

    @classmethod
    def make(
        cls,
        pipeline: str | Path | None = None,
        overrides: dict[str, Any] | None = None,
        code: None | str | Path | Sequence[str | Path] = None,
        batch_size: int = 32,
    ) -> "PipelineSpec":
        if code is None:
            code = ()
        elif isinstance(code, (str, Path)):
            code = (code,)
        return cls(
            pipeline=None if pipeline is None else str(pipeline),
            overrides_json=json.dumps(overrides or {}, sort_keys=True),
            code=tuple(str(Path(c).resolve()) for c in code),
            batch_size=max(1, int(batch_size)),
        )

    @property
    def key(self) -> tuple[str | None, str, tuple[str, ...], tuple[tuple[str, str], ...]]:
        return self.pipeline, self.overrides_json, self.code, self.shipped


#: (pipeline, overrides, code, shipped folders, on an executor) -> Language, per
#: Python process: with Spark's worker reuse (the default) a worker loads the
#: pipeline, and so the background it reads, for its first task and keeps it
#: for all the following ones.
_PIPELINES: dict[tuple[Any, bool], Any] = {}
_IMPORTED_CODE: dict[str, Any] = {}


def _import_code(path: str) -> None:
    if path in _IMPORTED_CODE:
        return
    local = path
    if not os.path.exists(local):  # on a cluster: shipped with SparkContext.addFile
        from pyspark import SparkFiles

        local = SparkFiles.get(os.path.basename(path))
    name = "textsan_code_" + str(len(_IMPORTED_CODE))
    _IMPORTED_CODE[path] = spacy.util.import_file(name, local)


def get_pipeline(spec: PipelineSpec, executor: bool = False):
    """The pipeline of ``spec``, loaded once per process. ``executor``: with
    the copies of the shipped folders (``spec.shipped``) that Spark unpacked
    for this executor in place of the driver's paths."""
    nlp = _PIPELINES.get((spec.key, executor))
    if nlp is None:
        for path in spec.code:
            _import_code(path)
        overrides = json.loads(spec.overrides_json)
        if executor:
            overrides.update(_shipped_copies(spec))
        nlp = load_pipeline(spec.pipeline, overrides)
        _PIPELINES[(spec.key, executor)] = nlp
    return nlp


def _shipped_copies(spec: PipelineSpec) -> dict[str, str]:
    """``{override key: this executor's copy}`` of the folders of ``spec.shipped``."""
    if not spec.shipped:
        return {}
    from pyspark import SparkFiles

    copies = {}
    for key, name in spec.shipped:
        local = SparkFiles.get(name)
        if not os.path.isdir(local):
            raise FileNotFoundError(f"{key}: the copy shipped to this executor is missing ({local})")
        copies[key] = local
    return copies


def _results_per_item(
    nlp, items: Iterable[Any], texts_of: Callable[[Any], list[str | None]], batch_size: int
) -> Iterator[tuple[Any, list[DocResult | None]]]:
    """``(item, [result per text of the item])`` in order, streaming the texts
    of all items through one :func:`sanitize_texts`; a ``None`` text gets a
    ``None`` result."""
    pending: deque = deque()  # [item, texts, results so far]

    def texts() -> Iterator[str]:
        for item in items:
            item_texts = texts_of(item)
            pending.append([item, item_texts, []])
            yield from (t for t in item_texts if t is not None)

    def ready() -> Iterator[tuple[Any, list[DocResult | None]]]:
        while pending and len(pending[0][2]) == sum(t is not None for t in pending[0][1]):
            item, item_texts, results = pending.popleft()
            it = iter(results)
            yield item, [None if t is None else next(it) for t in item_texts]

    for res in sanitize_texts(nlp, texts(), batch_size=batch_size):
        yield from ready()
        pending[0][2].append(res)  # results come in text order: the head is waiting for this one
        yield from ready()
    yield from ready()


def _dumps(obj: Any) -> str:
    return _json_dumps(obj)  # as in report.jsonl: readable non-ASCII, \u escapes for lone surrogates


def _json_or_none(obj: Any) -> str | None:
    return None if obj is None else _dumps(obj)


def _nonempty(items: Iterable[Any]) -> Iterator[Any] | None:
    """None for an empty partition (which then loads no pipeline)."""
    items = iter(items)
    for first in items:
        return chain([first], items)
    return None


def _dataframe_partition(
    spec: PipelineSpec, positions: tuple[int, ...], keep_index: bool, rows: Iterator[tuple[Any, int]]
) -> Iterator[tuple]:
    nonempty = _nonempty(rows)
    if nonempty is None:
        return
    nlp = get_pipeline(spec, executor=True)
    items = _results_per_item(nlp, nonempty, lambda pair: [pair[0][i] for i in positions], spec.batch_size)
    for (row, index), results in items:
        added: list[Any] = [index] if keep_index else []
        for res in results:
            if res is None:  # null text: nothing to sanitize, nothing reported
                added += [None] * len(DATAFRAME_SUFFIXES)
            else:
                added += [
                    res.sanitized,
                    report_status(res),
                    len(res.spans),
                    res.n_masked,
                    _dumps(res.spans),
                    list(res.errors),
                ]
        yield tuple(row) + tuple(added)


def _jobs_partition(spec: PipelineSpec, jobs: Iterator[tuple]) -> Iterator[tuple]:
    """jobs: (row, file, doc_id, index, line, field, text) -> RESULT_COLUMNS + internal columns."""
    nonempty = _nonempty(jobs)
    if nonempty is None:
        return
    nlp = get_pipeline(spec, executor=True)
    for job, (res,) in _results_per_item(nlp, nonempty, lambda job: [job[6]], spec.batch_size):
        assert res is not None  # a job's text is never None
        yield tuple(job[:6]) + (
            report_status(res),
            len(res.spans),
            res.n_masked,
            _dumps(res.spans),
            _dumps(res.risky_sets),
            list(res.errors),
            _json_or_none(report_decision(res)),
            _json_or_none(res.residual_risk),
            res.sanitized,
            _dumps(res.masked),
            _dumps(res.offset_map),
        )


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def get_spark(master: str = DEFAULT_MASTER, app_name: str = "spacy-textsan"):
    """The active SparkSession, else a new one on ``master``.

    Returns ``(spark, created)``; ``created`` tells whether the caller should
    stop it. A new local session binds the driver to 127.0.0.1 and runs the
    Python workers with this interpreter (so they see this environment).
    """
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    builder = SparkSession.builder.master(master).appName(app_name)
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = builder.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        builder.config("spark.pyspark.python", os.environ["PYSPARK_PYTHON"])
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.python.worker.reuse", "true")
    )
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark, True


#: driver environment variables the executors get too (the pipeline reads them
#: when it is built: $TEXTSAN_KEY of the hash/pseudonym strategies, ...); the
#: mapping key of reversible mode is used on the driver only
FORWARDED_ENV_PREFIX = "TEXTSAN_"
_DRIVER_ONLY_ENV = {"TEXTSAN_MAPPING_KEY"}


def _forward_env(spark, spec: PipelineSpec) -> None:
    names = {k for k in os.environ if k.startswith(FORWARDED_ENV_PREFIX)} - _DRIVER_ONLY_ENV
    key_env = json.loads(spec.overrides_json).get("components.generalizer.key_env")
    if isinstance(key_env, str) and key_env in os.environ:
        names.add(key_env)
    environment = spark.sparkContext.environment  # the env of the Python workers of the next jobs
    for name in sorted(names):
        environment[name] = os.environ[name]


def _ship(spark, spec: PipelineSpec, folders: dict[str, Path] | None = None) -> PipelineSpec:
    """Send the executors what ``spec`` needs: the forwarded environment, the
    code files and the folders of :func:`config_folders` (``folders``, if
    already checked); returns ``spec`` with the shipped folders."""
    _forward_env(spark, spec)
    for path in spec.code:
        _import_code(path)  # on the driver too: fails early on a broken file
        if not spark.sparkContext.master.startswith("local"):
            spark.sparkContext.addFile(path)
    if folders is None:
        folders = config_folders(spec.pipeline, json.loads(spec.overrides_json))
    return replace(spec, shipped=ship_folders(spark, folders))


def sanitize_dataframe(
    df,
    text_columns: str | Sequence[str],
    pipeline: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
    batch_size: int = 32,
    *,
    code: None | str | Path | Sequence[str | Path] = None,
    index_column: str | None = None,
):
    """Sanitize the string columns ``text_columns`` of the DataFrame ``df``.

    df (DataFrame): Any (classic, not Spark Connect) DataFrame.
    text_columns (str | Sequence[str]): Names of string columns to sanitize.
    pipeline (str | Path | None): As ``textsan sanitize --pipeline``: ``None`` (the bundled
        zero-shot pipeline), a ``.cfg`` file, an installed package or a
        directory; it must be loadable on every executor.
    overrides (dict[str, Any] | None): Config overrides (``{"components.generalizer.strategy":
        "pseudonym"}``), as the CLI's ``--set``, ``--strategy``, etc.
    batch_size (int): ``nlp.pipe`` batch size within a partition.
    code (None | str | Path | Sequence[str | Path]): Python file(s) with custom components, imported on the driver
        and on each executor before the pipeline is loaded.
    index_column (str | None): Keep the 0-based input row position under this name.
    RETURNS (DataFrame): A DataFrame with every column of ``df``, in the same row order, plus
        per text column ``c``: ``c_sanitized`` (string; a failed document
        gives :data:`~spacy_textsan.run.FAILED_TEXT`), ``c_status``
        (``"ok"``/``"failed"``), ``c_n_spans``, ``c_n_masked`` (int),
        ``c_spans`` (JSON string: the report's span records) and
        ``c_errors`` (array of strings). A null text gives nulls.

    The folders that the config's ``[paths]`` section names
    (``paths.background``, ...; :func:`config_folders`) are zipped and added
    to the job here (:func:`ship_folders`; :class:`ShipError` if one cannot
    be read): each executor loads the pipeline with its own copy, so a later
    change to them, or their removal, does not reach the executors.

    The rows are numbered with ``zipWithIndex`` and processed by
    ``mapPartitions`` without any shuffle, so the output keeps the input's
    partitioning and order; each Python worker loads the pipeline once (and
    keeps it for its next tasks) and runs
    :func:`~spacy_textsan.run.sanitize_texts` over its partition, so
    results are those of the single-process run. Lazy, like any
    transformation: nothing runs before an action.
    """
    from pyspark.sql.types import ArrayType, IntegerType, LongType, StringType, StructField, StructType

    columns = [text_columns] if isinstance(text_columns, str) else list(text_columns)
    if not columns:
        raise ValueError("text_columns: name at least one column")
    names = df.schema.fieldNames()
    for c in columns:
        if c not in names:
            raise ValueError(f"text column {c!r} is not a column of the DataFrame ({', '.join(names)})")
        if not isinstance(df.schema[c].dataType, StringType):
            raise ValueError(f"text column {c!r} is {df.schema[c].dataType.simpleString()}, not string")
    types = {
        "sanitized": StringType(),
        "status": StringType(),
        "n_spans": IntegerType(),
        "n_masked": IntegerType(),
        "spans": StringType(),
        "errors": ArrayType(StringType()),
    }
    added = ([StructField(index_column, LongType(), False)] if index_column else []) + [
        StructField(f"{c}_{s}", types[s], True) for c in columns for s in DATAFRAME_SUFFIXES
    ]
    clash = sorted({f.name for f in added} & set(names))
    if clash or len({f.name for f in added}) != len(added):
        raise ValueError(f"output columns already exist: {', '.join(clash) or 'duplicate text columns'}")
    spec = _ship(df.sparkSession, PipelineSpec.make(pipeline, overrides, code, batch_size))
    positions = tuple(names.index(c) for c in columns)
    rdd = df.rdd.zipWithIndex().mapPartitions(partial(_dataframe_partition, spec, positions, bool(index_column)))
    return df.sparkSession.createDataFrame(rdd, StructType(df.schema.fields + added), verifySchema=False)


@dataclass
class SparkRun:
    """What :func:`sanitize_files_spark` did."""

    files: list[Any]  # the InputFile of each input
    #: results[i][j]: the j-th document (record, field) of files[i], in report order
    results: list[list[DocResult]]
    #: the Parquet or JSONL dataset (a Spark output directory), or None
    dataset: Path | None = None
    written: list[Path] = dataclass_field(default_factory=list)

    @property
    def n_docs(self) -> int:
        return sum(len(r) for r in self.results)

    @property
    def failures(self) -> int:
        return sum(not res.ok for rs in self.results for res in rs)


def _result_schema():
    from pyspark.sql.types import ArrayType, IntegerType, LongType, StringType, StructField, StructType

    types = {
        "row": LongType(),
        "index": IntegerType(),
        "line": IntegerType(),
        "n_spans": IntegerType(),
        "n_masked": IntegerType(),
        "errors": ArrayType(StringType()),
    }
    return StructType(
        [StructField(c, types.get(c, StringType()), c != "row") for c in RESULT_COLUMNS + _INTERNAL_COLUMNS]
    )


def sanitize_files_spark(
    inputs: Sequence[Any],
    out_dir: str | Path | None = None,
    pipeline: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
    output_format: str | None = "parquet",
    *,
    spark=None,
    master: str = DEFAULT_MASTER,
    batch_size: int = 32,
    num_partitions: int | None = None,
    code: None | str | Path | Sequence[str | Path] = None,
    write_copies: bool = True,
    used: set | None = None,
    fmt: str | None = None,
    columns: Sequence[str] | None = None,
    field: str = "text",
    encoding: str | None = None,
    delimiter: str | None = None,
    on_bad_line: str = "error",
) -> SparkRun:
    """Sanitize input files (TXT, CSV/TSV, JSONL, TAB JSON) on Spark.

    The folders the pipeline's config names (``paths.background``, ...) are
    checked before Spark starts (:class:`ShipError`, nothing written) and sent
    to the executors as in :func:`sanitize_dataframe`.

    inputs (Sequence[Any]): Paths, read on the driver with
        :func:`spacy_textsan.io.read_input` (``fmt``, ``columns``,
        ``field``, ``encoding``, ``delimiter``, ``on_bad_line`` as there;
        raises :class:`~spacy_textsan.io.InputError` with ``file:line``),
        or :class:`~spacy_textsan.io.InputFile` objects already read.
    out_dir (str | Path | None): Output directory (None: write nothing, return the results).
    pipeline, overrides, batch_size, code: as :func:`sanitize_dataframe`.
    output_format (str | None): ``"parquet"`` or ``"jsonl"``: write the dataset
        ``results.parquet`` / ``results.jsonl`` (Spark output
        directories, one row per document and field:
        :data:`RESULT_COLUMNS`); None: no dataset.
    spark (SparkSession | None): A SparkSession; default: the active one, else a new one on
        ``master`` (stopped at the end).
    num_partitions (int | None): Default: 4 per core, at most one per document.
    write_copies (bool): Also write each input's sanitized copy (same name and
        format as without Spark) into ``out_dir`` and ``report.jsonl``
        into its report folder (``OUT.report``, beside it).
    used (set | None): Output names already taken (see :func:`spacy_textsan.io.output_name`).
    RETURNS (SparkRun): A :class:`SparkRun`; ``results`` are in the order of the
        single-process run (files, records, fields) and equal to its
        results. Every document's result is checked to be there exactly
        once; otherwise nothing is written (``RuntimeError``).
    """
    if output_format is not None and output_format not in OUTPUT_FORMATS:
        raise ValueError(f"output_format must be one of {', '.join(OUTPUT_FORMATS)} or None, got {output_format!r}")
    files = [
        f
        if isinstance(f, InputFile)
        else read_input(
            f, fmt=fmt, columns=columns, field=field, encoding=encoding, delimiter=delimiter, on_bad_line=on_bad_line
        )
        for f in inputs
    ]
    jobs = [
        (0, str(f.path), rec.doc_id, rec.index, rec.line, name, text)
        for f in files
        for rec in f.records
        for name, text in rec.texts.items()
    ]
    jobs = [(row,) + job[1:] for row, job in enumerate(jobs)]
    spec = PipelineSpec.make(pipeline, overrides, code, batch_size)
    folders = config_folders(pipeline, overrides)  # checked before Spark starts
    if used is None:  # the run's own outputs keep their names, as in textsan sanitize
        used = {*RESERVED_OUTPUTS, MAPPING_FILE}
    created = False
    if spark is None:
        spark, created = get_spark(master)
    try:
        spec = _ship(spark, spec, folders)
        rows, dataset = [], None
        if jobs:
            n_parts = num_partitions or min(len(jobs), 4 * spark.sparkContext.defaultParallelism)
            rdd = spark.sparkContext.parallelize(jobs, max(1, n_parts)).mapPartitions(partial(_jobs_partition, spec))
            df = spark.createDataFrame(rdd, _result_schema(), verifySchema=False)
            if out_dir is not None and output_format is not None:
                df = df.persist()
                out = Path(out_dir)
                out.mkdir(parents=True, exist_ok=True)
                name = output_name(f"results.{output_format}", used)
                dataset = out / name
                writer = df.select(*RESULT_COLUMNS).write.mode("overwrite")
                if output_format == "parquet":
                    writer.parquet(str(dataset))
                else:
                    writer.option("ignoreNullFields", "false").json(str(dataset))
            rows = df.collect()
            if dataset is not None:
                df.unpersist()
        results = _collect_results(rows, len(jobs))
    finally:
        if created:
            spark.stop()
    per_file, start = [], 0
    for f in files:
        n = sum(len(rec.texts) for rec in f.records)
        per_file.append(results[start : start + n])
        start += n
    run = SparkRun(files=files, results=per_file, dataset=dataset)
    if out_dir is not None and write_copies:  # as textsan sanitize writes them (column votes included)
        plan = plan_outputs(files, Path(out_dir))
        run.written = write_results(files, per_file, plan, mask_format_of(get_pipeline(spec))).written
    return run


def _collect_results(rows: list[Any], n_jobs: int) -> list[DocResult]:
    """DocResults in job order; fail closed on a missing or duplicated document."""
    results: list[DocResult | None] = [None] * n_jobs
    for r in rows:
        if not 0 <= r["row"] < n_jobs or results[r["row"]] is not None:
            raise RuntimeError(f"spark returned document {r['row']} twice or out of range; nothing written")
        results[r["row"]] = DocResult(
            sanitized=r["sanitized"],
            masked=json.loads(r["masked"]),
            spans=json.loads(r["spans"]),
            errors=list(r["errors"] or []),
            status=r["status"],
            decision=json.loads(r["decision"]) if r["decision"] is not None else None,
            risky_sets=json.loads(r["risky_sets"]),
            offset_map=json.loads(r["offset_map"]),
            residual_risk=json.loads(r["residual_risk"]) if r["residual_risk"] is not None else None,
        )
    missing = [i for i, res in enumerate(results) if res is None]
    if missing:
        raise RuntimeError(f"spark returned no result for {len(missing)} document(s); nothing written")
    return results  # type: ignore[return-value]


def describe_error(error: BaseException) -> str:
    """One line for a failed Spark job: the Python exception raised on the
    executor (``MissingKeyError: no surrogate key: ...``) rather than the
    first line of a Java stack trace."""
    text = str(error)
    found = re.findall(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit)\b:? .*)$", text, flags=re.M)
    found = [f for f in found if not f.startswith(("py4j.", "org.apache.", "java."))]
    if found:
        return found[-1].strip()
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[0] if lines else type(error).__name__
