#!/usr/bin/env bash
# timeout: 300
# A big synthetic view page (8 ranks x 100,000 calls, 800k intervals, 200k messages; make_view.py
# big) opens in Chromium: every interval and message decoded, the dense rows drawn as per-pixel
# coverage with no arrows, zooming in reaches single boxes and arrows, reset goes back, the other
# views draw. The time it took is printed, not judged (tests/view/README: the bench for 8 x 1M).
. "$(dirname "${BASH_SOURCE[0]}")/pw_env.inc"
fy_view_setup

# make_view.py big needs numpy: Debian's python3-numpy, or any python3 on PATH that has it.
py=
for p in python3 /usr/bin/python3 "$FY_VIEW_PY"; do
    if "$p" -c 'import numpy' >/dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || fy_view_skip "no python3 with numpy (Debian's python3-numpy) to make the big page"

"$py" "$FY_VIEW_DIR/make_view.py" big big.html --ranks 8 --per-rank 100000 --expect big.json ||
    fy_view_fail "make_view.py big"
fy_view_run "big page" "$FY_VIEW_PY" "$FY_VIEW_DIR/view_check.py" big big.html big.json
echo "PASS"
