#!/bin/bash
# timeout: 600
# Ferry's shared-memory footprint per rank count: hello (wide_hello.c: Init, Barrier,
# Allreduce, Finalize) at 2, 8, 64, 256 and 1,024 ranks with FERRY_SHM_REPORT=1, printing per
# count the segment's size and layout (as rank 0 reports it), the segment's pages in memory
# (the sum over ranks of their Pss of it), the job's summed Pss and the time of the run. Fails
# on a run that fails, on a report that does not match the mapping the ranks see, or on a
# footprint far above what docs/DESIGN.md ("Footprint") expects: the segment over 1 GiB mapped
# or 256 MiB in memory, the job over 200 MiB + 1 MiB per rank (sizes, never times). 1,024 ranks
# only with 6 GiB available and `ulimit -u` of 4,096 or more. About 6 s on 2 cores.
set -u
B=$FY_BUILD
"$B/bin/mpicc" -O2 -I"$FY_SRC/tests/shm" -o wide_hello "$FY_SRC/tests/shm/wide_hello.c" || exit 1
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
counts="2 8 64 256 1024"
if [ "${avail_kb:-0}" -lt $((6 << 20)) ] || [ "$(ulimit -u)" != unlimited -a "$(ulimit -u)" -lt 4096 ]; then
    counts="2 8 64 256"
    echo "note: ${avail_kb} KiB available, ulimit -u $(ulimit -u): up to 256 ranks"
fi
fail=0
printf '%6s %14s %6s %10s %10s %8s %12s %12s %8s\n' ranks segment_bytes queues queue_kib \
    pool_slots slot_kib seg_in_mem_kib job_pss_kib secs
for n in $counts; do
    start=$(date +%s.%N)
    out=$(FERRY_SHM_REPORT=1 timeout 300 "$B/bin/mpiexec" -n "$n" ./wide_hello 2>&1)
    rc=$?
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    if [ $rc -ne 0 ] || ! echo "$out" | grep -q '^No Errors$'; then
        echo "FAIL: hello at $n ranks (rc $rc): $(echo "$out" | tail -20)"
        fail=1
        continue
    fi
    rep=$(echo "$out" | grep '^Ferry: shm ')
    line=$(echo "$out" | grep '^ranks ')
    get() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
    seg=$(get "$rep" segment_bytes)
    kind=$(get "$rep" queue_kind)
    qb=$(get "$rep" queue_bytes)
    slots=$(get "$rep" coll_slots)
    slot=$(get "$rep" coll_slot_bytes)
    mapped_kb=$(echo "$line" | sed -n 's/.* segment_kb \([0-9]*\).*/\1/p')
    inmem=$(echo "$line" | sed -n 's/.*segment_pss_sum_kb \([0-9]*\).*/\1/p')
    pss=$(echo "$line" | sed -n 's/.* pss_sum_kb \([0-9]*\).*/\1/p')
    printf '%6s %14s %6s %10s %10s %8s %12s %12s %8s\n' "$n" "$seg" "$kind" $((qb >> 10)) \
        "$slots" $((slot >> 10)) "$inmem" "$pss" "$secs"
    if [ -z "$seg" ] || [ -z "$inmem" ] || [ -z "$pss" ]; then
        echo "FAIL: no report at $n ranks: $out"
        fail=1
        continue
    fi
    # The mapping a rank sees is the reported size, rounded up to pages.
    if [ "$mapped_kb" -ne $(((seg + 4095) / 4096 * 4)) ]; then
        echo "FAIL: $n ranks: rank 0 maps $mapped_kb KiB, the report says $seg bytes"
        fail=1
    fi
    if [ "$seg" -gt $((1 << 30)) ] || [ "$inmem" -gt $((256 << 10)) ] ||
        [ "$pss" -gt $(((200 + n) << 10)) ]; then
        echo "FAIL: $n ranks: footprint far above expectation (segment $seg bytes, $inmem KiB" \
            "of it in memory, job $pss KiB)"
        fail=1
    fi
done
[ $fail = 0 ] && echo "PASS: footprint at $counts ranks"
exit $fail
