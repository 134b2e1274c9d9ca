#!/usr/bin/env bash
# timeout: 120
# Profiling interface: a program that defines its own MPI_Send and MPI_Recv (counting calls,
# forwarding to PMPI_Send/PMPI_Recv) is built with Ferry's mpicc and run at 1, 2 and 4 ranks;
# the wrappers see exactly the program's calls. The same source built by MPICH's mpicc and
# run on Ferry's library must behave the same.
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
fy_setup
fy_need_ferry

src=$FY_SRC/tests/interop/src/profiling.c
fy_cc_ferry ./profiling "$src"
for n in 1 2 4; do
    fy_run_ok "ferry-np$n" 60 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n "$n" ./profiling
    fy_expect_in "ferry-np$n" out '^No Errors$' "wrong call counts"
done
if command -v "$MPICH_CC" >/dev/null 2>&1; then
    fy_cc_mpich ./profiling_mpich "$src"
    fy_run_ok "mpich-built-np2" 60 "${FY_ENV_FERRY[@]}" "$FY_MPIEXEC" -n 2 ./profiling_mpich
    fy_expect_in "mpich-built-np2" out '^No Errors$' "wrong call counts"
fi
echo "PASS"
