# spacy-textsan: the two set-up commands are `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test chromium lint eval-tab-heldout background background-bm25 background-kanon background-fr-es test-slow evaluate bench eval-multidomain eval-reid eval-reid-padded calibrate-reid padding gazetteer kb train clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# torch: the CPU build, pinned (an unpinned torch pulls a CUDA build of several GB)
$(STAMP): $(PY) setup.cfg setup.py pyproject.toml
	$(PY) -m pip install --quiet "torch==2.13.0"
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/textsan sanitize spacy_textsan/assets/sample.txt --out out/demo
	@echo "----- sanitized text (out/demo/sample.txt) -----"
	@cat out/demo/sample.txt

test: $(STAMP) lint chromium docs
	$(PY) -m pytest -q -p no:cacheprovider

# the documentation site (mkdocs.yml, docs/): strict, so a broken link, a page left out of the nav or a
# results table whose JSON lacks a field fails; the results tables are rendered from benchmarks/results/*.json
.PHONY: docs
docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict --site-dir /tmp/textsan-site

# tests/test_review_page.py drives the review page in Debian's chromium (CI runs as root)
chromium:
	@test -x /usr/bin/chromium || (apt-get update -q && apt-get install -y -q chromium) || \
		echo "chromium not installed: the browser tests will be skipped"

# ruff (lint + format check) and mypy on the package and its tests; settings in pyproject.toml
lint: $(STAMP)
	$(VENV)/bin/ruff check spacy_textsan tests
	$(VENV)/bin/ruff format --check spacy_textsan tests
	$(VENV)/bin/mypy

test-slow: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -m slow

evaluate: $(STAMP)
	$(VENV)/bin/textsan evaluate ../shared/data/tab/dev.json --output benchmarks/results/zero_shot_dev.json
	$(VENV)/bin/textsan evaluate ../shared/data/tab/train.json --output benchmarks/results/zero_shot_train.json

# speed and memory vs Presidio and the spaCy floor (benchmarks/results/speed.{json,png}); the bench extra
# pins presidio-analyzer, which requires preshed<3.0.14 (pip downgrades it; spaCy 3.8 runs with it)
bench: $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) benchmarks/speed_bench.py --repeat 3

# identifiers left in clear on a synthetic multi-locale, multi-domain set and hard probes, textsan vs Presidio
# (benchmarks/results/multidomain.json; the set itself: benchmarks/multidomain/generate.py)
eval-multidomain: $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) benchmarks/multidomain_eval.py --n 1000

# re-identification by search on the Wiki553 dev abstracts (benchmarks/results/wiki_reid.{json,png}): the attacker's
# background (public Wikipedia bodies) as the pipeline's background, with its dense part, then a family of attackers
# written apart from the defence (benchmarks/attackers: BM25, dense MiniLM, BM25 over words as written, words + pairs,
# character n-grams, tantivy) on clear text, the human masks, Presidio, mask_all and the default pipeline (lexical only,
# with its dense part, and with --strategy generalize); the calibration table by reported k
WIKI_BG := out/wiki553_background
WIKI_PADDED_BG := out/wiki553_padded_background
eval-reid: $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench,dense]"
	$(VENV)/bin/textsan background build $(WIKI_BG) --docs ../shared/data/wiki553/background.jsonl \
		--field text --id-field id --dense
	$(PY) benchmarks/wiki_reid_eval.py --variant mask_all=spacy_textsan/configs/mask_all.cfg \
		--variant 'default_lexical=spacy_textsan/configs/default.cfg;paths.background="$(WIKI_BG)";components.reid_risk.dense="off"' \
		--variant 'default=spacy_textsan/configs/default.cfg;paths.background="$(WIKI_BG)"' \
		--variant 'default_generalize=spacy_textsan/configs/default.cfg;paths.background="$(WIKI_BG)";components.generalizer.strategy="generalize"'
	$(PY) benchmarks/wiki_reid_calibration.py --variant default --variant default_lexical

# the same with the background padded by 20,000 biographies of other people (make padding), the defence's and the
# attackers' alike; lexical attackers (embedding 20,000 padding records takes hours on two cores); the run without
# the padding is eval-reid's default_lexical
LEXICAL_ATTACKERS := bm25,bm25_plain,pairs,chargram,tantivy
eval-reid-padded: $(STAMP) padding
	$(PY) -m pip install --quiet -e ".[bench]"
	$(VENV)/bin/textsan background build $(WIKI_PADDED_BG) --docs ../shared/data/wiki553/background.jsonl \
		--docs out/wiki553_padding.jsonl --field text --id-field id
	$(PY) benchmarks/wiki_reid_eval.py --skip presidio --attackers $(LEXICAL_ATTACKERS) --pad out/wiki553_padding.jsonl \
		--variant 'default_lexical_padded=spacy_textsan/configs/default.cfg;paths.background="$(WIKI_PADDED_BG)";components.reid_risk.dense="off"' \
		--output benchmarks/results/wiki_reid_padded.json --docs-output out/wiki_reid_padded_docs.jsonl --png out/wiki_reid_padded.png

