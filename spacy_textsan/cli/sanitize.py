"""``textsan sanitize``: files in, sanitized copies and a report out."""

import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import typer
from wasabi import msg

from ..detect.privacy_ner.source_process import SourceProcessError
from ..io import InputError, InputFile, open_input
from ..languages import AUTO, language_spec
from ..pipeline import load_pipeline, missing_model_message
from ..render.keys import MAPPING_KEY_ENV, Secret
from ..render.mapping import MappingError, check_mapping_key
from ..run import (
    ENGINES,
    MAPPING_FILE,
    NER_PROCESS,
    ON_ERROR,
    REPORT_FILE,
    OutputPlan,
    PlanError,
    RunResult,
    SanitizationError,
    ner_process,
    plan_outputs,
    sanitize_files,
    wants_ner_process,
)
from ..run.files import NOT_MEASURED
from ..run.header import shown_column, shown_key
from ..run.languages import LanguageRouter
from ..run.personal_columns import personal_data_columns, text_columns
from ..run.runner import MIN_TIMEOUT_S
from ..run.scan import InputScan, reversible_problem, sample_columns, scan_input
from ..run.spark import describe_error
from ..run.spark_ship import ShipError, config_folders
from .mapping import mapping_key
from .numbers import MAX_BATCH, MAX_COUNT, MAX_PROCESSES, MAX_SECONDS, number_option
from .options import (
    BACKGROUND_HELP,
    LANG_HELP,
    PIPELINE_HELP,
    build_overrides,
    check_background_used,
    check_lang,
    load_or_fail,
    parse_settings,
    parse_strategy,
    set_background,
)
from .util import fail as _fail


