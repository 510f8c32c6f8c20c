"""The ``pairs`` attacker: word unigrams and adjacent word pairs, tf-idf cosine: an attacker that leans on phrases.

A visible pair such as ``national team``, ``field marshal`` or ``rising sun`` is rarer than either of its words,
so a text that keeps a few short phrases of its record can be found even when each word alone is common.
Where it differs from the defence (single stemmed words, BM25) and from the other attackers:

* its own tokens: scikit-learn's default pattern (``\\b\\w\\w+\\b``: words of 2+ characters, an apostrophe
  splits ``o'brien``), lower-cased, accents stripped (``unicode``), no stemming, no stopwords;
* features: every word and every pair of adjacent words *within a stretch*: the text is cut at each
  placeholder (:data:`attackers.common.PLACEHOLDER`) and at ``. ; : ! ? ( ) [ ] "`` so that no pair spans a
  mask or a sentence end (``born in [LOC 1] in 1888`` gives ``born in`` and ``in 1888``, not ``in in``);
* weighting: tf-idf with sublinear tf (``1 + ln tf``), smoothed idf (``ln((1 + N) / (1 + df)) + 1``) and
  L2-normalised rows: the score is the cosine of the query's vector with each record's (no length
  saturation, no BM25).

    attacker = PairsAttacker(ids, texts)
    attacker.top1(texts, true_ids)                     # [Outcome(rank, n_tied, success, top), ...]
"""

from __future__ import annotations

import re

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer, strip_accents_unicode

try:  # as a module of the benchmarks/attackers folder (sys.path holds benchmarks/)
    from attackers.common import PLACEHOLDER
    from attackers.sparse import SparseAttacker
except ImportError:  # pragma: no cover - imported as a package from elsewhere
    from .common import PLACEHOLDER
    from .sparse import SparseAttacker

WORD = re.compile(r"(?u)\b\w\w+\b")
BREAK = re.compile(r"[.;:!?()\[\]\"“”]")


def stretches(text: str) -> list[list[str]]:
    """The text's words (lower-cased, accents stripped), in stretches that no placeholder or stop breaks."""
    out = []
    for part in PLACEHOLDER.split(text):
        for piece in BREAK.split(strip_accents_unicode(part.lower())):
            words = WORD.findall(piece)
            if words:
                out.append(words)
    return out


def analyze(text: str) -> list[str]:
    """Words and adjacent pairs (``"national team"``) of each stretch."""
    features = []
    for words in stretches(text):
        features.extend(words)
        features.extend(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))
    return features


class PairsAttacker(SparseAttacker):
    """tf-idf (sublinear tf) cosine over words and adjacent word pairs."""

    name = "pairs"

    def record_matrix(self, texts: list[str]):
        self.vectorizer = TfidfVectorizer(analyzer=analyze, sublinear_tf=True, dtype=np.float64)
        return self.vectorizer.fit_transform(texts)

    def query_matrix(self, texts: list[str]):
        return self.vectorizer.transform(texts)
