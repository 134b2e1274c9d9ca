#!/bin/bash
# timeout: 600
# 256 ranks on this machine's cores (2 on the test machine: 128 per core) loop over
# MPI_Allreduce (8 B, 64 KiB), MPI_Barrier, MPI_Bcast (8 B, 64 KiB), MPI_Reduce (64 KiB) and an
# Allreduce on each half of a split communicator, checking every result (wide_coll.c). Fixed
# work: 300 short and 40 long operations each. Passes when every result is right and the
# segment's pages in memory (sum of the ranks' Pss of it) stay under 400 MiB; the time per
# operation is printed, not judged. 4-25 s on 2 cores beside other jobs (load 10-160); the
# timeout is for a hang. 128 ranks when the machine has under 4 GiB available or a small
# `ulimit -u`.
set -u
B=$FY_BUILD
"$B/bin/mpicc" -O2 -I"$FY_SRC/tests/shm" -o wide_coll "$FY_SRC/tests/shm/wide_coll.c" || exit 1
. "$FY_SRC/tests/shm/wide_ranks.bash"
wide_ranks 256 4 1024
start=$(date +%s.%N)
out=$(FERRY_SHM_REPORT=1 timeout 540 "$B/bin/mpiexec" -n $n ./wide_coll 300 40 2>&1)
rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "$out" | grep -E '^(ranks|Ferry: shm) '
echo "(${secs} s)"
if [ $rc -ne 0 ] || ! echo "$out" | grep -q '^No Errors$'; then
    echo "FAIL: collectives at $n ranks (rc $rc): $(echo "$out" | tail -20)"
    exit 1
fi
seg=$(echo "$out" | sed -n 's/^ranks .*segment_pss_sum_kb \([0-9]*\).*/\1/p')
if [ -z "$seg" ] || [ "$seg" -gt $((400 << 10)) ]; then
    echo "FAIL: the shared-memory segment holds ${seg} KiB at $n ranks (bound 400 MiB)"
    exit 1
fi
echo "PASS: $n ranks of collectives, ${seg} KiB of shared memory in use"
