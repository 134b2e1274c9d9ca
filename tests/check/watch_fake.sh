#!/usr/bin/env bash
# timeout: 240
# mpiexec --check's server and the ranks' watch (tools/mpiexec/check_server.c, check_graph.c,
# src/tools/check/chk_watch.c), driven by tests/check/src/watch_fake.c, which calls the watch
# the way the checker's MPI wrappers do, without MPI:
# - a receive cycle and a barrier against a receive: the deadlock report (every rank's call,
#   peer, tag, communicator by name and source line; the wait-for cycle) within a few seconds,
#   status 3, nothing left running;
# - a rank waiting on a rank that finished: reported as such;
# - buffered standard sends waiting for each other: one potential-deadlock warning for two
#   rounds from the same place, both rounds released, the job ends normally;
# - matching send and receive in flight for 3 s, a collective all ranks are in, 8 ranks on 2
#   cores waiting for one that computes for 3 s: no report;
# - connections with a wrong key or not speaking the protocol: refused and logged, the job
#   unaffected; a program without the library runs; mpiexec without the library says so;
#   -check, and the user's LD_PRELOAD kept after the checker's.
set -u
B=$FY_BUILD
fail=0
err() { echo "FAIL: $*"; fail=1; }
[ -e "$B/lib/libferry_check.so" ] || { echo "SKIP: no libferry_check.so in $B/lib"; exit 77; }
# The watch is compiled in (the library exports only MPI_* names, so its chk_watch_* are not
# reachable from outside it).
cc -g -O1 -Wall -Wextra -Werror -I"$FY_SRC/src/tools/check" "$FY_SRC/tests/check/src/watch_fake.c" \
    "$FY_SRC/src/tools/check/chk_watch.c" "$FY_SRC/src/common/fy_sha256.c" "$FY_SRC/src/common/fy_addr.c" "$FY_SRC/src/common/fy_addr2line.c" \
    "$FY_SRC/src/common/fy_auth.c" -I"$FY_SRC/src/common" \
    -D_GNU_SOURCE -pthread -ldl -o watch_fake || exit 1
SRC=$FY_SRC/tests/check/src/watch_fake.c
loc() { echo "watch_fake.c:$(grep -n "LOC:$1 \*/" "$SRC" | cut -d: -f1)"; }

# run NAME ARGS...: mpiexec --check with a hang guard; output in NAME.out/.err, status in RC,
# seconds in SECS; then nothing of ours may be left running.
run() {
    local name=$1 start
    shift
    start=$(date +%s%N)
    timeout -k 5 60 "$B/bin/mpiexec" --check "$@" >"$name.out" 2>"$name.err" </dev/null
    RC=$?
    SECS=$(( ($(date +%s%N) - start) / 1000000 ))
    SECS=$(printf '%d.%03d' $((SECS / 1000)) $((SECS % 1000)))
    sleep 0.2
    if pgrep -f "^$PWD/watch_fake" >/dev/null; then
        err "$name: processes left: $(pgrep -af "^$PWD/watch_fake")"
    fi
}
expect_status() { [ "$RC" = "$2" ] || err "$1: status $RC, expected $2; stderr: $(tail -5 "$1.err")"; }
expect_line() { grep -qF -- "$2" "$1.err" || err "$1: no line '$2' in: $(cat "$1.err")"; }
report_secs() { sed -n 's/.*deadlock.*(after \([0-9.]*\) s)$/\1/p' "$1.err" | head -1; }

# A receive cycle.
run cycle -n 2 "$PWD/watch_fake" cycle
expect_status cycle 3
expect_line cycle "ferry check: deadlock: every rank is blocked and no message can complete"
expect_line cycle "  rank 0: MPI_Recv from rank 1, tag 0, MPI_COMM_WORLD at $(loc cycle)"
expect_line cycle "  rank 1: MPI_Recv from rank 0, tag 0, MPI_COMM_WORLD at $(loc cycle)"
expect_line cycle "  wait-for cycle: 0 -> 1 -> 0"
expect_line cycle "mpiexec: --check found a deadlock; ending the job (status 3)"
[ "$(grep -c 'ferry check: deadlock' cycle.err)" = 1 ] || err "cycle: reported more than once"
echo "cycle of 2: reported after $(report_secs cycle) s of blocking; mpiexec ran ${SECS} s"

