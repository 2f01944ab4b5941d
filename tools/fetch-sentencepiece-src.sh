#!/usr/bin/env bash
# Fetches Debian's sentencepiece source (the same 0.1.97 as libsentencepiece-dev)
# into DEST for the WASM build, and prepares it for a static, single-threaded
# emcc build. Never run into the git tree: the source is not ours to commit.
set -euo pipefail
dest=${1:?usage: fetch-sentencepiece-src.sh DEST}
mkdir -p "$dest"
cd "$dest"
if [ -f sentencepiece-src/.vesper-prepared ]; then exit 0; fi

if ! ls -d sentencepiece-0.1.97*/ >/dev/null 2>&1; then
  # apt warns that _apt cannot write here when run as root; harmless.
  if ! apt-get source --only-source sentencepiece >apt-source.log 2>&1; then
    cat apt-source.log >&2
    echo "apt-get source failed: it needs deb-src entries (tools/setup.sh adds them)." >&2
    exit 1
  fi
fi
src=$(ls -d sentencepiece-0.1.97*/ | head -n 1)
rm -rf sentencepiece-src
mv "$src" sentencepiece-src
cd sentencepiece-src
# Debian removes the static library targets; the WASM build needs exactly those.
patch -R -p1 --silent < debian/patches/disable-static-library.patch
# The bundled protobuf-lite is built with -pthread, which cannot link with
# single-threaded wasm objects.
sed -i 's/add_definitions("-pthread -DHAVE_PTHREAD=1 -Wno-sign-compare")/add_definitions("-DHAVE_PTHREAD=1 -Wno-sign-compare")/' src/CMakeLists.txt
touch .vesper-prepared
