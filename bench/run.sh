#!/usr/bin/env bash
# bench/run.sh [BUILD_DIR] - build Ferry's benchmark suite against Ferry, Debian's
# MPICH and Debian's Open MPI, run it, and write results, a report and plots.
#
#   BUILD_DIR   Ferry's build tree (default: <repo>/build); needs bin/mpicc,
#               bin/mpiexec and lib/. Missing or broken: Ferry is "n/a".
#
# Programs (each built if its source exists; missing ones are skipped):
#   bench/limits.c      physical limits (memcpy, cache-line bounce), no MPI, run once
#   bench/latency.c bench/bandwidth.c   ping-pong and windowed bandwidth, 2 ranks
#   bench/ring.c        token ring, at every rank count of RANKS
#   bench/imb.c         the IMB-style set, at every rank count of RANKS
#   bench/dtype.c       derived datatypes: pack/unpack vs memcpy, column and cube faces, 2 ranks
#   bench/apps/*.c      applications, at every rank count of APP_RANKS (1 = speedup base);
#                       apps/is (NAS-IS-style sort) at every rank count of RANKS
#   bench/footprint.c   memory of a hello job (PSS, shared memory) at FOOTPRINT_RANKS, once
#   bench/osc.c         one-sided (RMA): Put/Get latency and bandwidth per synchronisation and the
#                       atomics at 2 ranks, one run per part (OSC_PARTS); the contended counter at
#                       every rank count of OSC_RANKS
#   bench/hog.c         the background load of LOAD= (no MPI)
#   bench/startup.sh    the group "startup": whole launches at 1-256 ranks on this machine and on
#                       test hosts (issue 13), after the programs; in full runs and whenever ONLY
#                       names it (not in QUICK otherwise)
#   bench/hosts.sh      the group "hosts": benchmarks between test hosts (issue 12, root), after
#                       the rest; in full runs and whenever ONLY names it (not in QUICK otherwise)
#
# Environment knobs:
#   QUICK=1          short run (under about 3 minutes): small problems, fewer repetitions
#   BASELINE=FILE    an older results.json: the report gets "Regressions against baseline"
#   IMPLS="..."      implementations in run order (default "ferry mpich openmpi")
#   REPS=N           repetitions of every run (default 3, QUICK: 2)
#   RANKS="..."      rank counts for ring and imb (default "2 4 8")
#   APP_RANKS="..."  rank counts for the applications (default "1 2 4 8", QUICK: "1 2 8")
#   GAUSS_P="..."    partitionings of apps/gauss (default "rows cols cyclic", QUICK: "rows cyclic")
#   TIMEOUT=S        wall-clock limit of one mpiexec run (default 120, QUICK: 10)
#   BUDGET=S         after S seconds start no run of repetition 2 or later (default none, QUICK: 140);
#                    the runs left out are counted in the report
#   ONLY="..."       run only these programs (e.g. "latency imb apps/cpi"; "hosts": bench/hosts.sh;
#                    "startup": bench/startup.sh)
#   IMB_ARGS="..."   options of bench/imb.c instead of the mode's (e.g. "-b barrier,bcast -x 64K")
#   LAT_ARGS, BW_ARGS, RING_ARGS="..."  options of latency, bandwidth, ring instead of the mode's
#   NO_INSTALL=1     never apt-get install anything
#   NO_PLOTS=1       skip the plots
#   WAIT_QUIET=S     first wait up to S seconds for the 1-minute load average to drop below 1
#   LOAD="..."       background loads to measure under, besides quiet: cpu (one CPU hog per
#                    core: the standard load, also spelled std), mem (one memory-bandwidth hog),
#                    both (the two together); several may be given. Empty or none: quiet only
#   QUIET=0          with LOAD, leave out the quiet runs (loaded only)
#   LOAD_LAT_ARGS, LOAD_BW_ARGS="..."  added to latency's and bandwidth's options in the loaded
#                    runs (default: the full mode's counts, "-i 10000 -w 500" and "-i 200 -w 10"),
#                    so that a loaded measurement spans many scheduler slices even in QUICK mode;
#                    LOAD_TIMEOUT=S (60) is then their limit when TIMEOUT is shorter
#   OSC_ARGS, OSC_COUNTER_ARGS="..."  options of bench/osc.c's parts and of its counter instead of
#                    the mode's; OSC_PARTS="..." its parts at 2 ranks (default "lock_all lock fence
#                    pscw atomic"); OSC_RANKS="..." the counter's rank counts (default RANKS);
#                    OSC_TIMEOUT=S the least limit of an osc run (QUICK 60, else 300: MPICH's
#                    passive target on this machine stalls for tens of ms at a time)
#   OSC_OMPI_ARGS="..." added to Open MPI's mpiexec for osc (default "--mca osc ^rdma": Open MPI
#                    4.1's default osc/rdma over btl/vader crashes in MPI_Compare_and_swap,
#                    open-mpi/ompi#7967, #11349; without rdma a window of MPI_Win_allocate gets
#                    osc/sm, MPI_Win_create osc/ucx or pt2pt)
#   FOOTPRINT_RANKS="..."   rank counts of the memory-footprint runs (default "2 8 64 256 1024",
#                    QUICK: "2 8 64"); FOOTPRINT_PEER_MAX=N: the peers only up to N ranks (64);
#                    FOOTPRINT_TIMEOUT=S: the limit of one footprint run (300)
#   RESULTS_DIR=DIR  where the run's directory is made (default bench/results)
#   MEASURE_LOCK=F   hold flock(1) on file F during each run (with its hogs) and only then, so
#                    that benchmarks of several people on one machine take turns run by run
#
# Output: bench/results/<timestamp>/{results.json,results.csv,report.md,meta.txt,*.png,logs/}
# Runs alternate between implementations (ferry, mpich, openmpi, ferry, ...) for each
# (program, rank count), so drift on the machine hits all alike. A run that times out
# is not retried in later repetitions (it would only time out again).
set -u

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
BUILD=${1:-$ROOT/build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac

QUICK=${QUICK:-0}
IMPLS=${IMPLS:-"ferry mpich openmpi"}
RANKS=${RANKS:-"2 4 8"}
BASELINE=${BASELINE:-}
if [ "$QUICK" = 1 ]; then
    REPS=${REPS:-2}
    TIMEOUT=${TIMEOUT:-10}
    BUDGET=${BUDGET:-140}
    APP_RANKS=${APP_RANKS:-"1 2 8"}
    GAUSS_P=${GAUSS_P:-"rows cyclic"}
    LAT_ARGS=${LAT_ARGS-"-i 1000 -w 50 -x 1M"}
    BW_ARGS=${BW_ARGS-"-i 20 -w 2 -x 1M"}
    RING_ARGS=${RING_ARGS-"-l 5000 -L 300 -w 20 -T 1"}
    IMB_ARGS=${IMB_ARGS-"-q"}
    COMM_ARGS="-q"
    DTYPE_ARGS="-q"
    APP_ARGS="-q"
    LIMITS_ARGS="-r 5000"
    IS_ARGS="-q"
    OSC_ARGS=${OSC_ARGS-"-i 500 -w 20 -n 20 -b 5 -T 0.1"}
    OSC_COUNTER_ARGS=${OSC_COUNTER_ARGS-"-w 10 -b 5 -t 0.05 -T 1"}
    OSC_TIMEOUT=${OSC_TIMEOUT:-60}
    FOOTPRINT_RANKS=${FOOTPRINT_RANKS-"2 8 64"}
else
    REPS=${REPS:-3}
    TIMEOUT=${TIMEOUT:-120}
    BUDGET=${BUDGET:-0}
    APP_RANKS=${APP_RANKS:-"1 2 4 8"}
    GAUSS_P=${GAUSS_P:-"rows cols cyclic"}
    LAT_ARGS=${LAT_ARGS-"-i 10000 -w 500"}
    BW_ARGS=${BW_ARGS-"-i 200 -w 10"}
    RING_ARGS=${RING_ARGS-"-l 100000 -L 5000 -w 50 -T 5"}
    IMB_ARGS=${IMB_ARGS-""}
    COMM_ARGS=""
    DTYPE_ARGS=""
    APP_ARGS=""
    LIMITS_ARGS=""
    IS_ARGS=""
    OSC_ARGS=${OSC_ARGS-"-T 1"}
    OSC_COUNTER_ARGS=${OSC_COUNTER_ARGS-"-w 10 -b 10 -t 0.2 -T 5"}
    OSC_TIMEOUT=${OSC_TIMEOUT:-300}
    FOOTPRINT_RANKS=${FOOTPRINT_RANKS-"2 8 64 256 1024"}
fi
# Beside a busy loop per core each rank runs in scheduler slices of a few milliseconds, and
# a measurement shorter than a few slices measures which slices it fell in: QUICK's 20 windows
# of 64 KiB sends last about 6 ms, and Ferry's loaded 64 KiB read anywhere from 1.0 to 33 GB/s
# from run to run (MPICH 4-10); over 2,000 windows it was 13.8 GB/s, MPICH 4.8, Open MPI 2.4.
# So the loaded runs of latency and bandwidth always take the full mode's counts.
LOAD_LAT_ARGS=${LOAD_LAT_ARGS-"-i 10000 -w 500"}
LOAD_BW_ARGS=${LOAD_BW_ARGS-"-i 200 -w 10"}
LOAD_TIMEOUT=${LOAD_TIMEOUT:-60}
FOOTPRINT_PEER_MAX=${FOOTPRINT_PEER_MAX:-64}
OSC_PARTS=${OSC_PARTS:-"lock_all lock fence pscw atomic"}
OSC_RANKS=${OSC_RANKS:-$RANKS}
OSC_OMPI_ARGS=${OSC_OMPI_ARGS-"--mca osc ^rdma"}
FOOTPRINT_TIMEOUT=${FOOTPRINT_TIMEOUT:-300}
QUIET=${QUIET:-1}
LOAD=${LOAD:-}
# The conditions every measurement runs under, in run order: quiet, then each load.
CONDS=""
[ "$QUIET" = 0 ] || CONDS=quiet
for k in $LOAD; do
    case $k in
    none | quiet) ;;
    std | cpu) CONDS="$CONDS cpu" ;;
    mem | both) CONDS="$CONDS $k" ;;
    *) printf 'run.sh: unknown LOAD kind "%s" (cpu, std, mem, both, none)\n' "$k" >&2; exit 2 ;;
    esac
