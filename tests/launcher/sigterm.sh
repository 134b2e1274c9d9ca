#!/bin/sh
# timeout: 60
# SIGINT, SIGTERM and SIGHUP sent to mpiexec reach every rank; ranks that ignore them are
# killed about a second later; nothing is left behind, even when mpiexec itself is SIGKILLed.
. "$FY_SRC/tests/launcher/lib.inc"

# Starts a 3-rank job in the background running script $1; waits until every rank is ready.
start_job() {
    rm -f "$T/out" "$T/err"
    # A background command of a script starts with SIGINT ignored, and under nohup SIGHUP
    # is ignored too (a signal ignored on entry cannot be trapped by the ranks' shells, and
    # never reaches mpiexec); undo that, as an interactive shell would have.
    python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$MPIEXEC" -n 3 sh -c "$1" >"$T/out" 2>"$T/err" </dev/null &
    JOB=$!
    i=0
    while [ "$(grep -c '^ready' "$T/out" 2>/dev/null)" != 3 ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ $i -lt 100 ] || fail "ranks did not start: $(cat "$T/err")"
}

waiter='trap "echo got-$SIG $PMI_RANK; exit 0" $SIG; echo "ready $$"; while :; do sleep 0.05; done'

for SIG in INT TERM HUP; do
    export SIG
    start_job "$waiter"
    kill -s "$SIG" "$JOB"
    wait "$JOB"
    rc=$?
    expect_eq "ranks told of SIG$SIG" 3 "$(grep -c "^got-$SIG [0-2]$" "$T/out")"
    [ "$rc" -ne 0 ] || fail "status 0 after SIG$SIG"
    expect_gone $(awk '/^ready /{print $2}' "$T/out")
done

# Ranks that ignore SIGTERM: SIGKILL follows.
start_job 'trap "" TERM; echo "ready $$"; while :; do sleep 0.05; done'
t0=$(date +%s)
kill -TERM "$JOB"
wait "$JOB"
rc=$?
elapsed=$(($(date +%s) - t0))
[ "$elapsed" -le 20 ] || fail "ranks ignoring SIGTERM survived ${elapsed}s"
[ "$rc" -ne 0 ] || fail "status 0 after SIGTERM to ranks that ignore it"
expect_gone $(awk '/^ready /{print $2}' "$T/out")

# mpiexec killed outright: its ranks and their children go with it.
start_job 'sleep 300 & echo "ready $$ $!"; wait'
kill -KILL "$JOB"
wait "$JOB" 2>/dev/null
sleep 0.5
expect_gone $(awk '/^ready /{print $2, $3}' "$T/out")
finish
