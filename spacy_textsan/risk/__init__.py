"""The risk stage: lm_risk, kanon_risk, web_risk, supervised_risk.

Each measure scores candidate spans (``span._.risk[measure]``) and records the
spans or combinations of spans that are risky in ``doc._.risky_sets``.

The pure cores here also serve the decide stage's ``reid_risk`` and
``residual_risk`` (``spacy_textsan.decide``): the background records
(``background``, ``reid_index``, ``reid_dense``), the attack (``reid_attack``),
the term index (``kanon_index``) and ``phrases``.
"""
