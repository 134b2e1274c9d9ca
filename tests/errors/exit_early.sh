#!/usr/bin/env bash
# timeout: 60
# The last of 4 ranks calls exit(3) before MPI_Finalize while the others wait in MPI_Recv on
# it: the job ends within 10 s with a non-zero status and mpiexec reports
# "mpiexec: rank 3 (pid P) exited with status 3 before MPI_Finalize"; no process of the job
# and no /dev/shm/fy-* file remains.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_need_ferry
fy_cc_ferry ./faults "$FY_SRC/tests/errors/src/faults.c"

fy_shm_snapshot shm-before.txt
fy_run exit3 30 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n 4 "$FY_WORK/faults" exit3
if [ "$FY_RC" -eq 0 ] || [ "$FY_RC" -eq 124 ]; then
    fy_show exit3
    [ "$FY_RC" -eq 124 ] && fy_fail "the job did not end within 30 s after rank 3 exited"
    fy_fail "mpiexec exited 0 although rank 3 exited before MPI_Finalize"
fi
elapsed=$(cat exit3.time)
if awk -v e="$elapsed" 'BEGIN { exit !(e > 10) }'; then
    fy_show exit3
    fy_fail "the job took $elapsed s to end after rank 3 exited (limit 10 s)"
fi
pid=$(sed -n 's/^rank 3 pid \([0-9]*\)$/\1/p' exit3.out | head -1)
[ -n "$pid" ] || { fy_show exit3; fy_fail "rank 3 did not print its pid"; }
fy_expect_in exit3 err "^mpiexec: rank 3 \\(pid $pid\\) exited with status 3 before MPI_Finalize" \
    "no report naming rank 3, its pid and its exit status"
fy_check_leftovers shm-before.txt
echo "PASS (ended in $elapsed s)"
