# bench/lib.sh - shell functions shared by bench/run.sh, bench/hosts.sh and bench/startup.sh
# (sourced, not run).
#
# They use the caller's globals: BENCH_DIR, ROOT, BUILD (Ferry's build tree), OUT (the run's
# directory), META (its meta.txt), CSV (its rows), IMPLS, ONLY, CFLAGS, BASELINE, NO_INSTALL,
# NO_PLOTS.

say() { printf '%s\n' "$*" >&2; }

# The run's directory for a group script (bench/hosts.sh, bench/startup.sh): run by
# bench/run.sh, the directory it was given (and rows numbered from SEQ0 so they do not clash
# with run.sh's); standalone, a new bench/results/<timestamp>-<group>/. Sets EMBEDDED, OUT, SEQ,
# CSV and META, and makes OUT/logs.
bench_out() { # group given-dir seq0
    if [ -n "$2" ]; then
        EMBEDDED=1
        OUT=$2
        SEQ=$3
    else
        EMBEDDED=0
        RESULTS_DIR=${RESULTS_DIR:-$BENCH_DIR/results}
        OUT=$RESULTS_DIR/$(date +%Y%m%d-%H%M%S)-$1
        SEQ=0
    fi
    mkdir -p "$OUT/logs"
    CSV=$OUT/logs/rows.csv
    META=$OUT/meta.txt
}
meta() { printf '%s=%s\n' "$1" "$(printf '%s' "$2" | tr '\n' ' ')" >>"$META"; }

# --- packages: Debian's MPICH and Open MPI, matplotlib (and the caller's extra ones) -------
ensure_packages() { # [extra packages...]
    local want="$*" missing="" p
    case " $IMPLS " in *" mpich "*) want="$want mpich libmpich-dev" ;; esac
    case " $IMPLS " in *" openmpi "*) want="$want openmpi-bin libopenmpi-dev" ;; esac
    [ "${NO_PLOTS:-0}" = 1 ] || want="$want python3-matplotlib"
    for p in $want; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing="$missing $p"
    done
    [ -n "$missing" ] || return 0
    if [ "${NO_INSTALL:-0}" = 1 ] || [ "$(id -u)" != 0 ]; then
        say "${0##*/}: missing packages:$missing (install them as root: apt-get install -y$missing)"
        return 0
    fi
    say "${0##*/}: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    apt-get install -y $missing >"$OUT/logs/apt.log" 2>&1 ||
        { apt-get update >>"$OUT/logs/apt.log" 2>&1 &&
          apt-get install -y $missing >>"$OUT/logs/apt.log" 2>&1; } ||
        say "${0##*/}: apt-get install failed, see $OUT/logs/apt.log"
}

# --- how to compile and launch each implementation ---------------------------
impl_cc() {
    case $1 in
    ferry) echo "$BUILD/bin/mpicc" ;;
    mpich) echo mpicc.mpich ;;
    openmpi) echo mpicc.openmpi ;;
    esac
}

# Sets the array LAUNCH to the command prefix that takes "-n N prog args" (IMPL: an
# implementation, or ferry-hydra).
impl_launch() {
    case $1 in
    ferry) LAUNCH=(env "LD_LIBRARY_PATH=$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
                   "$BUILD/bin/mpiexec") ;;
    mpich) LAUNCH=(mpiexec.mpich) ;;
    # A Ferry program under MPICH's Hydra, which it speaks PMI-1 to (bench/startup.sh).
    ferry-hydra) LAUNCH=(env "LD_LIBRARY_PATH=$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
                         mpiexec.mpich) ;;
    openmpi) LAUNCH=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                     mpiexec.openmpi --oversubscribe) ;;
    esac
}

