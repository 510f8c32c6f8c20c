"""``sanitize_files``: input files through a pipeline, in this process or on Spark."""

from typing import Any

from spacy.language import Language

from ..io import InputFile
from .columns import mask_format_of
from .files import RunResult, collect_run, local_results
from .spark import sanitize_files_spark

ENGINES = ("local", "spark")


def sanitize_files(
    files: list[InputFile],
    nlp: Language,
    *,
    engine: str = "local",
    batch_size: int = 32,
    n_process: int = 1,
    on_error: str = "mask-all",
    timeout_s: float | None = None,
    spark_options: dict[str, Any] | None = None,
) -> RunResult:
    """Sanitize every document of ``files`` with ``nlp``, in order; nothing is written.

    ``engine="spark"`` runs the documents on Spark
    (:func:`spacy_textsan.run.spark.sanitize_files_spark`, always failing
    closed with ``mask-all``) with ``spark_options``: ``pipeline`` and
    ``overrides`` (what each executor loads), ``master``, ``output_format``,
    ``out_dir`` (where the dataset goes), ``used``; ``nlp`` is then the
    driver's copy of the pipeline. Raises what :func:`collect_run` raises.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "spark":
        spark_run = sanitize_files_spark(files, batch_size=batch_size, write_copies=False, **(spark_options or {}))
        return collect_run(files, spark_run.results, mask_format_of(nlp), dataset=spark_run.dataset)
    per_file = local_results(
        files, nlp, batch_size=batch_size, n_process=n_process, on_error=on_error, timeout_s=timeout_s
    )
    return collect_run(files, per_file, mask_format_of(nlp))
