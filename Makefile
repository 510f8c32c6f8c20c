# spacy-textsan: the two set-up commands are `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test chromium lint background test-slow evaluate bench eval-multidomain gazetteer kb train clean

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

test: $(STAMP) lint chromium
	$(PY) -m pytest -q -p no:cacheprovider

# tests/test_review_page.py drives the review page in Debian's chromium (CI runs as root)
chromium:
	@test -x /usr/bin/chromium || (apt-get update -q && apt-get install -y -q chromium) || \
		echo "chromium not installed: the browser tests will be skipped"

# ruff (lint + format check) and mypy on the package; settings in pyproject.toml
lint: $(STAMP)
	$(VENV)/bin/ruff check spacy_textsan
	$(VENV)/bin/ruff format --check spacy_textsan
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

# the offline knowledge base of wikidata_gazetteer (~/.cache/spacy_textsan/kb_offline or $TEXTSAN_KB),
# which overrides the one shipped in the package
gazetteer: $(STAMP)
	$(VENV)/bin/textsan gazetteer build

# the KB shipped in the package (reproducible bytes; rerun after editing gazetteer/data/*.txt)
kb: $(STAMP)
	$(VENV)/bin/textsan gazetteer build spacy_textsan/gazetteer/data/kb --compact --force

# the background index of the default pipeline's kanon_risk/residual_risk, shipped in the package: one record per
# TAB train document and per dev text (texts only, no annotations), candidate terms + cued phrases
background: $(STAMP)
	$(VENV)/bin/textsan kanon build spacy_textsan/risk/data/background --phrases \
		--docs ../shared/data/tab/train.json --docs ../shared/data/tab/dev127_mentions_only.json \
		--pipeline spacy_textsan/configs/mask_all.cfg

# the training workflow of project.yml: convert, train-ner, train-risk, assemble, evaluate-trained, package
train: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m spacy project run train

clean:
	rm -rf $(VENV) out build *.egg-info corpus training packages
