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
finish
