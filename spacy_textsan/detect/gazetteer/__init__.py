"""wikidata_gazetteer: a knowledge base of quasi-identifiers (offline, live Wikidata, dump import).

Run time (what the component imports): ``wikidata_gazetteer`` (the factory),
``kb`` (:class:`~.kb.GazetteerKB`), ``matcher``, ``linking``, ``patterns``,
``lexicon``, ``paths``, and for live Wikidata ``wikidata_client`` (over
:mod:`spacy_textsan.http`) with ``wikidata_answers``.

Build time (``textsan gazetteer build`` / ``import-dump``): ``offline_build``
with its sources ``wordnet_entries`` (reading ``wordnet``), ``geography`` and
``curated``; ``dump_importer`` with ``dump_reader``.
"""
