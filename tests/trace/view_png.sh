#!/usr/bin/env bash
# timeout: 400
# ferry view --png draws each view (timeline, profile, matrix, histogram) with headless Chromium:
# four PNG files of the window's size. And the page itself, opened by Chromium from disk with each
# view's fragment, decodes its data and says it is ready (body data-ready="1"), not "error".
. "$FY_SRC/tests/trace/trace_common.inc"
browser=${FERRY_CHROMIUM:-}
if [ -z "$browser" ]; then
    for b in chromium chromium-browser google-chrome; do
        command -v "$b" >/dev/null && { browser=$(command -v "$b"); break; }
    done
fi
[ -n "$browser" ] || { echo "SKIP: no Chromium (chromium, chromium-browser, google-chrome)"; exit 77; }

python3 "$GEN" job --ranks 4 --iters 5 --profile >exp.json || { echo "FAIL: fyt_gen.py"; exit 1; }
timeout -k 5 360 "$FERRY" view job --png shots >out 2>err </dev/null
RC=$?
expect_eq "status" 0 "$RC"
for v in timeline profile matrix histogram; do
    expect_grep "$v said" "^ferry view: shots/$v.png$" out
    python3 - "shots/$v.png" <<'PY' || fail "$v.png is not a 1400x900 PNG"
import struct, sys
b = open(sys.argv[1], "rb").read(32)
assert b[:8] == b"\x89PNG\r\n\x1a\n", b[:8]
w, h = struct.unpack(">II", b[16:24])
assert (w, h) == (1400, 900), (w, h)
PY
done
[ -z "$(ls -A "$TMPDIR")" ] || fail "Chromium's profile left in TMPDIR: $(ls -A "$TMPDIR")"

root=()
[ "$(id -u)" = 0 ] && root=(--no-sandbox)
mkdir -p prof
for v in timeline matrix; do
    timeout -k 5 120 "$browser" --headless --disable-gpu "${root[@]}" --user-data-dir="$PWD/prof" \
        --virtual-time-budget=30000 --window-size=1400,900 --dump-dom "file://$PWD/job/view.html#$v" \
        >dom.html 2>chromium.err </dev/null
    grep -q '<body[^>]*data-ready="1"' dom.html || fail "#$v: the page is not ready: $(grep -o '<body[^>]*>' dom.html) $(grep -o 'error[^<]*' dom.html | head -3)"
done
rm -rf prof
finish