done
CONDS=$(printf '%s\n' $CONDS | awk '!seen[$0]++' | tr '\n' ' ')
[ -n "${CONDS// /}" ] || CONDS=quiet
CFLAGS="-O2 -std=c11 -Wall -Wextra -I$BENCH_DIR"

STAMP=$(date +%Y%m%d-%H%M%S)
RESULTS_DIR=${RESULTS_DIR:-$BENCH_DIR/results}
OUT=$RESULTS_DIR/$STAMP
mkdir -p "$OUT/logs"
CSV=$OUT/logs/rows.csv # results.csv = the machine description as '#' lines + these rows
META=$OUT/meta.txt

# The functions shared with bench/hosts.sh: packages, compilers and launchers, builds,
# parsing, the machine's caches and the report.
# shellcheck source=bench/lib.sh
. "$BENCH_DIR/lib.sh"

# The program group "hosts" (bench/hosts.sh, needs root): named in ONLY, or a full run without
# ONLY; QUICK runs keep their few minutes unless ONLY names it.
hosts_wanted() { if [ -n "${ONLY:-}" ]; then selected hosts; else [ "$QUICK" != 1 ]; fi; }
# The same for the group "startup" (bench/startup.sh; its parts between hosts need root).
startup_wanted() { if [ -n "${ONLY:-}" ]; then selected startup; else [ "$QUICK" != 1 ]; fi; }

