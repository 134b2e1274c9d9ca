#!/usr/bin/env bash
# timeout: 120
# Differential: src/ring.c (ring accumulation: a token transformed around the ring, Sendrecv_replace, non-blocking ring, results collected with point-to-point; MPI_Gather moved to a later issue),
# built and run with MPICH (mpicc.mpich, mpiexec.mpich) and with Ferry (bin/mpicc,
# bin/mpiexec) at 1, 2, 3 and 4 ranks; the outputs (printed by rank 0) must be identical.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_diff_program "$FY_SRC/tests/diff/src/ring.c" 1 2 3 4
echo "PASS"
