#!/usr/bin/env bash
# timeout: 120
# Differential: src/dtypes.c (derived datatypes: size, bounds, true bounds, envelope, contents and packed bytes of types from every constructor; columns, subarray faces and structs sent to rank 0 and received into other types, with Get_count/Get_elements of partial messages),
# built and run with MPICH (mpicc.mpich, mpiexec.mpich) and with Ferry (bin/mpicc,
# bin/mpiexec) at 1, 2, 3 and 4 ranks; the outputs (printed by rank 0) must be identical.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_diff_program "$FY_SRC/tests/diff/src/dtypes.c" 1 2 3 4
echo "PASS"
