#!/usr/bin/env bash
# timeout: 120
# ABI and PMI, Ferry -> MPICH's launcher: a program compiled with Ferry's mpicc (on Ferry's
# library) runs under MPICH's mpiexec.hydra at 2 and 4 ranks, which means Ferry's library
# speaks the PMI-1 wire protocol hydra serves. The program checks that it got one job of N
# ranks, not N singletons. Twice: in PMI-1 (Hydra's default) and in PMI-2 (PMI_VERSION=2).
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
fy_setup
fy_need_ferry
fy_need mpiexec.hydra

fy_cc_ferry ./abi_exercise "$FY_SRC/tests/interop/src/abi_exercise.c"

for ver in 1 2; do
    for n in 2 4; do
        fy_run_ok "hydra-pmi$ver-np$n" 60 "${FY_ENV_FERRY[@]}" mpiexec.hydra -genv PMI_VERSION $ver \
            -n "$n" ./abi_exercise "$n"
        fy_expect_in "hydra-pmi$ver-np$n" out "^library: .*$FY_LIB_SIGNATURE" "Ferry's library was not the one loaded"
        fy_expect_in "hydra-pmi$ver-np$n" out '^No Errors$' "checks failed"
    done
done
echo "PASS"
