"""The detect stage: the components that propose candidate spans
(``doc.spans["textsan"]``), first in a pipeline.

* :mod:`.privacy_ner`: the ``privacy_ner`` component, NER sources and the
  rule, identifier and name layers;
* :mod:`.gazetteer`: the ``wikidata_gazetteer`` component, its knowledge base
  and the tools that build one.

Nothing here imports the later stages (``risk``, ``decide``, ``render``);
``tests/test_layout.py`` checks it.
"""
