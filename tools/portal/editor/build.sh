#!/bin/bash
# build.sh OUTFILE: bundles the portal's editor (editor.js and the CodeMirror packages pinned in
# package-lock.json) into one minified script at OUTFILE. The npm work happens in a cache
# directory, never in the source tree, so no node_modules lands in the checkout; a second run
# with the same lock file and entry reuses it. Exit 3 when npm or its registry cannot be reached.
set -u -o pipefail

[ $# -eq 1 ] || { echo "usage: $0 OUTFILE" >&2; exit 2; }
out=$1
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${XDG_CACHE_HOME:-$HOME/.cache}/ferry-portal/editor-build

command -v npm >/dev/null || { echo "build.sh: npm is not installed (node 18 or later with npm is needed to build the editor)" >&2; exit 3; }
mkdir -p "$work" "$(dirname "$out")" || exit 1

# Reinstall only when the lock file changed: npm ci removes node_modules and fetches again.
if ! cmp -s "$src/package-lock.json" "$work/package-lock.json" || [ ! -d "$work/node_modules" ]; then
    cp "$src/package.json" "$src/package-lock.json" "$work/" || exit 1
    if ! (cd "$work" && npm ci --no-audit --no-fund >npm.log 2>&1); then
        tail -5 "$work/npm.log" >&2
        rm -f "$work/package-lock.json"   # so the next run tries again
        echo "build.sh: npm ci failed in $work (is the npm registry reachable?); the portal falls back to a plain text area" >&2
        exit 3
    fi
fi
cp "$src/editor.js" "$work/editor.js" || exit 1

(cd "$work" && node_modules/.bin/esbuild editor.js --bundle --format=iife \
    --minify --target=es2020 --legal-comments=eof --log-level=warning --outfile="$out.tmp") || {
    echo "build.sh: esbuild failed to bundle $src/editor.js" >&2
    exit 1
}
mv "$out.tmp" "$out"
echo "build.sh: editor bundle at $out ($(wc -c <"$out") bytes)"
