#!/usr/bin/env bash
# timeout: 120
# ferry view on a made-up 4-rank job (drifting and shifted clocks): the page's meta and data,
# decoded as a browser does (view_check.py), hold every call and region with its depth, every
# message matched to its receive, every collective instance with its members entering together
# (aligned clocks), the profile; --perfetto writes JSON with an X event per call and a flow per
# message. Without profile.json: a note, and the page has no profile. One rank, too.
. "$FY_SRC/tests/trace/trace_common.inc"
CHECK="$FY_SRC/tests/trace/view_check.py"

python3 "$GEN" job --ranks 4 --iters 8 --drift 1:100 --drift 3:-50 --offset 2:987654321 --profile >exp.json ||
    { echo "FAIL: fyt_gen.py"; exit 1; }
run "$FERRY" view job --perfetto job/trace.json
expect_eq "status" 0 "$RC"
expect_grep "summary" "^ferry view: job/view.html: 4 ranks, $(json_field exp.json 'd["intervals"]') calls and regions, $(json_field exp.json 'd["messages"]') messages, $(json_field exp.json 'd["coll_instances"]') collectives" out
expect_grep "perfetto line" "^ferry view: job/trace.json: Chrome/Perfetto trace-event JSON" out
python3 "$CHECK" job/view.html exp.json --perfetto job/trace.json --profile yes >chk 2>&1 || fail "the page: $(cat chk)"

rm job/profile.json
run "$FERRY" view job -o other.html
expect_eq "status without profile" 0 "$RC"
expect_grep "note" "^ferry view: note: no profile \(job/profile.json: No such file or directory\): the view has no profile tables" err
python3 "$CHECK" other.html exp.json --profile no >chk 2>&1 || fail "the page without profile: $(cat chk)"

python3 "$GEN" one --ranks 1 --iters 3 >exp1.json || fail "fyt_gen.py one rank"
run "$FERRY" view one --perfetto one.json
expect_eq "one rank" 0 "$RC"
python3 "$CHECK" one/view.html exp1.json --perfetto one.json >chk 2>&1 || fail "one rank: $(cat chk)"
finish
