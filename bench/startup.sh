#!/usr/bin/env bash
# bench/startup.sh [BUILD_DIR] - startup at scale (issue 13, item 5): whole launches of
# bench/hello.c (MPI_Init, MPI_Barrier, MPI_Finalize) at 1, 16, 64 and 256 ranks, Ferry, MPICH and
# Open MPI in the same run, each launch giving two numbers:
#
#   launch     ms from the launcher's start to its exit (the end stamp is taken by the job's own
#              shell right after the launcher returns)
#   init+fin   the slowest rank's time inside MPI_Init plus MPI_Finalize, from each rank's own
#              clock readings (hello -t FILE: one line per rank, reduced here); every rank of
#              every placement runs on this machine, so there is one clock
#
# Placements and launchers (columns), each a group of rows:
#   one host    Ferry under its mpiexec, Ferry under Hydra (mpiexec.mpich starting the Ferry
#               program: PMI-1), MPICH under Hydra, Open MPI under mpirun; 256 ranks on this
#               machine's CPUs is oversubscribed on purpose
#   hosts       the same four over HOSTS_N (4) test hosts (tests/hosts/fy_hosts, launched through
#               the namespace agent as bench/hosts.sh does), the ranks in blocks (n / 4 per host)
#   srun        when tests/hosts/fy_slurm exists: a Slurm cluster on 4 test hosts, every
#               implementation under `srun --mpi=$STARTUP_SRUN_MPI` (pmi2); an implementation that
#               cannot start there (a probe of 2 ranks) is n/a with its first line of error, and a
#               missing or failing fy_slurm skips the group with a note
# Per rank count the columns run one after the other, repetition by repetition, so drift hits
# all alike. A column that timed out at some rank count is not run at larger ones. Benchmarks
# print numbers; nothing here passes or fails on them.
#
# Rows (the results format of bench/run.sh): impl ferry|mpich|openmpi, program
# startup/<placement>, bench startup.launch and startup.initfin, unit ms, extras launcher=,
# layout=<hosts>x<ranks per host> and (init+fin) init_max_ms, fin_max_ms, init_span_ms (first
# rank into MPI_Init to last out), ranks_timed; compare.py's "Startup at scale" reads them.
#
# Standalone it makes its own bench/results/<timestamp>-startup/ and report; bench/run.sh runs it
# as the program group "startup" (ONLY="startup", or a full run) with STARTUP_OUT=its run
# directory, and then it only adds rows and meta lines there.
#
# Knobs (environment): QUICK=1, IMPLS ("ferry mpich openmpi"), STARTUP_RANKS ("1 16 64 256"),
# STARTUP_HOSTS_RANKS ("16 64 256"), STARTUP_REPS (launches per rank count: 5; QUICK 3),
# STARTUP_REPS_BIG (from STARTUP_BIG=256 ranks on: 3; QUICK 1), STARTUP_WHERE (a subset of "one
# hosts srun"; default all), STARTUP_TIMEOUT (s per launch: 300; QUICK 120), STARTUP_EXIT_GRACE
# (s a job may take to end after rank 0 said "# bench: finalizing": 20; the launch then counts
# as exit_hang), STARTUP_SRUN_MPI (pmi2), HOSTS_N (4), HOSTS_MPICH_TLS, HOSTS_OMPI_BTL,
# HOSTS_OMPI_ARGS (as bench/hosts.sh), NO_INSTALL=1, NO_PLOTS=1, RESULTS_DIR, MEASURE_LOCK.
set -u

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
BUILD=${1:-$ROOT/build}
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac

QUICK=${QUICK:-0}
IMPLS=${IMPLS:-"ferry mpich openmpi"}
HOSTS_N=${HOSTS_N:-4}
STARTUP_RANKS=${STARTUP_RANKS:-"1 16 64 256"}
STARTUP_HOSTS_RANKS=${STARTUP_HOSTS_RANKS:-"16 64 256"}
STARTUP_BIG=${STARTUP_BIG:-256}
STARTUP_WHERE=${STARTUP_WHERE:-"one hosts srun"}
STARTUP_SRUN_MPI=${STARTUP_SRUN_MPI:-pmi2}
STARTUP_EXIT_GRACE=${STARTUP_EXIT_GRACE:-20}
if [ "$QUICK" = 1 ]; then
    STARTUP_REPS=${STARTUP_REPS:-3}
    STARTUP_REPS_BIG=${STARTUP_REPS_BIG:-1}
    STARTUP_TIMEOUT=${STARTUP_TIMEOUT:-120}
