#!/usr/bin/env bash
# timeout: 120
# Differential: src/cpi.c (cpi-like integration with partial sums added in rank order, wildcard collection, exact reductions, MAXLOC/MINLOC, point-to-point prefix sum; Gather and Scan moved to a later issue),
# built and run with MPICH (mpicc.mpich, mpiexec.mpich) and with Ferry (bin/mpicc,
# bin/mpiexec) at 1, 2, 3 and 4 ranks; the outputs (printed by rank 0) must be identical.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_diff_program "$FY_SRC/tests/diff/src/cpi.c" 1 2 3 4
echo "PASS"
