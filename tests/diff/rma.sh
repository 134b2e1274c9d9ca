#!/usr/bin/env bash
# timeout: 240
# Differential: src/rma.c (one-sided communication on every window flavour: attributes and
# Win_shared_query, a halo exchange by Put under fence, a PSCW ring Get of a strided vector,
# Accumulate with every predefined operator on int, long long, double and the pair types,
# accumulate ordering, a Fetch_and_op counter and Compare_and_swap claims, Get_accumulate under
# shared and exclusive locks, Get+Put increments, the request forms with flush_local and flush,
# structs with holes put into another layout; a hash of every window and result buffer on every
# rank), built and run with MPICH and with Ferry at 1, 2, 3 and 4 ranks; rank 0's outputs must
# be identical.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/common.bash"
fy_setup
fy_diff_program "$FY_SRC/tests/diff/src/rma.c" 1 2 3 4
echo "PASS"
