#!/bin/bash
# timeout: 300
# A rank that calls MPI_Finalize while a peer still sends to it (a large message: rendezvous,
# single copy or streamed; a synchronous send), or waits
# for a message from it: the peer used to hang forever. Also when the peer's leaving was seen
# before the send began (late: a rank that saw it while waiting for a third one). Now its call fails with a message
# naming the rank that finalized; with MPI_ERRORS_RETURN the program goes on and ends
# normally, with the default handler the job ends with that message. See finalize_peer.c.
set -u
B=$FY_BUILD
"$B/bin/mpicc" -o fp "$FY_SRC/tests/shm/finalize_peer.c" || exit 1
fail=0
run() { # expect-rc-zero? env... -- args
    local want=$1 label=$2
    shift 2
    out=$(env "$@" 2>&1)
    rc=$?
    if [ $rc -eq 124 ]; then
        echo "FAIL: $label: hung (timeout)"
        fail=1
    elif [ "$want" = ok ] && { [ $rc -ne 0 ] || ! echo "$out" | grep -q "^error: .*rank [01] (world rank [01]) called MPI_Finalize" || ! echo "$out" | grep -q '^finalized$'; }; then
        echo "FAIL: $label: expected an error naming the rank, then a normal end (rc $rc): $out"
        fail=1
    elif [ "$want" = fatal ] && { [ $rc -eq 0 ] || ! echo "$out" | grep -q "rank [01] (world rank [01]) called MPI_Finalize"; }; then
        echo "FAIL: $label: expected the job to end with a message naming the rank (rc $rc): $out"
        fail=1
    else
        echo "ok: $label"
    fi
}
T="timeout 60 $B/bin/mpiexec -n 2 ./fp"
run ok "send, single copy, errors return" FERRY_RNDV=cma $T send return
run ok "send, streamed, errors return" FERRY_CMA=0 $T send return
run ok "send, streamed, inboxes" FERRY_CMA=0 FERRY_SHM_QUEUE=inbox $T send return
run ok "ssend, errors return" FERRY_WAIT=spin $T ssend return
run ok "recv, errors return" X=1 $T recv return
run ok "send after seeing the peer leave, errors return" X=1 timeout 60 $B/bin/mpiexec -n 3 ./fp late return
run fatal "send after seeing the peer leave, errors are fatal" X=1 timeout 60 $B/bin/mpiexec -n 3 ./fp late
run fatal "send, errors are fatal" X=1 $T send
run fatal "recv, errors are fatal" X=1 $T recv
[ $fail = 0 ] && echo "PASS: no hang when a peer finalizes"
exit $fail
