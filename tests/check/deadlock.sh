#!/usr/bin/env bash
# timeout: 300
# mpiexec --check on real MPI programs (the checker's wrappers feeding the watch): the
# gallery's deadlocks (tests/check/src/deadlock_recv_cycle.c: two ranks in MPI_Recv from each
# other; deadlock_coll.c: rank 0 in MPI_Barrier, rank 1 in MPI_Recv from it) are reported with
# every rank's call, peer, tag, communicator and source line and the wait-for cycle, within a
# few seconds; the job ends with status 3 and nothing left running. potential_deadlock.c (both
# ranks MPI_Send to each other, then MPI_Recv) is warned about once and finishes normally. A
# correct but slow program (watch_slow.c: a rank computing for 3 s, large rendezvous transfers,
# synchronous sends; 8 ranks on 2 cores) gets no report.
set -u
B=$FY_BUILD
S=$FY_SRC/tests/check/src
fail=0
err() { echo "FAIL: $*"; fail=1; }
[ -e "$B/lib/libferry_check.so" ] || { echo "SKIP: no libferry_check.so in $B/lib"; exit 77; }
nm -D --defined-only "$B/lib/libferry_check.so" | grep -q ' T MPI_Recv$' ||
    { echo "SKIP: libferry_check.so has no MPI wrappers yet (nothing feeds the watch)"; exit 77; }
for p in deadlock_recv_cycle potential_deadlock deadlock_coll watch_slow; do
    [ -e "$S/$p.c" ] || { echo "SKIP: $S/$p.c is missing"; exit 77; }
    "$B/bin/mpicc" -g -O0 -o "$p" "$S/$p.c" || exit 1
done
# The line of a marked call ("/* RECV */") in a gallery source.
line() { echo "$1.c:$(grep -n "/\* $2 \*/" "$S/$1.c" | head -1 | cut -d: -f1)"; }

run() {
    local name=$1 start
    shift
    start=$(date +%s%N)
    timeout -k 5 120 "$B/bin/mpiexec" --check "$@" >"$name.out" 2>"$name.err" </dev/null
    RC=$?
    SECS=$(( ($(date +%s%N) - start) / 1000000 ))
    SECS=$(printf '%d.%03d' $((SECS / 1000)) $((SECS % 1000)))
    sleep 0.2
    pgrep -f "^$PWD/" >/dev/null && err "$name: processes left: $(pgrep -af "^$PWD/")"
}
expect_status() { [ "$RC" = "$2" ] || err "$1: status $RC, expected $2; stderr: $(tail -8 "$1.err")"; }
expect_line() { grep -qF -- "$2" "$1.err" || err "$1: no line '$2' in: $(cat "$1.err")"; }
report_secs() { sed -n 's/.*deadlock.*(after \([0-9.]*\) s)$/\1/p' "$1.err" | head -1; }

run cycle -n 2 "$PWD/deadlock_recv_cycle"
expect_status cycle 3
expect_line cycle "ferry check: deadlock: every rank is blocked and no message can complete"
expect_line cycle "  rank 0: MPI_Recv from rank 1, tag 0, MPI_COMM_WORLD at $(line deadlock_recv_cycle RECV)"
expect_line cycle "  rank 1: MPI_Recv from rank 0, tag 0, MPI_COMM_WORLD at $(line deadlock_recv_cycle RECV)"
expect_line cycle "  wait-for cycle: 0 -> 1 -> 0"
echo "deadlock_recv_cycle: reported after $(report_secs cycle) s of blocking; mpiexec ran ${SECS} s"

run coll -n 2 "$PWD/deadlock_coll"
expect_status coll 3
expect_line coll "  rank 0: MPI_Barrier on MPI_COMM_WORLD (its collective #"
expect_line coll "there) at $(line deadlock_coll BARRIER)"
expect_line coll "  rank 1: MPI_Recv from rank 0, tag 0, MPI_COMM_WORLD at $(line deadlock_coll RECV)"
expect_line coll "  wait-for cycle: 0 -> 1 -> 0"
echo "deadlock_coll: reported after $(report_secs coll) s of blocking; mpiexec ran ${SECS} s"

run potential -n 2 "$PWD/potential_deadlock"
expect_status potential 0
[ "$(grep -c 'ferry check: potential deadlock' potential.err)" = 1 ] ||
    err "potential: expected one report: $(cat potential.err)"
expect_line potential "ferry check: potential deadlock: ranks 0 and 1 wait in MPI_Send for each other (at $(line potential_deadlock SEND))"
grep -q 'deadlock: every' potential.err && err "potential: reported as a deadlock"
echo "potential_deadlock: warned after $(report_secs potential) s, then finished; mpiexec ran ${SECS} s"

run slow -n 8 "$PWD/watch_slow"
expect_status slow 0
grep -q '^No Errors$' slow.out || err "slow: $(cat slow.out)"
grep -q 'ferry check: .*deadlock' slow.err && err "slow: a false report: $(cat slow.err)"
echo "watch_slow (8 ranks): no report; mpiexec ran ${SECS} s"

exit $fail
