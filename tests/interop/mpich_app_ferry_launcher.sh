#!/usr/bin/env bash
# timeout: 120
# PMI, MPICH's library -> Ferry's launcher: a program built by MPICH's mpicc, running on
# MPICH's own library, under Ferry's mpiexec at 2 and 4 ranks. MPICH's library must find its
# rank, size and peers through Ferry's PMI server; the program checks the job size.
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
fy_setup
fy_need "$FY_MPIEXEC"
fy_need_mpich

fy_cc_mpich ./abi_exercise "$FY_SRC/tests/interop/src/abi_exercise.c"

for n in 2 4; do
    fy_run_ok "run-np$n" 60 "${FY_ENV_MPICH[@]}" "$FY_MPIEXEC" -n "$n" ./abi_exercise "$n"
    fy_expect_in "run-np$n" out '^library: MPICH' "MPICH's library was not the one loaded"
    fy_expect_in "run-np$n" out '^No Errors$' "checks failed"
done
echo "PASS"
