#!/usr/bin/env bash
# timeout: 120
# Differential: src/counts.c (MPI_Get_count/MPI_Get_elements with predefined and pair types on received, probed and partial messages, predefined type sizes and extents, Status_set_elements; derived types moved to a later issue),
# built and run with MPICH (mpicc.mpich, mpiexec.mpich) and with Ferry (bin/mpicc,
# bin/mpiexec) at 1, 2, 3 and 4 ranks; the outputs (printed by rank 0) must be identical.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_diff_program "$FY_SRC/tests/diff/src/counts.c" 1 2 3 4
echo "PASS"
