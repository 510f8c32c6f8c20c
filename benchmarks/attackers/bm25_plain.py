"""The ``bm25_plain`` attacker: BM25+ over the records' words as written (no stemming, no accent folding).

Where it differs from the defence (which folds case and accents, drops bm25s's English stopwords, stems with
Snowball and weights with Lucene's BM25) and from the ``bm25`` attacker (NLTK stopwords, Snowball stems):

* its own tokens: placeholders stripped (:mod:`.common`), lower-cased (``str.lower``, not casefold), words =
  ``\\w+(?:['’]\\w+)*`` (an apostrophe inside a word keeps it whole: ``o'brien``, ``pelé's``), words of two
  characters or more, digits kept (``1888``), accents kept (``pelé`` is not ``pele``), no stemming, and only
  the few function words of :data:`STOPWORDS` dropped;
* BM25+ (Lv and Zhai, 2011) as its weighting: ``idf = ln((N + 1) / df)`` (never negative),
  ``k1 = 1.2``, ``b = 0.75``, and ``delta = 1`` added to the saturated term frequency of every query word a
  record *contains*: a long record with the word once is not scored as low as one without it (rank_bm25's
  ``BM25Plus`` adds delta to every record, which shifts every score alike); each occurrence of a word in the
  query counts.

The matrix of weights (records x words) is built once with scikit-learn's CountVectorizer and scipy; a batch of
queries is one sparse product (:mod:`.sparse`).

    attacker = PlainBM25Attacker(ids, texts)
    attacker.top1(texts, true_ids)                     # [Outcome(rank, n_tied, success, top), ...]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

try:  # as a module of the benchmarks/attackers folder (sys.path holds benchmarks/)
    from attackers.common import strip_placeholders
    from attackers.sparse import SparseAttacker
except ImportError:  # pragma: no cover - imported as a package from elsewhere
    from .common import strip_placeholders
    from .sparse import SparseAttacker

WORD = re.compile(r"\w+(?:['’]\w+)*")
#: a short list of English function words (articles, pronouns, auxiliaries, the commonest prepositions)
STOPWORDS = frozenset(
    """the of and in to was is as by for on at with from that this it its he she his her him they their them
    an be been were are has had have which who whom also or not but""".split()
)


def tokenize(text: str) -> list[str]:
    """Placeholders stripped, lower-cased words of 2+ characters, the function words of STOPWORDS dropped."""
    return [w for w in WORD.findall(strip_placeholders(text).lower()) if len(w) >= 2 and w not in STOPWORDS]


class PlainBM25Attacker(SparseAttacker):
    """BM25+ over unstemmed words (``k1`` 1.2, ``b`` 0.75, ``delta`` 1)."""

    name = "bm25_plain"

    def __init__(self, ids: Sequence[str], texts: Sequence[str], k1: float = 1.2, b: float = 0.75, delta: float = 1.0):
        self.k1, self.b, self.delta = k1, b, delta
        super().__init__(ids, texts)

    def record_matrix(self, texts: list[str]):
        self.vectorizer = CountVectorizer(analyzer=tokenize, dtype=np.float64)
        tf = self.vectorizer.fit_transform(texts).tocsr()
        n_docs = tf.shape[0]
        df = np.bincount(tf.indices, minlength=tf.shape[1])
        idf = np.log((n_docs + 1) / np.maximum(df, 1))
        lengths = np.asarray(tf.sum(axis=1)).ravel()
        avgdl = lengths.mean() if n_docs and lengths.mean() > 0 else 1.0
        norm = self.k1 * (1 - self.b + self.b * lengths / avgdl)  # per record
        rows = np.repeat(np.arange(n_docs), np.diff(tf.indptr))
        f = tf.data
        weights = idf[tf.indices] * ((self.k1 + 1) * f / (norm[rows] + f) + self.delta)
        return sp.csr_matrix((weights, tf.indices.copy(), tf.indptr.copy()), shape=tf.shape)

    def query_matrix(self, texts: list[str]):
        return self.vectorizer.transform(texts)  # counts of the query's words (unknown words dropped)
