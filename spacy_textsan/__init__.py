"""spacy-textsan: privacy-risk-aware text sanitization for spaCy."""

from . import (
    extensions,  # noqa: F401  (declares the Doc/Span extensions)
    tokenizer,  # noqa: F401  (registers spacy_textsan.Tokenizer.v1)
)
from .about import __version__
from .decide import MaskAll, MaskOptimizer, make_mask_all, make_mask_optimizer
from .decide.residual_risk import ResidualRisk, make_residual_risk
from .detect.gazetteer.wikidata_gazetteer import WikidataGazetteer, make_wikidata_gazetteer
from .detect.privacy_ner import PrivacyNER, make_privacy_ner
from .extensions import SPANS_KEY, TAB_LABELS
from .render import Generalizer, make_generalizer
from .risk.kanon_risk import KanonRisk, make_kanon_risk
from .risk.lm_backends import MaskedLMBackend, WordfreqBackend, token_weighting
from .risk.lm_risk import LMRisk, make_lm_risk
from .risk.search_client import SearchError
from .risk.web_risk import WebRisk, make_web_risk
from .risk.web_search import JsonHttpClient, SearxngClient

__all__ = [
    "__version__",
    "SPANS_KEY",
    "TAB_LABELS",
    "PrivacyNER",
    "make_privacy_ner",
    "MaskAll",
    "WikidataGazetteer",
    "make_wikidata_gazetteer",
    "make_mask_all",
    "MaskOptimizer",
    "make_mask_optimizer",
    "WebRisk",
    "make_web_risk",
    "SearxngClient",
    "JsonHttpClient",
    "SearchError",
    "LMRisk",
    "make_lm_risk",
    "WordfreqBackend",
    "MaskedLMBackend",
    "token_weighting",
    "KanonRisk",
    "make_kanon_risk",
    "ResidualRisk",
    "make_residual_risk",
    "Generalizer",
    "make_generalizer",
]