# The programs present, as "name source" lines (name = path under bench/ without .c).
list_programs() {
    local f name
    for name in latency bandwidth ring imb dtype comm footprint osc; do
        [ -f "$BENCH_DIR/$name.c" ] && echo "$name $BENCH_DIR/$name.c"
    done
    for f in "$BENCH_DIR"/apps/*.c; do
        [ -f "$f" ] || continue
        name=${f#"$BENCH_DIR"/}
        echo "${name%.c} $f"
    done
}

# What a program needs compiled along with it: apps/taskfarm is built on Ferry's task farm
# (ferry/farm.h), standard MPI, compiled from source for every implementation alike.
extra_sources() {
    case $1 in
    apps/taskfarm) echo "-I$ROOT/include $ROOT/src/farm/fy_farm.c" ;;
    esac
}

selected() { [ -z "${ONLY:-}" ] || case " $ONLY " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# Builds every program for one implementation. A program that fails to build is
# skipped for that implementation only (recorded in meta as build_<impl>_<prog>).
#   build_impl IMPL [BIN_DIR [STATUS_KEY [LISTER]]]
# BIN_DIR (default $OUT/bin-IMPL) receives the programs LISTER prints as "name source" lines
# (default list_programs, filtered by ONLY); the outcome goes to meta as STATUS_KEY (default
# status_IMPL).
build_impl() {
    local impl=$1 cc name src nok=0
    local bin=${2:-$OUT/bin-$impl} key=${3:-status_$impl} lister=${4:-list_programs}
    cc=$(impl_cc "$impl")
    if [ "$impl" = ferry ] && { [ ! -x "$BUILD/bin/mpicc" ] || [ ! -x "$BUILD/bin/mpiexec" ]; }; then
        meta "$key" "n/a (no build at $BUILD)"
        return 1
    fi
    if ! command -v "$cc" >/dev/null 2>&1; then
        meta "$key" "n/a ($cc not found)"
        return 1
    fi
    while read -r name src; do
        [ -n "$name" ] || continue
        [ "$lister" != list_programs ] || selected "$name" || continue
        mkdir -p "$(dirname "$bin/$name")"
        # shellcheck disable=SC2086
        if "$cc" $CFLAGS -o "$bin/$name" "$src" $(extra_sources "$name") -lm \
            >>"$OUT/logs/build-$impl.log" 2>&1; then
            nok=$((nok + 1))
        else
            meta "buildfail_${impl}_$name" "failed (see logs/build-$impl.log)"
            say "${0##*/}: $impl: build of ${src#"$ROOT"/} failed, skipping it (logs/build-$impl.log)"
        fi
    done <<EOF
$("$lister")
EOF
    if [ "$nok" = 0 ]; then
        meta "$key" "n/a (no program built, see logs/build-$impl.log)"
        return 1
    fi
    meta "$key" "ok"
    local probe
    probe=$(find "$bin" -type f -perm -u+x 2>/dev/null | sort | head -n 1)
    if [ "$impl" = ferry ] && [ -n "$probe" ]; then
        # The MPICH ABI soname: make sure Ferry's library is the one picked up.
        meta "ferry_libmpi" "$(LD_LIBRARY_PATH="$BUILD/lib" ldd "$probe" 2>/dev/null |
            awk '/libmpi/ { print $1 " => " $3 }' | tr '\n' ' ')"
    fi
    return 0
}

# --- parsing: one CSV row per measurement ---------------------------------------
# CSV: seq,impl,program,np,bench,ranks,size,rep,value,unit,status,extra,wall_s
# Accepts the RESULT contract and the older "size value ..." lines of latency,
# bandwidth and ring. Fields other than the contract's go to `extra` as k=v;k=v.
parse_log() { # seq impl program np rep runstatus wall [load [bounce_ns]] <log
    awk -v seq="$1" -v impl="$2" -v prog="$3" -v np="$4" -v rep="$5" -v runstatus="$6" \
        -v wall="$7" -v load="${8:-quiet}" -v bounce="${9:-}" '
    function row(bench, ranks, size, value, unit, status, extra) {
        if (load != "quiet") extra = extra (extra == "" ? "" : ";") "load=" load
        if (bounce != "") extra = extra (extra == "" ? "" : ";") "bounce_ns=" bounce
        gsub(/,/, ";", extra)
        printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", seq, impl, prog, np, bench, ranks, size, rep,
               value, unit, status, extra, wall
        n++
    }
    BEGIN { n = 0 }
    /^RESULT / {
        delete kv; extra = ""
        for (i = 2; i <= NF; i++) {
            eq = index($i, "="); if (eq == 0) continue
            k = substr($i, 1, eq - 1); v = substr($i, eq + 1)
            if (k ~ /^(bench|ranks|size|value|unit|status)$/) kv[k] = v
            else extra = extra (extra == "" ? "" : ";") k "=" v
        }
        if (!("bench" in kv)) next
        row(kv["bench"], ("ranks" in kv) ? kv["ranks"] : np, kv["size"], kv["value"],
            kv["unit"], ("status" in kv) ? kv["status"] : "ok", extra)
        next
    }
    /^[0-9]+ [0-9.eE+-]+/ && prog == "latency" { row("latency", np, $1, $2, "us", "ok", "min=" $3 ";avg=" $4); next }
    /^[0-9]+ [0-9.eE+-]+/ && prog == "bandwidth" { row("bandwidth", np, $1, $2, "MBps", "ok", "max=" $3 ";avg=" $4); next }
    /^[0-9]+ [0-9.eE+-]+/ && prog == "ring" {
        row("ring", np, $1, $2, "us", "ok", "total_s=" $3 ";laps=" $4 ";mean=" $6); next }
    END {
        if (runstatus != "ok" || n == 0)
            row(prog, np, "*", "", "", runstatus == "ok" ? "noresult" : runstatus, "")
        exit (runstatus == "ok" && n > 0) ? 0 : 1
    }'
}

