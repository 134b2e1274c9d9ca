# Shared helpers for the shell tests in tests/interop, tests/diff and tests/errors.
# Sourced, never run: the runner only runs files named *.sh.
#
# Every test runs with FY_BUILD (a Ferry build tree: bin/mpicc, bin/mpiexec, lib/, include/)
# and FY_SRC (the repository) in the environment, in a fresh temporary directory as cwd.
# A test passes by exiting 0; on failure it prints the command that failed and its output.

set -u -o pipefail

fy_fail() {
    echo "FAIL: $*" >&2
    exit 1
}

fy_note() {
    echo "--- $*"
}

fy_setup() {
    [ -n "${FY_BUILD:-}" ] || fy_fail "FY_BUILD is not set (the Ferry build directory)"
    if [ -z "${FY_SRC:-}" ]; then
        FY_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    fi
    export FY_BUILD FY_SRC
    FY_MPICC=$FY_BUILD/bin/mpicc
    FY_MPIEXEC=$FY_BUILD/bin/mpiexec
    FY_LIB=$FY_BUILD/lib
    FY_WORK=$(pwd)
    # The library signature that MPI_Get_library_version must show when Ferry's library runs.
    FY_LIB_SIGNATURE=${FY_LIB_SIGNATURE:-Ferry}
    MPICH_CC=${MPICH_CC:-mpicc.mpich}
    MPICH_EXEC=${MPICH_EXEC:-mpiexec.mpich}
    fy_env_setup
}

fy_need() {
    local f
    for f in "$@"; do
        if [ "${f#/}" != "$f" ]; then
            [ -e "$f" ] || fy_fail "missing $f"
        else
            command -v "$f" >/dev/null 2>&1 || fy_fail "command not found: $f"
        fi
    done
}

fy_need_ferry() {
    fy_need "$FY_MPICC" "$FY_MPIEXEC" "$FY_LIB/libmpi.so.12"
}

fy_need_mpich() {
    fy_need "$MPICH_CC" "$MPICH_EXEC"
}

# fy_show NAME: print the command, exit status and output of a run made by fy_run.
fy_show() {
    local n=$1
    echo "=== command: $(cat "$n.cmd")" >&2
    echo "=== exit status: $(cat "$n.rc") (elapsed $(cat "$n.time") s)" >&2
    echo "=== stdout:" >&2
    head -c 20000 "$n.out" >&2
    echo "=== stderr:" >&2
    head -c 20000 "$n.err" >&2
    echo "===" >&2
}

# fy_run NAME SECONDS CMD...: runs CMD with a time limit; stdout, stderr, exit status and the
# elapsed time go to NAME.out, NAME.err, NAME.rc and NAME.time; FY_RC holds the exit status
# (124 on timeout). Never fails by itself.
fy_run() {
    local n=$1 t=$2
    shift 2
    printf '%q ' "$@" >"$n.cmd"
    local t0 t1
    t0=$(date +%s.%N)
    timeout -k 5 "$t" "$@" >"$n.out" 2>"$n.err" </dev/null
    FY_RC=$?
    t1=$(date +%s.%N)
    echo "$FY_RC" >"$n.rc"
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$n.time"
    return 0
}

# fy_run_ok NAME SECONDS CMD...: fy_run, then fail unless the exit status is 0.
fy_run_ok() {
    fy_run "$@"
    if [ "$FY_RC" -ne 0 ]; then
        fy_show "$1"
        [ "$FY_RC" -eq 124 ] && fy_fail "$1: timed out after $2 s"
        fy_fail "$1: exit status $FY_RC"
    fi
}

# fy_expect_in NAME FILE-SUFFIX PATTERN DESCRIPTION: fail unless NAME.SUFFIX matches the
# extended regular expression PATTERN.
fy_expect_in() {
    local n=$1 sfx=$2 pat=$3 what=$4
    if ! grep -Eq -- "$pat" "$n.$sfx"; then
        fy_show "$n"
        fy_fail "$n: $what: no line of std${sfx#*.} matches /$pat/"
    fi
}

# Compiling. fy_cc_ferry / fy_cc_mpich OUT SRC [FLAGS...]
fy_cc_ferry() {
    local out=$1
    shift
    fy_run_ok "cc-$(basename "$out")" 120 "$FY_MPICC" -O1 -o "$out" "$@"
}

fy_cc_mpich() {
    local out=$1
    shift
    fy_run_ok "cc-$(basename "$out")" 120 "$MPICH_CC" -O1 -o "$out" "$@"
}

