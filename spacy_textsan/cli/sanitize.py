"""``textsan sanitize``: files in, sanitized copies and a report out."""

import time
from pathlib import Path

import typer
from wasabi import msg

from ..io import InputError, read_input
from ..run import RESERVED_OUTPUTS, RunResult, SanitizationError, reserved_names, sanitize_files, write_run
from ..run.local import ON_ERROR
from ..run.outputs import MAPPING_FILE
from ..run.spark import describe_error
from .mapping import mapping_key
from .options import PIPELINE_HELP, build_overrides, load_or_fail, parse_strategy
from .util import fail as _fail


def sanitize(
    inputs: list[Path] = typer.Argument(..., help="TXT, CSV/TSV, JSONL or TAB JSON files", exists=False),
    out: Path = typer.Option(..., "--out", "-o", help="Output directory"),
    pipeline: str | None = typer.Option(None, "--pipeline", "-p", help=PIPELINE_HELP),
    fmt: str | None = typer.Option(None, "--format", "-f", help="txt, csv, tsv, jsonl or tab (default: by extension)"),
    columns: list[str] = typer.Option([], "--column", "-c", help="CSV column to sanitize (repeatable)"),
    field: str = typer.Option("text", "--field", help="JSONL field to sanitize"),
    encoding: str | None = typer.Option(None, "--encoding", help="Input encoding (default: UTF-8)"),
    delimiter: str | None = typer.Option(None, "--delimiter", help="CSV delimiter (default: sniffed)"),
    pattern: list[str] = typer.Option([], "--pattern", help="Extra rule LABEL=REGEX (repeatable)"),
    allow_list: Path | None = typer.Option(None, "--allow-list", help="File of terms never to mask"),
    deny_list: Path | None = typer.Option(None, "--deny-list", help="File of terms always to mask (LABEL<TAB>term)"),
    mask_format: str | None = typer.Option(None, "--mask-format", help='Replacement, e.g. "***" or "[{label} {n}]"'),
    strategy: str | None = typer.Option(
        None,
        "--strategy",
        help="mask, generalize, pseudonym or hash, with per-type exceptions: pseudonym,DATETIME=generalize",
    ),
    key_file: Path | None = typer.Option(
        None, "--key-file", help="Secret key file of the hash and pseudonym strategies (default: $TEXTSAN_KEY)"
    ),
    reversible: bool = typer.Option(
        False, "--reversible", help="Also write mapping.enc, the encrypted way back (see textsan restore)"
    ),
    mapping_key_file: Path | None = typer.Option(
        None,
        "--mapping-key-file",
        help="Fernet key file of --reversible (default: $TEXTSAN_MAPPING_KEY; textsan keygen)",
    ),
    on_bad_line: str = typer.Option(
        "error", "--on-bad-line", help="error: stop on a malformed row; skip: report and drop it"
    ),
    settings: list[str] = typer.Option(
        [], "--set", help="Config override section.key=value, e.g. paths.kanon_index=assets/idx (repeatable)"
    ),
    batch_size: int = typer.Option(32, "--batch-size", min=1),
    n_process: int = typer.Option(1, "--n-process", min=1),
    engine: str = typer.Option(
        "local",
        "--engine",
        help="local: this process (--n-process); spark: PySpark, the pipeline loaded once per executor (pip install spacy-textsan[spark])",
    ),
    spark_master: str = typer.Option(
        "local[2]",
        "--spark-master",
        help="--engine spark: Spark master URL (an active SparkSession is used if there is one)",
    ),
    output_format: str = typer.Option(
        "parquet",
        "--output-format",
        help="--engine spark: also write OUT/results.parquet or results.jsonl (Spark dataset: sanitized text + report columns); none: not",
    ),
    on_error: str = typer.Option(
        "mask-all",
        "--on-error",
        help="A document whose processing fails or times out: mask-all (mask every candidate; the redaction notice if that fails too), skip (the redaction notice), fail (stop, write nothing); --engine spark: always mask-all",
    ),
    doc_timeout: float = typer.Option(
        0.0,
        "--doc-timeout",
        min=0.0,
        help="Time budget per document in seconds (0: none); beyond it --on-error applies",
    ),
    min_k: int = typer.Option(
        0,
        "--min-k",
        min=0,
        help="Mask until what stays visible matches at least K background records (residual_risk; 0: report only)",
    ),
):
    """Sanitize files; writes each file's sanitized copy, report.jsonl and, for
    TAB JSON, sanitized.jsonl, masked_spans.json (input of TAB's evaluation.py)
    and predictions.json (the detected spans as TAB annotations) into OUT."""

    if on_error not in ON_ERROR:
        raise typer.BadParameter(f"--on-error must be one of {', '.join(ON_ERROR)}")
    if on_bad_line not in ("error", "skip"):
        raise typer.BadParameter("--on-bad-line must be 'error' or 'skip'")
    if engine not in ("local", "spark") or output_format not in ("parquet", "jsonl", "none"):
        raise typer.BadParameter("--engine must be local or spark; --output-format parquet, jsonl or none")
    try:
        overrides = build_overrides(pattern, allow_list, deny_list, mask_format, settings)
        overrides.update(parse_strategy(strategy))
        if min_k:
            overrides["components.residual_risk.min_k"] = min_k
        if key_file is not None:
            if not key_file.is_file():
                raise InputError(key_file, None, "key file not found")
            overrides["components.generalizer.key_file"] = str(key_file)
        files = [
            read_input(
                p,
                fmt=fmt,
                columns=columns or None,
                field=field,
                encoding=encoding,
                delimiter=delimiter,
                on_bad_line=on_bad_line,
            )
            for p in inputs
        ]
    except InputError as e:
        _fail(str(e))
    key = mapping_key(mapping_key_file) if reversible else None
    nlp = load_or_fail(pipeline, overrides)
    if min_k and "residual_risk" not in {nlp.get_pipe_meta(n).factory for n in nlp.pipe_names}:
        _fail(f"--min-k needs a pipeline with a residual_risk component ({pipeline or 'the default'} has none)")
    used = reserved_names()
    start = time.time()
    spark_options = {
        "out_dir": out,
        "pipeline": pipeline,
        "overrides": overrides,
        "output_format": output_format.replace("none", "") or None,
        "master": spark_master,
        "used": used,
    }
    if engine == "spark":  # the same pipeline and overrides on each executor (nlp above: checked on the driver)
        out.mkdir(parents=True, exist_ok=True)
    try:
        run = sanitize_files(
            files,
            nlp,
            engine=engine,
            batch_size=batch_size,
            n_process=n_process,
            on_error=on_error,
            timeout_s=doc_timeout or None,
            spark_options=spark_options,
        )
    except SanitizationError as e:
        _fail(f"{e}; --on-error fail: nothing written")
    except InputError as e:
        _fail(str(e))
    except ImportError as e:
        _fail(f"--engine spark needs pyspark (pip install spacy-textsan[spark]): {e}")
    except Exception as e:  # a failed Spark job: nothing of this run's outputs written but the dataset
        if engine != "spark":
            raise
        _fail(f"--engine spark failed: {describe_error(e)}")
    if run.dataset:
        msg.good(f"wrote {run.dataset}")
    for f in files:
        for bad in f.skipped:
            msg.warn(f"skipped {bad}")
    try:
        written = write_run(run, out, used=used, mapping_key=key)
    except ValueError as e:
        _fail(str(e))
    for path in written:
        if path.name == MAPPING_FILE:
            msg.good(f"wrote {path} (encrypted; `textsan restore` with the key brings the originals back)")
        elif path.name not in RESERVED_OUTPUTS:  # said below
            msg.good(f"wrote {path}")
    if run.masked_spans:
        msg.good(f"wrote {out / 'masked_spans.json'} and {out / 'predictions.json'} (TAB format)")
    elapsed = time.time() - start
    counts = run.counts
    msg.info(
        f"{run.n_docs} documents in {elapsed:.1f}s: {counts['ok']} ok, {counts['degraded']} degraded, "
        f"{counts['fallback']} fallback, {counts['failed']} failed; report: {out / 'report.jsonl'}"
    )
    if counts["failed"]:
        msg.fail(
            f"{counts['failed']} document(s) could not be sanitized and were replaced by a redaction "
            f"notice; see the report"
        )
    if counts["fallback"]:
        msg.fail(
            f"{counts['fallback']} document(s) failed and were sanitized by masking every candidate span "
            f"(--on-error mask-all); see the report"
        )
    summary = residual_summary(run.report_rows, min_k)
    if summary:
        msg.info(summary)
    if counts["degraded"]:
        msg.warn(
            f"{counts['degraded']} document(s) had a component fail closed (counted as risky, masked "
            f"more); see the errors in the report"
        )
    if run.exit_code:
        raise typer.Exit(code=run.exit_code)


def run_exit_code(counts: dict[str, int]) -> int:
    """The exit code of a run with these status counts (see :attr:`RunResult.exit_code`)."""
    return RunResult(counts=dict(counts)).exit_code


def residual_summary(rows: list[dict], min_k: int = 0) -> str | None:
    """How many documents reach which residual k (None when no row has one)."""
    ks = [r["residual_risk"].get("k") for r in rows if isinstance(r.get("residual_risk"), dict)]
    if not ks:
        return None
    bands = [("k >= 20", 20, None), ("5-19", 5, 20), ("2-4", 2, 5), ("k <= 1", 0, 2)]
    parts = [
        f"{name}: {sum(1 for k in ks if k is not None and k >= lo and (hi is None or k < hi))}"
        for name, lo, hi in bands
    ]
    unknown = sum(1 for k in ks if k is None)
    text = f"residual risk (background records matching what stays visible): {', '.join(parts)}"
    if unknown:
        text += f", unknown (failed): {unknown}"
    if min_k:
        text += f"; below --min-k {min_k}: {sum(1 for k in ks if k is None or k < min_k)}"
    return text
