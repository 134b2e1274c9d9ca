#!/bin/bash
# timeout: 200
# The deadlock detector: when every rank has been asleep in an MPI wait with nothing moving
# for FERRY_DEADLOCK_S seconds (2 here), each rank prints what it waits for and the job ends
# with a message saying so, instead of hanging until killed. A rank that waits while its peer
# computes (sleeps outside MPI) is not a deadlock: that job ends normally. See deadlock.c.
set -u
B=$FY_BUILD
"$B/bin/mpicc" -o dl "$FY_SRC/tests/shm/deadlock.c" || exit 1
fail=0
for mode in recv coll; do
    start=$(date +%s)
    out=$(FERRY_DEADLOCK_S=2 timeout 120 "$B/bin/mpiexec" -n 2 ./dl $mode 2>&1)
    rc=$?
    took=$(( $(date +%s) - start ))
    if [ $rc -eq 124 ]; then
        echo "FAIL: $mode: the deadlock was not detected (timeout)"
        fail=1
    elif [ $rc -eq 0 ] || ! echo "$out" | grep -q 'deadlock: all 2 ranks were blocked in MPI with nothing moving for 2 s'; then
        echo "FAIL: $mode: expected the job to end with the deadlock message (rc $rc): $out"
        fail=1
    else
        echo "ok: $mode: detected in ${took} s"
    fi
    if [ $mode = recv ] && ! echo "$out" | grep -q 'rank [01]: deadlock? .*waits for: a receive from rank [01] (tag 0'; then
        echo "FAIL: recv: a rank did not say what it waits for: $out"
        fail=1
    fi
done
out=$(FERRY_DEADLOCK_S=1 timeout 60 "$B/bin/mpiexec" -n 2 ./dl late 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! echo "$out" | grep -q '^x 5$'; then
    echo "FAIL: late: a rank computing while its peer waits was taken for a deadlock (rc $rc): $out"
    fail=1
else
    echo "ok: late: no false alarm"
fi
[ $fail = 0 ] && echo "PASS: deadlocks end the job with a message; waiting for a busy peer does not"
exit $fail
