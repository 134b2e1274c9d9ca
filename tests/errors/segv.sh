#!/usr/bin/env bash
# timeout: 60
# Rank 1 of 4 raises SIGSEGV while the others wait in MPI_Recv on it: the job ends within
# 10 s with a non-zero status and mpiexec reports
# "mpiexec: rank 1 (pid P) was killed by signal 11 (Segmentation fault)" with the rank's pid;
# no process of the job and no /dev/shm/fy-* file remains.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_need_ferry
fy_cc_ferry ./faults "$FY_SRC/tests/errors/src/faults.c"

fy_shm_snapshot shm-before.txt
fy_run segv 30 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n 4 "$FY_WORK/faults" segv
if [ "$FY_RC" -eq 0 ] || [ "$FY_RC" -eq 124 ]; then
    fy_show segv
    [ "$FY_RC" -eq 124 ] && fy_fail "the job did not end within 30 s after rank 1 died"
    fy_fail "mpiexec exited 0 although rank 1 was killed"
fi
elapsed=$(cat segv.time)
if awk -v e="$elapsed" 'BEGIN { exit !(e > 10) }'; then
    fy_show segv
    fy_fail "the job took $elapsed s to end after rank 1 died (limit 10 s)"
fi
pid=$(sed -n 's/^rank 1 pid \([0-9]*\)$/\1/p' segv.out | head -1)
[ -n "$pid" ] || { fy_show segv; fy_fail "rank 1 did not print its pid"; }
fy_expect_in segv err "^mpiexec: rank 1 \\(pid $pid\\) was killed by signal 11 \\(Segmentation fault\\)" \
    "no report naming rank 1, its pid and the signal"
fy_check_leftovers shm-before.txt
echo "PASS (ended in $elapsed s)"