def sanitize(
    inputs: list[Path] = typer.Argument(..., help="TXT, CSV/TSV, JSONL or TAB JSON files", exists=False),
    out: Path = typer.Option(..., "--out", "-o", help="Output directory"),
    pipeline: str | None = typer.Option(None, "--pipeline", "-p", help=PIPELINE_HELP),
    lang: str | None = typer.Option(
        None,
        "--lang",
        help=f"{LANG_HELP}. auto: each document's language detected (langdetect) and sanitized by that "
        "language's default pipeline, loaded once; a language without one, or not installed, by the default "
        "(--pipeline, else English), which the report says",
    ),
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
    background: Path | None = typer.Option(None, "--background", help=BACKGROUND_HELP),
    batch_size: int = number_option(32, "--batch-size", low=1, high=MAX_BATCH, help="Documents per batch"),
    n_process: int = number_option(1, "--n-process", low=1, high=MAX_PROCESSES, help="Pipeline processes"),
    ner_process_mode: str = typer.Option(
        "auto",
        "--ner-process",
        help="Run the NER in a process of its own beside the pipeline (two cores: about the time of the NER alone): on, off, auto (on with two CPUs or more, --n-process 1 and inputs of 100 kB or more)",
    ),
    engine: str = typer.Option(
        "local",
        "--engine",
        help="local: this process (--n-process); spark: PySpark, the pipeline loaded once per executor Python worker, the background folder (paths.background) sent along (pip install spacy-textsan[spark])",
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
    doc_timeout: float = number_option(
        0.0,
        "--doc-timeout",
        kind=float,
        low=MIN_TIMEOUT_S,
        high=MAX_SECONDS,
        off=0.0,
        off_means="no limit",
        unit="seconds",
        help="Time budget per document; beyond it --on-error applies",
    ),
    report_dir: Path | None = typer.Option(
        None,
        "--report-dir",
        help="Folder of the files that hold original strings (report.jsonl, TAB outputs); default OUT.report beside OUT, never inside it",
    ),
    all_columns: bool = typer.Option(
        False, "--all-columns", help="CSV/TSV: sanitize every text column; JSONL: every string value"
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar, no warnings about unselected columns"),
    overwrite: bool = typer.Option(
        False,
        "--overwrite",
        help="Replace the outputs of an earlier run in OUT and its report folder (refused without it); "
        "an earlier mapping.enc or TAB output this run does not write is removed",
    ),
    min_k: int = number_option(
        0,
        "--min-k",
        low=0,
        high=MAX_COUNT,
        help="Mask until what stays visible matches at least K background records (residual_risk; 0: report only)",
    ),
):
    """Sanitize files. Writes each file's sanitized copy into OUT (and, for
    TAB JSON, sanitized.jsonl; with --reversible, mapping.enc); the files that
    hold original strings (report.jsonl; for TAB JSON masked_spans.json and
    predictions.json) go to the report folder, OUT.report beside OUT by
    default, readable by you only: not for sharing. Everything is checked
    before any document is processed; outputs appear only when the run ends.
    Exit codes: 0 ok, 1 bad input or options (nothing written), 2 a document
    fell back or was redacted, 3 a component failed closed."""
    lang = check_lang(lang, auto=True)
    if lang == AUTO and engine != "local":
        _fail("--lang auto works with --engine local only")
    check_choice("--on-error", on_error, ON_ERROR)
    check_choice("--on-bad-line", on_bad_line, ("error", "skip"))
    check_choice("--engine", engine, ENGINES)
    check_choice("--ner-process", ner_process_mode, NER_PROCESS)
    if ner_process_mode == "on" and (n_process != 1 or engine != "local"):
        _fail("--ner-process on works with --engine local and --n-process 1")
    check_choice("--output-format", output_format, ("parquet", "jsonl", "none"))
    if reversible and engine == "spark":
        _fail("--reversible works with --engine local only")
    overrides = build_overrides(pattern, allow_list, deny_list, mask_format, settings)
    overrides.update(parse_strategy(strategy))
    set_background(overrides, background)
    if min_k:
        overrides["components.residual_risk.min_k"] = min_k
    if key_file is not None:
        if not key_file.is_file():
            _fail(f"{key_file}: key file not found")
        overrides["components.generalizer.key_file"] = str(key_file)
    key = checked_mapping_key(mapping_key_file) if reversible else None
    fixed = lang if lang != AUTO else None  # the one language of the run's pipeline (auto: each document's)
    # what the executors of --engine spark load: the pipeline, else the language's default config
    shipped = pipeline if pipeline is not None or fixed is None else str(language_spec(fixed).config)
    if engine == "spark":  # the folders the executors get a copy of (paths.background, ...)
        try:
            config_folders(shipped, overrides)
        except ShipError as e:
            _fail(f"--engine spark: {e}")
    use_ner_process = engine == "local" and wants_ner_process(
        ner_process_mode, n_process=n_process, n_chars=input_size(inputs)
    )
    if use_ner_process:  # the NER is then loaded in its process only
        overrides.setdefault("components.privacy_ner.source_process", True)
    nlp = load_or_fail(pipeline, overrides, parse_settings(settings), lang=fixed)
    router = language_router(nlp, overrides) if lang == AUTO else None
    check_background_used(nlp, background, pipeline)
    if min_k and "residual_risk" not in {nlp.get_pipe_meta(n).factory for n in nlp.pipe_names}:
        _fail(f"--min-k needs a pipeline with a residual_risk component ({pipeline or 'the default'} has none)")
    files, scans = open_inputs(inputs, fmt, columns, field, encoding, delimiter, on_bad_line, all_columns=all_columns)
    if reversible:
        for f, scan in zip(files, scans, strict=True):
            problem = reversible_problem(f, scan)
            if problem:
                _fail(f"{f.path}: --reversible refused: {problem}")
    try:
        plan = plan_outputs(files, out, report_dir, reversible=reversible, overwrite=overwrite)
    except PlanError as e:
        _fail(str(e))
    if not quiet:
        warn_unselected(files, scans)
    start = time.time()
    spark_options = {
        "out_dir": plan.report_dir,
        "pipeline": shipped,
        "overrides": overrides,
        "output_format": output_format.replace("none", "") or None,
        "master": spark_master,
        "used": {REPORT_FILE, MAPPING_FILE},
    }
    try:
        with ner_process(nlp, use_ner_process):
            run = sanitize_files(
                files,
                nlp,
                plan,
                engine=engine,
                batch_size=batch_size,
                n_process=n_process,
                on_error=on_error,
                timeout_s=doc_timeout or None,
                mapping_key=key,
                progress=False if quiet else None,
                n_docs=sum(scan.n_docs for scan in scans),
                spark_options=spark_options,
                language=fixed,
                router=router,
            )
    except PlanError as e:
        _fail(str(e))
    except SanitizationError as e:
        _fail(f"{e}; --on-error fail: nothing written")
    except SourceProcessError as e:  # the NER process could not start (a run fails closed on its later errors)
        missing = missing_model_message(e)
        if missing:
            _fail(f"cannot load pipeline {pipeline or '(default)'}: {missing}; nothing written")
        _fail(f"{e}; nothing written")
    except InputError as e:
        _fail(f"{e}; nothing written")
    except ShipError as e:
        _fail(f"--engine spark: {e}; nothing written")
    except ImportError as e:
        _fail(f"--engine spark needs pyspark (pip install spacy-textsan[spark]): {e}")
    except Exception as e:  # a failed Spark job: nothing of this run's outputs written but the dataset
        if engine != "spark":
            raise
        _fail(f"--engine spark failed: {describe_error(e)}")
    summarize(run, files, plan, min_k, time.time() - start, quiet)
    if run.exit_code:
        raise typer.Exit(code=run.exit_code)


def language_router(nlp, overrides: dict[str, object]) -> LanguageRouter:
    """``--lang auto``: ``nlp`` for the documents of its language and of none
    that has a pipeline here; each other supported language's default
    pipeline, with the same overrides, loaded for its first document (its NER
    in this process: the NER process is the default pipeline's)."""
    own = {k: v for k, v in overrides.items() if k != "components.privacy_ner.source_process"}
    return LanguageRouter(nlp, lambda code: load_pipeline(None, own, lang=code))


def input_size(paths: Sequence[Path]) -> int | None:
    """The bytes of the input files; None if one is not a plain file (a pipe)
    and 0 if one does not exist (the run stops on it before any work)."""
    total = 0
    for path in paths:
        try:
            if not path.exists():
                return 0
            if not path.is_file():
                return None
            total += path.stat().st_size
        except OSError:
            return 0
    return total


def check_choice(option: str, value: str, choices: Sequence[str]) -> None:
    if value not in choices:
        _fail(f"{option} must be one of {', '.join(choices)}, not {value!r}")


def checked_mapping_key(key_file: Path | None) -> Secret:
    """The mapping key of --reversible, checked to be a Fernet key before any work."""
    key = mapping_key(key_file)
    try:
        check_mapping_key(key)
    except MappingError as e:
        where = key_file if key_file is not None else f"${MAPPING_KEY_ENV}"
        _fail(f"{where}: {e}")
    return key


def open_inputs(
    inputs: list[Path],
    fmt: str | None,
    columns: list[str],
    field: str,
    encoding: str | None,
    delimiter: str | None,
    on_bad_line: str,
    *,
    all_columns: bool = False,
) -> tuple[list[InputFile], list[InputScan]]:
    """Open every input and read it through once (:func:`scan_input`): any
    problem stops the run here, before any work."""
    files, scans, doc_ids = [], [], set[str]()
    try:
        for path in inputs:
            f = open_input(path, fmt, columns or None, field, encoding, delimiter, on_bad_line, all_columns=all_columns)
            if all_columns and f.fmt in ("csv", "tsv"):  # every column that holds text
                chosen = text_columns(sample_columns(f)) or f.fields
                f = open_input(path, fmt, chosen, field, encoding, delimiter, on_bad_line)
            scans.append(scan_input(f, doc_ids))
            files.append(f)
    except InputError as e:
        _fail(str(e))
    return files, scans


def warn_unselected(files: list[InputFile], scans: list[InputScan]) -> None:
    """Warn about columns and keys copied as they are that look like personal data."""
    for f, scan in zip(files, scans, strict=True):
        header = [name for name in f.header or [] if name not in f.fields]
        found = personal_data_columns(scan.unselected, header or None)
        if found:
            table = f.fmt in ("csv", "tsv")
            listed = "; ".join(
                f"{shown_column(f.header, name) if table else shown_key(name)} ({reason})"
                for name, reason in found.items()
            )
            what = "columns" if table else "keys"
            msg.warn(
                f"{f.path}: {what} not sanitized that look like personal data: {listed}. They are copied "
                f"as they are: select them ({'--column' if what == 'columns' else '--field'}) or pass --all-columns"
            )


def summarize(run: RunResult, files: list[InputFile], plan: OutputPlan, min_k: int, elapsed: float, quiet: bool):
    """What the run wrote and how its documents fared."""
    for f in files:
        for bad in f.skipped:
            msg.warn(f"skipped {bad}")
    if run.dataset:
        msg.good(f"wrote {run.dataset}")
    for path in run.written:
        if path.name == MAPPING_FILE:
            msg.good(
                f"wrote {path} (run {run.run_id}, encrypted; `textsan restore` with the key brings the originals "
                "back, for these sanitized files only)"
            )
        elif path.parent != plan.report_dir and not quiet:
            msg.good(f"wrote {path}")
    reports = sorted(p.name for p in run.written if p.parent == plan.report_dir)
    msg.warn(
        f"reports in {plan.report_dir} ({', '.join(reports)}) hold the original strings: "
        f"keep them, do not share them with the sanitized files"
    )
    counts = run.counts
    msg.info(
        f"{run.n_docs} documents in {elapsed:.1f}s: {counts['ok']} ok, {counts['degraded']} degraded, "
        f"{counts['fallback']} fallback, {counts['failed']} failed; report: {plan.report}"
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
    summary = residual_summary(run.residual_ks, min_k)
    if summary:
        msg.info(summary)
    if counts["degraded"]:
        msg.warn(
            f"{counts['degraded']} document(s) had a component fail closed (counted as risky, masked "
            f"more); see the errors in the report"
        )


def run_exit_code(counts: dict[str, int]) -> int:
    """The exit code of a run with these status counts (see :attr:`RunResult.exit_code`)."""
    return RunResult(counts=dict(counts)).exit_code


def residual_summary(ks: Counter, min_k: int = 0) -> str | None:
    """How many documents reach which residual k (``ks``: k -> number of
    documents; None when no document has one)."""
    if not ks:
        return None
    bands = [("k >= 20", 20, None), ("5-19", 5, 20), ("2-4", 2, 5), ("k <= 1", 0, 2)]
    parts = [
        f"{name}: {sum(n for k, n in ks.items() if isinstance(k, int) and k >= lo and (hi is None or k < hi))}"
        for name, lo, hi in bands
    ]
    unknown = ks.get(None, 0)
    text = f"residual risk (background records matching what stays visible): {', '.join(parts)}"
    if ks.get(NOT_MEASURED):
        text += f", not measured (the background does not hold the person): {ks[NOT_MEASURED]}"
    if unknown:
        text += f", unknown (failed): {unknown}"
    if min_k:
        below = sum(n for k, n in ks.items() if k is None or (isinstance(k, int) and k < min_k))
        text += f"; below --min-k {min_k}: {below}"
    return text
