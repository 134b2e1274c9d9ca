#!/usr/bin/env bash
# timeout: 300
# Regressions from running programs we did not write under the checker (mpi4py's suite, other
# MPIs' examples, bench/): each minimal program (tests/check/src) showed a false report, and
# must now run clean; where the program has a real error in a variant, that one is reported.
set -u
. "$FY_SRC/tests/check/checked_run.inc"
checker_skip_if_absent
S=$FY_SRC/tests/check/src
fail=0
err() { echo "FAIL: $*"; fail=1; }
# clean PROG NPROCS [ARGS...]: exits 0 with no "ferry check:" line.
clean() {
    local p=$1 n=$2
    shift 2
    checked_run "$n" "./$p" "$@" > "$p.out" 2> "$p.err"
    local rc=$?
    [ $rc -eq 0 ] || err "$p $* exited $rc: $(head -5 "$p.err")"
    ! grep -q 'ferry check:' "$p.err" "$p.out" || err "$p $*: false report: $(grep -h 'ferry check:' "$p.err" "$p.out" | head -5)"
}

# MPI_Type_get_contents returns new derived types, maybe under a reused handle value.
build contents_reuse && {
    clean contents_reuse 1
    checked_run 1 ./contents_reuse leak > leak.out 2> leak.err
    rc=$?
    [ $rc -eq 3 ] || err "contents_reuse leak exited $rc, expected 3"
    l=$(grep -n '/\* CONTENTS \*/' "$S/contents_reuse.c" | cut -d: -f1)
    grep -qF "leak: a datatype created by MPI_Type_get_contents at contents_reuse.c:$l was never freed" leak.err ||
        err "contents_reuse leak: no leak report: $(head -5 leak.err)"
    [ "$(grep -c 'leak:' leak.err)" -eq 1 ] || err "contents_reuse leak: not exactly one leak: $(grep 'leak:' leak.err)"
}

# Integer types of one representation (long long / long / int64_t) match; signedness does not.
build int_alias && for P2P in log shadow; do
    FERRY_CHECK_P2P=$P2P clean int_alias 2
    FERRY_CHECK_P2P=$P2P checked_run 2 ./int_alias sign > sign.out 2> sign.err
    rc=$?
    [ $rc -eq 3 ] || err "int_alias sign ($P2P) exited $rc, expected 3"
    l=$(grep -n '/\* SIGN \*/' "$S/int_alias.c" | cut -d: -f1)
    grep -qF "MPI_Sendrecv at int_alias.c:$l: type mismatch: received 3 x MPI_UNSIGNED_LONG (24 bytes) from rank" sign.err ||
        err "int_alias sign ($P2P): no mismatch report: $(grep 'ferry check' sign.err | head -3)"
    [ "$(grep -c 'type mismatch' sign.err)" -eq 2 ] || err "int_alias sign ($P2P): not one mismatch per rank: $(grep 'ferry check' sign.err)"
done

# mpi4py keeps objects alive past MPI_Finalize: no leak report unless FERRY_CHECK names leak.
# (The venv is the one tests/interop/mpi4py_suite.sh builds; this part does not build it.)
PY=${FY_MPI4PY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ferry-mpi4py-venv}/bin/python
if "$PY" -c 'import mpi4py' > /dev/null 2>&1; then
    export MPI4PY_MPIABI=mpich MPI4PY_LIBMPI="$FY_BUILD/lib/libmpi.so.12"
    export LD_LIBRARY_PATH="$FY_BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    checked_run 2 "$PY" "$S/mpi4py_alive.py" > py.out 2> py.err
    rc=$?
    [ $rc -eq 0 ] || err "mpi4py_alive.py exited $rc: $(head -5 py.err)"
    ! grep -q 'ferry check:' py.err py.out || err "mpi4py_alive.py: false report: $(grep -h 'ferry check:' py.err py.out | head -3)"
    FERRY_CHECK=leak checked_run 1 "$PY" "$S/mpi4py_alive.py" > pyl.out 2> pyl.err
    rc=$?
    [ $rc -eq 3 ] || err "mpi4py_alive.py with FERRY_CHECK=leak exited $rc, expected 3"
    grep -q 'leak: a datatype created by MPI_Type_contiguous' pyl.err || err "mpi4py_alive.py with FERRY_CHECK=leak: no leak report: $(head -3 pyl.err)"
    grep -q 'leak: an info created by MPI_Info_create at' pyl.err || err "mpi4py_alive.py with FERRY_CHECK=leak: no info leak report: $(head -3 pyl.err)"
else
    echo "note: mpi4py part skipped (no venv at $PY; tests/interop/mpi4py_suite.sh builds it)"
fi

[ $fail -eq 0 ] && echo PASS
exit $fail
