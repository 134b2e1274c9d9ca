#!/usr/bin/env bash
# timeout: 60
# ferry farm --task-timeout: a task that sleeps 100 s is killed after 1 s with its whole process
# group (a child it started in the background goes too) and recorded as timeout (SIGTERM);
# one that ignores SIGTERM is killed by SIGKILL 2 s later; the tasks beside them are ok, the
# exit status is 1, and the farm ends within seconds (this test's own limit is far below 100 s).
# Tasks whose worker is killed outright die with it.
set -u
. "$FY_SRC/tests/ferry/farm_common.inc"

cat > tasks.txt <<'T'
sleep 100 & echo $! > bg.pid; echo $$ > fg.pid; sleep 100
trap '' TERM; echo $$ > stubborn.pid; sleep 100
true
T
"$F" farm tasks.txt -n 3 --task-timeout 1 > run.out 2> run.err
rc=$?
[ "$rc" = 1 ] || err "exit status $rc, expected 1: $(cat run.err)"
check_results tasks.txt.results.csv > recs.txt || err "results: $(cat recs.txt)"
grep -qx '1 timeout 1 SIGTERM' recs.txt || err "task 1: $(grep '^1 ' recs.txt)"
grep -qx '2 timeout 1 SIGKILL' recs.txt || err "task 2: $(grep '^2 ' recs.txt)"
grep -qx '3 ok 1 0' recs.txt || err "task 3: $(grep '^3 ' recs.txt)"
secs=$(awk -F, '$1 == 1 { print $7 }' tasks.txt.results.csv)
awk -v s="$secs" 'BEGIN { exit !(s >= 1 && s < 50) }' || err "task 1 took $secs s"
for f in bg.pid fg.pid stubborn.pid; do
    p=$(cat $f 2>/dev/null)
    [ -n "$p" ] || { err "$f not written"; continue; }
    if kill -0 "$p" 2>/dev/null; then
        err "$f: process $p still runs: $(ps -o pid,pgid,args -p "$p" | tail -1)"
        kill -9 "$p"
    fi
done
grep -q '  task 1 (line 1) timed out, 1 attempt' run.err || err "summary: $(cat run.err)"

# A worker killed outright (SIGKILL: no handler runs; so it is with a second Ctrl-C, when mpiexec
# kills the ranks at once): the task it started directly dies with it (the kernel's
# parent-death signal), it is not left running.
tag=1000.$$
printf 'sleep %s\n' "$tag" > orphan.txt
"$F" farm orphan.txt -n 2 --results orphan.csv > orphan.out 2>&1 &
pid=$!
task=""
for _ in $(seq 1 200); do
    task=$(pgrep -f -x "sleep $tag")
    [ -n "$task" ] && break
    sleep 0.05
done
worker=$(ps -o ppid= -p "$task" 2>/dev/null | tr -d ' ')
if [ -n "$task" ] && [ -n "$worker" ]; then
    kill -KILL "$worker"
    wait "$pid"
    for _ in $(seq 1 100); do
        kill -0 "$task" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$task" 2>/dev/null; then
        err "task $task left running after its worker $worker was killed"
        kill -9 "$task"
    fi
else
    err "the task did not start: $(cat orphan.out)"
    kill -9 "$pid"
    wait "$pid"
fi

# Bad values.
"$F" farm tasks.txt --task-timeout 0 --results x.csv 2> bad.err
[ $? = 2 ] || err "--task-timeout 0 accepted"
grep -q "ferry farm: --task-timeout '0': expected seconds" bad.err || err "message: $(cat bad.err)"

[ "$fail" = 0 ] && echo "PASS"
exit $fail
