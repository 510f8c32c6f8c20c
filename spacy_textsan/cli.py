"""The ``textsan`` command line: sanitize, evaluate, visualize."""

import datetime
import platform
import time
from pathlib import Path

import typer
from tqdm import tqdm
from wasabi import msg

from .about import __version__
from .cli_util import fail as _fail
from .extensions import TAB_LABELS

app = typer.Typer(
    name="textsan",
    add_completion=False,
    no_args_is_help=True,
    help="spacy-textsan: find, measure and mask personal identifiers in text.",
)

from .risk.kanon_cli import kanon_app

app.add_typer(kanon_app, name="kanon", help="Background knowledge for kanon_risk (inverted index)")

from .gazetteer.gazetteer_cli import gazetteer_app

app.add_typer(gazetteer_app, name="gazetteer", help="Knowledge base of wikidata_gazetteer (build, import-dump)")

from .generalizer.mapping_cli import keygen_cmd, restore_cmd
from .training.convert import convert_cmd
from .training.silver import silver_cmd

app.command("convert")(convert_cmd)
app.command("silver")(silver_cmd)
app.command("keygen")(keygen_cmd)
app.command("restore")(restore_cmd)

PIPELINE_HELP = "Installed or saved spaCy pipeline, or a .cfg file (default: the bundled zero-shot pipeline)"