if [ -n "$BASELINE" ]; then
    case $BASELINE in /*) ;; *) BASELINE=$PWD/$BASELINE ;; esac
    [ -r "$BASELINE" ] || { say "run.sh: BASELINE $BASELINE is not readable"; exit 2; }
fi

# --- background load: hogs started before a loaded run and stopped after it ----------
HOG_PIDS=""
HOG_BIN=""
NCPU=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
load_what() { # a condition -> words for the report
    case $1 in
    quiet) echo "no background load" ;;
    cpu) echo "$NCPU CPU hogs (one per core)" ;;
    mem) echo "1 memory-bandwidth hog (64 MiB copies)" ;;
    both) echo "$NCPU CPU hogs (one per core) + 1 memory-bandwidth hog" ;;
    esac
}
load_start() { # condition
    local i n=0 kinds=""
    case $1 in
    quiet) return 0 ;;
    cpu) n=$NCPU ;;
    mem) kinds=mem ;;
    both) n=$NCPU; kinds=mem ;;
    esac
    for i in $(seq 1 "$n"); do kinds="$kinds cpu"; done
    for i in $kinds; do
        # $$ is this script: a hog exits by itself once the harness is gone, even after a SIGKILL.
        HOG_MAX_S=$((TIMEOUT + 60)) "$HOG_BIN" "$i" $$ </dev/null >>"$OUT/logs/hogs.log" 2>&1 9>&- &
        HOG_PIDS="$HOG_PIDS $!"
    done
    sleep 0.2 # let the scheduler see them before the measurement starts
}
load_stop() {
    local p
    [ -n "$HOG_PIDS" ] || return 0
    for p in $HOG_PIDS; do kill -TERM "$p" 2>/dev/null; done
    for p in $HOG_PIDS; do wait "$p" 2>/dev/null; done
    HOG_PIDS=""
}

SEQ=0
DONE=0
run_one() { # impl program np rep cond args...
    local impl=$1 prog=$2 np=$3 rep=$4 cond=$5
    shift 5
    local tag=""
    case " $* " in *" -p "*) tag=-$(printf '%s\n' "$*" | sed -n 's/.*-p \([^ ]*\).*/\1/p') ;; esac
    local ctag=""
    [ "$cond" = quiet ] || ctag=-$cond
    local log=$OUT/logs/$impl-${prog//\//_}$tag-np$np-rep$rep$ctag.log
    local t0 t1 rc status wall
    SEQ=$((SEQ + 1))
    DONE=$((DONE + 1))
    impl_launch "$impl"
    # shellcheck disable=SC2206
    [ "$impl:$prog" != openmpi:osc ] || LAUNCH+=($OSC_OMPI_ARGS)
    printf '[%3d/%d %3ds] %-8s %-14s np=%-4s rep %d/%d %-5s ... ' "$DONE" "$TOTAL" \
        $(($(date +%s) - START)) "$impl" "$prog$tag" "$np" "$rep" "$REPS" "$cond" >&2
    local tmo=$TIMEOUT
    [ "$prog" != footprint ] || tmo=$FOOTPRINT_TIMEOUT
    [ "$prog" != osc ] || [ "$tmo" -ge "$OSC_TIMEOUT" ] || tmo=$OSC_TIMEOUT
    # The loaded runs of latency and bandwidth take the full mode's counts (LOAD_*_ARGS), and
    # beside busy loops a peer's 32 MiB window alone took over 10 s: QUICK's limit is too short.
    case $cond:$prog in quiet:*) ;; *:latency | *:bandwidth) [ "$tmo" -ge "$LOAD_TIMEOUT" ] || tmo=$LOAD_TIMEOUT ;; esac
    if [ -n "${MEASURE_LOCK:-}" ]; then
        exec 9>>"$MEASURE_LOCK"
        flock 9
    fi
    # The state of the host this minute: the cache-line bounce between CPUs 0 and 1, measured
    # before the load starts and after it stops (compare.py sorts runs by it; bench/README.md).
    local bounce=""
    [ ! -x "$OUT/limits" ] || bounce=$("$OUT/limits" -B 2>/dev/null)
    load_start "$cond"
    t0=$(date +%s.%N)
    timeout -k 5 "$tmo" "${LAUNCH[@]}" -n "$np" "$OUT/bin-$impl/$prog" -m "$@" \
        >"$log" 2>&1 </dev/null 9>&-
    rc=$?
    t1=$(date +%s.%N)
    load_stop
    # And after: a run during which the host changed state is neither fast nor slow.
    [ -z "$bounce" ] || bounce="$bounce;bounce_after_ns=$("$OUT/limits" -B 2>/dev/null)"
    [ -z "${MEASURE_LOCK:-}" ] || exec 9>&-
    case $rc in
    0) status=ok ;;
    124 | 137) status=timeout ;;
    *) status=fail ;;
    esac
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    # osc's parts are runs of their own: its rows name the part ("osc-fence"), so that a part
    # that timed out marks its own cells only.
    local pname=$prog
    [ "$prog" != osc ] || pname=$prog$tag
    parse_log "$SEQ" "$impl" "$pname" "$np" "$rep" "$status" "$wall" "$cond" "$bounce" <"$log" >>"$CSV"
    local parsed=$?
    local nfail
    nfail=$(grep -c '^RESULT .*status=FAILED' "$log")
    if [ "$status" = timeout ]; then
        printf 'TIMEOUT (>%s s), see %s\n' "$tmo" "${log#"$ROOT"/}" >&2
        TIMED_OUT="$TIMED_OUT $impl:$prog$tag:$np:$cond"
    elif [ "$nfail" != 0 ]; then # before the exit status: such programs exit 1
        printf '%s s, %s VERIFICATION FAILED, see %s\n' "$wall" "$nfail" "${log#"$ROOT"/}" >&2
    elif [ "$parsed" != 0 ]; then
        printf 'FAILED (exit %s, no result), see %s\n' "$rc" "${log#"$ROOT"/}" >&2
    else
        printf 'ok (%s s)\n' "$wall" >&2
    fi
}


