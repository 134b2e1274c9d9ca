#!/usr/bin/env bash
# timeout: 120
# Errors of one-sided calls (program src/rma_errors.c, whose opening comment lists the cases).
# Under MPI_ERRORS_RETURN on the window, at 1, 2 and 3 ranks: each invalid call returns an
# error of the standard's class whose MPI_Error_string names the function and the value, and
# the window and its data are intact afterwards (the program checks, prints "No Errors").
# Under the default handler (MPI_ERRORS_ARE_FATAL), at 2 ranks: MPI_Put at displacement 1024
# of a 4096-byte window (disp_unit 8) ends the job non-zero, with a line of stderr naming
# MPI_Put and 1024, while the other rank waits in MPI_Recv; no process of the job and no
# /dev/shm/fy-* file remains.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_need_ferry
fy_cc_ferry ./rma_errors "$FY_SRC/tests/errors/src/rma_errors.c" -I"$FY_SRC/tests/mpi"

for n in 1 2 3; do
    fy_run_ok "returned-np$n" 40 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n "$n" "$FY_WORK/rma_errors"
    fy_expect_in "returned-np$n" out '^No Errors$' "a check failed at $n ranks"
done
# The messages, for the log.
grep '^case ' returned-np2.out | sort -u | head -40 | while IFS= read -r line; do fy_note "$line"; done

fy_shm_snapshot shm-fatal.txt
fy_run fatal 30 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n 2 "$FY_WORK/rma_errors" fatal
if [ "$FY_RC" -eq 0 ] || [ "$FY_RC" -eq 124 ]; then
    fy_show fatal
    fy_fail "fatal: mpiexec exit status $FY_RC, expected a failure (non-zero, no timeout)"
fi
if grep -q 'the invalid call returned' fatal.out; then
    fy_show fatal
    fy_fail "fatal: MPI_Put with a displacement outside the window returned under MPI_ERRORS_ARE_FATAL"
fi
fy_expect_line fatal err "the error message does not name MPI_Put and the displacement 1024" \
    'MPI_Put' '(^|[^0-9-])1024([^0-9]|$)'
fy_check_leftovers shm-fatal.txt
fy_note "fatal: $(grep -E -- 'MPI_Put' fatal.err | head -1)"
echo "PASS"
