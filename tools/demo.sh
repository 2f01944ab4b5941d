#!/usr/bin/env bash
# The README's main command: sets up, builds both targets, indexes the
# default knowledge base (web/kb/karpathy) with the default model
# (models/default) into build/karpathy.pack, searches it and asks the persona
# from the command line, then assembles the static site (build/site) and
# serves the demo page on http://127.0.0.1:${PORT:-8080}/ until stopped.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh
bash tools/build.sh

./tools/vesper build web/kb/karpathy/*.txt --db karpathy --persona web/kb/karpathy/persona.json --out build/karpathy.pack
./tools/vesper inspect build/karpathy.pack
for q in "Why did Tesla bet on cameras instead of LiDAR?" "O que é Software 2.0?" "从零构建"; do
  echo
  echo "query: $q"
  ./tools/vesper search build/karpathy.pack "$q" -k 3
done
echo
rm -f build/demo.session.json
for q in "How do I start learning deep learning?" "Por que a Tesla usa só câmeras?" "退出"; do
  echo "ask: $q"
  ./tools/vesper ask build/karpathy.pack "$q" --session build/demo.session.json
  echo
done

node tools/site.mjs
echo
exec node tools/serve.mjs build/site --port "${PORT:-8080}"