# --- main ---------------------------------------------------------------------
# One function, so bash has read all of it before it runs: editing this file while a
# run is going on cannot change the running script.
main() {
START=$(date +%s)
: >"$META"
meta_machine
meta loads "$CONDS"
for c in $CONDS; do meta "load_what_$c" "$(load_what "$c")"; done
meta footprint_ranks "$FOOTPRINT_RANKS"
meta footprint_peer_max "$FOOTPRINT_PEER_MAX"
meta footprint_timeout "$FOOTPRINT_TIMEOUT"
meta osc_ompi_args "$OSC_OMPI_ARGS"
meta commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo none)"
meta quick "$QUICK"
meta reps "$REPS"
meta timeout "$TIMEOUT"
meta ranks "$RANKS"
meta app_ranks "$APP_RANKS"
meta impls_requested "$IMPLS"
meta build_dir "$BUILD"
meta baseline "$BASELINE"
echo "seq,impl,program,np,bench,ranks,size,rep,value,unit,status,extra,wall_s" >"$CSV"

# shellcheck disable=SC2046
ensure_packages $(hosts_wanted && echo iperf3)
meta version_mpich "$(dpkg-query -W -f='${Version}' mpich 2>/dev/null)"
meta version_openmpi "$(dpkg-query -W -f='${Version}' openmpi-bin 2>/dev/null)"
meta version_ferry "$(git -C "$ROOT" describe --always --dirty 2>/dev/null)"

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

