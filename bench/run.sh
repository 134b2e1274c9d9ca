#!/usr/bin/env bash
# bench/run.sh [BUILD_DIR] - build and run Ferry's benchmarks against Ferry,
# Debian's MPICH and Debian's Open MPI, then write a comparison report.
#
#   BUILD_DIR   Ferry's build tree (default: <repo>/build); needs bin/mpicc,
#               bin/mpiexec and lib/. Missing or broken: Ferry is "n/a".
#
# Environment knobs:
#   QUICK=1          short run (about 1-3 minutes): fewer iterations and repetitions
#   IMPLS="..."      which implementations, in run order (default "ferry mpich openmpi")
#   REPS=N           repetitions of every run (default 5, QUICK: 3)
#   TIMEOUT=S        wall-clock limit of one mpiexec run (default 120)
#   RING_RANKS="..." rank counts for the ring (default "2 8")
#   RING_BUDGET=S    time budget per ring size inside the program (default 10, QUICK: 2)
#   NO_INSTALL=1     never apt-get install the peer MPIs
#   WAIT_QUIET=S     first wait up to S seconds for the 1-minute load average to drop below 1
#
# Output: bench/results/<timestamp>/{results.csv,report.md,meta.txt,logs/,bin-<impl>/}
# The report is also printed at the end. Runs alternate between implementations
# (ferry, mpich, openmpi, ferry, ...) so that drift on the machine hits all alike.
set -u

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
BUILD=${1:-$ROOT/build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac

QUICK=${QUICK:-0}
IMPLS=${IMPLS:-"ferry mpich openmpi"}
TIMEOUT=${TIMEOUT:-120}
RING_RANKS=${RING_RANKS:-"2 8"}
if [ "$QUICK" = 1 ]; then
    REPS=${REPS:-3}
    RING_BUDGET=${RING_BUDGET:-2}
    LAT_ARGS="-i 2000 -w 100"
    BW_ARGS="-i 50 -w 3"
    RING_ARGS="-l 20000 -L 1000 -w 20"
else
    REPS=${REPS:-5}
    RING_BUDGET=${RING_BUDGET:-10}
    LAT_ARGS="-i 10000 -w 500"
    BW_ARGS="-i 200 -w 10"
    RING_ARGS="-l 100000 -L 5000 -w 50"
fi
CFLAGS="-O2 -std=c11 -Wall -Wextra"
PROGRAMS="latency bandwidth ring"

STAMP=$(date +%Y%m%d-%H%M%S)
OUT=$BENCH_DIR/results/$STAMP
mkdir -p "$OUT/logs"
CSV=$OUT/results.csv
META=$OUT/meta.txt
REPORT=$OUT/report.md

say() { printf '%s\n' "$*" >&2; }
meta() { printf '%s=%s\n' "$1" "$2" >>"$META"; }

# --- peers: install Debian's MPICH and Open MPI if they are missing ----------
ensure_peers() {
    local want="" missing="" p
    case " $IMPLS " in *" mpich "*) want="$want mpich libmpich-dev" ;; esac
    case " $IMPLS " in *" openmpi "*) want="$want openmpi-bin libopenmpi-dev" ;; esac
    [ -n "$want" ] || return 0
    for p in $want; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing="$missing $p"
    done
    [ -n "$missing" ] || return 0
    if [ "${NO_INSTALL:-0}" = 1 ] || [ "$(id -u)" != 0 ]; then
        say "run.sh: missing packages:$missing (install them as root: apt-get install -y$missing)"
        return 0
    fi
    say "run.sh: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y $missing >"$OUT/logs/apt.log" 2>&1 ||
        { apt-get update >>"$OUT/logs/apt.log" 2>&1 &&
          apt-get install -y $missing >>"$OUT/logs/apt.log" 2>&1; } ||
        say "run.sh: apt-get install failed, see $OUT/logs/apt.log"
}

# --- how to compile and launch each implementation ---------------------------
impl_cc() {
    case $1 in
    ferry) echo "$BUILD/bin/mpicc" ;;
    mpich) echo mpicc.mpich ;;
    openmpi) echo mpicc.openmpi ;;
    esac
}

