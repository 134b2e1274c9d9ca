#!/usr/bin/env bash
# timeout: 60
# Singleton: a program built with Ferry's mpicc and run directly (no mpiexec, no PMI_*
# variables) is a one-rank job: it prints "size 1 rank 0", exchanges a message with itself,
# reduces over MPI_COMM_WORLD and exits 0, leaving no /dev/shm/fy-* file.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_need_ferry
fy_cc_ferry ./faults "$FY_SRC/tests/errors/src/faults.c"

fy_shm_snapshot shm-before.txt
fy_run_ok singleton 30 env -u PMI_FD -u PMI_RANK -u PMI_SIZE -u PMI_PORT \
    "LD_LIBRARY_PATH=$FY_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$FY_WORK/faults" singleton
fy_expect_in singleton out '^size 1 rank 0$' "not a one-rank job"
fy_expect_in singleton out '^No Errors$' "self exchange or Allreduce failed"
fy_check_leftovers shm-before.txt
echo "PASS"
