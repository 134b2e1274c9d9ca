#!/usr/bin/env bash
# timeout: 120
# ferry farm: 20 tasks (comments, blank lines and a continued line among them) on 4 ranks each
# write their own file, exactly once; every task is recorded ok in a well-formed CSV results
# file with its line number, host and rank, and the exit status is 0. The same file on 1 rank
# (rank 0 runs the tasks itself). --dry-run lists the tasks and runs nothing. A task's
# stdout passes through; with --output DIR it goes to DIR/TASK.out and .err. On a terminal a
# live progress line shows (not with --quiet). An MPI program as a task runs as its own job.
set -u
. "$FY_SRC/tests/ferry/farm_common.inc"

{
    echo "# twenty tasks"
    echo
    for i in $(seq 1 19); do echo "echo task $i >> out_$i"; done
    echo "echo task \\"
    echo "   20 >> out_20"
} > tasks.txt

"$F" farm tasks.txt --dry-run > dry.txt || err "--dry-run exited $?"
[ "$(grep -c '^task ' dry.txt)" = 20 ] || err "--dry-run listed $(grep -c '^task ' dry.txt) tasks"
grep -q '^task 20 (line 22) \[sh -c\]: echo task    20 >> out_20$' dry.txt || err "continued line: $(grep '^task 20' dry.txt)"
ls out_* >/dev/null 2>&1 && err "--dry-run ran tasks"
[ -e tasks.txt.results.csv ] && err "--dry-run wrote a results file"

"$F" farm tasks.txt -n 4 > run.out 2> run.err
rc=$?
[ "$rc" = 0 ] || err "exit status $rc: $(cat run.err)"
for i in $(seq 1 20); do
    [ "$(cat out_$i 2>/dev/null)" = "task $i" ] || err "out_$i: '$(cat out_$i 2>/dev/null)'"
done
check_results tasks.txt.results.csv > recs.txt || err "results file: $(cat recs.txt)"
[ "$(grep -c ' ok 1 0$' recs.txt)" = 20 ] || err "not 20 ok records: $(cat recs.txt)"
[ "$(cut -d' ' -f1 recs.txt | sort -n | uniq | wc -l)" = 20 ] || err "a task recorded twice"
grep -q '^3,5,ok,0,1,20[0-9-]*T[0-9:.]*Z,[0-9.]*,[^,]*,[123],"echo task 3 >> out_3"$' tasks.txt.results.csv \
    || err "task 3's record: $(grep '^3,' tasks.txt.results.csv)"
grep -q "^ferry farm: 20 tasks in .*: 20 ok, 0 failed, 0 timed out" run.err || err "summary: $(cat run.err)"

# One rank: the master alone runs everything.
rm -f out_* tasks.txt.results.csv
"$F" farm tasks.txt -n 1 --results one.csv 2> one.err || err "-n 1 exited $?: $(cat one.err)"
check_results one.csv > recs1.txt || err "one.csv: $(cat recs1.txt)"
[ "$(grep -c ' ok 1 0$' recs1.txt)" = 20 ] || err "-n 1: not 20 ok records"
grep -q ',0,"echo task 1 >> out_1"$' one.csv || err "-n 1: task 1 not run by rank 0"
[ "$(cat out_7)" = "task 7" ] || err "-n 1: out_7"

# Output: through the job's stdout by default, to files with --output.
printf 'echo hello from a task\necho oops >&2\n' > say.txt
"$F" farm say.txt -n 2 > say.out 2> say.err || err "say exited $?"
grep -q '^hello from a task$' say.out || err "task stdout not passed: $(cat say.out)"
grep -q '^oops$' say.err || err "task stderr not passed"
"$F" farm say.txt -n 3 --output outdir --results say2.csv > say2.out 2>&1 || err "--output exited $?"
[ "$(cat outdir/1.out)" = "hello from a task" ] || err "outdir/1.out: $(cat outdir/1.out)"
[ "$(cat outdir/2.err)" = "oops" ] || err "outdir/2.err"
grep -q hello say2.out && err "--output: task output also on stdout"

# On a terminal (script(1) gives one): the live progress line, rewritten in place, and cleared
# before the summary; --quiet shows none.
if command -v script >/dev/null; then
    for i in $(seq 1 6); do echo "sleep 0.3"; done > slow.txt
    script -qc "'$F' farm slow.txt -n 3 --results tty.csv" /dev/null > tty.log 2>&1 < /dev/null
    grep -q $'\r\033\[Kferry farm: [0-9]*/6 done, 0 failed, [0-9]* running, .* tasks/s, ETA ' tty.log \
        || err "no live progress line on a terminal: $(cat -v tty.log)"
    grep -q $'\r\033\[Kferry farm: 6 tasks in ' tty.log || err "progress not cleared: $(cat -v tty.log)"
    script -qc "'$F' farm slow.txt -n 3 --results tty2.csv --quiet" /dev/null > tty2.log 2>&1 < /dev/null
    grep -q 'done, 0 failed' tty2.log && err "--quiet showed progress"
    grep -q 'ferry farm: 6 tasks in' tty2.log || err "--quiet: no summary: $(cat -v tty2.log)"
else
    echo "note: script(1) missing: the terminal progress line is not checked"
fi

# A task that is itself an MPI program starts as a job of its own (a singleton, or under its
# own mpiexec), not as a member of the farm's job: the launcher's per-rank variables (PMI_FD,
# PMI_RANK, ...) are not passed to tasks.
"$FY_BUILD/bin/mpicc" -O1 -o cpi "$FY_SRC/examples/cpi.c" -lm || err "cpi does not compile"
printf './cpi > mpi_1\n%s -n 2 ./cpi > mpi_2\n' "$FY_BUILD/bin/mpiexec" > mpi.txt
"$F" farm mpi.txt -n 3 --results mpi.csv > mpi.out 2> mpi.err || err "MPI tasks: exit $?: $(cat mpi.err)"
grep -q '(10000000 intervals, 1 ranks' mpi_1 || err "MPI task as a singleton: $(cat mpi_1) $(cat mpi.err)"
grep -q '(10000000 intervals, 2 ranks' mpi_2 || err "MPI task under mpiexec: $(cat mpi_2) $(cat mpi.err)"

[ "$fail" = 0 ] && echo "PASS"
exit $fail