def _read_list_file(path: Path) -> list[str]:
    """One entry per line; blank lines and lines starting with # are ignored."""
    from .io import InputError

    try:
        raw = path.read_bytes()
    except OSError as e:
        raise InputError(str(path), None, f"cannot read: {e.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise InputError(str(path), line, "not valid UTF-8") from None
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def _deny_entries(path: Path) -> list[dict]:
    """Deny-list lines: "term", or "LABEL<TAB>term" / "LABEL:term"."""
    entries = []
    for line in _read_list_file(path):
        for sep in ("\t", ":"):
            label, found, term = line.partition(sep)
            if found and label.strip() in TAB_LABELS:
                entries.append({"label": label.strip(), "text": term.strip()})
                break
        else:
            entries.append({"label": "MISC", "text": line})
    return entries


def parse_settings(settings: list[str]) -> dict[str, object]:
    """``--set section.key=value`` (value parsed as JSON when it is JSON)."""
    import json

    out: dict[str, object] = {}
    for item in settings:
        key, sep, value = item.partition("=")
        if not sep or "." not in key:
            raise typer.BadParameter(f"--set must be section.key=value, e.g. paths.kanon_index=assets/idx: {item!r}")
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value
    return out


def build_overrides(
    patterns: list[str],
    allow_list: Path | None,
    deny_list: Path | None,
    mask_format: str | None,
    settings: list[str] = (),
) -> dict[str, object]:
    overrides: dict[str, object] = parse_settings(list(settings))
    user_patterns = []
    for i, p in enumerate(patterns):
        label, sep, regex = p.partition("=")
        if not sep or label not in TAB_LABELS or not regex:
            raise typer.BadParameter(f"--pattern must be LABEL=REGEX with LABEL one of {', '.join(TAB_LABELS)}: {p!r}")
        user_patterns.append({"name": f"cli_{i + 1}", "label": label, "pattern": regex})
    if user_patterns:
        overrides["components.privacy_ner.patterns"] = user_patterns
    if allow_list:
        overrides["components.privacy_ner.allow_list"] = _read_list_file(allow_list)
    if deny_list:
        overrides["components.privacy_ner.deny_list"] = _deny_entries(deny_list)
    if mask_format:
        overrides["components.generalizer.mask_format"] = mask_format
    return overrides


def parse_strategy(value: str | None) -> dict[str, object]:
    """``--strategy generalize`` or ``--strategy pseudonym,DATETIME=generalize,CODE=mask``:
    the default strategy and per-type exceptions, as generalizer overrides."""
    from .generalizer.generalizer_component import STRATEGIES

    if not value:
        return {}
    default, by_label = None, {}
    for item in (v.strip() for v in value.split(",") if v.strip()):
        label, sep, strategy = item.rpartition("=")
        if sep and label not in TAB_LABELS:
            raise typer.BadParameter(f"--strategy: {label!r} is not one of {', '.join(TAB_LABELS)}")
        if strategy not in STRATEGIES:
            raise typer.BadParameter(f"--strategy: {strategy!r} is not one of {', '.join(STRATEGIES)}")
        if sep:
            by_label[label] = strategy
        elif default is None:
            default = strategy
        else:
            raise typer.BadParameter(f"--strategy names two default strategies: {value!r}")
    out: dict[str, object] = {}
    if default:
        out["components.generalizer.strategy"] = default
    if by_label:
        out["components.generalizer.strategy_by_label"] = by_label
    return out


def _load(pipeline: str | None, overrides: dict[str, object] | None = None):
    from .pipeline import load_pipeline

    try:
        return load_pipeline(pipeline, overrides)
    except (OSError, ValueError) as e:
        _fail(f"cannot load pipeline {pipeline or '(default)'}: {e}")


@app.command()
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
):
    """Sanitize files; writes each file's sanitized copy, report.jsonl and, for
    TAB JSON, sanitized.jsonl, masked_spans.json (input of TAB's evaluation.py)
    and predictions.json (the detected spans as TAB annotations) into OUT."""
    from .io import InputError, read_input, write_jsonl, write_output
    from .runner import (
        ON_ERROR,
        SanitizationError,
        column_votes,
        mask_cell,
        mask_format_of,
        report_row,
        sanitize_texts,
        skipped_row,
    )

    if on_error not in ON_ERROR:
        raise typer.BadParameter(f"--on-error must be one of {', '.join(ON_ERROR)}")
    if on_bad_line not in ("error", "skip"):
        raise typer.BadParameter("--on-bad-line must be 'error' or 'skip'")
    if engine not in ("local", "spark") or output_format not in ("parquet", "jsonl", "none"):
        raise typer.BadParameter("--engine must be local or spark; --output-format parquet, jsonl or none")
    try:
        overrides = build_overrides(pattern, allow_list, deny_list, mask_format, settings)
        overrides.update(parse_strategy(strategy))
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
    mapping = None
    if reversible:
        from .generalizer.mapping_cli import MappingWriter, mapping_key

        mapping, key = MappingWriter(), mapping_key(mapping_key_file)
    nlp = _load(pipeline, overrides)

    # the run's own outputs keep their names; inputs with those names get "-2"
    report_rows, masked_spans, n_docs = [], {}, 0
    counts = {"ok": 0, "degraded": 0, "fallback": 0, "failed": 0}
    pending = []  # everything is sanitized before anything is written
    tab_texts, tab_predictions = [], {}
    used = {"report.jsonl", "masked_spans.json", "predictions.json"}
    start = time.time()
    spark_results = None
    if engine == "spark":  # the same pipeline and overrides on each executor (nlp above: checked on the driver)
        out.mkdir(parents=True, exist_ok=True)
        try:
            from .spark_engine import describe_error, sanitize_files_spark

            spark_run = sanitize_files_spark(
                files,
                out,
                pipeline,
                overrides,
                output_format.replace("none", "") or None,
                master=spark_master,
                batch_size=batch_size,
                write_copies=False,
                used=used,
            )
        except ImportError as e:
            _fail(f"--engine spark needs pyspark (pip install spacy-textsan[spark]): {e}")
        except Exception as e:  # a failed Spark job: nothing of this run's outputs written but the dataset
            _fail(f"--engine spark failed: {describe_error(e)}")
        spark_results = iter(spark_run.results)
        if spark_run.dataset:
            msg.good(f"wrote {spark_run.dataset}")
    for f in files:
        for bad in f.skipped:
            msg.warn(f"skipped {bad}")
            report_rows.append(skipped_row(f, bad))
        jobs = [(rec, name, text) for rec in f.records for name, text in rec.texts.items()]
        texts = (text for _, _, text in jobs)
        sanitized = [dict() for _ in f.records]
        offset_maps = [dict() for _ in f.records]
        results = (
            next(spark_results)
            if spark_results is not None
            else sanitize_texts(
                nlp, texts, batch_size=batch_size, n_process=n_process, on_error=on_error, timeout_s=doc_timeout or None
            )
        )
        progress = tqdm(
            zip(jobs, results, strict=False),
            total=len(jobs),
            desc=Path(f.path).name,
            unit="doc",
            leave=False,
            disable=None,
        )
        try:
            done = list(progress)
        except SanitizationError as e:
            _fail(f"{f.path}: a document could not be sanitized ({e}); --on-error fail: nothing written")
        if f.fmt not in ("txt", "tab"):  # a column of names without context is still a column of names
            votes = column_votes([(name, text, res) for (_, name, text), res in done])
            mask_format = mask_format_of(nlp)
            for i, label in votes.items():
                (rec, name, text), res = done[i]
                done[i] = ((rec, name, text), mask_cell(text, res, label, mask_format))
        for (rec, name, _), res in done:
            n_docs += 1
            row = report_row(f, rec, name, res)
            counts[row["status"]] += 1
            sanitized[rec.index][name] = res.sanitized
            offset_maps[rec.index][name] = res.offset_map
            if f.fmt == "tab":
                if rec.doc_id in masked_spans:
                    _fail(f"{f.path}:{rec.line}: doc_id {rec.doc_id} appears twice in the inputs")
                masked_spans[rec.doc_id] = res.masked
                tab_texts.append((rec.doc_id, rec.texts[name]))
                tab_predictions[rec.doc_id] = [
                    dict(sp, identifier_type="NO_MASK") if sp["masked"] is False else sp for sp in res.spans
                ]
            report_rows.append(row)
        pending.append((f, sanitized, offset_maps))
    out.mkdir(parents=True, exist_ok=True)
    for f, sanitized, offset_maps in pending:
        try:
            written = write_output(f, sanitized, out, used=used)
        except ValueError as e:
            _fail(f"{f.path}: {e}")
        for path in written:
            msg.good(f"wrote {path}")
        if mapping is not None:
            mapping.add_file(f, written[0], sanitized, [r.texts for r in f.records], offset_maps)
    write_jsonl(out / "report.jsonl", report_rows)
    if mapping is not None:
        msg.good(
            f"wrote {mapping.write(out, key)} (encrypted; `textsan restore` with the key brings the originals back)"
        )
    if masked_spans:
        from .io import write_json
        from .tab import predictions_to_tab, write_masked_spans

        write_masked_spans(out / "masked_spans.json", masked_spans)
        write_json(out / "predictions.json", predictions_to_tab(tab_texts, tab_predictions))
        msg.good(f"wrote {out / 'masked_spans.json'} and {out / 'predictions.json'} (TAB format)")
    elapsed = time.time() - start
    msg.info(
        f"{n_docs} documents in {elapsed:.1f}s: {counts['ok']} ok, {counts['degraded']} degraded, "
        f"{counts['fallback']} fallback, {counts['failed']} failed; report: {out / 'report.jsonl'}"
    )
    exit_code = run_exit_code(counts)
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
    if counts["degraded"]:
        msg.warn(
            f"{counts['degraded']} document(s) had a component fail closed (counted as risky, masked "
            f"more); see the errors in the report"
        )
    if exit_code:
        raise typer.Exit(code=exit_code)


