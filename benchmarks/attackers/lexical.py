"""The lexical attacker: BM25 (``rank_bm25.BM25Okapi``) over the background records.

Its own tokenisation, shared with nothing in spacy_textsan: placeholders stripped (:mod:`.common`),
case-folded, words = runs of letters and digits (``[^\\W_]+``), the English stopwords below (NLTK's list,
written out here) dropped, then PyStemmer's English (Snowball) stemmer. The query is tokenised the same
way as the records.

    attacker = BM25Attacker(ids, texts)
    attacker.rank(["... sanitized abstract ..."])      # [[best id, second id, ...]]
    attacker.top1(texts, true_ids)                     # [Outcome(rank, n_tied, success, top), ...]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import Stemmer
from rank_bm25 import BM25Okapi

try:  # as a module of the benchmarks/attackers folder (sys.path holds benchmarks/)
    from attackers.common import Outcome, outcome, ranking, strip_placeholders
except ImportError:  # pragma: no cover - imported as a package from elsewhere
    from .common import Outcome, outcome, ranking, strip_placeholders

# fmt: off
STOPWORDS = frozenset("""
a about above after again against ain all am an and any are aren aren't as at be because been before being
below between both but by can couldn couldn't d did didn didn't do does doesn doesn't doing don don't down
during each few for from further had hadn hadn't has hasn hasn't have haven haven't having he her here hers
herself him himself his how i if in into is isn isn't it it's its itself just ll m ma me mightn mightn't more
most mustn mustn't my myself needn needn't no nor not now o of off on once only or other our ours ourselves
out over own re s same shan shan't she she's should should've shouldn shouldn't so some such t than that
that'll the their theirs them themselves then there these they this those through to too under until up ve
very was wasn wasn't we were weren weren't what when where which while who whom why will with won won't
wouldn wouldn't y you you'd you'll you're you've your yours yourself yourselves
""".split())
# fmt: on

WORD = re.compile(r"[^\W_]+")
_STEMMER = Stemmer.Stemmer("english")


def tokenize(text: str) -> list[str]:
    """Placeholders stripped, case-folded words without stopwords, stemmed."""
    words = [w for w in WORD.findall(strip_placeholders(text).casefold()) if w not in STOPWORDS]
    return _STEMMER.stemWords(words)


class BM25Attacker:
    """BM25 over the background records ``texts`` (named ``ids``), BM25Okapi's defaults (k1 1.5, b 0.75)."""

    name = "bm25"

    def __init__(self, ids: Sequence[str], texts: Sequence[str], k1: float = 1.5, b: float = 0.75):
        if len(ids) != len(texts):
            raise ValueError("ids and texts differ in length")
        self.ids = list(ids)
        self.bm25 = BM25Okapi([tokenize(t) or [""] for t in texts], k1=k1, b=b)

    def scores(self, text: str) -> np.ndarray:
        """One BM25 score per background record (all 0 when nothing of the query is left)."""
        query = tokenize(text)
        if not query:
            return np.zeros(len(self.ids))
        return np.asarray(self.bm25.get_scores(query), dtype=float)

    def rank(self, texts: Sequence[str]) -> list[list[str]]:
        """Each text's ranking of the background ids, best first."""
        return [ranking(self.scores(t), self.ids) for t in texts]

    def top1(self, texts: Sequence[str], true_ids: Sequence[str]) -> list[Outcome]:
        """Each text's :class:`Outcome` for its true id."""
        return [outcome(self.scores(t), self.ids, i) for t, i in zip(texts, true_ids, strict=True)]
