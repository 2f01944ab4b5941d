#!/usr/bin/env bash
# Installs what vesper needs on Debian 12, as root. Idempotent: re-running
# only checks. Used by both README commands (tools/demo.sh, tools/test.sh).
set -euo pipefail

packages=(
  build-essential cmake pkg-config dpkg-dev ca-certificates
  emscripten            # 3.1.6, with a complete prebuilt cache
  libhnswlib-dev        # 0.6.2, header-only, both builds
  nlohmann-json3-dev    # 3.11, header-only: persona files (both builds)
  libsentencepiece-dev sentencepiece   # native library and spm_train
  catch2                # v2 single header
  chromium              # browser tests (driven by playwright-core)
  clang libclang-rt-14-dev   # libFuzzer with ASan/UBSan (tools/fuzz.sh)
  nodejs
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node is often installed outside Debian (as on CI images): accept any node >= 18.
if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 18 ]; then
  missing=("${missing[@]/nodejs/}")
fi
command -v npm >/dev/null || missing+=(npm)

# (The WASM build's sentencepiece source comes with its own private apt
# configuration: tools/fetch-sentencepiece-src.sh; /etc/apt is not touched.)
need_update=0
if [ ${#missing[@]} -gt 0 ] && [ -n "${missing[*]// /}" ]; then
  need_update=1
fi
if [ "$need_update" = 1 ]; then
  apt-get update -qq
fi
if [ -n "${missing[*]// /}" ]; then
  echo "setup: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${missing[*]} >/dev/null
fi
echo "setup: system packages ready"

# npm packages (package-lock.json): ONNX Runtime (web + node), playwright-core,
# the reference Gemma 3 tokenizer, esbuild (bundles the page). onnxruntime-node's postinstall would
# download from outside; its Linux x64 binaries ship in the package.
if [ -f package-lock.json ]; then
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "setup: installing npm packages"
    ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error
  fi
fi
echo "setup: npm packages ready"
