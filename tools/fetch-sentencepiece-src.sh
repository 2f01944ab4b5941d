#!/usr/bin/env bash
# Fetches Debian's sentencepiece source (the same 0.1.97 as libsentencepiece-dev)
# into DEST for the WASM build, and prepares it for a static, single-threaded
# emcc build. Never run into the git tree: the source is not ours to commit.
# tools/build.sh runs it before configuring the WASM build (CMake configure
# never downloads).
#
# `apt-get source` needs deb-src entries; rather than add them to the
# system's /etc/apt, this gives apt a private configuration under DEST: the
# system's own sources (same mirrors, same keys) as deb-src, with their
# package lists kept in DEST too.
set -euo pipefail
dest=${1:?usage: fetch-sentencepiece-src.sh DEST}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
cd "$dest"
if [ -f sentencepiece-src/.vesper-prepared ]; then exit 0; fi

private_apt() {
  local etc=$dest/apt/etc
  rm -rf "$dest/apt"
  mkdir -p "$etc/sources.list.d" "$dest/apt/lists/partial" "$dest/apt/cache/archives/partial"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" > "$etc/sources.list.d/$(basename "$f")"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && sed -n 's/^deb \(.*\)$/deb-src \1/p' "$f" >> "$etc/sources.list"
  done
  touch "$etc/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$etc/sources.list" -o "Dir::Etc::SourceParts=$etc/sources.list.d"
            -o "Dir::State::Lists=$dest/apt/lists" -o "Dir::Cache=$dest/apt/cache" -o "APT::Sandbox::User=root")
}

if ! ls -d sentencepiece-0.1.97*/ >/dev/null 2>&1; then
  private_apt
  if ! { apt-get "${apt_opts[@]}" update && apt-get "${apt_opts[@]}" source --only-source sentencepiece; } >apt-source.log 2>&1; then
    cat apt-source.log >&2
    echo "apt-get source failed: the sentencepiece source could not be fetched from the system's Debian mirrors." >&2
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
