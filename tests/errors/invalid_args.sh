#!/usr/bin/env bash
# timeout: 120
# Invalid arguments under the default handler (MPI_ERRORS_ARE_FATAL), at 4 ranks: rank 0
# calls MPI_Send with dest 5 / tag -7 / count -3 while the others wait in MPI_Recv on it,
# and every rank calls MPI_Bcast with root 9. Each time a line of stderr names the function,
# the argument and the value; mpiexec exits non-zero; no process of the job and no
# /dev/shm/fy-* file remains.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_need_ferry
fy_cc_ferry ./faults "$FY_SRC/tests/errors/src/faults.c"

check_case() {
    local mode=$1 func=$2 arg=$3 value=$4
    fy_shm_snapshot "shm-$mode.txt"
    fy_run "$mode" 30 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n 4 "$FY_WORK/faults" "$mode"
    if [ "$FY_RC" -eq 0 ] || [ "$FY_RC" -eq 124 ]; then
        fy_show "$mode"
        fy_fail "$mode: mpiexec exit status $FY_RC, expected a failure (non-zero, no timeout)"
    fi
    fy_expect_line "$mode" err "the error message does not name $func, $arg and $value" \
        "$func" "\\b$arg\\b" "(^|[^0-9-])$value([^0-9]|$)"
    if grep -q 'the invalid call returned' "$mode.out"; then
        fy_show "$mode"
        fy_fail "$mode: the invalid call returned under MPI_ERRORS_ARE_FATAL"
    fi
    fy_check_leftovers "shm-$mode.txt"
    fy_note "$mode: $(grep -E -- "$func" "$mode.err" | head -1)"
}

check_case badrank MPI_Send rank 5
check_case badtag MPI_Send tag -7
check_case badcount MPI_Send count -3
check_case badroot MPI_Bcast root 9
echo "PASS"
