#!/usr/bin/env bash
# bench/farm.sh [BUILD_DIR] - the task farm (issue 15, item 2): `ferry farm` against GNU
# parallel on the same task files, and the C API (ferry/farm.h, bench/apps/taskfarm.c) over
# Ferry, MPICH and Open MPI. Prints tables; nothing here passes or fails on the numbers.
#
#   1. Throughput: FARM_TASKS (1000) tasks of `true` on FARM_RANKS (8) ranks (7 workers; rank 0
#      dispatches), for several dispatch settings; GNU parallel -j <workers> on the same file
#      (parallel runs every line with a shell, as ferry farm --shell does). "wall" is the whole
#      command, launch included; "farm" is the rate ferry farm reports itself (from its first
#      task handed out to its last result), without the job's start and end. Median of REPS.
#   2. Balance: 64 tasks of `sleep TASK_S` (1 s) on N workers (N in FARM_WORKERS, "2 4 7"):
#      the wall time against the ideal 64/N x TASK_S and against the best any farm can do with
#      whole tasks, ceil(64/N) x TASK_S ("vs best"); GNU parallel -j N beside it. The times
#      include the job's start and end. One run each (they are long and sleep-bound).
#   3. The C API: bench/apps/taskfarm (tiny tasks, -q) on 4 ranks, chunk 1 and 16, depth 1
#      and 2, under each MPI found (src/farm/fy_farm.c compiled along, as bench/lib.sh does).
#
# Knobs (environment): QUICK=1 (REPS 1, TASK_S 0.25, FARM_WORKERS "2 7"), REPS (3), TASK_S,
# FARM_TASKS, FARM_RANKS, FARM_WORKERS, IMPLS ("ferry mpich openmpi" for table 3).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD_DIR:-$ROOT/build}}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
FERRY=$BUILD/bin/ferry
[ -x "$FERRY" ] || { echo "farm.sh: no ferry at $FERRY (build first, or give BUILD_DIR)" >&2; exit 2; }
QUICK=${QUICK:-0}
REPS=${REPS:-$([ "$QUICK" = 1 ] && echo 1 || echo 3)}
TASK_S=${TASK_S:-$([ "$QUICK" = 1 ] && echo 0.25 || echo 1)}
FARM_TASKS=${FARM_TASKS:-1000}
FARM_RANKS=${FARM_RANKS:-8}
FARM_WORKERS=${FARM_WORKERS:-$([ "$QUICK" = 1 ] && echo "2 7" || echo "2 4 7")}
IMPLS=${IMPLS:-ferry mpich openmpi}
HAVE_PARALLEL=0
command -v parallel >/dev/null 2>&1 && HAVE_PARALLEL=1

