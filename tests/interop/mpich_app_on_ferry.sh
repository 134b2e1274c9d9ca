#!/usr/bin/env bash
# timeout: 120
# ABI, MPICH -> Ferry: a program compiled and linked by MPICH's mpicc runs on Ferry's library
# (found through LD_LIBRARY_PATH as libmpich.so.12) under Ferry's mpiexec at 2 and 4 ranks:
# sends and receives, probe, Allreduce, ERRORS_RETURN codes. The loader must resolve the
# library to the Ferry build (ldd) and MPI_Get_library_version must be Ferry's.
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
fy_setup
fy_need_ferry
fy_need_mpich

fy_cc_mpich ./abi_exercise "$FY_SRC/tests/interop/src/abi_exercise.c"

# The program asks for libmpich.so.12 (MPICH's soname); Ferry's build dir provides that name.
fy_run_ok ldd 30 "${FY_ENV_FERRY[@]}" ldd ./abi_exercise
lib_line=$(grep -E 'libmpi(ch)?\.so\.12 ' ldd.out | head -1)
[ -n "$lib_line" ] || { fy_show ldd; fy_fail "the program does not need libmpich.so.12"; }
resolved=$(echo "$lib_line" | awk '{print $3}')
if [ "$(readlink -f "$(dirname "$resolved")")" != "$(readlink -f "$FY_LIB")" ]; then
    fy_show ldd
    fy_fail "libmpich.so.12 resolves to $resolved, not into $FY_LIB"
fi

for n in 2 4; do
    fy_run_ok "run-np$n" 60 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n "$n" ./abi_exercise "$n"
    fy_expect_in "run-np$n" out "^library: .*$FY_LIB_SIGNATURE" "Ferry's library was not the one loaded"
    fy_expect_in "run-np$n" out '^No Errors$' "checks failed"
done
echo "PASS"