# The caches of CPU 0 as "L1d 32 KiB (per CPU), L2 1 MiB (per CPU), L3 32 MiB (shared by 2 CPUs)"
# from sysfs (lscpu as a fallback), and meta lines cache_<name>=<KiB>, cache_<name>_cpus=<n>.
cache_meta() {
    local d lvl type size list name n kib desc=""
    for d in /sys/devices/system/cpu/cpu0/cache/index*; do
        [ -r "$d/level" ] || continue
        lvl=$(cat "$d/level"); type=$(cat "$d/type"); size=$(cat "$d/size")
        list=$(cat "$d/shared_cpu_list" 2>/dev/null || echo 0)
        case $type in Instruction) continue ;; Data) name=L${lvl}d ;; *) name=L$lvl ;; esac
        n=$(printf '%s\n' "$list" | awk -F, '{ n = 0; for (i = 1; i <= NF; i++) {
                split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }')
        kib=$(printf '%s\n' "$size" | awk '/M$/ { print $0 * 1024; next } { print $0 + 0 }')
        meta "cache_$name" "$kib"
        meta "cache_${name}_cpus" "$n"
        desc="$desc${desc:+, }$name $(awk -v k="$kib" 'BEGIN { if (k >= 1024 && k % 1024 == 0)
                printf "%d MiB", k / 1024; else printf "%d KiB", k }') ($([ "$n" -gt 1 ] &&
                echo "shared by $n CPUs" || echo "per CPU"))"
    done
    if [ -z "$desc" ] && command -v lscpu >/dev/null 2>&1; then
        desc=$(lscpu 2>/dev/null | awk -F': *' '/^L[123][di]? cache/ && !/L1i/ {
                printf "%s%s %s", sep, substr($1, 1, index($1, " ") - 1), $2; sep = ", " }')
    fi
    meta caches "${desc:-unknown}"
}

# The machine's description at the head of meta.txt (the CPU above all: every number here is
# this machine's).
meta_machine() {
    meta date "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    meta host "$(uname -n)"
    meta kernel "$(uname -sr)"
    meta cpus "$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)"
    meta cpu_model "$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)"
    meta memory "$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)"
    cache_meta
}

write_report() {
    local base=()
    [ -n "$BASELINE" ] && base=(--baseline "$BASELINE")
    { sed 's/^/# /' "$META"; cat "$CSV"; } >"$OUT/results.csv"
    python3 "$BENCH_DIR/compare.py" --csv "$OUT/results.csv" --meta "$META" --json "$OUT/results.json" \
        --report "$OUT/report.md" "${base[@]}"
    if [ "${NO_PLOTS:-0}" != 1 ]; then
        # Debian's python3-matplotlib lives under /usr/bin/python3, which may not be the
        # python3 first in PATH (pyenv, venv).
        local py=python3
        python3 -c 'import matplotlib' 2>/dev/null || py=/usr/bin/python3
        "$py" "$BENCH_DIR/plot.py" "$OUT/results.json" --out "$OUT" 2>"$OUT/logs/plot.log" ||
            say "${0##*/}: plots failed, see ${OUT#"$ROOT"/}/logs/plot.log"
    fi
    cat "$OUT/report.md"
    say ""
    say "${0##*/}: results in ${OUT#"$ROOT"/}/ (results.json, results.csv, report.md, *.png, logs/)"
}

