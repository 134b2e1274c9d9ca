#!/usr/bin/env bash
# timeout: 240
# make bench LOAD=...: the background hogs (bench/hog.c) run only while a loaded measurement
# runs and never outlive the harness. Checks (Ferry only, a few seconds of benchmarks):
#  1. a QUICK run with LOAD=cpu finishes with no hog left, its rows carry load=cpu and the
#     p10/p50/p90 of latency, and its report has the quiet/loaded tables and the machine caption;
#  2. run.sh stopped by SIGTERM in the middle of a loaded run leaves no hog behind;
#  3. a hog whose harness died by SIGKILL (no trap runs) exits by itself.
set -u
B=$FY_BUILD
S=$FY_SRC
fail=0
hogs_of() { # the pids of processes running a hog binary under directory $1 (one ps: fast
            # enough to catch a loaded run of a second on a machine with hundreds of processes)
    ps -eo pid=,args= | awk -v d="$1/" '{
        a = $2; if (index(a, d) == 1 && a ~ /\/hog$/ && ($3 == "cpu" || $3 == "mem")) print $1 }'
}
common=(IMPLS=ferry QUICK=1 REPS=1 NO_PLOTS=1 NO_INSTALL=1 RANKS=2 TIMEOUT=60)

# 1. a complete loaded run
mkdir -p r1
env "${common[@]}" LOAD=cpu ONLY="latency" RESULTS_DIR="$PWD/r1" "$S/bench/run.sh" "$B" \
    >out1.txt 2>err1.txt || { echo "FAIL: run.sh LOAD=cpu exited $?"; tail -20 err1.txt; fail=1; }
left=$(hogs_of "$PWD/r1")
[ -z "$left" ] || { echo "FAIL: hogs left after a complete run: $left"; fail=1; }
csv=$(ls r1/*/results.csv 2>/dev/null | head -n 1)
if [ -z "$csv" ]; then
    echo "FAIL: no results.csv"; fail=1
else
    grep -q '^[0-9]*,ferry,latency,2,latency,2,8,1,.*p10=.*p50=.*p90=.*load=cpu' "$csv" ||
        { echo "FAIL: no loaded latency row with p10/p50/p90 in $csv"; fail=1; }
    grep '^[0-9]*,ferry,latency,2,latency,2,8,1,.*p90=' "$csv" | grep -qv 'load=' ||
        { echo "FAIL: no quiet latency row with percentiles"; fail=1; }
    grep -q '^# cache_L2=' "$csv" || { echo "FAIL: no cache sizes in the results' meta"; fail=1; }
    rep=$(dirname "$csv")/report.md
    grep -q '^## Quiet and loaded, side by side' "$rep" || { echo "FAIL: no side-by-side section"; fail=1; }
    grep -q '^### latency, 2 ranks, µs: quiet vs cpu' "$rep" || { echo "FAIL: no latency quiet vs cpu table"; fail=1; }
    grep -q '^### latency@cpu, 2 ranks' "$rep" || { echo "FAIL: no loaded detailed table"; fail=1; }
    grep -q '^\*Machine: .*caches .*L2 .*load: cpu (' "$rep" || { echo "FAIL: no machine caption"; fail=1; }
fi

# 2. SIGTERM in the middle of a loaded run (loaded runs only, so the first run has hogs)
mkdir -p r2
env "${common[@]}" LOAD=cpu QUIET=0 ONLY="latency" RESULTS_DIR="$PWD/r2" "$S/bench/run.sh" "$B" \
    >out2.txt 2>err2.txt &
run=$!
seen=""
for _ in $(seq 1 3000); do
    seen=$(hogs_of "$PWD/r2")
    [ -n "$seen" ] && break
    kill -0 "$run" 2>/dev/null || break
    sleep 0.02
done
if [ -z "$seen" ]; then
    echo "FAIL: never saw a hog of the loaded run"; tail -5 err2.txt; fail=1
fi
kill -TERM "$run" 2>/dev/null
wait "$run"
left=$(hogs_of "$PWD/r2")
[ -z "$left" ] || { echo "FAIL: hogs left after SIGTERM: $left"; kill $left 2>/dev/null; fail=1; }

# 3. the harness killed outright: the hog notices its parent is gone
cc -O2 -std=c11 -o hog "$S/bench/hog.c" || { echo "FAIL: hog.c does not build"; exit 1; }
sleep 600 &
parent=$!
./hog cpu "$parent" &
h1=$!
./hog mem "$parent" &
h2=$!
sleep 0.5
kill -0 "$h1" 2>/dev/null && kill -0 "$h2" 2>/dev/null || { echo "FAIL: hogs did not start"; fail=1; }
kill -KILL "$parent"
wait "$parent" 2>/dev/null
for _ in $(seq 1 300); do
    kill -0 "$h1" 2>/dev/null || kill -0 "$h2" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$h1" 2>/dev/null || kill -0 "$h2" 2>/dev/null; then
    echo "FAIL: a hog outlived its parent by 30 s"; kill "$h1" "$h2" 2>/dev/null; fail=1
fi
wait 2>/dev/null
[ $fail = 0 ] && echo "No Errors"
exit $fail