else
    STARTUP_REPS=${STARTUP_REPS:-5}
    STARTUP_REPS_BIG=${STARTUP_REPS_BIG:-3}
    STARTUP_TIMEOUT=${STARTUP_TIMEOUT:-300}
fi
CFLAGS="-O2 -std=c11 -Wall -Wextra -I$BENCH_DIR"
FY_SLURM=$ROOT/tests/hosts/fy_slurm

BASELINE=""
# shellcheck source=bench/lib.sh
. "$BENCH_DIR/lib.sh"
bench_out startup "${STARTUP_OUT:-}" "${STARTUP_SEQ0:-200000}"
EXIT_GRACE=$STARTUP_EXIT_GRACE # run_job's grace after "# bench: finalizing"

wanted() { case " $STARTUP_WHERE " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
hello_program() { echo "hello $BENCH_DIR/hello.c"; }

# The implementation whose build a column uses.
impl_of() { case $1 in ferry-hydra) echo ferry ;; *) echo "$1" ;; esac; }

# Sets LAUNCH for column COL (ferry, ferry-hydra, mpich, openmpi) at N ranks in placement WHERE.
launch_for() { # where col n
    case $1 in
    one) impl_launch "$2"; LAUNCH+=(-n "$3") ;;
    hosts) hosts_launch "$2" "$HOSTS_N" $(($3 / HOSTS_N)) ;;
    # srun passes the environment on (SLURM_CONF from fy_slurm env).
    srun) LAUNCH=(env)
          [ "$2" != ferry ] || LAUNCH+=("LD_LIBRARY_PATH=$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
          # --overcommit: more tasks than the nodes have CPUs (else the job waits for resources).
          LAUNCH+=(srun "--mpi=$STARTUP_SRUN_MPI" -N "$HOSTS_N" -n "$3" --overcommit --distribution=block) ;;
    esac
}

launcher_name() { # where col
    case $1:$2 in
    srun:*) echo srun ;;
    *:ferry) echo mpiexec ;;
    *:ferry-hydra | *:mpich) echo hydra ;;
    *:openmpi) echo mpirun ;;
    esac
}

# Reduces hello's -t file: "ranks initfin_max init_max fin_max init_span" in ms.
reduce_times() { # file
    awk '{ n++; i = $3 - $2; f = $5 - $4
           if (i + f > m) m = i + f; if (i > mi) mi = i; if (f > mf) mf = f
           if (n == 1 || $2 < s0) s0 = $2; if ($3 > s1) s1 = $3 }
         END { if (n) printf "%d %.2f %.2f %.2f %.2f\n", n, m / 1e6, mi / 1e6, mf / 1e6, (s1 - s0) / 1e6 }' "$1"
}

