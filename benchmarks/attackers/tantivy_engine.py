"""The ``tantivy`` attacker: a real search engine (tantivy, Lucene's design in Rust, through ``tantivy-py``).

What a person who loads the public records into an off-the-shelf engine gets: the records are indexed in
memory with tantivy's default analysis and searched with its own BM25 scorer; nothing is tuned. Where it
differs from the defence and from the other attackers:

* its tokens are tantivy's, not ours: the analyser is tantivy's ``default`` one (``SimpleTokenizer``: runs of
  alphanumeric characters, then tokens over 40 bytes dropped, then lower-cased), built with
  ``TextAnalyzerBuilder`` and registered under its own name so that the query goes through exactly the same
  analyser; no stemming, no stopwords, no accent folding (``pelé`` is not ``pele``);
* its scores are tantivy's BM25 (k1 1.2, b 0.75) with its own statistics: each record's length is stored as a
  one-byte *fieldnorm* (lengths above a few dozen tokens are rounded), and a query is a boolean OR of one
  ``TermQuery`` per token of the text (a word twice in the query counts twice, as a query parser would);
* placeholders are stripped from the query first (:mod:`.common`) and the query is built from terms, so no
  character of the text is read as query syntax.

Every record the query matches is collected (``limit`` = the number of records) with its score; a record that
matches no token scores 0. Records are found back by a fast field (``idx``), not by loading stored documents.

    attacker = TantivyAttacker(ids, texts)
    attacker.top1(texts, true_ids)                     # [Outcome(rank, n_tied, success, top), ...]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import tantivy

try:  # as a module of the benchmarks/attackers folder (sys.path holds benchmarks/)
    from attackers.common import Outcome, outcome, ranking, strip_placeholders
except ImportError:  # pragma: no cover - imported as a package from elsewhere
    from .common import Outcome, outcome, ranking, strip_placeholders

ANALYZER = "eval_default"
#: tantivy's RemoveLongFilter limit of its default analyser (bytes)
MAX_TOKEN = 40


def default_analyzer() -> tantivy.TextAnalyzer:
    """tantivy's ``default`` text analyser, rebuilt: simple tokenizer, long tokens removed, lower-cased."""
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(MAX_TOKEN))
        .filter(tantivy.Filter.lowercase())
        .build()
    )


class TantivyAttacker:
    """tantivy's BM25 over an in-memory index of the records, a query = its tokens OR-ed."""

    name = "tantivy"

    def __init__(self, ids: Sequence[str], texts: Sequence[str], heap_size: int = 256_000_000):
        if len(ids) != len(texts):
            raise ValueError("ids and texts differ in length")
        self.ids = list(ids)
        self.analyzer = default_analyzer()
        builder = tantivy.SchemaBuilder()
        builder.add_unsigned_field("idx", fast=True)
        builder.add_text_field("text", tokenizer_name=ANALYZER, index_option="freq")
        self.schema = builder.build()
        self.index = tantivy.Index(self.schema)  # in memory
        self.index.register_tokenizer(ANALYZER, default_analyzer())
        writer = self.index.writer(heap_size=heap_size, num_threads=1)
        for i, text in enumerate(texts):
            doc = tantivy.Document()
            doc.add_unsigned("idx", i)
            doc.add_text("text", text)
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()
        if self.searcher.num_docs != len(self.ids):
            raise RuntimeError(f"tantivy indexed {self.searcher.num_docs} of {len(self.ids)} records")

    def query(self, text: str) -> tantivy.Query | None:
        """The OR of one term query per token of the text (None when no token is left)."""
        terms = self.analyzer.analyze(strip_placeholders(text))
        if not terms:
            return None
        clauses = [(tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "text", t)) for t in terms]
        return tantivy.Query.boolean_query(clauses)

    def scores(self, text: str) -> np.ndarray:
        """One BM25 score per background record (0 for a record that matches no token of the text)."""
        out = np.zeros(len(self.ids))
        query = self.query(text)
        if query is None:
            return out
        hits = self.searcher.search(query, limit=len(self.ids), count=False).hits
        if hits:
            idx = self.searcher.fast_field_values("idx", [address for _, address in hits])
            out[np.asarray(idx, dtype=np.int64)] = [score for score, _ in hits]
        return out

    def rank(self, texts: Sequence[str]) -> list[list[str]]:
        """Each text's ranking of the background ids, best first."""
        return [ranking(self.scores(t), self.ids) for t in texts]

    def top1(self, texts: Sequence[str], true_ids: Sequence[str]) -> list[Outcome]:
        """Each text's :class:`Outcome` for its true id."""
        return [outcome(self.scores(t), self.ids, i) for t, i in zip(texts, true_ids, strict=True)]
