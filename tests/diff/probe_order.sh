#!/usr/bin/env bash
# timeout: 120
# Differential: src/probe_order.c (tag matching and non-overtaking order with Probe/Get_count, specific tags then MPI_ANY_TAG, messages to self),
# built and run with MPICH (mpicc.mpich, mpiexec.mpich) and with Ferry (bin/mpicc,
# bin/mpiexec) at 1, 2, 3 and 4 ranks; the outputs (printed by rank 0) must be identical.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_diff_program "$FY_SRC/tests/diff/src/probe_order.c" 1 2 3 4
echo "PASS"
