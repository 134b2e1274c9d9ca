#!/bin/sh
# timeout: 60
# PMI abort (MPI_Abort): one line with the code and the message, the others killed, status N
# (N & 255, as exit() gives).
. "$FY_SRC/tests/launcher/lib.inc"
build_pmi_prog

start=$(date +%s)
run -n 3 "$PMI_PROG" abort 7 "disk full: giving up"
elapsed=$(($(date +%s) - start))
expect_eq "status after abort" 7 "$RC"
expect_eq "message after abort" \
    "mpiexec: rank 1 called MPI_Abort with code 7: disk full: giving up" "$(cat "$T/err")"
[ "$elapsed" -le 20 ] || fail "job took ${elapsed}s to stop after an abort"

run -n 2 "$PMI_PROG" abort 3
expect_eq "status after abort without message" 3 "$RC"
expect_eq "message after abort without message" "mpiexec: rank 1 called MPI_Abort with code 3" \
    "$(cat "$T/err")"

# Codes outside 0..255 end the job as exit(code) would, like MPICH and Open MPI (-1 gave 143:
# mpiexec's failure sentinel was taken for "no failure yet" and the teardown's SIGTERM won).
for c in -1:255 300:44 256:0 -256:0 255:255; do
    code=${c%:*} want=${c#*:}
    run -n 3 "$PMI_PROG" abort "$code"
    expect_eq "status after abort with code $code" "$want" "$RC"
    if [ "$code" = "$want" ]; then
        expect_eq "message for code $code" "mpiexec: rank 1 called MPI_Abort with code $code" \
            "$(cat "$T/err")"
    else
        expect_eq "message for code $code" \
            "mpiexec: rank 1 called MPI_Abort with code $code (exit status $want)" "$(cat "$T/err")"
    fi
done
run -n 2 "$PMI_PROG" abort -1 "with a message"
expect_eq "message for code -1 with a message" \
    "mpiexec: rank 1 called MPI_Abort with code -1 (exit status 255): with a message" "$(cat "$T/err")"

run -n 1 "$PMI_PROG" abort 4 why
expect_eq "status after abort of a single rank" 4 "$RC"
expect_eq "message of a single rank" "mpiexec: rank 0 called MPI_Abort with code 4: why" \
    "$(cat "$T/err")"
finish
