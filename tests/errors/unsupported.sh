#!/usr/bin/env bash
# timeout: 60
# Functions not implemented yet: under MPI_ERRORS_RETURN each candidate (MPI_Win_create,
# MPI_File_open, MPI_Register_datarep, called with valid arguments) either
# succeeds or returns an error of class MPI_ERR_UNSUPPORTED_OPERATION (44) whose
# MPI_Error_string names the function. At least one must still be unimplemented (else this
# test has nothing left to check: give it a function that is). Then the first unimplemented
# one, under the default handler at 2 ranks, ends the job non-zero with its name on stderr.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_need_ferry
fy_cc_ferry ./faults "$FY_SRC/tests/errors/src/faults.c"

fy_run_ok unsupported 30 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n 1 "$FY_WORK/faults" unsupported
cat unsupported.out
first=""
while IFS= read -r line; do
    func=${line%%:*}
    case "$line" in
    *": implemented") continue ;;
    *": class 44: "*)
        case "${line#*: class 44: }" in
        *"$func"*) [ -n "$first" ] || first=$func ;;
        *) fy_show unsupported; fy_fail "$func: the error string does not name the function" ;;
        esac
        ;;
    *) fy_show unsupported; fy_fail "$func: not class 44 (MPI_ERR_UNSUPPORTED_OPERATION): $line" ;;
    esac
done < <(grep -E '^MPI_[A-Za-z_]+: ' unsupported.out)
[ -n "$first" ] || fy_fail "no candidate function is unimplemented: add one to src/faults.c"

fy_shm_snapshot shm-before.txt
fy_run fatal 30 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n 2 "$FY_WORK/faults" fatal "$first"
if [ "$FY_RC" -eq 0 ] || [ "$FY_RC" -eq 124 ]; then
    fy_show fatal
    fy_fail "$first under MPI_ERRORS_ARE_FATAL: mpiexec exit status $FY_RC, expected a failure"
fi
fy_expect_in fatal err "$first" "the fatal error does not name $first"
if grep -q 'returned under MPI_ERRORS_ARE_FATAL' fatal.out; then
    fy_show fatal
    fy_fail "$first returned under MPI_ERRORS_ARE_FATAL"
fi
fy_check_leftovers shm-before.txt
echo "PASS"
