"""Running a pipeline over documents and files, and writing what it gives.

The one run layer of ``textsan sanitize`` and of the Python API, whatever the
engine: :func:`sanitize_texts` (texts in this process, failing closed),
:func:`sanitize_files` (input files, locally or on Spark, with the column votes of
tables and the report), :func:`write_run` (sanitized copies, report, TAB outputs,
the encrypted mapping of reversible mode).
"""

from .columns import column_votes, mask_cell, mask_format_of
from .engines import ENGINES, sanitize_files
from .files import RESERVED_OUTPUTS, FileRun, RunResult, collect_run
from .local import ON_ERROR, SanitizationError, sanitize_texts
from .outputs import MAPPING_FILE, MappingWriter, reserved_names, write_run
from .results import FAILED_TEXT, DocResult, report_row, result_from_doc

__all__ = [
    "FAILED_TEXT",
    "MAPPING_FILE",
    "ON_ERROR",
    "RESERVED_OUTPUTS",
    "ENGINES",
    "DocResult",
    "FileRun",
    "MappingWriter",
    "RunResult",
    "SanitizationError",
    "collect_run",
    "column_votes",
    "mask_cell",
    "mask_format_of",
    "report_row",
    "reserved_names",
    "result_from_doc",
    "sanitize_files",
    "sanitize_texts",
    "write_run",
]
