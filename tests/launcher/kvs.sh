#!/bin/sh
# timeout: 60
# The job-wide key-value space: put, fence, get across 4 ranks (and 1, and as a singleton);
# missing keys fail; the longest value arrives whole.
. "$FY_SRC/tests/launcher/lib.inc"
build_pmi_prog

for n in 4 1; do
    run -n $n "$PMI_PROG" kvs
    expect_eq "status of kvs at $n ranks" 0 "$RC"
    expect_eq "result of kvs at $n ranks" "No Errors" "$(cat "$T/out")"
    [ -s "$T/err" ] && fail "errors at $n ranks: $(cat "$T/err")"
done

# Without a launcher: a singleton with a local key-value space.
out=$(env -u PMI_FD -u PMI_RANK -u PMI_SIZE timeout 30 "$PMI_PROG" kvs)
expect_eq "singleton kvs" "No Errors" "$out"
out=$(env -u PMI_FD timeout 30 "$PMI_PROG" info)
echo "$out" | grep -qE '^rank 0 size 1 appnum 0 singleton 1 kvsname [A-Za-z0-9_-]+ pmi singleton$' ||
    fail "singleton info: $out"

# Inside a Slurm step (SLURM_STEP_ID inherited, as by ranks of an mpiexec started in an
# allocation) the client offers PMI-2 first; our launcher declines and the same connection goes
# on in PMI-1. A PMI_VERSION=2 from the user's environment is not passed to our ranks.
SLURM_STEP_ID=3 run -n 2 "$PMI_PROG" kvs
expect_eq "kvs in a Slurm step's environment" "No Errors" "$(cat "$T/out")"
PMI_VERSION=2 run -n 2 "$PMI_PROG" info
expect_eq "protocol with PMI_VERSION=2 in mpiexec's environment" "PMI-1" "$(awk '{print $12}' "$T/out" | sort -u)"
finish
