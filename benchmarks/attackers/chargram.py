"""The ``chargram`` attacker: character 3- to 5-grams inside words, tf-idf cosine.

It sees through inflection, compounding and spelling variants that word attackers miss: ``Keitel's``,
``Keitels`` and ``Keitel`` share `` ke``, ``kei``, ``eit``, ``itel`` ...; a part of a word left in clear
(``Stauffenberg``-``er``, ``Helmscherode`` in ``Helmscherode-born``) still matches its record. Where it differs
from the defence (whole words, stemmed, BM25) and from the word attackers:

* features: scikit-learn's ``char_wb`` analyser, n = 3 to 5: the n-grams of each whitespace-separated token
  padded with one space on each side (punctuation stays part of the token), lower-cased, accents kept; the
  query's placeholders are stripped first (:mod:`.common`);
* weighting: tf-idf with sublinear tf (``1 + ln tf``), smoothed idf, L2-normalised rows; the score is the cosine.

The records' counts are what ``TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5))`` counts, computed
faster: a record's n-gram counts are the sum over its tokens of each token's n-grams, so the n-grams of each
distinct token are extracted once (records x tokens @ tokens x n-grams, one sparse product) instead of once
per occurrence. The queries go through the analyser directly.

    attacker = CharGramAttacker(ids, texts)
    attacker.top1(texts, true_ids)                     # [Outcome(rank, n_tied, success, top), ...]
"""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

try:  # as a module of the benchmarks/attackers folder (sys.path holds benchmarks/)
    from attackers.common import strip_placeholders
    from attackers.sparse import SparseAttacker
except ImportError:  # pragma: no cover - imported as a package from elsewhere
    from .common import strip_placeholders
    from .sparse import SparseAttacker

NGRAMS = (3, 5)


def tokens(text: str) -> list[str]:
    """The whitespace-separated tokens of the lower-cased text (what ``char_wb`` pads and cuts)."""
    return text.lower().split()


class CharGramAttacker(SparseAttacker):
    """tf-idf (sublinear tf) cosine over the ``char_wb`` 3- to 5-grams."""

    name = "chargram"

    def record_matrix(self, texts: list[str]):
        words = CountVectorizer(analyzer=tokens, dtype=np.float64)
        per_record = words.fit_transform(texts)  # records x distinct tokens
        vocabulary = words.get_feature_names_out().tolist()
        self.ngrams = CountVectorizer(analyzer="char_wb", ngram_range=NGRAMS, lowercase=True, dtype=np.float64)
        per_token = self.ngrams.fit_transform(vocabulary)  # distinct tokens x n-grams
        counts = (per_record @ per_token).tocsr()
        self.tfidf = TfidfTransformer(sublinear_tf=True)
        return self.tfidf.fit_transform(counts)

    def query_matrix(self, texts: list[str]):
        return self.tfidf.transform(self.ngrams.transform([strip_placeholders(t) for t in texts]))