# Sets the array LAUNCH to the command prefix that takes "-n N prog args".
impl_launch() {
    case $1 in
    ferry) LAUNCH=(env "LD_LIBRARY_PATH=$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
                   "$BUILD/bin/mpiexec") ;;
    mpich) LAUNCH=(mpiexec.mpich) ;;
    openmpi) LAUNCH=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                     mpiexec.openmpi --oversubscribe) ;;
    esac
}

# Builds the three programs for one implementation; returns non-zero if any fails.
build_impl() {
    local impl=$1 cc bin prog
    cc=$(impl_cc "$impl")
    bin=$OUT/bin-$impl
    mkdir -p "$bin"
    if [ "$impl" = ferry ] && { [ ! -x "$BUILD/bin/mpicc" ] || [ ! -x "$BUILD/bin/mpiexec" ]; }; then
        meta "status_$impl" "n/a (no build at $BUILD)"
        return 1
    fi
    if ! command -v "$cc" >/dev/null 2>&1; then
        meta "status_$impl" "n/a ($cc not found)"
        return 1
    fi
    for prog in $PROGRAMS; do
        # shellcheck disable=SC2086
        if ! "$cc" $CFLAGS -o "$bin/$prog" "$BENCH_DIR/$prog.c" >>"$OUT/logs/build-$impl.log" 2>&1; then
            meta "status_$impl" "n/a (build of $prog.c failed, see logs/build-$impl.log)"
            return 1
        fi
    done
    meta "status_$impl" "ok"
    if [ "$impl" = ferry ]; then
        # The MPICH ABI soname: make sure Ferry's library is the one picked up.
        meta "ferry_libmpi" "$(LD_LIBRARY_PATH="$BUILD/lib" ldd "$bin/latency" 2>/dev/null |
            awk '/libmpi/ { print $1 " => " $3 }' | tr '\n' ' ')"
    fi
    return 0
}

# --- one run: append its data lines (or its failure) to the CSV --------------
SEQ=0
run_one() {
    local impl=$1 bench=$2 np=$3 rep=$4 total=$5
    shift 5
    local log=$OUT/logs/$impl-$bench-np$np-rep$rep.log
    local t0 t1 rc status
    SEQ=$((SEQ + 1))
    impl_launch "$impl"
    printf '[%3d/%d] %-8s %-9s np=%-2s rep %d/%d ... ' "$SEQ" "$total" "$impl" "$bench" "$np" \
        "$rep" "$REPS" >&2
    t0=$(date +%s.%N)
    timeout -k 10 "$TIMEOUT" "${LAUNCH[@]}" -n "$np" "$OUT/bin-$impl/$bench" -m "$@" \
        >"$log" 2>&1 </dev/null
    rc=$?
    t1=$(date +%s.%N)
    case $rc in
    0) status=ok ;;
    124 | 137) status=timeout ;;
    *) status=fail ;;
    esac
    # Data lines are "size value ..." (ring: "size usec_per_hop total_s laps ranks");
    # the value compared is always the second column. Comments start with '#'.
    awk -v seq="$SEQ" -v impl="$impl" -v bench="$bench" -v np="$np" -v rep="$rep" \
        -v status="$status" -v t0="$t0" -v t1="$t1" '
        BEGIN { unit = bench == "latency" ? "usec" : bench == "bandwidth" ? "MBps" : "usec_per_hop"
                wall = sprintf("%.2f", t1 - t0); n = 0 }
        /^[0-9]+ [0-9.eE+-]+/ {
            laps = bench == "ring" ? $4 : ""; tot = bench == "ring" ? $3 : ""
            printf "%s,%s,%s,%s,%s,%s,%s,%s,ok,%s,%s,%s\n", seq, impl, bench, np, $1, rep, $2, unit, laps, tot, wall
            n++ }
        END { if (status != "ok" || n == 0)
                  printf "%s,%s,%s,%s,*,%s,,%s,%s,,,%s\n", seq, impl, bench, np, rep, unit,
                         status == "ok" ? "fail" : status, wall
              exit (status == "ok" && n > 0) ? 0 : 1 }' "$log" >>"$CSV"
    if [ $? -eq 0 ]; then
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "ok (%.1f s)\n", b - a }' >&2
    elif [ "$status" = timeout ]; then
        printf 'TIMEOUT (>%s s), see %s\n' "$TIMEOUT" "${log#"$ROOT"/}" >&2
    else
        printf 'FAILED (exit %s), see %s\n' "$rc" "${log#"$ROOT"/}" >&2
    fi
}

