#!/usr/bin/env bash
# timeout: 120
# Differential: src/errclass.c (error classes returned under MPI_ERRORS_RETURN for invalid arguments of point-to-point, collectives, communicators, attributes and requests, truncation, MPI_ERR_IN_STATUS, predefined classes; datatype, group, split and user error class checks moved to later issues),
# built and run with MPICH (mpicc.mpich, mpiexec.mpich) and with Ferry (bin/mpicc,
# bin/mpiexec) at 1, 2, 3 and 4 ranks; the outputs (printed by rank 0) must be identical.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_diff_program "$FY_SRC/tests/diff/src/errclass.c" 1 2 3 4
echo "PASS"
