#!/usr/bin/env bash
# timeout: 120
# ferry farm --retries: a task that fails the first time (a marker file) and succeeds the
# second is recorded ok after 2 attempts; one that always fails is recorded failed, exit 1,
# after N+1 attempts (each attempt really ran: it counts them in a file); a command that does
# not exist is failed with 127; a task killed by a signal is recorded with the signal's name.
# The exit status is 1 and the summary names the failed tasks with their lines. Without
# --retries a failure is final after 1 attempt. A retry goes to another worker; tasks see
# FERRY_FARM_TASK, FERRY_FARM_ATTEMPT and FERRY_FARM_RANK.
set -u
. "$FY_SRC/tests/ferry/farm_common.inc"

cat > tasks.txt <<'T'
if [ -e marker ]; then exit 0; else touch marker; exit 3; fi
echo x >> always.count; exit 1
true
no_such_command_for_ferry_farm
kill -9 $$
T
"$F" farm tasks.txt -n 3 --retries 2 > run.out 2> run.err
rc=$?
[ "$rc" = 1 ] || err "exit status $rc, expected 1: $(cat run.err)"
check_results tasks.txt.results.csv > recs.txt || err "results: $(cat recs.txt)"
grep -qx '1 ok 2 0' recs.txt || err "task 1: $(grep '^1 ' recs.txt)"
grep -qx '2 failed 3 1' recs.txt || err "task 2: $(grep '^2 ' recs.txt)"
[ "$(wc -l < always.count)" = 3 ] || err "task 2 ran $(wc -l < always.count) times, expected 3"
grep -qx '3 ok 1 0' recs.txt || err "task 3: $(grep '^3 ' recs.txt)"
grep -qx '4 failed 3 127' recs.txt || err "task 4: $(grep '^4 ' recs.txt)"
grep -qx '5 failed 3 SIGKILL' recs.txt || err "task 5: $(grep '^5 ' recs.txt)"
[ "$(wc -l < recs.txt)" = 5 ] || err "$(wc -l < recs.txt) records for 5 tasks"
grep -q 'ferry farm: 5 tasks in .*: 2 ok, 3 failed, 0 timed out' run.err || err "summary: $(cat run.err)"
grep -q '  task 2 (line 2) failed, 3 attempts: echo x >> always.count; exit 1' run.err \
    || err "summary does not name task 2: $(cat run.err)"
grep -q 'no_such_command_for_ferry_farm: command not found' run.err || err "no 'command not found'"

# No retries: one attempt.
rm -f marker always.count
"$F" farm tasks.txt -n 2 --results once.csv > /dev/null 2>&1
rc=$?
[ "$rc" = 1 ] || err "without --retries: exit status $rc"
check_results once.csv > once.txt || err "once.csv: $(cat once.txt)"
grep -qx '1 failed 1 3' once.txt || err "without --retries, task 1: $(grep '^1 ' once.txt)"
[ "$(wc -l < always.count)" = 1 ] || err "without --retries task 2 ran $(wc -l < always.count) times"

# A failed task goes to another worker when there is one (while fresh tasks keep the first busy),
# and every task sees FERRY_FARM_TASK, FERRY_FARM_ATTEMPT and FERRY_FARM_RANK.
rm -f first second seq
{
    echo 'if [ -e first ]; then echo "$FERRY_FARM_TASK $FERRY_FARM_RANK $FERRY_FARM_ATTEMPT" > second; else echo "$FERRY_FARM_TASK $FERRY_FARM_RANK $FERRY_FARM_ATTEMPT" > first; exit 1; fi'
    for i in $(seq 2 11); do echo 'sleep 0.1; echo $FERRY_FARM_TASK >> seq'; done
} > other.txt
"$F" farm other.txt -n 3 --retries 1 > other.out 2> other.err || err "other worker: exit $?: $(cat other.err)"
read -r t1 r1 a1 < first
read -r t2 r2 a2 < second
[ "$t1 $a1" = "1 1" ] && [ "$t2 $a2" = "1 2" ] || err "FERRY_FARM_TASK/ATTEMPT: first '$t1 $a1', second '$t2 $a2'"
case "$r1$r2" in 12 | 21) ;; *) err "the retry ran on rank $r2 after failing on rank $r1 (ranks 1 and 2 work)" ;; esac
[ "$(sort -n seq | tr '\n' ' ')" = "2 3 4 5 6 7 8 9 10 11 " ] || err "FERRY_FARM_TASK of tasks 2-11: $(sort -n seq | tr '\n' ' ')"

[ "$fail" = 0 ] && echo "PASS"
exit $fail
