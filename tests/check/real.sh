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
build() {
    "$FY_BUILD/bin/mpicc" -g -O0 -o "$1" "$S/$1.c" 2> "$1.cc" || { err "$1 does not compile: $(head -5 "$1.cc")"; return 1; }
}
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

[ $fail -eq 0 ] && echo PASS
exit $fail
