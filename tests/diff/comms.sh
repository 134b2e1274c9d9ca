#!/usr/bin/env bash
# timeout: 180
# Differential: src/comms.c (splits, comparisons, group operations and translations,
# intercommunicator sizes and merge order, Dims_create, Cartesian coordinates and shifts),
# built and run with MPICH and with Ferry at 1, 2, 3 and 4 ranks; rank 0's outputs must match.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_diff_program "$FY_SRC/tests/diff/src/comms.c" 1 2 3 4
echo "PASS"
