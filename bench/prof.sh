#!/usr/bin/env bash
# bench/prof.sh - what the recorder (libferry_prof.so) costs: mpiexec --profile and --trace
# against the same program without them, in one run, repetitions interleaved.
#
# Programs: bench/callcost (ns per MPI call, 1 rank, 11 x 100,000 calls: the tool's cost per
# call), bench/latency at 2 ranks (1 B, 1 KiB, 64 KiB), and bench/apps at 4 ranks (cpi, gauss
# with rows and cyclic partitioning, nbody, matmul, fft2d, is). For each: the program's own
# time (what it prints, measured between its MPI calls) and, for the applications, the job's
# wall time from the start of mpiexec to its end (with --trace that includes writing
# profile.txt and the OTF2 archive).
# Prints the table of bench/modes_table.py: medians over REPS, p10 where the program gives one,
# ratios to the run without the recorder. A benchmark: it prints numbers, it asserts nothing.
#
# usage: bench/prof.sh [BUILD_DIR] (default build); REPS=5 MODES="off profile trace"
#        APPS="cpi gauss_rows gauss_cyclic nbody matmul fft2d is" ITERS=20000 in the environment
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
REPS=${REPS:-5}
ITERS=${ITERS:-20000}
MODES=${MODES:-off profile trace}
APPS=${APPS:-cpi gauss_rows gauss_cyclic nbody matmul fft2d is}
[ -f "$BUILD/lib/libferry_prof.so" ] || { echo "bench/prof.sh: no libferry_prof.so in $BUILD" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc() { "$BUILD/bin/mpicc" -O2 -I"$ROOT/bench" -I"$ROOT/bench/apps" -o "$T/$1" "$2" -lm || exit 1; }
cc callcost "$ROOT/bench/callcost.c"
cc latency "$ROOT/bench/latency.c"
for a in cpi gauss nbody matmul fft2d is; do cc "$a" "$ROOT/bench/apps/$a.c"; done

# run MODE N PROG ARGS...: the program under mpiexec in MODE, in $T (the profile's files land
# there), its output on stdout; the job's wall seconds in $T/wall.
run() {
    local mode=$1 n=$2 opt=()
    shift 2
    rm -rf "$T/trace" "$T"/*.profile.*
    case $mode in
    profile) opt=(--profile) ;;
    trace) opt=(--trace "$T/trace") ;;
    esac
    local a b
    a=$(date +%s.%N)
    (cd "$T" && "$BUILD/bin/mpiexec" "${opt[@]}" -n "$n" "$@" 2>/dev/null)
    b=$(date +%s.%N)
    echo "$b - $a" | bc > "$T/wall"
}
# RESULT lines to rows "name mode value p10"; name from NAME or the bench= field.
rows() { # mode name-prefix
    awk -v m="$1" -v pre="$2" '/^RESULT/ { delete v
        for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        p = ("p10" in v) ? v["p10"] : v["value"]
        print pre, m, v["value"], p }'
}

for r in $(seq "$REPS"); do
    for mode in $MODES; do
        run "$mode" 1 "$T/callcost" -m -i 100000 | rows "$mode" "callcost(ns/call)" >> "$T/rows"
        run "$mode" 2 "$T/latency" -m -x 64K -i "$ITERS" | grep -E ' size=(1|1024|65536) ' |
            awk -v m="$mode" '{ delete v; for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                print "latency-" v["size"] "B(us)", m, v["value"], v["p10"] }' >> "$T/rows"
        for app in $APPS; do
            case $app in
            gauss_*) run "$mode" 4 "$T/gauss" -m -p "${app#gauss_}" ;;
            *) run "$mode" 4 "$T/$app" -m ;;
            esac | grep -m1 '^RESULT' | rows "$mode" "$app(s)" >> "$T/rows"
            echo "$app-wall(s) $mode $(cat "$T/wall") $(cat "$T/wall")" >> "$T/rows"
        done
    done
done

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs," \
     "load $(cut -d' ' -f1-3 /proc/loadavg), REPS=$REPS"
# shellcheck disable=SC2086
python3 "$ROOT/bench/modes_table.py" "$T/rows" $MODES