# reid_risk's k and margin, chosen on a calibration set made from the Wikipedia bodies alone (no abstract):
# benchmarks/reid_calibration/make_set.py (seed 553), a sweep of k x margin scored by the evaluation's attackers,
# and the choice with the calibration table in benchmarks/results/reid_calibration.json
CALIB := out/reid_calibration
CALIB_SEED := 553
calibrate-reid: $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench,dense]"
	mkdir -p out
	$(PY) benchmarks/reid_calibration/make_set.py --seed $(CALIB_SEED) --out $(CALIB) | tee $(CALIB).log
	$(VENV)/bin/textsan background build $(CALIB)_background --docs $(CALIB)/background.jsonl \
		--field text --id-field id --dense --force
	$(PY) benchmarks/wiki_reid_eval.py --data-dir $(CALIB) --skip presidio --skip "human masks" \
		--variant 'default=spacy_textsan/configs/default.cfg;paths.background="$(CALIB)_background"' \
		--sweep components.reid_risk.k=5,10,20 --sweep components.reid_risk.margin=0.06,0.12,0.24 \
		--sweep-variants default --output out/reid_calibration_sweep.json --png out/reid_calibration_sweep.png
	$(PY) benchmarks/reid_calibration/choose.py --run out/reid_calibration_sweep.json --set-info $(CALIB).log

# 20,000 synthetic biographies of other people, Wikipedia-body shaped, in out/wiki553_padding.jsonl
# (benchmarks/padding_bios/generate.py, seed 1234: the same bytes on every run)
PAD_SEED := 1234
padding: $(STAMP)
	$(PY) benchmarks/padding_bios/generate.py --n 20000 --seed $(PAD_SEED) --out out/wiki553_padding.jsonl

# the offline knowledge base of wikidata_gazetteer (~/.cache/spacy_textsan/kb_offline or $TEXTSAN_KB),
# which overrides the one shipped in the package
gazetteer: $(STAMP)
	$(VENV)/bin/textsan gazetteer build

# the KB shipped in the package (reproducible bytes; rerun after editing gazetteer/data/*.txt)
kb: $(STAMP)
	$(VENV)/bin/textsan gazetteer build spacy_textsan/detect/gazetteer/data/kb --compact --force

# TAB train as the held-out TAB documents meet the default pipeline: against a background that does not hold
# them (the 127 dev texts only: the shipped one holds TAB train), read as the shipped one is (nothing released, a
# document the background does not cover reported, not guarded)
TAB_HO_BG := out/tab_dev127_background
eval-tab-heldout: $(STAMP)
	$(VENV)/bin/textsan background build $(TAB_HO_BG) --force --on-duplicate first \
		--docs ../shared/data/tab/dev127_mentions_only.json
	$(VENV)/bin/textsan kanon build $(TAB_HO_BG) --phrases --docs ../shared/data/tab/dev127_mentions_only.json \
		--pipeline spacy_textsan/configs/mask_all.cfg
	$(VENV)/bin/textsan evaluate ../shared/data/tab/train.json --set 'paths.background="$(TAB_HO_BG)"' \
		--set 'components.reid_risk.release="never"' --set 'components.reid_risk.unmeasured="report"' \
		--output benchmarks/results/zero_shot_train_heldout.json

# the background folder of the default pipeline, shipped in the package: one record per TAB train document and per
# dev text (texts only, no annotations). Two parts in one folder, neither deleting the other's files:
# background-bm25: reid_risk's BM25 index (background.json, bm25/; seconds; ids = TAB doc_id, the first kept if one repeats);
# background-kanon: kanon_risk/residual_risk's term index (index.msgpack, meta.json: candidate terms + cued phrases; slow)
background: background-bm25 background-kanon

background-bm25: $(STAMP)
	$(VENV)/bin/textsan background build spacy_textsan/risk/data/background --force --on-duplicate first \
		--docs ../shared/data/tab/train.json --docs ../shared/data/tab/dev127_mentions_only.json

background-kanon: $(STAMP)
	$(VENV)/bin/textsan kanon build spacy_textsan/risk/data/background --phrases \
		--docs ../shared/data/tab/train.json --docs ../shared/data/tab/dev127_mentions_only.json \
		--pipeline spacy_textsan/configs/mask_all.cfg

# the French and Spanish backgrounds shipped in the package (background_fr, background_es): one record per ECHR judgment
# of the corpus of that language (texts only), read with its stop words and Snowball stemmer (--lang), with the term
# index of its default pipeline (--terms)
background-fr-es: $(STAMP)
	$(PY) scripts/build_lang_backgrounds.py --data ../shared/data/echr_fr_es

# the training workflow of project.yml: convert, train-ner, train-risk, assemble, evaluate-trained, package
train: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) scripts/timed.py training/workflow_seconds.txt $(PY) -m spacy project run train
	$(PY) benchmarks/trained_eval.py --workflow-seconds training/workflow_seconds.txt

clean:
	rm -rf $(VENV) out build *.egg-info corpus training packages