# Physical limits first (no MPI): the report expresses MPI numbers against them. The program is
# built in any case: every run is tagged with the cache-line bounce of its minute (run_one).
limits_built=0
if [ -f "$BENCH_DIR/limits.c" ] && cc -O2 -std=c11 -Wall -Wextra -pthread -o "$OUT/limits" \
    "$BENCH_DIR/limits.c" >"$OUT/logs/build-limits.log" 2>&1; then
    limits_built=1
fi
if [ -f "$BENCH_DIR/limits.c" ] && selected limits; then
    say "run.sh: measuring physical limits (bench/limits.c)"
    [ -z "${MEASURE_LOCK:-}" ] || { exec 9>>"$MEASURE_LOCK"; flock 9; }
    if [ "$limits_built" = 1 ]; then
        # shellcheck disable=SC2086
        timeout -k 5 "$TIMEOUT" "$OUT/limits" -m $LIMITS_ARGS >"$OUT/logs/limits.log" 2>&1 9>&-
        rc=$?
        parse_log 0 none limits 1 1 "$([ $rc = 0 ] && echo ok || echo fail)" 0 \
            <"$OUT/logs/limits.log" >>"$CSV" || say "run.sh: limits failed, see logs/limits.log"
    else
        say "run.sh: limits.c does not build, see logs/build-limits.log"
    fi
    [ -z "${MEASURE_LOCK:-}" ] || exec 9>&-
fi

