#!/usr/bin/env bash
# timeout: 120
# ferry farm --retries: a task that fails the first time (a marker file) and succeeds the
# second is recorded ok after 2 attempts; one that always fails is recorded failed, exit 1,
# after N+1 attempts (each attempt really ran: it counts them in a file); a command that does
# not exist is failed with 127; a task killed by a signal is recorded with the signal's name.
# The exit status is 1 and the summary names the failed tasks with their lines. Without
# --retries a failure is final after 1 attempt.
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

[ "$fail" = 0 ] && echo "PASS"
exit $fail