# --- the test hosts (bench/hosts.sh, bench/startup.sh) -------------------------------------
# Besides the globals above they use AGENT and FY_HOSTS (tests/hosts), HOSTS_N, HOSTS_MPICH_TLS,
# HOSTS_OMPI_BTL, HOSTS_OMPI_ARGS and EXIT_GRACE; cluster_up sets CLUSTER, BRIDGE and SUBNET.
AGENT=$ROOT/tests/hosts/fy_hosts_agent
FY_HOSTS=$ROOT/tests/hosts/fy_hosts
HOSTS_MPICH_TLS=${HOSTS_MPICH_TLS:-sm,tcp,self}
HOSTS_OMPI_BTL=${HOSTS_OMPI_BTL:-vader,tcp,self}
EXIT_GRACE=${EXIT_GRACE:-5}
CLUSTER=""
cluster_down() {
    [ -n "$CLUSTER" ] && [ -d "$CLUSTER" ] && "$FY_HOSTS" down "$CLUSTER"
    CLUSTER=""
}

# Why the hosts cannot be made here, or nothing.
why_not() {
    [ "$(id -u)" = 0 ] || { echo "not root (the test hosts are network namespaces)"; return; }
    local t
    for t in ip unshare nsenter; do
        command -v $t >/dev/null 2>&1 || { echo "$t is missing"; return; }
    done
}

# The address of host k (1-based) of the cluster, and the list "a1:P,a2:P,..." of the first H.
addr() { awk -v k="$1" 'NR == k { print $2 }' "$CLUSTER/hosts"; }
host_list() { # H P by(addr|name)
    local k out=""
    for k in $(seq "$1"); do
        if [ "$3" = name ]; then out="$out${out:+,}fyh$k"; else out="$out${out:+,}$(addr "$k")"; fi
        [ "$2" = 1 ] || out="$out:$2"
    done
    echo "$out"
}

# Sets LAUNCH to the command that runs "prog args" on H hosts with P ranks each, for one
# implementation, through the namespace agent (the way each launcher uses ssh).
hosts_launch() { # impl(ferry|ferry-hydra|mpich|openmpi) H P
    local impl=$1 h=$2 p=$3 n=$(($2 * $3))
    case $impl in
    # Ferry's launcher names hosts as Hydra does; the agent resolves fyhK (and addresses).
    ferry) LAUNCH=(env "LD_LIBRARY_PATH=$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
                   "$BUILD/bin/mpiexec" -launcher-exec "$AGENT" -hosts "$(host_list "$h" "$p" name)"
                   -n "$n") ;;
    # Hydra resolves host names in the machine's namespace, which does not know fyhK: addresses.
    # -iface is the bridge, the interface by which the machine reaches the hosts.
    mpich) LAUNCH=(env "UCX_TLS=$HOSTS_MPICH_TLS" mpiexec.mpich -launcher ssh -launcher-exec "$AGENT"
                   -iface "$BRIDGE" -hosts "$(host_list "$h" "$p" addr)" -n "$n") ;;
    # A Ferry program under Hydra (PMI-1): Hydra passes the environment on to every host.
    ferry-hydra) LAUNCH=(env "LD_LIBRARY_PATH=$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
                         mpiexec.mpich -launcher ssh -launcher-exec "$AGENT" -iface "$BRIDGE"
                         -hosts "$(host_list "$h" "$p" addr)" -n "$n") ;;
    openmpi) LAUNCH=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                     mpiexec.openmpi --mca plm_rsh_agent "$AGENT" --host "$(host_list "$h" "$p" addr)"
                     -n "$n" --mca pml ob1 --mca btl "$HOSTS_OMPI_BTL"
                     --mca btl_tcp_if_include "$SUBNET" --mca oob_tcp_if_include "$SUBNET")
        # shellcheck disable=SC2206
        LAUNCH+=(${HOSTS_OMPI_ARGS:-}) ;;
    esac
}

# With MEASURE_LOCK (as bench/run.sh), each measurement holds flock(1) on that file, so that
# benchmarks of several people on one machine take turns.
lock_take() { [ -z "${MEASURE_LOCK:-}" ] || { exec 9>>"$MEASURE_LOCK"; flock 9; }; }
lock_drop() { [ -z "${MEASURE_LOCK:-}" ] || exec 9>&-; }

