#!/usr/bin/env bash
# timeout: 120
# Ctrl-C and --resume: SIGINT to `ferry farm` in the middle of 40 tasks (each sleeps 0.2 s) on
# 3 ranks stops it with exit status 130, kills the running tasks (no task process left), and
# leaves a consistent results file (every record whole, only finished tasks); --resume then runs
# only the tasks not recorded ok: the union holds every task ok exactly once. Also: an existing
# results file without --resume is refused (exit 2, nothing run), a --resume against a task
# file that changed since is refused, and a results file cut in the middle of a record (a crash)
# is continued on a line of its own.
set -u
. "$FY_SRC/tests/ferry/farm_common.inc"

for i in $(seq 1 40); do echo "echo \$\$ > pid.$i; sleep 0.2; echo $i >> ran"; done > tasks.txt
"$F" farm tasks.txt -n 3 > run1.out 2> run1.err &
pid=$!
# Until a few tasks are recorded (bounded: 30 s), then Ctrl-C.
for _ in $(seq 1 300); do
    n=$(($(wc -l < tasks.txt.results.csv 2>/dev/null || echo 1) - 1))
    [ "$n" -ge 4 ] && break
    sleep 0.1
done
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 130 ] || err "after SIGINT: exit status $rc, expected 130: $(cat run1.err)"
grep -q 'ferry farm: interrupted: .* not run; `ferry farm ... --resume` runs them' run1.err \
    || err "no interrupted message: $(cat run1.err)"
check_results tasks.txt.results.csv > recs1.txt || err "after SIGINT: $(cat recs1.txt)"
n1=$(wc -l < recs1.txt)
[ "$n1" -ge 4 ] && [ "$n1" -lt 40 ] || err "after SIGINT: $n1 records (expected some, not all)"
[ "$(grep -vc ' ok 1 0$' recs1.txt)" = 0 ] || err "after SIGINT: records not ok: $(grep -v ' ok ' recs1.txt)"
for f in pid.*; do
    p=$(cat "$f" 2>/dev/null)
    if [ -n "$p" ] && kill -0 "$p" 2>/dev/null && ps -o args= -p "$p" | grep -q sleep; then
        err "task process $p ($f) survived the Ctrl-C"
        kill -9 "$p"
    fi
done

# Without --resume the file is not touched.
cp tasks.txt.results.csv before.csv
"$F" farm tasks.txt -n 3 > /dev/null 2> again.err
[ $? = 2 ] || err "existing results without --resume: not refused"
grep -q 'the results file .*tasks.txt.results.csv exists: --resume continues it' again.err || err "message: $(cat again.err)"
cmp -s before.csv tasks.txt.results.csv || err "the refused run changed the results file"

"$F" farm tasks.txt -n 3 --resume > run2.out 2> run2.err
rc=$?
[ "$rc" = 0 ] || err "--resume: exit status $rc: $(cat run2.err)"
grep -q "($n1 done before, skipped by --resume)" run2.err || err "--resume summary: $(cat run2.err)"
check_results tasks.txt.results.csv > recs2.txt || err "after --resume: $(cat recs2.txt)"
[ "$(grep -c ' ok ' recs2.txt)" = 40 ] || err "$(grep -c ' ok ' recs2.txt) ok records, expected 40"
[ "$(grep ' ok ' recs2.txt | cut -d' ' -f1 | sort -n | uniq | wc -l)" = 40 ] || err "a task recorded ok twice"
[ "$(wc -l < recs2.txt)" = 40 ] || err "$(wc -l < recs2.txt) records"

# A second --resume runs nothing.
"$F" farm tasks.txt -n 2 --resume > /dev/null 2> run3.err || err "third run: exit $?"
[ "$(wc -l < tasks.txt.results.csv)" = 41 ] || err "third run added records"

# The task file changed: refused, with the line of the results file.
sed -i '3s/sleep 0.2/sleep 0.3/' tasks.txt
"$F" farm tasks.txt -n 2 --resume > /dev/null 2> changed.err
[ $? = 2 ] || err "changed task file: not refused"
grep -q "task 3 was 'echo \$\$ > pid.3; sleep 0.2; echo 3 >> ran', but the task file has another command there" changed.err \
    || err "changed: $(cat changed.err)"

# A record cut short (a crash while writing): not done, and the next record starts a new line.
printf 'true\ntrue\n' > two.txt
printf 'task,line,status,exit,attempts,start,seconds,host,rank,command\n1,1,ok,0,1,2026-01-01T00:00:00.000Z,0.001,h,1,"true"\n2,2,o' > two.csv
"$F" farm two.txt -n 2 --resume --results two.csv > /dev/null 2> two.err || err "cut record: exit $?: $(cat two.err)"
tail -n 1 two.csv | grep -q '^2,2,ok,0,1,' || err "cut record: $(cat two.csv)"
[ "$(grep -c '^2,2,o$' two.csv)" = 1 ] || err "cut record not kept on its own line: $(cat two.csv)"
"$F" farm two.txt -n 2 --resume --results two.csv > /dev/null 2> two2.err || err "after a cut record: exit $?: $(cat two2.err)"
grep -q 'two.csv:3: not a complete record, ignored' two2.err || err "cut record: $(cat two2.err)"
[ "$(wc -l < two.csv)" = 4 ] || err "after a cut record, a resume ran tasks again: $(cat two.csv)"
# Not a results file at all: refused.
"$F" farm two.txt -n 2 --resume --results two.txt > /dev/null 2> notres.err
[ $? = 2 ] || err "a task file as --results: not refused"
grep -q 'two.txt:1: not a results file of ferry farm' notres.err || err "not results: $(cat notres.err)"

[ "$fail" = 0 ] && echo "PASS"
exit $fail