case " $CONDS " in
*" cpu "* | *" mem "* | *" both "*)
    HOG_BIN=$OUT/hog
    if ! cc -O2 -std=c11 -Wall -Wextra -o "$HOG_BIN" "$BENCH_DIR/hog.c" >"$OUT/logs/build-hog.log" 2>&1; then
        say "run.sh: bench/hog.c does not build (logs/build-hog.log): no loaded runs"
        CONDS=quiet
        meta loads "$CONDS"
    fi ;;
esac
# Whatever happens, no hog outlives the harness (they also watch for it themselves).
trap 'load_stop' EXIT

ACTIVE=""
# The programs of this machine selected (ONLY="hosts" selects none: only bench/hosts.sh runs).
LOCAL=$(list_programs | while read -r name src; do selected "$name" && echo "$name"; done)
for impl in $IMPLS; do
    case $impl in ferry | mpich | openmpi) ;; *) say "run.sh: unknown implementation '$impl' (ferry, mpich, openmpi)"; continue ;; esac
    [ -n "$LOCAL" ] || continue
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
if [ -z "$ACTIVE" ] && ! hosts_wanted && ! startup_wanted; then
    say "run.sh: nothing to run"
    write_report
    exit 1
fi
for impl in $ACTIVE; do
    [ -x "$OUT/bin-$impl/latency" ] || continue
    meta "library_$impl" "$(impl_launch "$impl"; timeout 30 "${LAUNCH[@]}" -n 2 "$OUT/bin-$impl/latency" -x 1 -i 1 -w 0 2>/dev/null </dev/null |
        sed -n 's/^# MPI library: //p' | head -n 1)"
done

# The run plan: "program ranks args" per line, in run order.
PLAN=""
add_plan() { PLAN="$PLAN$1 $2 $3
"; }
while read -r name src; do
    [ -n "$name" ] && selected "$name" || continue
    case $name in
    latency) add_plan latency 2 "$LAT_ARGS" ;;
    bandwidth) add_plan bandwidth 2 "$BW_ARGS" ;;
    ring) for np in $RANKS; do add_plan ring "$np" "$RING_ARGS"; done ;;
    imb) for np in $RANKS; do add_plan imb "$np" "$IMB_ARGS"; done ;;
    dtype) add_plan dtype 2 "$DTYPE_ARGS" ;;
    comm) for np in $RANKS; do add_plan comm "$np" "$COMM_ARGS"; done ;;
    footprint) for np in $FOOTPRINT_RANKS; do add_plan footprint "$np" ""; done ;;
    # One run per part (-p, also the tag of its log), so that a part that hangs costs only itself.
    osc) for part in $OSC_PARTS; do add_plan osc 2 "$OSC_ARGS -p $part"; done
         for np in $OSC_RANKS; do add_plan osc "$np" "$OSC_COUNTER_ARGS -p counter"; done ;;
    apps/is) for np in $RANKS; do add_plan "$name" "$np" "$IS_ARGS"; done ;;
    apps/gauss) for np in $APP_RANKS; do for part in $GAUSS_P; do
                    add_plan "$name" "$np" "$APP_ARGS -p $part"; done; done ;;
    apps/*) for np in $APP_RANKS; do add_plan "$name" "$np" "$APP_ARGS"; done ;;
    esac
done <<EOF
$(list_programs)
EOF
nimpl=$(echo $ACTIVE | wc -w)
nplan=$(printf '%s' "$PLAN" | grep -c .)
ncond=$(echo $CONDS | wc -w)
TOTAL=$((REPS * nplan * nimpl * ncond))
TIMED_OUT=""
SKIPPED=0

trap 'load_stop; say ""; say "run.sh: interrupted, reporting what was measured"; meta load_end "$(cut -d" " -f1-3 /proc/loadavg)"; write_report; exit 130' INT TERM
[ "$nplan" = 0 ] ||
    say "run.sh: $TOTAL runs ($REPS repetitions x $nplan (program, ranks) x$ACTIVE x conditions: $CONDS), timeout ${TIMEOUT} s each"
for rep in $(seq 1 "$REPS"); do
    while read -r prog np args; do
        [ -n "$prog" ] || continue
        for cond in $CONDS; do
        for impl in $ACTIVE; do
            # The footprint is a property of the library, not a timing: one quiet run, and
            # the peers only up to FOOTPRINT_PEER_MAX ranks.
            if [ "$prog" = footprint ] && { [ "$rep" -gt 1 ] || [ "$cond" != quiet ] ||
                { [ "$impl" != ferry ] && [ "$np" -gt "$FOOTPRINT_PEER_MAX" ]; }; }; then
                DONE=$((DONE + 1))
                continue
            fi
            if [ ! -x "$OUT/bin-$impl/$prog" ]; then
                DONE=$((DONE + 1))
                continue
            fi
            if [ "$rep" -gt 1 ] && [ "$BUDGET" -gt 0 ] && [ $(($(date +%s) - START)) -ge "$BUDGET" ]; then
                DONE=$((DONE + 1))
                SKIPPED=$((SKIPPED + 1))
                continue
            fi
            tag=""
            case " $args " in *" -p "*) tag=-$(printf '%s\n' "$args" | sed -n 's/.*-p \([^ ]*\).*/\1/p') ;; esac
            case " $TIMED_OUT " in
            *" $impl:$prog$tag:$np:$cond "*)
                DONE=$((DONE + 1))
                say "[$DONE/$TOTAL] $impl $prog np=$np rep $rep/$REPS $cond: skipped (timed out before)"
                continue ;;
            esac
            if [ "$prog" = footprint ] && printf '%s\n' $TIMED_OUT | grep -q "^$impl:footprint:"; then
                DONE=$((DONE + 1))
                say "[$DONE/$TOTAL] $impl footprint np=$np: skipped (a smaller rank count timed out)"
                continue
            fi
            cargs=$args
            if [ "$cond" != quiet ]; then
                case $prog in
                latency) cargs="$args $LOAD_LAT_ARGS" ;;
                bandwidth) cargs="$args $LOAD_BW_ARGS" ;;
                esac
            fi
            # shellcheck disable=SC2086
            run_one "$impl" "$prog" "$np" "$rep" "$cond" $cargs
        done
        done
    done <<EOF