run cycle4 -n 4 "$PWD/watch_fake" cycle
expect_status cycle4 3
expect_line cycle4 "  wait-for cycle: 0 -> 1 -> 2 -> 3 -> 0"
echo "cycle of 4: reported after $(report_secs cycle4) s of blocking; mpiexec ran ${SECS} s"

# A collective against a receive.
run coll -n 2 "$PWD/watch_fake" coll
expect_status coll 3
expect_line coll "  rank 0: MPI_Barrier on MPI_COMM_WORLD (its collective #1 there) at $(loc coll0)"
expect_line coll "  rank 1: MPI_Recv from rank 0, tag 7, my_world at $(loc coll1)"
expect_line coll "  wait-for cycle: 0 -> 1 -> 0"

# Waiting on a rank that finished.
run finished -n 3 "$PWD/watch_fake" finished
expect_status finished 3
expect_line finished "  rank 0: MPI_Recv from rank 1, which has finished, tag 2, MPI_COMM_WORLD at $(loc finished)"

# Buffered sends waiting for each other: warned once, released twice, the job goes on.
run sync -n 4 "$PWD/watch_fake" sync
expect_status sync 0
[ "$(grep -c 'ferry check: potential deadlock' sync.err)" = 1 ] ||
    err "sync: expected one potential-deadlock report: $(cat sync.err)"
expect_line sync "ferry check: potential deadlock: ranks 0, 1, 2 and 3 wait in MPI_Send for each other (at $(loc sync))"
expect_line sync "  rank 1: MPI_Send to rank 0, tag 3, MPI_COMM_WORLD (buffered, not yet received) at $(loc sync)"
[ "$(grep -c '^released 1$' sync.out)" = 4 ] && [ "$(grep -c '^released 2$' sync.out)" = 4 ] ||
    err "sync: not every rank was released in both rounds: $(cat sync.out)"
grep -q 'deadlock: every' sync.err && err "sync: reported as a deadlock"
echo "potential deadlock: $(grep 'round 2 released' sync.err | head -1) (a known one, not waited for)"

# No report: a transfer in flight, a collective everyone is in, a slow rank among 8 on 2 cores.
for case in "inflight 2" "collok 4" "compute 8"; do
    set -- $case
    run "$1" -n "$2" "$PWD/watch_fake" "$1"
    expect_status "$1" 0
    [ "$(grep -c '^no deadlock$' "$1.out")" = "$2" ] || err "$1: $(cat "$1.out")"
    [ -s "$1.err" ] && err "$1: a report where there is none: $(cat "$1.err")"
done

# Intruders: refused, logged, the job unaffected.
run badkey -n 2 "$PWD/watch_fake" badkey
expect_status badkey 0
expect_line badkey ": wrong key (1 refused so far)"
expect_line badkey ": not the check protocol (2 refused so far)"
grep -q '^intruders refused: 2$' badkey.out || err "badkey: $(cat badkey.out)"
[ "$(grep -c '^done$' badkey.out)" = 2 ] || err "badkey: the job did not finish: $(cat badkey.out)"

# Without the library in the program: it just runs (the watch never connects).
run plain -n 2 sh -c 'echo "[$FERRY_CHECK_ADDR]"'
expect_status plain 0
[ "$(grep -c '^\[127\.0\.0\.1:[0-9]*\]$' plain.out)" = 2 ] || err "plain: $(cat plain.out plain.err)"

# -check is --check too; the user's LD_PRELOAD stays, after ours.
timeout 30 "$B/bin/mpiexec" -check -genv LD_PRELOAD /nonexistent/libx.so -n 1 \
    sh -c 'echo "$LD_PRELOAD"' >preload.out 2>/dev/null
[ "$(cat preload.out)" = "$B/lib/libferry_check.so:/nonexistent/libx.so" ] ||
    err "LD_PRELOAD with -check: '$(cat preload.out)'"

# mpiexec without its library beside it.
mkdir -p alone/bin && cp "$B/bin/mpiexec" alone/bin/
alone/bin/mpiexec --check -n 1 true >alone.out 2>&1
rc=$?
[ "$rc" = 1 ] || err "no library: status $rc"
grep -q "^mpiexec: --check needs the checker library '.*alone/lib/libferry_check.so'" alone.out ||
    err "no library: $(cat alone.out)"

exit $fail
