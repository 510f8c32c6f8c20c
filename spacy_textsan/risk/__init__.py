"""Risk measures: lm_risk, kanon_risk, web_risk.

Each measure scores candidate spans (``span._.risk[measure]``) and records the
spans or combinations of spans that are risky in ``doc._.risky_sets``.
"""
