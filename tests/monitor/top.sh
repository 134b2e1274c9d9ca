#!/usr/bin/env bash
# timeout: 240
# ferry top attaches to jobs started with mpiexec --monitor=quiet (which prints nothing itself):
# with one job running, `ferry top -n 2` shows two blocks with rank 1 in MPI_Recv; with two,
# plain `ferry top` lists both (pid, program, ranks) and asks for a pid, `ferry top -l` lists
# them, `ferry top PID` attaches to the one named; a ferry top left attached ends with the job,
# printing its exit status. Afterwards no socket is left, and ferry top says no job is running.
set -u
. "$FY_SRC/tests/monitor/common.inc"
build hang

has_sockets() { [ "$(ls "$SOCKDIR" 2>/dev/null | grep -c '^monitor\..*\.sock$')" = "$1" ]; }
timeout -k 5 150 "$B/bin/mpiexec" --monitor=quiet -n 2 "$PWD/hang" "$PWD/go1" > out1 2> err1 < /dev/null &
job1=$!
wait_until 600 has_sockets 1 || err "no socket for the first job in $SOCKDIR: $(cat err1)"
# Rank 1 in MPI_Recv for a second or more, so that both blocks show it.
shown() { "$B/bin/ferry" top -n 1 2>&1 | grep -Eq '^ +1 +[^ ]+ +MPI +MPI_Recv +[0-9.]+ s '; }
wait_until 600 shown || err "ferry top never shows rank 1 in MPI_Recv: $("$B/bin/ferry" top -n 1 2>&1)"
"$B/bin/ferry" top -n 2 > top2.out 2>&1
rc=$?
[ "$rc" = 0 ] || err "ferry top -n 2: status $rc: $(cat top2.out)"
[ "$(grep -c '^ferry monitor: hang, 2 ranks, ' top2.out)" = 2 ] || err "ferry top -n 2 did not print 2 blocks: $(cat top2.out)"
[ "$(grep -Ec '^ +1 +[^ ]+ +MPI +MPI_Recv ' top2.out)" = 2 ] || err "rank 1 is not in MPI_Recv in both blocks: $(cat top2.out)"
echo "ferry top -n 2:"
sed 's/^/  /' top2.out

# A second job: plain ferry top must ask which.
timeout -k 5 150 "$B/bin/mpiexec" --monitor=quiet -n 2 "$PWD/hang" "$PWD/go2" > out2 2> err2 < /dev/null &
job2=$!
wait_until 600 has_sockets 2 || err "no socket for the second job: $(cat err2)"
timeout -k 5 60 "$B/bin/ferry" top > several.out 2>&1
rc=$?
[ "$rc" = 2 ] || err "ferry top with two jobs: status $rc, expected 2: $(cat several.out)"
grep -q "2 monitored jobs are running; give the pid of one" several.out || err "no question: $(cat several.out)"
[ "$(grep -Ec '^ +[0-9]+ +hang +2 +[0-9.]+ s$' several.out)" = 2 ] || err "the two jobs are not listed: $(cat several.out)"
"$B/bin/ferry" top -l > list.out 2>&1 || err "ferry top -l: status $?"
pids=$(awk '$2 == "hang" { print $1 }' list.out)
[ "$(echo $pids | wc -w)" = 2 ] || err "ferry top -l: $(cat list.out)"
first=$(echo $pids | cut -d' ' -f1)
"$B/bin/ferry" top -n 1 "$first" > one.out 2>&1 || err "ferry top -n 1 $first: status $?: $(cat one.out)"
grep -q '^ferry monitor: hang, 2 ranks' one.out || err "ferry top $first printed no block: $(cat one.out)"

# Attached until the end: the job's last block and its status.
"$B/bin/ferry" top "$first" > follow.out 2>&1 &
top=$!
wait_until 600 grep -q '^ferry monitor:' follow.out || err "the attached ferry top shows nothing"
touch go1 go2
wait $job1
rc1=$?
wait $job2
rc2=$?
[ "$rc1" = 0 ] && [ "$rc2" = 0 ] || err "the jobs exited with $rc1 and $rc2: $(tail -3 err1 err2)"
wait_until 300 test ! -e /proc/$top || err "ferry top did not end with its job"
wait $top
rc=$?
[ "$rc" = 0 ] || err "the attached ferry top: status $rc: $(tail -3 follow.out)"
grep -q ', ended' follow.out || err "the attached ferry top shows no last block: $(tail -6 follow.out)"
grep -q "the job (mpiexec pid $first) has ended, exit status 0" follow.out || err "no end: $(tail -3 follow.out)"
grep -q '^ferry monitor:' err1 err2 && err "--monitor=quiet printed blocks: $(head -3 err1)"

"$B/bin/ferry" top > none.out 2>&1
rc=$?
[ "$rc" = 1 ] || err "ferry top without a job: status $rc"
grep -q "no running job was started with mpiexec --monitor" none.out || err "no message: $(cat none.out)"
no_leftovers
[ $fail = 0 ] && echo "PASS"
exit $fail
