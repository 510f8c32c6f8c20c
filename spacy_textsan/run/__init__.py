"""Running a pipeline over documents and files, and writing what it gives.

The one run layer of ``textsan sanitize`` and of the Python API, whatever the
engine: :func:`sanitize_texts` (texts in this process, failing closed),
:func:`plan_outputs` (every output of a run checked before any work),
:func:`sanitize_files` (input files streamed, locally or on Spark, with the
column votes of tables, written as they go by :class:`RunWriter`: sanitized
copies, the report, TAB outputs, the encrypted mapping of reversible mode).
"""

from .columns import column_votes, mask_cell, mask_format_of
from .engines import ENGINES, sanitize_files
from .files import RESERVED_OUTPUTS, RunResult
from .outputs import MAPPING_FILE, REPORT_FILE, OutputPlan, PlanError, RunWriter, default_report_dir, plan_outputs
from .results import FAILED_TEXT, DocResult, report_row, result_from_doc
from .runner import NER_PROCESS, ON_ERROR, SanitizationError, ner_process, sanitize_texts, wants_ner_process

__all__ = [
    "FAILED_TEXT",
    "MAPPING_FILE",
    "NER_PROCESS",
    "ON_ERROR",
    "RESERVED_OUTPUTS",
    "ENGINES",
    "REPORT_FILE",
    "DocResult",
    "OutputPlan",
    "PlanError",
    "RunResult",
    "RunWriter",
    "SanitizationError",
    "column_votes",
    "default_report_dir",
    "plan_outputs",
    "mask_cell",
    "mask_format_of",
    "ner_process",
    "report_row",
    "result_from_doc",
    "sanitize_files",
    "sanitize_texts",
    "wants_ner_process",
]
