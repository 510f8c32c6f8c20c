"""``sanitize_files``: input files through a pipeline, in this process or on
Spark, written as they go (:class:`~spacy_textsan.run.outputs.RunWriter`)."""

from collections.abc import Iterable, Iterator
from typing import Any

from spacy.language import Language
from tqdm import tqdm

from ..io import InputFile
from ..render.keys import Secret
from .columns import mask_format_of
from .files import Outcome, RunResult, local_outcomes, run_file
from .languages import LanguageRouter, sanitize_routed
from .outputs import OutputPlan, RunWriter, write_results
from .results import DocResult
from .runner import sanitize_texts
from .spark import sanitize_files_spark

ENGINES = ("local", "spark")


def sanitize_files(
    files: list[InputFile],
    nlp: Language,
    plan: OutputPlan,
    *,
    engine: str = "local",
    batch_size: int = 32,
    n_process: int = 1,
    on_error: str = "mask-all",
    timeout_s: float | None = None,
    mapping_key: Secret | None = None,
    progress: bool | None = None,
    n_docs: int | None = None,
    spark_options: dict[str, Any] | None = None,
    language: str | None = None,
    router: LanguageRouter | None = None,
) -> RunResult:
    """Sanitize every document of ``files`` with ``nlp``, in order, and write
    the outputs of ``plan`` (all of them, or nothing if the run fails).

    The local engine streams: each file's records are read, sanitized and
    written as they come (:meth:`InputFile.iter_records`). ``progress``: a
    progress bar of documents (None: on a terminal only), of ``n_docs`` if
    known (rate and time left). ``engine="spark"``
    runs the documents on Spark
    (:func:`spacy_textsan.run.spark.sanitize_files_spark`, always failing
    closed with ``mask-all``) with ``spark_options``: ``pipeline`` and
    ``overrides`` (what each executor loads), ``master``, ``output_format``,
    ``out_dir`` (where the dataset goes), ``used``; ``nlp`` is then the
    driver's copy of the pipeline. Raises
    :class:`~spacy_textsan.run.runner.SanitizationError` (``on_error="fail"``)
    and :class:`~spacy_textsan.io.InputError` (a record found bad while
    streaming; a doc_id twice in TAB inputs).

    ``language``: the language the run chose (``--lang``), said in each
    document's report line (None: not said). ``router``: each document
    sanitized by the pipeline of its language
    (:class:`~spacy_textsan.run.languages.LanguageRouter`, ``--lang auto``;
    ``nlp`` is then its default pipeline; local engine only).
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if router is not None and engine != "local":
        raise ValueError("routing documents by language works with the local engine only")
    mask_format = mask_format_of(nlp)
    if engine == "spark":
        for f in files:
            if not f.records:
                f.records = list(f.iter_records())
        spark_run = sanitize_files_spark(files, batch_size=batch_size, write_copies=False, **(spark_options or {}))
        if language is not None:
            for file_results in spark_run.results:
                for res in file_results:
                    res.language = language
        result = write_results(files, spark_run.results, plan, mask_format, mapping_key)
        result.dataset = spark_run.dataset
        return result

    def sanitize(texts: Iterator[str]) -> Iterator:
        if router is not None:
            return sanitize_routed(
                router, texts, batch_size=batch_size, n_process=n_process, on_error=on_error, timeout_s=timeout_s
            )
        results = sanitize_texts(
            nlp, texts, batch_size=batch_size, n_process=n_process, on_error=on_error, timeout_s=timeout_s
        )
        return _said(results, language)

    bar = tqdm(total=n_docs, unit="doc", disable=None if progress is None else not progress)
    plan.prepare()
    try:
        with RunWriter(plan, mapping_key) as writer:
            for f in files:
                bar.set_description(f.path.name)
                outcomes = _counted(local_outcomes(f.iter_records(), sanitize), bar)
                run_file(f, outcomes, writer.open_file(f), mask_format)
            return writer.commit()
    finally:
        bar.close()


def _said(results: Iterable[DocResult], language: str | None) -> Iterator[DocResult]:
    """The results, each saying ``language`` (None: as they are)."""
    for res in results:
        if language is not None:
            res.language = language
        yield res


def _counted(outcomes: Iterable[Outcome], bar: tqdm) -> Iterator[Outcome]:
    for record, results in outcomes:
        bar.update(len(results))
        yield record, results
