"""The ``textsan`` command line (typer): argument checks and messages only; the work is
done by :mod:`spacy_textsan.run` and the pipeline components."""

from .app import app, main
from .options import build_overrides, parse_settings, parse_strategy
from .sanitize import run_exit_code

__all__ = ["app", "main", "build_overrides", "parse_settings", "parse_strategy", "run_exit_code"]
