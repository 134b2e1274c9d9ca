#!/bin/sh
# timeout: 60
# A rank killed by a signal: one line, the job stopped within about a second (SIGTERM, then
# SIGKILL for ranks that ignore it), status 128+signal, and no process left behind, including
# the ranks' own children.
. "$FY_SRC/tests/launcher/lib.inc"
build_pmi_prog

run -n 3 "$PMI_PROG" signal 11
expect_eq "status after SIGSEGV" 139 "$RC"
expect_eq "stderr lines after SIGSEGV" 1 "$(wc -l <"$T/err")"
grep -qE '^mpiexec: rank 1 \(pid [0-9]+\) was killed by signal 11 \(Segmentation fault\)$' \
    "$T/err" || fail "message after SIGSEGV: $(cat "$T/err")"

# Rank 2 ignores SIGTERM; every rank has a child of its own.
start=$(date +%s)
run -n 3 sh -c '
    [ "$PMI_RANK" = 2 ] && trap "" TERM
    sleep 300 & echo "pid $!"; echo "pid $$"
    if [ "$PMI_RANK" = 1 ]; then sleep 1; kill -KILL $$; fi
    while :; do wait; done'
elapsed=$(($(date +%s) - start))
expect_eq "status after SIGKILL" 137 "$RC"
grep -qE '^mpiexec: rank 1 \(pid [0-9]+\) was killed by signal 9 \(Killed\)$' "$T/err" ||
    fail "message after SIGKILL: $(cat "$T/err")"
expect_eq "stderr lines after SIGKILL" 1 "$(wc -l <"$T/err")"
[ "$elapsed" -le 20 ] || fail "job took ${elapsed}s to stop after a rank died"
expect_eq "pids reported" 6 "$(grep -c '^pid ' "$T/out")"
sleep 0.2
expect_gone $(awk '/^pid /{print $2}' "$T/out")

# A successful job's leftover children go too.
run -n 2 sh -c 'sleep 300 & echo "pid $!"'
expect_eq "status with a leftover child" 0 "$RC"
sleep 0.2
expect_gone $(awk '/^pid /{print $2}' "$T/out")
finish
