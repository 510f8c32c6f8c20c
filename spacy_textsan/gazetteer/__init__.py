"""wikidata_gazetteer: a knowledge base of quasi-identifiers (offline, live Wikidata, dump import)."""