def run_exit_code(counts: dict[str, int]) -> int:
    """0: every document as configured; 2: a document was redacted or fell back
    to masking every candidate; 3: only fail-closed component errors."""
    if counts.get("failed") or counts.get("fallback"):
        return 2
    return 3 if counts.get("degraded") else 0


@app.command()
def evaluate(
    gold: Path = typer.Argument(..., help="TAB JSON file with gold annotations"),
    pipeline: str | None = typer.Option(None, "--pipeline", "-p", help=PIPELINE_HELP),
    masked: Path | None = typer.Option(
        None, "--masked", help="Score an existing masked_spans.json instead of running a pipeline"
    ),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write the metrics as JSON here"),
    limit: int = typer.Option(0, "--limit", help="Only the first N documents (0: all)"),
    batch_size: int = typer.Option(32, "--batch-size", min=1),
    settings: list[str] = typer.Option([], "--set", help="Config override section.key=value (repeatable)"),
    weights: str = typer.Option(
        "uniform",
        "--weights",
        help="Token weights of the weighted precision: uniform or wordfreq (information content)",
    ),
):
    """TAB metrics (seed 004): token recall, ERdi, ERqi, precision, weighted precision, per type."""
    import srsly

    from .io import write_json
    from .runner import sanitize_texts
    from .tab import TabFormatError, read_tab
    from .tab import evaluate as tab_evaluate

    try:
        docs = read_tab(gold)
    except (TabFormatError, OSError) as e:
        _fail(str(e))
    if limit:
        docs = docs[:limit]
    timing = {}
    if masked is not None:
        try:
            pred = {k: [tuple(x) for x in v] for k, v in srsly.read_json(masked).items()}
        except (ValueError, OSError, AttributeError, TypeError) as e:
            _fail(f"{masked}: not a masked_spans.json mapping doc_id -> [[start, end], ...] ({e})")
        ids = {d.doc_id for d in docs}
        pred = {k: v for k, v in pred.items() if k in ids}
    else:
        nlp = _load(pipeline, parse_settings(settings))
        start = time.time()
        results = list(
            tqdm(
                sanitize_texts(nlp, (d.text for d in docs), batch_size=batch_size),
                total=len(docs),
                desc="sanitizing",
                unit="doc",
                leave=False,
                disable=None,
            )
        )
        elapsed = time.time() - start
        pred = {d.doc_id: r.masked for d, r in zip(docs, results, strict=False)}
        n_chars = sum(len(d.text) for d in docs)
        timing = {
            "seconds": round(elapsed, 3),
            "docs_per_s": round(len(docs) / elapsed, 3),
            "chars_per_s": round(n_chars / elapsed, 1),
        }
    if weights not in ("uniform", "wordfreq"):
        raise typer.BadParameter("--weights must be uniform or wordfreq")
    weight_fn = None
    if weights == "wordfreq":
        from .risk.lm_backends import WordfreqBackend, token_weighting

        weight_fn = token_weighting(WordfreqBackend())
    try:
        metrics = tab_evaluate(docs, pred, weights=weight_fn)
    except KeyError as e:
        _fail(str(e))
    rows = [
        (name, f"{metrics[key]:.3f}")
        for name, key in [
            ("token recall (di+qi)", "recall"),
            ("token recall DIRECT", "recall_direct"),
            ("token recall QUASI", "recall_quasi"),
            ("mention recall", "mention_recall"),
            ("ERdi", "er_di"),
            ("ERqi", "er_qi"),
            ("precision", "precision"),
        ]
    ]
    if metrics["weighted_precision"] is not None:
        rows.append(("weighted precision (wordfreq)", f"{metrics['weighted_precision']:.3f}"))
    rows += [(f"recall {t}", f"{v:.3f}") for t, v in sorted(metrics["per_type_recall"].items())]
    rows += [(k, str(v)) for k, v in timing.items()]
    msg.table(rows, header=("metric", "value"), divider=True, title=f"{gold.name}: {metrics['n_docs']} documents")
    if output:
        write_json(
            output,
            {
                "gold": str(gold),
                "pipeline": pipeline or ("masked:" + str(masked) if masked else "default zero-shot"),
                "date": datetime.date.today().isoformat(),
                "machine": f"{platform.machine()} {platform.system()}",
                "spacy_textsan": __version__,
                "weights": weights,
                "metrics": metrics,
                "timing": timing,
            },
        )
        msg.good(f"wrote {output}")


