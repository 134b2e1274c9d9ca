#!/usr/bin/env bash
# timeout: 120
# ABI constants: src/abi_constants.c prints every handle constant, error class, special value,
# limit, enum value, the MPI_Status layout and the sizes and C types of the ABI's types. It
# is compiled once with MPICH's mpicc and once with Ferry's; the two outputs must be identical,
# but for MPI_SUBVERSION (Ferry is MPI 4.1, MPICH 4.0.2 is 4.0).
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
fy_setup
fy_need_ferry
fy_need_mpich

src=$FY_SRC/tests/interop/src/abi_constants.c
fy_cc_mpich ./constants_mpich -std=c11 "$src"
fy_cc_ferry ./constants_ferry -std=c11 "$src"
fy_run_ok run-mpich 30 "${FY_ENV_MPICH[@]}" ./constants_mpich
fy_run_ok run-ferry 30 "${FY_ENV_FERRY[@]}" ./constants_ferry

# The one intended difference: Ferry implements MPI 4.1, MPICH 4.0.2 says 4.0. The version is
# not part of the binary interface (no call passes it); check Ferry's value, then compare the rest.
grep -qE '^MPI_SUBVERSION +1$' run-ferry.out || fy_fail "Ferry's MPI_SUBVERSION is not 1 (MPI 4.1)"
sed -i -E '/^MPI_SUBVERSION /d' run-mpich.out run-ferry.out

if ! diff -u run-mpich.out run-ferry.out >constants.diff; then
    echo "ABI constants differ (- MPICH 4.0.2, + Ferry):" >&2
    cat constants.diff >&2
    fy_fail "$(grep -c '^+[^+]' constants.diff) lines of Ferry's output differ from MPICH's"
fi
echo "PASS: $(wc -l <run-ferry.out) lines identical"
