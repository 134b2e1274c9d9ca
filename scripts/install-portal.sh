#!/bin/sh
# Installs what `ferry portal` needs from PyPI and npm, idempotently, and says what it did:
# - a venv at $FERRY_PORTAL_VENV (default ${XDG_CACHE_HOME:-$HOME/.cache}/ferry-portal/venv) with
#   the web stack at pinned versions, binary wheels only (nothing is compiled from PyPI sources);
# - the editor bundle, built by tools/portal/editor/build.sh into
#   $VENV/share/ferry-portal/editor.js when it is missing or older than the editor's sources
#   (skipped, with a message, where npm is missing);
# - Debian's bubblewrap (the jobs' sandbox), by scripts/install-deps.sh portal.
# Run it again after a pull: a changed pin reinstalls, everything else is left as it is.
set -eu

# Pinned: the newest releases on PyPI when the portal was written (Nov 2026).
PINS="starlette==1.10.0 uvicorn==0.54.0 argon2-cffi==25.1.0 python-multipart==0.0.34"

src=$(cd "$(dirname "$0")/.." && pwd)
VENV=${FERRY_PORTAL_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ferry-portal/venv}
PY=${PYTHON:-python3}

say() { echo "install-portal: $*"; }

if [ ! -x "$VENV/bin/python" ]; then
  mkdir -p "$(dirname "$VENV")"
  "$PY" -m venv "$VENV"
  say "made the venv $VENV"
fi

# The pins are written beside the venv once installed, so an unchanged set costs no network.
stamp="$VENV/ferry-portal-pins"
if [ "$(cat "$stamp" 2>/dev/null)" != "$PINS" ] ||
   ! "$VENV/bin/python" -c 'import starlette, uvicorn, argon2, multipart' 2>/dev/null; then
  # shellcheck disable=SC2086 # PINS is a list of words
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: $PINS
  echo "$PINS" >"$stamp"
  say "installed $PINS"
else
  say "the venv has $PINS already"
fi

build="$src/tools/portal/editor/build.sh"
bundle="$VENV/share/ferry-portal/editor.js"
if [ ! -x "$build" ]; then
  say "no $build in this checkout: the editor bundle is not built"
elif ! command -v npm >/dev/null 2>&1; then
  say "npm is missing: the editor bundle is not built (install Node.js and npm, then run me again)"
elif [ ! -f "$bundle" ] || [ -n "$(find "$src/tools/portal/editor" -path '*/node_modules' \
         -prune -o -type f -newer "$bundle" -print | head -1)" ]; then
  mkdir -p "$(dirname "$bundle")"
  "$build" "$bundle"
  say "built the editor bundle $bundle"
else
  say "the editor bundle $bundle is up to date"
fi

if command -v bwrap >/dev/null 2>&1; then
  say "bubblewrap is installed already"
else
  # The Debian part lives in one place: install-deps.sh's `portal` set (with the build tools).
  "$src/scripts/install-deps.sh" portal
  say "installed Debian's bubblewrap"
fi
say "done: ferry portal runs with $VENV/bin/python"
