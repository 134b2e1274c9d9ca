#!/usr/bin/env bash
# timeout: 120
# Differential: src/wildcard.c (MPI_ANY_SOURCE/MPI_ANY_TAG under a deterministic protocol, Waitany, MPI_PROC_NULL statuses),
# built and run with MPICH (mpicc.mpich, mpiexec.mpich) and with Ferry (bin/mpicc,
# bin/mpiexec) at 1, 2, 3 and 4 ranks; the outputs (printed by rank 0) must be identical.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_diff_program "$FY_SRC/tests/diff/src/wildcard.c" 1 2 3 4
echo "PASS"