write_report() {
    python3 "$BENCH_DIR/compare.py" --csv "$CSV" --meta "$META" --timeout "$TIMEOUT" >"$REPORT"
    cat "$REPORT"
    say ""
    say "run.sh: results in ${OUT#"$ROOT"/}/ (results.csv, report.md, logs/)"
}

# --- main ---------------------------------------------------------------------
: >"$META"
meta date "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
meta host "$(uname -n)"
meta kernel "$(uname -sr)"
meta cpus "$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)"
meta cpu_model "$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)"
meta commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo none)"
meta quick "$QUICK"
meta reps "$REPS"
meta timeout "$TIMEOUT"
meta ring_budget "$RING_BUDGET"
meta impls_requested "$IMPLS"
meta build_dir "$BUILD"
echo "seq,impl,benchmark,ranks,size_bytes,rep,value,unit,status,laps,total_s,wall_s" >"$CSV"

ensure_peers

# Benchmarks want a quiet machine; optionally wait for one, and say so when it is not
# (the numbers are still kept).
load1=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
waited=0
while [ "$waited" -lt "${WAIT_QUIET:-0}" ] && awk -v l="$load1" 'BEGIN { exit !(l >= 1) }'; do
    [ "$waited" = 0 ] && say "run.sh: load average $load1, waiting up to ${WAIT_QUIET} s for a quieter machine"
    sleep 10
    waited=$((waited + 10))
    load1=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
done
if awk -v l="$load1" 'BEGIN { exit !(l > 0.5) }'; then
    say "run.sh: warning: load average is $load1 before starting: other work on this machine will add noise"
fi
meta load_start "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"

ACTIVE=""
for impl in $IMPLS; do
    case $impl in ferry | mpich | openmpi) ;; *) say "run.sh: unknown implementation '$impl' (ferry, mpich, openmpi)"; continue ;; esac
    say "run.sh: building for $impl"
    if build_impl "$impl"; then
        ACTIVE="$ACTIVE $impl"
    else
        say "run.sh: $impl: $(awk -F= -v k="status_$impl" '$1 == k { print $2 }' "$META")"
    fi
done
for impl in ferry mpich openmpi; do
    case " $IMPLS " in *" $impl "*) ;; *) meta "status_$impl" "n/a (not selected in IMPLS)" ;; esac
done
if [ -z "$ACTIVE" ]; then
    say "run.sh: nothing to run"
    write_report
    exit 1
fi
for impl in $ACTIVE; do
    meta "library_$impl" "$(impl_launch "$impl"; timeout 60 "${LAUNCH[@]}" -n 2 "$OUT/bin-$impl/latency" -x 1 -i 1 -w 0 2>/dev/null </dev/null |
        sed -n 's/^# MPI library: //p' | head -n 1)"
done

# The run plan: "benchmark ranks args" per line.
PLAN="latency 2 $LAT_ARGS
bandwidth 2 $BW_ARGS"
for np in $RING_RANKS; do
    PLAN="$PLAN
ring $np $RING_ARGS -T $RING_BUDGET"
done
nimpl=$(echo $ACTIVE | wc -w)
nplan=$(printf '%s\n' "$PLAN" | wc -l)
TOTAL=$((REPS * nplan * nimpl))

trap 'say ""; say "run.sh: interrupted, reporting what was measured"; write_report; exit 130' INT TERM
say "run.sh: $TOTAL runs ($REPS repetitions x $nplan benchmarks x$ACTIVE), timeout ${TIMEOUT} s each"
for rep in $(seq 1 "$REPS"); do
    while read -r bench np args; do
        for impl in $ACTIVE; do
            # shellcheck disable=SC2086
            run_one "$impl" "$bench" "$np" "$rep" "$TOTAL" $args
        done
    done <<EOF
$PLAN
EOF
done
trap - INT TERM
meta load_end "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
write_report
