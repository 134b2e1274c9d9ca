#!/bin/bash
# timeout: 400
# 1,024 ranks of hello (MPI_Init, a barrier, an allreduce, MPI_Finalize) on one machine, and
# what their shared memory costs. With a ring per pair of ranks (at least 16 KiB each), 1,000
# ranks needed 16 GiB of shared memory and the OOM killer ended the job on a 24 GiB machine;
# wide jobs now have one inbox per receiver (128 KiB at 1,024 ranks). Bounds: the segment's
# pages in memory (the sum over ranks of their Pss of it) under 400 MiB, and the job's whole
# proportional footprint (sum of Pss) under 2 GiB. Takes 6 s on 2 idle cores (512x
# oversubscribed); 512 ranks if the machine has less than 6 GiB available or too few
# processes allowed.
set -u
B=$FY_BUILD
"$B/bin/mpicc" -O2 -I"$FY_SRC/tests/shm" -o wide_hello "$FY_SRC/tests/shm/wide_hello.c" || exit 1
. "$FY_SRC/tests/shm/wide_ranks.bash"
wide_ranks 1024 6 4096
start=$(date +%s.%N)
out=$(timeout 360 "$B/bin/mpiexec" -n $n ./wide_hello 2>&1)
rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
line=$(echo "$out" | grep '^ranks ')
echo "$line (${secs} s)"
if [ $rc -ne 0 ] || ! echo "$out" | grep -q '^No Errors$'; then
    echo "FAIL: hello at $n ranks (rc $rc): $(echo "$out" | tail -20)"
    exit 1
fi
seg=$(echo "$line" | sed -n 's/.*segment_pss_sum_kb \([0-9]*\).*/\1/p')
pss=$(echo "$line" | sed -n 's/.* pss_sum_kb \([0-9]*\).*/\1/p')
fail=0
if [ -z "$seg" ] || [ "$seg" -gt $((400 << 10)) ]; then
    echo "FAIL: the shared-memory segment holds ${seg} KiB at $n ranks (bound 400 MiB)"
    fail=1
fi
if [ -z "$pss" ] || [ "$pss" -gt $((2048 << 10)) ]; then
    echo "FAIL: the job's processes hold ${pss} KiB (sum of Pss) at $n ranks (bound 2 GiB)"
    fail=1
fi
[ $fail = 0 ] && echo "PASS: $n ranks of hello in ${seg} KiB of shared memory, ${pss} KiB in all"
exit $fail
