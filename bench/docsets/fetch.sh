#!/bin/sh
# Downloads the Debian documentation packages the docsets are made of,
# extracts them and converts each page/section to Markdown under
# .cache/<set>/docs/. Idempotent: a step whose output exists is skipped.
# Needs apt-get (Debian mirror), dpkg-deb and node.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="$here/.cache"
mkdir -p "$cache"

# git-doc pages: the main porcelain commands, a few everyday ancillary ones
# and the user guides (not the protocol/format internals, not user-manual,
# which is a whole book in one page).
GIT_PAGES="git-add git-am git-archive git-bisect git-blame git-branch git-bundle git-checkout
git-cherry-pick git-clean git-clone git-commit git-config git-describe git-diff git-difftool
git-fetch git-format-patch git-gc git-grep git-init git-log git-maintenance git-merge
git-mergetool git-mv git-notes git-pull git-push git-range-diff git-rebase git-reflog
git-remote git-reset git-restore git-revert git-rm git-send-email git-shortlog git-show
git-sparse-checkout git-stash git-status git-submodule git-switch git-tag git-worktree
git-credential-cache git-credential-store git-filter-branch git-cherry git-apply
gitattributes gitcli gitcredentials giteveryday gitfaq gitglossary githooks gitignore
gitmodules gitrevisions gitsubmodules gittutorial gittutorial-2 gitworkflows gitmailmap"

# fetch PKG: download and extract into .cache/x-PKG (once).
fetch() {
  pkg=$1
  [ -d "$cache/x-$pkg" ] && return 0
  (cd "$cache" && apt-get download "$pkg")
  mkdir -p "$cache/x-$pkg.tmp"
  dpkg-deb -x "$cache"/"$pkg"_*.deb "$cache/x-$pkg.tmp"
  mv "$cache/x-$pkg.tmp" "$cache/x-$pkg"
}

if [ ! -d "$cache/git/docs" ]; then
  fetch git-doc
  pages=$(for p in $GIT_PAGES; do printf '%s.html ' "$p"; done)
  # shellcheck disable=SC2086
  node "$here/convert.mjs" git "$cache/x-git-doc/usr/share/doc/git-doc" "$cache/git/docs.tmp" $pages
  mv "$cache/git/docs.tmp" "$cache/git/docs"
fi

for lang in pt zh-cn; do
  set=debref-$lang
  [ -d "$cache/$set/docs" ] && continue
  fetch "debian-reference-$lang"
  node "$here/convert.mjs" debref "$cache/x-debian-reference-$lang/usr/share/debian-reference" "$cache/$set/docs.tmp" "$lang"
  mv "$cache/$set/docs.tmp" "$cache/$set/docs"
done

# npm's own documentation (the CLI's command reference, configuration and
# guides): Markdown with YAML front matter (title, section, description), as a
# static-site generator reads it. From the registry's tarball of a pinned npm,
# flattened to one folder (the file names are unique).
NPM_VERSION=11.19.1
if [ ! -d "$cache/npm/docs" ]; then
  if [ ! -d "$cache/x-npm" ]; then
    (cd "$cache" && npm pack --silent "npm@$NPM_VERSION" >/dev/null)
    mkdir -p "$cache/x-npm.tmp"
    tar -xzf "$cache/npm-$NPM_VERSION.tgz" -C "$cache/x-npm.tmp"
    mv "$cache/x-npm.tmp" "$cache/x-npm"
  fi
  mkdir -p "$cache/npm/docs.tmp"
  find "$cache/x-npm/package/docs/content" -name '*.md' -exec cp {} "$cache/npm/docs.tmp/" \;
  mv "$cache/npm/docs.tmp" "$cache/npm/docs"
fi

for set in git debref-pt debref-zh-cn npm; do
  echo "$set: $(ls "$cache/$set/docs" | wc -l) documents in $cache/$set/docs"
done
