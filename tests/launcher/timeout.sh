#!/bin/sh
# timeout: 60
# --timeout and MPIEXEC_TIMEOUT: the job is killed, with a message and a non-zero status.
. "$FY_SRC/tests/launcher/lib.inc"

start=$(date +%s)
run --timeout 2 -n 2 sh -c 'echo "pid $$"; exec sleep 100'
elapsed=$(($(date +%s) - start))
[ "$RC" -ne 0 ] || fail "status 0 after a timeout"
grep -q "timed out" "$T/err" || fail "no timeout message: $(cat "$T/err")"
expect_eq "stderr lines after a timeout" 1 "$(wc -l <"$T/err")"
[ "$elapsed" -ge 2 ] && [ "$elapsed" -le 20 ] || fail "timeout of 2s took ${elapsed}s"
expect_gone $(awk '/^pid /{print $2}' "$T/out")

start=$(date +%s)
MPIEXEC_TIMEOUT=1 run -n 2 sleep 100
elapsed=$(($(date +%s) - start))
[ "$RC" -ne 0 ] || fail "status 0 after MPIEXEC_TIMEOUT"
grep -q "timed out" "$T/err" || fail "no message for MPIEXEC_TIMEOUT"
[ "$elapsed" -le 20 ] || fail "MPIEXEC_TIMEOUT=1 took ${elapsed}s"

run --timeout 10 -n 2 true
expect_eq "status of a job within its timeout" 0 "$RC"
finish
