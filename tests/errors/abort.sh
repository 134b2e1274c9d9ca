#!/usr/bin/env bash
# timeout: 60
# MPI_Abort(MPI_COMM_WORLD, 7) on rank 2 of 4 while the others wait in MPI_Recv on it:
# mpiexec prints "mpiexec: rank 2 called MPI_Abort with code 7" and exits with status 7;
# no process of the job and no /dev/shm/fy-* file remains. MPI_Abort(MPI_COMM_WORLD, -1) on 3
# ranks exits with status 255.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_need_ferry
fy_cc_ferry ./faults "$FY_SRC/tests/errors/src/faults.c"

fy_shm_snapshot shm-before.txt
fy_run abort 30 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n 4 "$FY_WORK/faults" abort
if [ "$FY_RC" -ne 7 ]; then
    fy_show abort
    fy_fail "mpiexec exit status $FY_RC after MPI_Abort(MPI_COMM_WORLD, 7), expected 7"
fi
fy_expect_in abort err '^mpiexec: rank 2 called MPI_Abort with code 7' "no report of the abort"
if grep -q 'MPI_Abort returned' abort.out; then
    fy_show abort
    fy_fail "MPI_Abort returned"
fi
fy_check_leftovers shm-before.txt

# MPI_Abort(comm, -1): status 255 as with MPICH (it was 143, the SIGTERM of the teardown).
fy_shm_snapshot shm-before.txt
fy_run abortneg 30 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n 3 "$FY_WORK/faults" abort -1
if [ "$FY_RC" -ne 255 ]; then
    fy_show abortneg
    fy_fail "mpiexec exit status $FY_RC after MPI_Abort(MPI_COMM_WORLD, -1), expected 255"
fi
fy_expect_in abortneg err '^mpiexec: rank 2 called MPI_Abort with code -1 \(exit status 255\)$' \
    "no report of the abort with code -1"
fy_check_leftovers shm-before.txt
echo "PASS"