@app.command()
def visualize(
    input_path: Path = typer.Argument(..., help="A TXT, CSV, JSONL or TAB JSON file"),
    out: Path = typer.Option(Path("textsan.html"), "--out", "-o", help="HTML file to write"),
    pipeline: str | None = typer.Option(None, "--pipeline", "-p", help=PIPELINE_HELP),
    fmt: str | None = typer.Option(None, "--format", "-f"),
    columns: list[str] = typer.Option([], "--column", "-c"),
    field: str = typer.Option("text", "--field"),
    encoding: str | None = typer.Option(None, "--encoding"),
    limit: int = typer.Option(20, "--limit", help="At most N documents"),
    settings: list[str] = typer.Option([], "--set", help="Config override section.key=value (repeatable)"),
):
    """Write an HTML page with the spans, their types, decisions and replacements."""
    from .io import InputError, atomic_write, read_input
    from .runner import sanitize_texts
    from .visualize import render_page

    try:
        f = read_input(input_path, fmt=fmt, columns=columns or None, field=field, encoding=encoding)
    except InputError as e:
        _fail(str(e))
    nlp = _load(pipeline, parse_settings(settings))
    jobs = [(rec, name, text) for rec in f.records for name, text in rec.texts.items()][: max(1, limit)]
    results = list(sanitize_texts(nlp, (t for _, _, t in jobs), keep_docs=True))
    docs = [r.doc for r in results if r.doc is not None]
    titles = [f"{rec.doc_id} ({name})" for (rec, name, _), r in zip(jobs, results, strict=False) if r.doc is not None]
    with atomic_write(out) as fh:
        fh.write(render_page(docs, titles))
    msg.good(f"wrote {out} ({len(docs)} documents)")


@app.command()
def version():
    """Print the version."""
    print(__version__)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
