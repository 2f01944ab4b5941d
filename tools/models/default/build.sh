#!/usr/bin/env bash
# Rebuilds vesper's default model (models/default/) end to end, as root on
# Debian 12: fetches the training text, extracts aligned pairs, trains the
# tokenizer and the table, exports model.vtab + model.onnx, evaluates it on
# the development queries and writes the calibrated threshold into the
# manifest and the report into EVAL.md. About 20 minutes on 2 cores.
#   bash tools/models/default/build.sh [train.py options, e.g. --epochs N]
set -euo pipefail
cd "$(dirname "$0")/../../.."

# Debian's torch calls whatever libblas.so.3 is installed; the reference BLAS
# makes training ten times slower than OpenBLAS.
need=()
for p in python3-torch python3-onnx sentencepiece libopenblas0-pthread; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
bash tools/setup.sh >/dev/null
bash tools/build.sh >/dev/null   # the core chunks the knowledge base and runs the evaluation

root=build/default-model
out=models/default
mkdir -p "$root/work"
stage() { local name=$1; shift; local t0=$SECONDS; "$@"; echo "\"$name\": $((SECONDS - t0))," >> "$root/times"; }
: > "$root/times"
start=$SECONDS
stage fetch bash tools/models/default/fetch-sources.sh "$root/src"
stage extract /usr/bin/python3 tools/models/default/extract.py "$root/src" "$root/work"
stage kb_pairs node tools/models/default/kb-pairs.mjs "$root/work/kb-pairs.tsv"
# The lexicon the core translates queries with (cross-lingual BM25).
stage lexicon /usr/bin/python3 tools/models/default/lexicon.py "$root/src" "$out/lexicon.tsv"
rm -f "$out/tokenizer.model"   # retrain the tokenizer too
# The recipe measured in models/default/eval/notes.md; options given to build.sh come after it and win.
recipe=(--members 4 --skipgram 4 --sif-per-language --common-components 1 --joint-components 1)
stage train /usr/bin/python3 tools/models/default/train.py "$root/work" "$out" --threads "$(nproc)" "${recipe[@]}" "$@"
cp "$root/work/counts.json" "$out/eval/pair-counts.json"
{ echo "{"; cat "$root/times"; echo "\"total\": $((SECONDS - start)), \"cores\": $(nproc)"; echo "}"; } > "$out/eval/build-times.json"
node tools/models/default/eval.mjs --model "$out" --write-threshold --json "$out/eval/report.json" --markdown "$out/EVAL.md"
du -b "$out"/tokenizer.model "$out"/model.vtab "$out"/model.onnx "$out"/lexicon.tsv
