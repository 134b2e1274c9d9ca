#!/bin/sh
# timeout: 60
# Stdin goes to rank 0 only; the other ranks read /dev/null.
. "$FY_SRC/tests/launcher/lib.inc"

out=$(printf 'hello\nworld\n' | timeout 30 "$MPIEXEC" -n 3 sh -c 'n=$(wc -l); echo "$PMI_RANK $n"')
expect_eq "lines read by each rank" "0 2
1 0
2 0" "$(echo "$out" | sort)"

head -c 3000000 /dev/urandom >"$T/data"
sum=$(timeout 30 "$MPIEXEC" -n 2 sh -c '[ "$PMI_RANK" = 0 ] && cksum || cat >/dev/null' <"$T/data")
expect_eq "checksum of 3 MB through stdin" "$(cksum <"$T/data")" "$sum"

# Rank 0 ignoring its stdin must not hang the job.
timeout 30 "$MPIEXEC" -n 2 true <"$T/data"
expect_eq "status when stdin is not read" 0 "$?"
yes | timeout 30 "$MPIEXEC" -n 2 sh -c '[ "$PMI_RANK" = 0 ] && head -n 3 >/dev/null; exit 0'
expect_eq "status when rank 0 stops reading an endless stdin" 0 "$?"
finish
