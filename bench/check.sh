#!/usr/bin/env bash
# bench/check.sh - what the correctness checker (libferry_check.so, mpiexec --check) costs.
#
# Runs bench/latency (ping-pong at 1 B, 1 KiB, 64 KiB) at 2 ranks and bench/apps/cpi at 4 ranks
# without the checker, with it preloaded by hand (point-to-point by logs, the default; no
# deadlock watch), under `mpiexec --check` (the same with the watch and its server), and with
# FERRY_CHECK_P2P=shadow (a shadow message per message), REPS times each, interleaved, and
# prints a table: the median over the repetitions of each run's median and of its 10th
# percentile, and the ratio to the run without the checker. A benchmark: it prints numbers,
# it asserts nothing.
#
# BASE=DIR adds the rows log@base and check@base: the same with the checker of another build
# (DIR/bin/mpiexec and DIR/lib/libferry_check.so, e.g. a copy of an earlier build's bin and
# lib), interleaved with this one's, to compare a change on a loaded machine.
#
# usage: bench/check.sh [BUILD_DIR] (default build); REPS=5 ITERS=20000 CPI_N=1e9
# MODES="off log check shadow" BASE= in the environment
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
REPS=${REPS:-5}
ITERS=${ITERS:-20000}
CPI_N=${CPI_N:-1000000000}
MODES=${MODES:-off log check shadow}
BASE=${BASE:-}
LIB=$BUILD/lib/libferry_check.so
[ -f "$LIB" ] || { echo "bench/check.sh: $LIB not built" >&2; exit 1; }
if [ -n "$BASE" ]; then
    BASE=$(cd "$BASE" && pwd) || exit 1
    [ -x "$BASE/bin/mpiexec" ] && [ -f "$BASE/lib/libferry_check.so" ] ||
        { echo "bench/check.sh: BASE=$BASE has no bin/mpiexec and lib/libferry_check.so" >&2; exit 1; }
    MODES="$MODES log@base check@base"
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$BUILD/bin/mpicc" -O2 -I"$ROOT/bench" -o "$T/latency" "$ROOT/bench/latency.c" || exit 1
"$BUILD/bin/mpicc" -O2 -I"$ROOT/bench" -I"$ROOT/bench/apps" -o "$T/cpi" "$ROOT/bench/apps/cpi.c" -lm || exit 1

checked() { # mode n prog args...
    local mode=$1 n=$2
    shift 2
    case $mode in
    off) "$BUILD/bin/mpiexec" -n "$n" "$@" ;;
    log) LD_PRELOAD=$LIB "$BUILD/bin/mpiexec" -n "$n" "$@" ;;
    check) "$BUILD/bin/mpiexec" --check -n "$n" "$@" ;;
    log@base) LD_PRELOAD=$BASE/lib/libferry_check.so "$BUILD/bin/mpiexec" -n "$n" "$@" ;;
    check@base) "$BASE/bin/mpiexec" --check -n "$n" "$@" ;;
    shadow) FERRY_CHECK_P2P=shadow LD_PRELOAD=$LIB "$BUILD/bin/mpiexec" -n "$n" "$@" ;;
    esac
}

for r in $(seq "$REPS"); do
    for mode in $MODES; do
        checked $mode 2 "$T/latency" -m -x 64K -i "$ITERS" 2>/dev/null |
            awk -v m=$mode '/^RESULT/ && / size=(1|1024|65536) / {
                for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                print "latency-" v["size"] "B(us)", m, v["value"], v["p10"] }' >> "$T/rows"
        checked $mode 4 "$T/cpi" -m -n "$CPI_N" 2>/dev/null |
            awk -v m=$mode '/^RESULT/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                print "cpi-4-ranks(s)", m, v["value"], v["value"] }' >> "$T/rows"
    done
done

python3 "$ROOT/bench/modes_table.py" "$T/rows" off log@base log check@base check shadow