$PLAN
EOF
done
load_stop
# The program group "startup" (bench/startup.sh): launches at scale, adding its rows and meta
# lines to this run's, numbered after the rows so far.
if startup_wanted; then
    say "run.sh: startup at scale (bench/startup.sh)"
    STARTUP_OUT=$OUT STARTUP_SEQ0=$(awk -F, 'NR > 1 && $1 + 0 > m { m = $1 + 0 } END { print m + 1 }' "$CSV") \
        QUICK=$QUICK IMPLS=$IMPLS "$BENCH_DIR/startup.sh" "$BUILD" </dev/null ||
        say "run.sh: bench/startup.sh failed, see its lines above"
fi
# The program group "hosts": the benchmarks between test hosts (bench/hosts.sh), after the
# programs of this machine, adding their rows and meta lines to this run's.
if hosts_wanted; then
    say "run.sh: the benchmarks between test hosts (bench/hosts.sh)"
    HOSTS_OUT=$OUT HOSTS_SEQ0=$(awk -F, 'NR > 1 && $1 + 0 > m { m = $1 + 0 } END { print m + 1 }' "$CSV") \
        QUICK=$QUICK REPS=$REPS IMPLS=$IMPLS \
        "$BENCH_DIR/hosts.sh" "$BUILD" </dev/null ||
        say "run.sh: bench/hosts.sh failed, see its lines above"
fi
trap - INT TERM
# Without latency (ONLY=...), the library strings come from the programs' own '# MPI library:' line.
for impl in $IMPLS; do
    grep -q "^library_$impl=" "$META" && continue
    lib=$(cat "$OUT/logs/$impl"-*.log "$OUT/logs/hosts-$impl"-*.log 2>/dev/null |
        sed -n 's/^# MPI library: //p' | head -n 1)
    [ -n "$lib" ] && meta "library_$impl" "$lib"
done
meta load_end "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
meta wall_s "$(($(date +%s) - START))"
meta budget "$BUDGET"
meta skipped_budget "$SKIPPED"
[ "$SKIPPED" = 0 ] || say "run.sh: time budget of $BUDGET s spent: $SKIPPED runs not started"
write_report
}

main "$@"
exit $?