# One function, so bash has read all of it before it runs: editing this file while a run is
# going on cannot change the running script.
main() {
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ferry-farm-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'; }

echo "# ferry farm benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs online;" \
    "load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# ferry: $FERRY ($(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?'));" \
    "GNU parallel: $([ $HAVE_PARALLEL = 1 ] && parallel --version 2>/dev/null | head -1 || echo 'not installed (apt-get install parallel)')"
echo

# --- 1. throughput ------------------------------------------------------------------------------
workers=$((FARM_RANKS - 1))
yes true | head -n "$FARM_TASKS" > true.txt
echo "## 1. $FARM_TASKS tasks of \`true\`, $FARM_RANKS ranks ($workers workers), median of $REPS"
printf '%-34s %9s %12s %12s\n' "command" "wall s" "tasks/s wall" "tasks/s farm"
run_ferry() { # label, farm options...
    local label=$1 w=() f=() r t0 t1
    shift
    for r in $(seq 1 "$REPS"); do
        rm -f true.txt.results.csv
        t0=$(now)
        "$FERRY" farm true.txt -n "$FARM_RANKS" --quiet "$@" > out.txt 2> err.txt
        t1=$(now)
        grep -q " $FARM_TASKS ok, 0 failed" err.txt || { echo "farm.sh: $label failed: $(tail -3 err.txt)" >&2; return; }
        w+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
        f+=("$(sed -n 's/.* in [0-9.e+-]* s (\([0-9.e+]*\)\/s).*/\1/p' err.txt)")
    done
    local wm fm
    wm=$(printf '%s\n' "${w[@]}" | median)
    fm=$(printf '%s\n' "${f[@]}" | median)
    printf '%-34s %9.3f %12.0f %12.0f\n' "$label" "$wm" "$(awk -v n="$FARM_TASKS" -v s="$wm" 'BEGIN { print n / s }')" "$fm"
}
run_ferry "ferry farm" 
run_ferry "ferry farm --shell" --shell
run_ferry "ferry farm --depth 2" --depth 2
run_ferry "ferry farm --chunk 8 --depth 2" --chunk 8 --depth 2
if [ $HAVE_PARALLEL = 1 ]; then
    for j in "$workers" "$FARM_RANKS"; do
        w=()
        for r in $(seq 1 "$REPS"); do
            t0=$(now)
            parallel -j "$j" < true.txt > /dev/null 2>&1
            t1=$(now)
            w+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
        done
        wm=$(printf '%s\n' "${w[@]}" | median)
        printf '%-34s %9.3f %12.0f %12s\n' "parallel -j $j" "$wm" "$(awk -v n="$FARM_TASKS" -v s="$wm" 'BEGIN { print n / s }')" "-"
    done
    w=()
    for r in $(seq 1 "$REPS"); do
        t0=$(now)
        parallel -j "$workers" --joblog joblog.txt < true.txt > /dev/null 2>&1
        t1=$(now)
        w+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
    done
    wm=$(printf '%s\n' "${w[@]}" | median)
    printf '%-34s %9.3f %12.0f %12s\n' "parallel -j $workers --joblog" "$wm" "$(awk -v n="$FARM_TASKS" -v s="$wm" 'BEGIN { print n / s }')" "-"
fi
echo

# --- 2. balance ---------------------------------------------------------------------------------
for i in $(seq 1 64); do echo "sleep $TASK_S"; done > sleep.txt
echo "## 2. 64 tasks of \`sleep $TASK_S\` on N workers (ferry farm: N+1 ranks), one run each"
printf '%-8s %9s %9s %10s %9s %9s %12s %9s\n' "workers" "ideal s" "best s" "ferry s" "vs ideal" "vs best" "parallel s" "vs ideal"
for n in $FARM_WORKERS; do
    ideal=$(awk -v n="$n" -v t="$TASK_S" 'BEGIN { print 64 / n * t }')
    best=$(awk -v n="$n" -v t="$TASK_S" 'BEGIN { k = int((64 + n - 1) / n); print k * t }')
    rm -f sleep.txt.results.csv
    t0=$(now)
    "$FERRY" farm sleep.txt -n $((n + 1)) --quiet > /dev/null 2> err.txt
    t1=$(now)
    fw=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    grep -q " 64 ok, 0 failed" err.txt || fw=nan
    pw=nan
    if [ $HAVE_PARALLEL = 1 ]; then
        t0=$(now)
        parallel -j "$n" < sleep.txt > /dev/null 2>&1
        t1=$(now)
        pw=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    fi
    pct() { awk -v a="$1" -v b="$2" 'BEGIN { print (a / b - 1) * 100 }'; }
    printf '%-8s %9.2f %9.2f %10.2f %8.1f%% %8.1f%% %12.2f %8.1f%%\n' "$n" "$ideal" "$best" "$fw" \
        "$(pct "$fw" "$ideal")" "$(pct "$fw" "$best")" "$pw" "$(pct "$pw" "$ideal")"
done
echo

# --- 3. the C API under each MPI ----------------------------------------------------------------
echo "## 3. bench/apps/taskfarm -q (100000 tasks of 1000 rounds) on 4 ranks: tasks/s, median of $REPS"
printf '%-9s %14s %14s %14s %14s\n' "MPI" "chunk 1 d 1" "chunk 1 d 2" "chunk 16 d 1" "chunk 16 d 2"
for impl in $IMPLS; do
    case $impl in
    ferry) cc=$BUILD/bin/mpicc launch=("$BUILD/bin/mpiexec") ;;
    mpich) cc=mpicc.mpich launch=(mpiexec.mpich) ;;
    openmpi) cc=mpicc.openmpi launch=(mpiexec.openmpi --oversubscribe)
        [ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root) ;;
    *) continue ;;
    esac
    command -v "$cc" >/dev/null 2>&1 || { printf '%-9s %14s\n' "$impl" "n/a ($cc not found)"; continue; }
    if ! "$cc" -O2 -std=c11 -I"$ROOT/bench" -I"$ROOT/include" -o "tf-$impl" \
        "$ROOT/bench/apps/taskfarm.c" "$ROOT/src/farm/fy_farm.c" -lm > "build-$impl.log" 2>&1; then
        printf '%-9s %14s\n' "$impl" "build failed: $(head -1 "build-$impl.log")"
        continue
    fi
    row=$(printf '%-9s' "$impl")
    for cfg in "1 1" "1 2" "16 1" "16 2"; do
        set -- $cfg
        rates=()
        for r in $(seq 1 "$REPS"); do
            rates+=("$(timeout 120 "${launch[@]}" -n 4 "./tf-$impl" -m -q -p "$1" -k "$2" 2>/dev/null |
                sed -n 's/^RESULT .*status=ok rate=\([0-9.e+]*\).*/\1/p')")
        done
        m=$(printf '%s\n' "${rates[@]}" | grep . | median)
        row="$row $(printf '%14.4g' "$m")"
    done
    echo "$row"
done
}
main "$@"