# Makes the N test hosts of tests/hosts/fy_hosts in $OUT/cluster and sets CLUSTER, BRIDGE and
# SUBNET (FY_HOSTS_DIR exported for the agent). On failure says why, writes it to meta as
# <KEY>_skipped and returns 1. The caller sets its traps (cluster_down) first.
cluster_up() { # N [KEY]
    local key=${2:-hosts}
    CLUSTER=$OUT/cluster
    export FY_HOSTS_DIR=$CLUSTER
    if ! "$FY_HOSTS" up "$1" "$CLUSTER" 2>"$OUT/logs/$key-up.log"; then
        say "${0##*/}: fy_hosts up $1 failed: $(head -n 1 "$OUT/logs/$key-up.log")"
        meta "${key}_skipped" "fy_hosts up failed: $(head -n 1 "$OUT/logs/$key-up.log")"
        CLUSTER=""
        return 1
    fi
    BRIDGE=$(cat "$CLUSTER/bridge")
    SUBNET=10.77.$(cat "$CLUSTER/net").0/24
}

# Kills every process of every host but its holder (PID 1 there): what a job that had to be
# killed left behind must not spin beside the next measurement. From the machine's side, by PID
# namespace, and only for a holder that is still its host's (never "kill -1" inside a host: were
# the holder's PID reused, that would be the machine's namespace).
hosts_reap() {
    local k holder ns me p id
    [ -n "$CLUSTER" ] && [ -r "$CLUSTER/id" ] || return 0 # no hosts of ours (srun's are Slurm's)
    me=$(readlink /proc/self/ns/pid)
    id=$(cat "$CLUSTER/id")
    for k in $(seq "$HOSTS_N"); do
        holder=$(cat "$CLUSTER/fyh$k.pid" 2>/dev/null) || continue
        [ "$(ip netns identify "$holder" 2>/dev/null)" = "fy${id}h$k" ] || continue
        ns=$(readlink "/proc/$holder/ns/pid") || continue
        [ -n "$ns" ] && [ "$ns" != "$me" ] || continue
        for p in /proc/[0-9]*; do
            p=${p#/proc/}
            [ "$p" != "$holder" ] && [ "$(readlink "/proc/$p/ns/pid" 2>/dev/null)" = "$ns" ] &&
                kill -KILL "$p" 2>/dev/null
        done
    done
}

# Runs a job in its own session (so that it and only it can be killed as a group) with its
# output in LOG. Sets JOB_STATUS: ok, fail, timeout (after TMO s), or exit_hang: the program said
# "# bench: finalizing" (bench_finalize: all its results printed) and the job did not end within
# EXIT_GRACE s (MPICH over UCX's TCP has hung so in MPI_Finalize now and then); its rows count.
JOB_PID=""
run_job() { # log tmo cmd...
    local log=$1 tmo=$2 t0=$SECONDS end=""
    shift 2
    JOB_STATUS=""
    setsid "$@" >"$log" 2>&1 </dev/null 9>&- &
    JOB_PID=$!
    while kill -0 "$JOB_PID" 2>/dev/null; do
        if [ -z "$end" ] && grep -q '^# bench: finalizing' "$log" 2>/dev/null; then end=$SECONDS; fi
        if [ -n "$end" ] && [ $((SECONDS - end)) -ge "$EXIT_GRACE" ]; then JOB_STATUS=exit_hang; break; fi
        if [ $((SECONDS - t0)) -ge "$tmo" ]; then JOB_STATUS=timeout; break; fi
        sleep 0.5
    done
    if [ -n "$JOB_STATUS" ]; then
        kill -TERM -- "-$JOB_PID" 2>/dev/null
        sleep 1
        kill -KILL -- "-$JOB_PID" 2>/dev/null
        hosts_reap
    fi
    wait "$JOB_PID" 2>/dev/null # (bash's "Killed" notice: the status says it)
    JOB_RC=$?
    JOB_PID=""
    [ -n "$JOB_STATUS" ] || { [ "$JOB_RC" = 0 ] && JOB_STATUS=ok || JOB_STATUS=fail; }
}
