#!/usr/bin/env bash
# timeout: 120
# ABI and PMI, Ferry -> MPICH's launcher: a program compiled with Ferry's mpicc (on Ferry's
# library) runs under MPICH's mpiexec.hydra at 2 and 4 ranks, which means Ferry's library
# speaks the PMI-1 wire protocol hydra serves. The program checks that it got one job of N
# ranks, not N singletons.
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
fy_setup
fy_need_ferry
fy_need mpiexec.hydra

fy_cc_ferry ./abi_exercise "$FY_SRC/tests/interop/src/abi_exercise.c"

for n in 2 4; do
    fy_run_ok "hydra-np$n" 60 "${FY_ENV_FERRY[@]}" mpiexec.hydra -n "$n" ./abi_exercise "$n"
    fy_expect_in "hydra-np$n" out "^library: .*$FY_LIB_SIGNATURE" "Ferry's library was not the one loaded"
    fy_expect_in "hydra-np$n" out '^No Errors$' "checks failed"
done
echo "PASS"
