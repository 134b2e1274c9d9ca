#!/bin/sh
# timeout: 60
# At the end of a job, however it ended, mpiexec removes /dev/shm/fy-<kvsname>-* and nothing
# of other jobs.
. "$FY_SRC/tests/launcher/lib.inc"
build_pmi_prog
[ -d /dev/shm ] || { echo "FAIL: no /dev/shm" >&2; exit 1; }

other=/dev/shm/fy-fyothertestjob$$-keep
: >"$other"

# Rank 0 crashes after every rank made a segment.
run -n 3 "$PMI_PROG" shm
expect_eq "status of the crashing job" 134 "$RC"
expect_eq "segments reported" 3 "$(grep -c '^/dev/shm/fy-' "$T/out")"
for f in $(cat "$T/out"); do
    [ -e "$f" ] && fail "$f left behind after a crash" && rm -f "$f"
done

# A clean job leaves nothing either.
run -n 2 "$PMI_PROG" shm clean
expect_eq "status of the clean job" 0 "$RC"
expect_eq "segments reported by the clean job" 2 "$(grep -c '^/dev/shm/fy-' "$T/out")"
for f in $(cat "$T/out"); do
    [ -e "$f" ] && fail "$f left behind after a clean job" && rm -f "$f"
done

# mpiexec killed outright: the group leader it leaves behind still cleans up. The output file
# is emptied here, not by the background job's redirection, which runs in the forked child
# and may come after the first poll below (which would then count the clean job's lines).
: >"$T/out"
"$MPIEXEC" -n 2 "$PMI_PROG" shm wait >"$T/out" 2>"$T/err" </dev/null &
job=$!
i=0
while [ "$(grep -c '^/dev/shm/fy-' "$T/out")" != 2 ] && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
n=$(grep -c '^/dev/shm/fy-' "$T/out")
expect_eq "segments reported before SIGKILL (after ${i} polls)" 2 "$n"
[ "$n" = 2 ] || { echo "--- out:"; cat "$T/out"; echo "--- err:"; cat "$T/err"; }
kill -KILL $job
wait $job 2>/dev/null
# The group leader cleans up after its parent's death: up to 20 s on a loaded machine.
for f in $(cat "$T/out"); do
    i=0
    while [ -e "$f" ] && [ $i -lt 200 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -e "$f" ] && fail "$f left behind after mpiexec was killed" && rm -f "$f"
done

[ -e "$other" ] || fail "another job's segment was removed"
rm -f "$other"
finish
