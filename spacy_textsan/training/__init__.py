"""Training workflow: TAB → DocBins, silver data, trained pipelines (see project.yml)."""

from .convert import ANNOTATOR_KEY, GOLD_KEY, convert_tab, docbin_stats, tab_to_training_docs

__all__ = ["ANNOTATOR_KEY", "GOLD_KEY", "convert_tab", "docbin_stats", "tab_to_training_docs"]
