#!/bin/sh
# timeout: 120
# Programs built with MPICH (mpicc.mpich) run under our mpiexec: MPICH's own PMI-1 client must
# find everything it asks for (process mapping, universe size, KVS, barriers, abort, spawn).
. "$FY_SRC/tests/launcher/lib.inc"
if ! command -v mpicc.mpich >/dev/null 2>&1; then
    echo "SKIP: mpicc.mpich not installed"
    exit 0
fi
mpicc.mpich -o "$T/mpich_prog" "$FY_SRC/tests/launcher/mpich_prog.c" ||
    { echo "FAIL: mpicc.mpich cannot build the test program" >&2; exit 1; }

for n in 2 4; do
    run -n $n "$T/mpich_prog" hello
    expect_eq "status of MPICH hello at $n ranks" 0 "$RC"
    expect_eq "No Errors at $n ranks" 1 "$(grep -cx 'No Errors' "$T/out")"
    expect_eq "hello lines at $n ranks" $n "$(grep -c "^hello from rank [0-9] of $n$" "$T/out")"
    [ "$RC" = 0 ] || cat "$T/err" >&2
done

run -n 3 "$T/mpich_prog" abort 6
expect_eq "status of MPICH MPI_Abort" 6 "$RC"
grep -qx "mpiexec: rank 1 called MPI_Abort with code 6" "$T/err" ||
    fail "no abort message: $(cat "$T/err")"

# Spawn is not supported: MPI_Comm_spawn must return an error, not hang.
run -n 1 "$T/mpich_prog" spawn
expect_eq "status of MPICH spawn attempt" 0 "$RC"
expect_eq "result of MPICH spawn attempt" "No Errors" "$(cat "$T/out")"
finish