# Environment prefixes for fy_run: FY_ENV_FERRY puts Ferry's library first in the search path
# (what a user of a Ferry build does); FY_ENV_MPICH clears the loader's variables, so that an
# MPICH program gets MPICH's own library. Use as: fy_run NAME T "${FY_ENV_FERRY[@]}" CMD...
fy_env_setup() {
    FY_ENV_FERRY=(env "LD_LIBRARY_PATH=$FY_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
    FY_ENV_MPICH=(env -u LD_LIBRARY_PATH -u LD_PRELOAD)
}

# ---- Leftovers: processes of a job and /dev/shm/fy-* files ---------------------------------

# Processes of this test's jobs: those running a program from this test's working directory
# (each test runs in a fresh one) or whose command line names a path in it (a launcher).
fy_own_procs() {
    local p cmd exe
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        [ "$p" = "$$" ] && continue
        [ "$p" = "$BASHPID" ] && continue
        exe=$(readlink "/proc/$p/exe" 2>/dev/null) || exe=""
        cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline") || continue
        case "$exe" in
        "$FY_WORK/"*) echo "$p $cmd"; continue ;;
        esac
        case "$cmd" in
        *"$FY_WORK/"*) echo "$p $cmd" ;;
        esac
    done
}

fy_shm_snapshot() {
    (cd /dev/shm && ls -1d fy-* 2>/dev/null) | sort >"$1"
}

# A /dev/shm/fy-* file that no live process has open or mapped.
shm_unheld() {
    local f=$1 p
    for p in /proc/[0-9]*; do
        if grep -qF "/dev/shm/$f" "$p/maps" 2>/dev/null; then
            return 1
        fi
        if ls -l "$p/fd" 2>/dev/null | grep -qF "/dev/shm/$f"; then
            return 1
        fi
    done
    return 0
}

# fy_check_leftovers SNAPSHOT: after a job ended, no process of it remains (checked for up
# to 3 s) and no /dev/shm/fy-* file made since SNAPSHOT remains unheld.
fy_check_leftovers() {
    local snap=$1 i procs="" f leaked=""
    for i in 1 2 3 4 5 6; do
        procs=$(fy_own_procs)
        [ -z "$procs" ] && break
        sleep 0.5
    done
    if [ -n "$procs" ]; then
        echo "processes left after the job ended:" >&2
        echo "$procs" >&2
        # Clean up after ourselves: these are processes this test started.
        echo "$procs" | while read -r p _; do kill -9 "$p" 2>/dev/null; done
        fy_fail "processes of the job remain after mpiexec returned"
    fi
    for i in 1 2 3 4 5 6; do
        leaked=""
        fy_shm_snapshot shm-after.txt
        for f in $(comm -13 "$snap" shm-after.txt); do
            shm_unheld "$f" && leaked="$leaked /dev/shm/$f"
        done
        [ -z "$leaked" ] && break
        sleep 0.5
    done
    [ -z "$leaked" ] || fy_fail "shared-memory files left after the job ended:$leaked"
}

# ---- Differential runs ---------------------------------------------------------------------

# fy_diff_program SRC [RANKS...]: builds SRC with MPICH's mpicc and with Ferry's, runs each
# under its own mpiexec at each rank count (default 1 2 3 4), and fails unless both runs
# exit 0 and print the same standard output.
fy_diff_program() {
    local src=$1 n name fails=0
    shift
    local ranks=("$@")
    [ ${#ranks[@]} -gt 0 ] || ranks=(1 2 3 4)
    name=$(basename "$src" .c)
    fy_need_ferry
    fy_need_mpich
    fy_cc_mpich "./$name.mpich" -lm "$src"
    fy_cc_ferry "./$name.ferry" -lm "$src"
    for n in "${ranks[@]}"; do
        fy_run_ok "$name-mpich-np$n" 60 "${FY_ENV_MPICH[@]}" "$MPICH_EXEC" -n "$n" "./$name.mpich"
        fy_run "$name-ferry-np$n" 60 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n "$n" "./$name.ferry"
        if [ "$FY_RC" -ne 0 ]; then
            fy_show "$name-ferry-np$n"
            echo "FAIL: $name at $n ranks: Ferry's run exited with status $FY_RC" >&2
            fails=$((fails + 1))
            continue
        fi
        if ! diff -u "$name-mpich-np$n.out" "$name-ferry-np$n.out" >"$name-np$n.diff"; then
            echo "FAIL: $name at $n ranks: outputs differ (- MPICH, + Ferry):" >&2
            cat "$name-np$n.diff" >&2
            fails=$((fails + 1))
            continue
        fi
        fy_note "$name at $n ranks: $(wc -l <"$name-ferry-np$n.out") lines identical"
    done
    [ "$fails" -eq 0 ] || fy_fail "$name: $fails of ${#ranks[@]} rank counts differ"
}

# fy_expect_line NAME SUFFIX DESCRIPTION PATTERN...: fail unless one line of NAME.SUFFIX
# matches every extended regular expression PATTERN.
fy_expect_line() {
    local n=$1 sfx=$2 what=$3
    shift 3
    local lines
    lines=$(cat "$n.$sfx")
    local p
    for p in "$@"; do
        lines=$(printf '%s\n' "$lines" | grep -E -- "$p" || true)
    done
    if [ -z "$lines" ]; then
        fy_show "$n"
        fy_fail "$n: $what: no line of std${sfx#*.} matches all of: $*"
    fi
}
