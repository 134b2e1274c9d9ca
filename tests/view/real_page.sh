#!/usr/bin/env bash
# timeout: 180
# The page as `ferry view` really fills it (tools/ferry/ferry_view*.c), from raw trace files of a
# made-up 4-rank job with drifting clocks (tests/trace/fyt_gen.py), in Chromium: it opens with no
# console error and no request; the timeline has a row per rank, every call, message and
# collective instance of the job decoded, an arrow per message and a group per instance; the
# other views draw, and the matrix and histogram (from the messages when the profile has none)
# count every message. Skips (77) in a tree without `ferry view` or its generator.
. "$(dirname "${BASH_SOURCE[0]}")/pw_env.inc"
: "${FY_BUILD:?set FY_BUILD to the build directory}" "${FY_SRC:?set FY_SRC to the source tree}"
gen=$FY_SRC/tests/trace/fyt_gen.py
[ -f "$gen" ] && [ -f "$FY_SRC/tools/ferry/ferry_view.c" ] ||
    fy_view_skip "no ferry view (tools/ferry/ferry_view.c) or tests/trace/fyt_gen.py in $FY_SRC"
fy_view_setup

python3 "$gen" job --ranks 4 --iters 6 --drift 1:100 --offset 2:12345 --profile >exp.json ||
    fy_view_fail "fyt_gen.py"
"$FY_BUILD/bin/ferry" view job -o page.html >out 2>err || { cat out err; fy_view_fail "ferry view"; }
fy_view_run "the page ferry view wrote" "$FY_VIEW_PY" "$FY_VIEW_DIR/view_check.py" real page.html exp.json
echo "PASS"
