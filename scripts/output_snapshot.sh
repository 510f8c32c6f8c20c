#!/usr/bin/env bash
# Writes the outputs of `textsan sanitize` that a refactoring must leave byte-identical into DIR:
# TAB dev and train through the default pipeline, the bundled sample through every strategy and every
# bundled pipeline. Compare two snapshots with `diff -r DIR1 DIR2`.
#   scripts/output_snapshot.sh DIR [PYTHON]
set -euo pipefail
out=${1:?usage: output_snapshot.sh DIR [PYTHON]}
py=${2:-.venv/bin/python}
data=${TAB_DATA:-../shared/data/tab}
sample=spacy_textsan/assets/sample.txt
mkdir -p "$out"
key="$out/key.txt"
printf 'snapshot-key-0123456789abcdef' > "$key"
# exit 3 = finished, some document degraded (e.g. a risk measure without its index): still an output to compare
ts() { "$py" -m spacy_textsan sanitize "$@" || [ $? -eq 3 ]; }
ts "$data/dev.json" --out "$out/dev"
ts "$data/train.json" --out "$out/train"
for s in mask generalize pseudonym hash "pseudonym,DATETIME=generalize"; do
  ts "$sample" --out "$out/sample-${s//[,=]/_}" --strategy "$s" --key-file "$key"
done
for cfg in risk gazetteer; do
  ts "$sample" --out "$out/sample-$cfg" --pipeline "spacy_textsan/configs/$cfg.cfg"
done