TIMED_OUT=""
# One launch of hello: two rows (launch, init+fin). Sets SHOWN to "launch/initfin" ms or the
# status, and adds the column to TIMED_OUT if it timed out.
run_launch() { # where col n rep i
    local where=$1 col=$2 n=$3 rep=$4 i=$5 impl launcher layout log t0 t1 red ms="" st
    impl=$(impl_of "$col")
    launcher=$(launcher_name "$where" "$col")
    if [ "$where" = one ]; then layout=1x$n; else layout=${HOSTS_N}x$((n / HOSTS_N)); fi
    log=$OUT/logs/startup-$where-$col-np$n-rep$rep-$i.log
    rm -f "$log.times" "$log.end"
    launch_for "$where" "$col" "$n"
    lock_take
    t0=$(date +%s%N)
    run_job "$log" "$STARTUP_TIMEOUT" sh -c '"$@"; rc=$?; date +%s%N >"$0"; exit $rc' "$log.end" \
        "${LAUNCH[@]}" "$BIN_DIR/$impl/hello" -m -t "$log.times"
    lock_drop
    t1=$(cat "$log.end" 2>/dev/null)
    [ "$where" = one ] || [ -z "$CLUSTER" ] || [ "$JOB_STATUS" = ok ] || hosts_reap
    local wall
    wall=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
    row() { # bench value status extra
        SEQ=$((SEQ + 1))
        printf '%s,%s,startup/%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$SEQ" "$impl" "$where" "$n" "$1" \
            "$n" "$([ "$3" = ok ] && echo 0 || echo '*')" "$rep" "$2" "$([ "$3" = ok ] && echo ms)" \
            "$3" "launcher=$launcher;layout=$layout${4:+;$4}" "$wall" >>"$CSV"
    }
    st=$JOB_STATUS
    if [ "$st" = ok ] && [ -n "$t1" ]; then
        ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
        row startup.launch "$ms" ok
    else
        row startup.launch "" "$st"
    fi
    red=$(reduce_times "$log.times" 2>/dev/null)
    set -- $red
    if [ -n "$red" ] && [ "$1" = "$n" ]; then
        row startup.initfin "$2" ok "init_max_ms=$3;fin_max_ms=$4;init_span_ms=$5;ranks_timed=$1"
        SHOWN="${ms:-$st}/$2"
    else
        row startup.initfin "" "$([ "$st" = ok ] && echo noresult || echo "$st")" "ranks_timed=${1:-0}"
        SHOWN=$st
    fi
    [ "$st" != timeout ] || TIMED_OUT="$TIMED_OUT $where:$col"
    rm -f "$log.times" "$log.end"
}

# Every rank count of one placement, the columns alternating launch by launch.
run_group() { # where "cols" "ranks"
    local where=$1 cols=$2 n reps rep col
    for n in $3; do
        reps=$STARTUP_REPS
        [ "$n" -lt "$STARTUP_BIG" ] || reps=$STARTUP_REPS_BIG
        for col in $cols; do
            case " $TIMED_OUT " in *" $where:$col "*)
                say "[startup] $where $col np=$n: skipped (timed out at fewer ranks)"; continue ;; esac
            printf '[startup %4ds] %-6s %-12s np=%-4s ms (launch/init+fin):' $(($(date +%s) - START)) \
                "$where" "$col" "$n" >&2
            for rep in $(seq "$reps"); do
                run_launch "$where" "$col" "$n" "$rep" 1
                printf ' %s' "$SHOWN" >&2
                [ "$SHOWN" != timeout ] || break
            done
            say ""
        done
    done
}

# The columns that start one rank per host in a placement (PROBED); the others are n/a with their
# first line of output.
probe() { # where "cols"
    local where=$1 col log first
    PROBED=""
    for col in $2; do
        log=$OUT/logs/startup-$where-$col-probe.log
        launch_for "$where" "$col" "$HOSTS_N"
        meta "startup_cmd_${where}_$col" "$(printf '%s ' "${LAUNCH[@]}" | sed "s|$ROOT/||g") PROG"
        run_job "$log" 60 "${LAUNCH[@]}" "$BIN_DIR/$(impl_of "$col")/hello" -m
        if grep -q '^RESULT bench=hello ' "$log"; then
            PROBED="$PROBED $col"
            meta "startup_status_${where}_$col" ok
        else
            first=$(grep -v '^[[:space:]]*$' "$log" | head -n 1 | cut -c1-200)
            meta "startup_status_${where}_$col" "n/a (${first:-no output, exit status $JOB_RC})"
            say "startup.sh: $where: $col does not start: ${first:-no output, exit status $JOB_RC}"
        fi
    done
}

SLURM_DIR=""
slurm_down() {
    [ -n "$SLURM_DIR" ] && [ -d "$SLURM_DIR" ] && "$FY_SLURM" down "$SLURM_DIR" >>"$OUT/logs/startup-slurm.log" 2>&1
    SLURM_DIR=""
}

