#!/usr/bin/env bash
# timeout: 240
# Differential: src/coll.c (every intracommunicator collective in its blocking form, and some
# in the nonblocking and persistent forms, on world and on a split numbered backwards: int,
# double, a vector with holes, pair types under MINLOC/MAXLOC, unsigned char and long long under
# the bitwise and logical operators, a commutative user sum and a non-commutative user operator;
# counts 0, 1, 7, 100 and 20000; every root; in place; uneven v-counts with zeros and gaps;
# a hash of every result buffer on every rank), built and run with MPICH and with Ferry at 1, 2,
# 3 and 4 ranks; rank 0's outputs must be identical.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_diff_program "$FY_SRC/tests/diff/src/coll.c" 1 2 3 4
echo "PASS"
