#!/usr/bin/env bash
# bench/hosts.sh [BUILD_DIR] - the benchmarks between hosts (issue 12): Ferry, MPICH and Open MPI
# each launched by its own launcher over the same test hosts (tests/hosts/fy_hosts: network
# namespaces on a bridge, one machine), next to the limits of the link measured in the same run.
#
#   link limits   iperf3, one stream, server on fyh2, client on fyh1 (GB/s); bench/sockpp.c: TCP
#                 ping-pong polling and blocking (8 B .. 4 MiB) and a stream (chunks 64 KiB .. 16 MiB)
#   2 hosts x 1   bench/latency.c (8 B .. 4 MiB), bench/bandwidth.c (64 KiB .. 16 MiB; -B
#                 bidirectional; -R message rate, 8 B .. 4 KiB)
#   2 x 2, 4 x 1  bench/imb.c: Allreduce, Bcast (8 B .. 1 MiB), Barrier, Allgather
#   4 x 1         startup: whole launches of bench/hello.c, ms
# Every repetition measures the link first, then each (program, layout) with the implementations
# one after the other. The cluster (HOSTS_N hosts) comes up at the start and goes down at the end,
# whatever happens (trap). Rows: impl "link" for the limits, benches "net.<bench>" with
# layout=<hosts>x<ranks per host> for the MPI ones; compare.py's "Between hosts (TCP)" reads them.
#
# Standalone it makes its own bench/results/<timestamp>/ and report; bench/run.sh runs it as the
# program group "hosts" (ONLY="hosts" or a full run) with HOSTS_OUT=its run directory, and then
# it only adds rows and meta lines there. Needs root, ip, unshare, nsenter: without them it says
# why and measures nothing (exit 0).
#
# Knobs (environment): QUICK=1, REPS (3; QUICK 2), IMPLS ("ferry mpich openmpi"), HOSTS_N (4),
# HOSTS_TIMEOUT (s per run: 180; QUICK 90), STARTUP_RUNS (launches per repetition: 5; QUICK 3),
# NET_LAT_ARGS, NET_BW_ARGS, NET_BIBW_ARGS, NET_RATE_ARGS, NET_IMB_ARGS, SOCKPP_ARGS,
# IPERF_SECS (5; QUICK 2), HOSTS_MPICH_TLS (UCX_TLS of MPICH: sm,tcp,self), HOSTS_OMPI_BTL
# (vader,tcp,self), HOSTS_OMPI_ARGS (more options of mpiexec.openmpi, e.g. "--mca
# mpi_yield_when_idle 1"; default none), EXIT_GRACE (s a job may take to end after its results: 5), NO_INSTALL=1,
# NO_PLOTS=1, RESULTS_DIR, MEASURE_LOCK (a file to flock(1) around each measurement, as run.sh),
# HOSTS_ONLY (a subset of "link latency bandwidth bibw msgrate imb startup"; default all).
set -u

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
BUILD=${1:-$ROOT/build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac

QUICK=${QUICK:-0}
IMPLS=${IMPLS:-"ferry mpich openmpi"}
HOSTS_N=${HOSTS_N:-4}
if [ "$QUICK" = 1 ]; then
    REPS=${REPS:-2}
    HOSTS_TIMEOUT=${HOSTS_TIMEOUT:-90}
    STARTUP_RUNS=${STARTUP_RUNS:-3}
    IPERF_SECS=${IPERF_SECS:-2}
    NET_LAT_ARGS=${NET_LAT_ARGS-"-i 1000 -w 50 -T 0.5"}
    NET_BW_ARGS=${NET_BW_ARGS-"-n 64K -x 16M -i 10 -w 1 -W 16"}
    NET_BIBW_ARGS=${NET_BIBW_ARGS-"-n 64K -x 16M -i 10 -w 1 -W 16"}
    NET_RATE_ARGS=${NET_RATE_ARGS-"-W 256 -i 20 -w 2"}
    NET_IMB_ARGS=${NET_IMB_ARGS-"-q"}
    SOCKPP_ARGS=${SOCKPP_ARGS-"-i 1000 -w 50 -N 64M -r 3 -T 0.5"}
else
    REPS=${REPS:-3}
    HOSTS_TIMEOUT=${HOSTS_TIMEOUT:-180}
    STARTUP_RUNS=${STARTUP_RUNS:-5}
    IPERF_SECS=${IPERF_SECS:-5}
    # 2,000 round trips (batches of 100): the budget is checked between batches, and a batch of
    # 500 at Open MPI's 8 ms round trips between these hosts alone took 4 s.
    NET_LAT_ARGS=${NET_LAT_ARGS-"-i 2000 -w 100 -T 1.5"}
    NET_BW_ARGS=${NET_BW_ARGS-"-n 64K -x 16M -i 100 -w 2 -W 16"}
    NET_BIBW_ARGS=${NET_BIBW_ARGS-"-n 64K -x 16M -i 100 -w 2 -W 16"}
    NET_RATE_ARGS=${NET_RATE_ARGS-"-W 256 -i 100 -w 10"}
    # imb -q's sizes (0, 8 B, 1 KiB, 64 KiB, 1 MiB) with the full counts: the sweep of every
    # power of two took over 180 s per run here (4 ranks on 2 CPUs: 5-75 ms per operation).
    NET_IMB_ARGS=${NET_IMB_ARGS-"-q -i 1000 -t 0.05"}
    SOCKPP_ARGS=${SOCKPP_ARGS-"-T 1.5"}
fi
CFLAGS="-O2 -std=c11 -Wall -Wextra -I$BENCH_DIR"
IMB_SET="-b allreduce,bcast,barrier,allgather -x 1M"

BASELINE=""
# shellcheck source=bench/lib.sh
. "$BENCH_DIR/lib.sh"
bench_out hosts "${HOSTS_OUT:-}" "${HOSTS_SEQ0:-100000}"

# --- the link's limits ------------------------------------------------------------------
# Starts `cmd` in the background on host fyh2 with its output in file; waits for `ready` there.
serve_on_fyh2() { # file ready-regex cmd...
    local file=$1 ready=$2 t0=$SECONDS
    shift 2
    : >"$file"
    "$AGENT" fyh2 "$* </dev/null >'$file' 2>&1 &" 9>&-
    while ! grep -q "$ready" "$file" 2>/dev/null; do
        [ $((SECONDS - t0)) -lt 15 ] || return 1
        sleep 0.05
    done
}

link_row() { # bench size value unit status extra wall rep
    printf '%s,link,%s,2,%s,2,%s,%s,%s,%s,%s,%s,%s\n' "$SEQ" "$9" "$1" "$2" "$8" "$3" "$4" "$5" \
        "$6" "$7" >>"$CSV"
}

measure_link() { # rep
    lock_take
    measure_link_locked "$@"
    lock_drop
}
measure_link_locked() { # rep
    local rep=$1 log port t0 t1 rc
    SEQ=$((SEQ + 1))
    log=$OUT/logs/hosts-link-sockpp-rep$rep.log
    printf '[hosts %3ds] link     sockpp         2 hosts rep %d/%d ... ' $(($(date +%s) - START)) \
        "$rep" "$REPS" >&2
    if serve_on_fyh2 "$log.server" "listening on port" "$OUT/bin-link/sockpp" -s -t 60; then
        port=$(sed -n 's/.*listening on port //p' "$log.server")
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        timeout -k 5 "$HOSTS_TIMEOUT" "$AGENT" fyh1 "$OUT/bin-link/sockpp" -c "$(addr 2)" -p "$port" -m \
            $SOCKPP_ARGS >"$log" 2>&1 </dev/null
        rc=$?
        t1=$(date +%s.%N)
    else
        echo "sockpp server did not start: $(head -n 1 "$log.server")" >"$log"
        rc=1 t0=0 t1=0
    fi
    parse_log "$SEQ" link sockpp 2 "$rep" "$([ $rc = 0 ] && echo ok || echo fail)" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" <"$log" >>"$CSV" &&
        say "ok" || say "FAILED, see ${log#"$ROOT"/}"

    SEQ=$((SEQ + 1))
    log=$OUT/logs/hosts-link-iperf3-rep$rep.log
    printf '[hosts %3ds] link     iperf3         2 hosts rep %d/%d ... ' $(($(date +%s) - START)) \
        "$rep" "$REPS" >&2
    if ! command -v iperf3 >/dev/null 2>&1; then
        say "no iperf3 (apt-get install iperf3)"
        link_row link.iperf3 "*" "" "" missing "" 0 "$rep" iperf3
        return
    fi
    local val=""
    if serve_on_fyh2 "$log.server" "listening" iperf3 -s -1 --forceflush -p 5201; then
        t0=$(date +%s)
        timeout -k 5 $((IPERF_SECS + 30)) "$AGENT" fyh1 iperf3 -c "$(addr 2)" -p 5201 -t "$IPERF_SECS" -J \
            >"$log" 2>&1 </dev/null
        # Bytes the server received per second of the test, one TCP stream.
        val=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("%.2f %.1f" % (d["end"]["sum_received"]["bits_per_second"] / 8e6,
                     d["end"]["cpu_utilization_percent"]["host_total"]))' "$log" 2>/dev/null)
    fi
    if [ -n "$val" ]; then
        link_row link.iperf3 0 "${val% *}" MBps ok "streams=1;seconds=$IPERF_SECS;cpu_client_pct=${val#* }" \
            $(($(date +%s) - t0)) "$rep" iperf3
        say "ok ($(awk -v v="${val% *}" 'BEGIN { printf "%.2f GB/s", v / 1000 }'))"
    else
        link_row link.iperf3 "*" "" "" fail "" 0 "$rep" iperf3
        say "FAILED, see ${log#"$ROOT"/}"
    fi
}

# --- MPI runs -----------------------------------------------------------------------------
TIMED_OUT=""
run_net() { # impl name prog layout rep args...
    local impl=$1 name=$2 prog=$3 layout=$4 rep=$5
    shift 5
    local h=${layout%x*} p=${layout#*x} log t0 t1 status
    log=$OUT/logs/hosts-$impl-$name-$layout-rep$rep.log
    SEQ=$((SEQ + 1))
    case " $TIMED_OUT " in *" $impl:$name:$layout "*)
        say "[hosts] $impl $name $layout rep $rep: skipped (timed out before)"; return ;; esac
    hosts_launch "$impl" "$h" "$p"
    printf '[hosts %3ds] %-8s %-14s %-4s rep %d/%d ... ' $(($(date +%s) - START)) "$impl" "$name" \
        "$layout" "$rep" "$REPS" >&2
    lock_take
    t0=$(date +%s.%N)
    run_job "$log" "$HOSTS_TIMEOUT" "${LAUNCH[@]}" "$OUT/bin-hosts-$impl/$prog" -m "$@"
    t1=$(date +%s.%N)
    lock_drop
    status=$JOB_STATUS
    [ $status != timeout ] || TIMED_OUT="$TIMED_OUT $impl:$name:$layout"
    parse_log "$SEQ" "$impl" "hosts/$name" $((h * p)) "$rep" "$status" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" <"$log" |
        awk -F, -v OFS=, -v L="$layout" '{ $5 = "net." $5; $12 = $12 ($12 == "" ? "" : ";") "layout=" L; print }' \
        >>"$CSV"
    local parsed=${PIPESTATUS[0]}
    if [ "$status" = exit_hang ]; then
        say "results in, then hung in MPI_Finalize (killed after $EXIT_GRACE s), see ${log#"$ROOT"/}"
    elif [ "$parsed" != 0 ]; then
        say "$status (exit $JOB_RC), see ${log#"$ROOT"/}"
    elif grep -q '^RESULT .*status=FAILED' "$log"; then
        say "VERIFICATION FAILED, see ${log#"$ROOT"/}"
    else
        say "ok ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"
    fi
}

# Whole launches of hello on all hosts, two rows each: net.startup, ms from mpiexec's start to
# its exit (launches that exit by themselves only), and net.startup_ready, ms until rank 0 left
# the barrier after MPI_Init (hello's ready_ns: the hosts share this machine's clock), which a
# launch that then hangs in MPI_Finalize still has.
run_startup() { # impl rep
    local impl=$1 rep=$2 i t0 t1 log ready ms wall msr="" times=""
    hosts_launch "$impl" "$HOSTS_N" 1
    printf '[hosts %3ds] %-8s %-14s %-4s rep %d/%d ... ' $(($(date +%s) - START)) "$impl" startup \
        "${HOSTS_N}x1" "$rep" "$REPS" >&2
    lock_take
    for i in $(seq "$STARTUP_RUNS"); do
        SEQ=$((SEQ + 1))
        log=$OUT/logs/hosts-$impl-startup-rep$rep-$i.log
        rm -f "$log.end"
        t0=$(date +%s%N)
        # The end stamp is taken by the job's own shell, right after mpiexec returns.
        run_job "$log" 60 sh -c '"$@"; rc=$?; date +%s%N >"$0"; exit $rc' "$log.end" \
            "${LAUNCH[@]}" "$OUT/bin-hosts-$impl/hello" -m
        ready=$(sed -n "s/^RESULT bench=hello ranks=$HOSTS_N .*ready_ns=\([0-9]*\).*/\1/p" "$log")
        t1=$(cat "$log.end" 2>/dev/null)
        wall=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
        row() { # bench value status
            printf '%s,%s,hosts/startup,%s,%s,%s,%s,%s,%s,%s,%s,layout=%sx1,%s\n' "$SEQ" "$impl" \
                "$HOSTS_N" "$1" "$HOSTS_N" "$([ "$3" = ok ] && echo 0 || echo '*')" "$rep" "$2" \
                "$([ "$3" = ok ] && echo ms)" "$3" "$HOSTS_N" "$wall" >>"$CSV"
        }
        if [ -n "$ready" ]; then
            msr=$(awk -v a="$t0" -v b="$ready" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
            row net.startup_ready "$msr" ok
        else
            row net.startup_ready "" "$JOB_STATUS"
        fi
        if [ "$JOB_STATUS" = ok ] && [ -n "$ready" ] && [ -n "$t1" ]; then
            ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
            row net.startup "$ms" ok
            times="$times $ms"
        else
            row net.startup "" "$JOB_STATUS"
            times="$times $JOB_STATUS${msr:+(ready $msr)}"
        fi
        msr=""
    done
    lock_drop
    say "ms:$times"
}

wanted() { [ -z "${HOSTS_ONLY:-}" ] || case " $HOSTS_ONLY " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# The programs of the MPI runs, for build_impl.
hosts_programs() {
    local name
    for name in latency bandwidth imb hello; do
        [ -f "$BENCH_DIR/$name.c" ] && echo "$name $BENCH_DIR/$name.c"
    done
}

# --- main ---------------------------------------------------------------------------------
hosts_main() {
    START=$(date +%s)
    if [ "$EMBEDDED" = 0 ]; then
        : >"$META"
        echo "seq,impl,program,np,bench,ranks,size,rep,value,unit,status,extra,wall_s" >"$CSV"
        meta_machine
        meta commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo none)"
        meta quick "$QUICK"
        meta reps "$REPS"
        meta timeout "$HOSTS_TIMEOUT"
        meta build_dir "$BUILD"
        meta load_start "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
        ensure_packages iperf3
        meta version_mpich "$(dpkg-query -W -f='${Version}' mpich 2>/dev/null)"
        meta version_openmpi "$(dpkg-query -W -f='${Version}' openmpi-bin 2>/dev/null)"
        meta version_ferry "$(git -C "$ROOT" describe --always --dirty 2>/dev/null)"
    fi
    meta hosts_reps "$REPS"
    meta hosts_timeout "$HOSTS_TIMEOUT"
    local why
    why=$(why_not)
    if [ -n "$why" ]; then
        say "hosts.sh: the benchmarks between hosts are skipped: $why"
        meta hosts_skipped "$why"
        return 0
    fi
    meta version_iperf3 "$(iperf3 --version 2>/dev/null | head -n 1)"

    # The programs: sockpp (no MPI) once, the MPI ones per implementation.
    mkdir -p "$OUT/bin-link"
    if ! cc -O2 -std=c11 -Wall -Wextra -I"$BENCH_DIR" -o "$OUT/bin-link/sockpp" "$BENCH_DIR/sockpp.c" \
        >"$OUT/logs/build-sockpp.log" 2>&1; then
        say "hosts.sh: bench/sockpp.c does not build (logs/build-sockpp.log)"
    fi
    local impl active=""
    for impl in $IMPLS; do
        case $impl in ferry | mpich | openmpi) ;; *) continue ;; esac
        say "hosts.sh: building for $impl"
        build_impl "$impl" "$OUT/bin-hosts-$impl" "hosts_build_$impl" hosts_programs &&
            active="$active $impl"
        # Standalone (or run.sh ran no local program): the report's header needs a status.
        grep -q "^status_$impl=" "$META" ||
            meta "status_$impl" "$(sed -n "s/^hosts_build_$impl=//p" "$META" | tail -n 1)"
    done

    trap 'cluster_down' EXIT
    trap '[ -z "$JOB_PID" ] || kill -KILL -- "-$JOB_PID" 2>/dev/null; cluster_down; exit 130' INT TERM
    cluster_up "$HOSTS_N" || return 1
    meta hosts_n "$HOSTS_N"
    meta hosts_net "$SUBNET on bridge $BRIDGE (veth pairs; one kernel, $(getconf _NPROCESSORS_ONLN) CPUs shared by all hosts)"

    # Each implementation must launch across two hosts first; one that cannot is n/a with the
    # first line of its error, and its runs are left out.
    local ok_impls="" first prc
    for impl in $active; do
        hosts_launch "$impl" 2 1
        meta "hosts_cmd_$impl" "$(printf '%s ' "${LAUNCH[@]}" | sed "s|$ROOT/||g") PROG"
        # A launch that printed its result counts even if it then hangs in MPI_Finalize.
        run_job "$OUT/logs/hosts-$impl-probe.log" 60 "${LAUNCH[@]}" "$OUT/bin-hosts-$impl/hello" -m
        prc=$JOB_RC
        if grep -q '^RESULT bench=hello ranks=2 ' "$OUT/logs/hosts-$impl-probe.log"; then
            ok_impls="$ok_impls $impl"
            meta "hosts_status_$impl" ok
        else
            first=$(grep -v '^[[:space:]]*$' "$OUT/logs/hosts-$impl-probe.log" | head -n 1 | cut -c1-200)
            meta "hosts_status_$impl" "n/a (${first:-no output, exit status $prc})"
            say "hosts.sh: $impl does not launch across hosts: ${first:-no output}"
        fi
    done
    meta hosts_impls "$ok_impls"

    # "name program layout args" in run order.
    local plan="" name prog layout args rep
    plan="latency latency 2x1 $NET_LAT_ARGS
bandwidth bandwidth 2x1 $NET_BW_ARGS
bibw bandwidth 2x1 -B $NET_BIBW_ARGS
msgrate bandwidth 2x1 -R $NET_RATE_ARGS
imb imb 2x2 $IMB_SET $NET_IMB_ARGS"
    [ "$HOSTS_N" -lt 4 ] || plan="$plan
imb imb 4x1 $IMB_SET $NET_IMB_ARGS"
    for rep in $(seq "$REPS"); do
        ! wanted link || measure_link "$rep"
        [ -n "$ok_impls" ] || continue
        while read -r name prog layout args; do
            [ -n "$name" ] && wanted "$name" || continue
            for impl in $ok_impls; do
                # shellcheck disable=SC2086
                run_net "$impl" "$name" "$prog" "$layout" "$rep" $args
            done
        done <<EOF
$plan
EOF
        if [ "$HOSTS_N" -ge 4 ] && wanted startup; then
            for impl in $ok_impls; do run_startup "$impl" "$rep"; done
        fi
    done
    meta hosts_wall_s "$(($(date +%s) - START))"
    trap - EXIT INT TERM
    cluster_down
    return 0
}

# One compound command, read whole before it runs: editing this file during a run cannot change it.
{
    hosts_main
    rc=$?
    if [ "$EMBEDDED" = 0 ]; then
        for impl in $IMPLS; do
            lib=$(cat "$OUT/logs/hosts-$impl"-*.log 2>/dev/null | sed -n 's/^# MPI library: //p' | head -n 1)
            [ -z "$lib" ] || meta "library_$impl" "$lib"
        done
        meta load_end "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
        meta wall_s "$(($(date +%s) - START))"
        write_report
    fi
    exit $rc
}