startup_main() {
    START=$(date +%s)
    if [ "$EMBEDDED" = 0 ]; then
        : >"$META"
        echo "seq,impl,program,np,bench,ranks,size,rep,value,unit,status,extra,wall_s" >"$CSV"
        meta_machine
        meta commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo none)"
        meta quick "$QUICK"
        meta build_dir "$BUILD"
        meta load_start "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
        ensure_packages
        meta version_mpich "$(dpkg-query -W -f='${Version}' mpich 2>/dev/null)"
        meta version_openmpi "$(dpkg-query -W -f='${Version}' openmpi-bin 2>/dev/null)"
        meta version_ferry "$(git -C "$ROOT" describe --always --dirty 2>/dev/null)"
    fi
    meta startup_reps "$STARTUP_REPS"
    meta startup_reps_big "$STARTUP_REPS_BIG"
    meta startup_big "$STARTUP_BIG"
    meta startup_timeout "$STARTUP_TIMEOUT"
    BIN_DIR=$OUT/bin-startup
    local impl cols=""
    for impl in $IMPLS; do
        case $impl in ferry | mpich | openmpi) ;; *) continue ;; esac
        if build_impl "$impl" "$BIN_DIR/$impl" "startup_build_$impl" hello_program; then
            case $impl in
            ferry) cols="$cols ferry"; command -v mpiexec.mpich >/dev/null && cols="$cols ferry-hydra" ;;
            *) cols="$cols $impl" ;;
            esac
        fi
        grep -q "^status_$impl=" "$META" ||
            meta "status_$impl" "$(sed -n "s/^startup_build_$impl=//p" "$META" | tail -n 1)"
    done
    [ -n "$cols" ] || { say "startup.sh: nothing builds"; return 1; }
    trap '[ -z "$JOB_PID" ] || kill -KILL -- "-$JOB_PID" 2>/dev/null; cluster_down; slurm_down; exit 130' INT TERM
    trap 'cluster_down; slurm_down' EXIT

    if wanted one; then
        say "startup.sh: one host, ranks $STARTUP_RANKS:$cols"
        run_group one "$cols" "$STARTUP_RANKS"
    fi

    local why
    why=$(why_not)
    if wanted hosts; then
        if [ -n "$why" ]; then
            meta startup_skipped_hosts "skipped: $why"
            say "startup.sh: between test hosts skipped: $why"
        elif cluster_up "$HOSTS_N" startup_hosts; then
            meta startup_skipped_hosts "ok"
            probe hosts "$cols"
            say "startup.sh: $HOSTS_N test hosts, ranks $STARTUP_HOSTS_RANKS:$PROBED"
            run_group hosts "$PROBED" "$STARTUP_HOSTS_RANKS"
            cluster_down
        fi
    fi

    if wanted srun; then
        if [ ! -x "$FY_SLURM" ]; then
            meta startup_srun "skipped: no tests/hosts/fy_slurm in this tree (the Slurm test cluster)"
            say "startup.sh: srun skipped: no tests/hosts/fy_slurm"
        elif [ -n "$why" ]; then
            meta startup_srun "skipped: $why"
        elif ! command -v srun >/dev/null 2>&1; then
            meta startup_srun "skipped: no srun (apt-get install slurm-client slurmd slurmctld munge)"
            say "startup.sh: srun skipped: Slurm is not installed"
        else
            SLURM_DIR=$OUT/slurm
            if "$FY_SLURM" up "$HOSTS_N" "$SLURM_DIR" >"$OUT/logs/startup-slurm.log" 2>&1; then
                eval "$("$FY_SLURM" env "$SLURM_DIR")" # SLURM_CONF, FY_HOSTS_DIR: the last group
                local srcols=""
                for impl in $cols; do [ "$impl" = ferry-hydra ] || srcols="$srcols $impl"; done
                probe srun "$srcols"
                meta startup_srun "ok:$PROBED"
                say "startup.sh: srun on $HOSTS_N test hosts, ranks $STARTUP_HOSTS_RANKS:$PROBED"
                [ -z "$PROBED" ] || run_group srun "$PROBED" "$STARTUP_HOSTS_RANKS"
            else
                meta startup_srun "skipped: fy_slurm up failed: $(tail -n 1 "$OUT/logs/startup-slurm.log")"
                say "startup.sh: srun skipped: fy_slurm up failed (logs/startup-slurm.log)"
            fi
            slurm_down
        fi
    fi
    meta startup_wall_s "$(($(date +%s) - START))"
    trap - EXIT INT TERM
    return 0
}

# One compound command, read whole before it runs: editing this file during a run cannot change it.
{
    startup_main
    rc=$?
    if [ "$EMBEDDED" = 0 ]; then
        meta load_end "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
        meta wall_s "$(($(date +%s) - START))"
        write_report
    fi
    exit $rc
}
