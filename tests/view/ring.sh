#!/usr/bin/env bash
# timeout: 240
# The view page (tools/ferry/view) on a known 4-rank ring trace (tests/view/make_view.py) in a
# real headless Chromium: no console or page errors and no request leaving the file; 4 rows
# labelled "rank R (host)", all 20 arrows, the 5 Allreduce groups, a box per interval, the send
# drawn in its class colour where its time is, its tooltip; zoom by wheel (about the cursor),
# by the buttons (+ halves, - doubles, both bounded, reset), by a range dragged on the time axis
# (one round: 4 arrows, 1 group); panning by drag; the profile tables (sorting by column), the
# matrix (bytes and messages equal the data, hover) and the histogram (bins equal the data);
# each view opened directly by its URL fragment. Again on the same trace without a profile
# (tables, matrix and histogram computed from the trace) and with a send nothing received (a
# red cross, not an arrow). Screenshots: *.png in the working directory (FY_VIEW_KEEP=DIR copies
# them there).
. "$(dirname "${BASH_SOURCE[0]}")/pw_env.inc"
fy_view_setup

python3 "$FY_VIEW_DIR/make_view.py" ring ring.html --expect ring.json || fy_view_fail "make_view.py ring"
fy_view_run "ring page with a profile" "$FY_VIEW_PY" "$FY_VIEW_DIR/view_check.py" ring ring.html ring.json

mkdir -p noprofile
python3 "$FY_VIEW_DIR/make_view.py" ring noprofile/ring.html --no-profile --rounds 3 --unmatched \
    --expect noprofile/ring.json || fy_view_fail "make_view.py ring --no-profile"
(cd noprofile && fy_view_run "ring page without a profile" "$FY_VIEW_PY" "$FY_VIEW_DIR/view_check.py" \
    ring ring.html ring.json --no-profile) || exit 1

if [ -n "${FY_VIEW_KEEP:-}" ]; then
    mkdir -p "$FY_VIEW_KEEP" && cp ./*.png "$FY_VIEW_KEEP/" &&
        for f in noprofile/*.png; do cp "$f" "$FY_VIEW_KEEP/noprofile-${f#noprofile/}"; done
fi
echo "PASS"
