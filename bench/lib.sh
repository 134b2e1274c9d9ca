# bench/lib.sh - shell functions shared by bench/run.sh and bench/hosts.sh (sourced, not run).
#
# They use the caller's globals: BENCH_DIR, ROOT, BUILD (Ferry's build tree), OUT (the run's
# directory), META (its meta.txt), CSV (its rows), IMPLS, ONLY, CFLAGS, BASELINE, NO_INSTALL,
# NO_PLOTS.

say() { printf '%s\n' "$*" >&2; }
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

# The programs present, as "name source" lines (name = path under bench/ without .c).
list_programs() {
    local f name
    for name in latency bandwidth ring imb dtype comm footprint; do
        [ -f "$BENCH_DIR/$name.c" ] && echo "$name $BENCH_DIR/$name.c"
    done
    for f in "$BENCH_DIR"/apps/*.c; do
        [ -f "$f" ] || continue
        name=${f#"$BENCH_DIR"/}
        echo "${name%.c} $f"
    done
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
        if "$cc" $CFLAGS -o "$bin/$name" "$src" -lm >>"$OUT/logs/build-$impl.log" 2>&1; then
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
