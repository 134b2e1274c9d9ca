#!/usr/bin/env bash
# timeout: 240
# The monitor's bad input and bad endings: --check with --monitor is refused; ferry top's bad
# arguments and a pid that is no monitored job get clear messages; a singleton (the library
# preloaded, no mpiexec) runs unwatched, also with a wrong or unreachable FERRY_MONITOR_ADDR
# (one line saying so); a socket directory that is not private is refused with a warning and
# the job still runs and prints; a rank killed while monitored shows as exited in the last
# block; mpiexec killed with SIGKILL leaves its socket, which ferry top removes. Nothing is left
# running.
set -u
. "$FY_SRC/tests/monitor/common.inc"
build hang
build imbalance

# --check and --monitor load different libraries.
"$B/bin/mpiexec" --check --monitor -n 1 true > both.out 2>&1
rc=$?
[ "$rc" = 1 ] || err "--check --monitor: status $rc"
grep -q "mpiexec: --check and --monitor .* cannot be combined" both.out || err "--check --monitor: $(cat both.out)"

FERRY_MONITOR_ROWS=many "$B/bin/mpiexec" --monitor -n 1 true > rows.out 2>&1
rc=$?
[ "$rc" = 1 ] || err "FERRY_MONITOR_ROWS=many: status $rc"
grep -q "mpiexec: FERRY_MONITOR_ROWS='many': the most ranks shown a line each, 0 to 4096" rows.out ||
    err "FERRY_MONITOR_ROWS=many: $(cat rows.out)"

# A program that never connects (not MPI): said once at the end.
"$B/bin/mpiexec" --monitor -n 2 true > nompi.out 2>&1 || err "not MPI: status $?"
grep -q "^ferry monitor: true: no rank connected (not an MPI program" nompi.out || err "not MPI: $(cat nompi.out)"

# ferry top's arguments.
expect() { # expect STATUS PATTERN ferry top ARGS...
    local want=$1 pat=$2
    shift 2
    "$B/bin/ferry" "$@" > ft.out 2>&1
    local rc=$?
    [ "$rc" = "$want" ] || err "ferry $*: status $rc, expected $want: $(cat ft.out)"
    grep -q -- "$pat" ft.out || err "ferry $*: no '$pat' in: $(cat ft.out)"
}
expect 2 "ferry top: -n '0': a number of refreshes from 1 to 1000000" top -n 0
expect 2 "ferry top: -n 'x': a number of refreshes" top -n x
expect 2 "ferry top: -n needs a number" top -n
expect 2 "ferry top: 'abc' is not a process id" top abc
expect 2 "ferry top: unknown argument '--bogus'" top --bogus
expect 1 "ferry top: no running job was started with mpiexec --monitor (no socket in $SOCKDIR)" top
expect 1 "ferry top: no running job was started with mpiexec --monitor" top 99999999
expect 0 "usage: ferry top" top --help

# A singleton: nothing to connect to, nothing said; a bad address is said once. (Preloaded by
# hand, as mpiexec does it: an AddressSanitizer build's runtime is then not first, and is told
# that this is fine.)
touch go
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
LD_PRELOAD=$B/lib/libferry_prof.so "$PWD/imbalance" "$PWD/go" > single.out 2>&1 || err "singleton: status $?: $(cat single.out)"
[ -s single.out ] && err "singleton printed: $(cat single.out)"
FERRY_MONITOR_ADDR=nonsense FERRY_MONITOR_KEY=00 LD_PRELOAD=$B/lib/libferry_prof.so "$PWD/imbalance" "$PWD/go" > bad.out 2>&1 ||
    err "bad address: status $?: $(cat bad.out)"
grep -q "ferry monitor: rank 0: FERRY_MONITOR_ADDR='nonsense' is not ADDRESS\[,ADDRESS...\]:PORT; this rank is not shown" bad.out ||
    err "bad address: $(cat bad.out)"
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' > port
FERRY_MONITOR_ADDR=127.0.0.1:$(cat port) FERRY_MONITOR_KEY=00 LD_PRELOAD=$B/lib/libferry_prof.so "$PWD/imbalance" "$PWD/go" > noone.out 2>&1 ||
    err "unreachable: status $?: $(cat noone.out)"
grep -q "ferry monitor: rank 0: cannot connect to 127.0.0.1:[0-9]*; this rank is not shown" noone.out || err "unreachable: $(cat noone.out)"
rm -f go

# A socket directory others can enter: not used, said, and the job goes on.
mkdir -p -m 755 open/ferry-$(id -u)
XDG_RUNTIME_DIR=$PWD/open timeout -k 5 100 "$B/bin/mpiexec" --monitor -n 2 "$PWD/imbalance" "$PWD/go0" > open.out 2> open.err < /dev/null &
job=$!
wait_until 600 grep -qs '^ferry monitor: imbalance' open.err || err "no block with the open directory: $(cat open.err)"
touch go0
wait $job || err "open directory: status $?: $(tail -3 open.err)"
grep -q "mpiexec: --monitor: $PWD/open/ferry-$(id -u) is not a directory of ours that only we can use (mode 0700); ferry top cannot attach to this job" open.err ||
    err "open directory: $(head -3 open.err)"
[ -z "$(ls open/ferry-$(id -u))" ] || err "a socket in the open directory"

# A rank killed while monitored.
timeout -k 5 100 "$B/bin/mpiexec" --monitor -n 2 "$PWD/hang" "$PWD/go1" > kill.out 2> kill.err < /dev/null &
job=$!
in_recv() { grep -Eq '^ +1 +[^ ]+ +MPI +MPI_Recv ' kill.err; }
wait_until 600 in_recv || err "rank 1 never shown in MPI_Recv: $(cat kill.err)"
wait_until 100 test -s go1.rank1 || err "rank 1 wrote no pid"
kill -9 "$(cat go1.rank1)"
wait $job
rc=$?
[ "$rc" = 137 ] || err "a killed rank: status $rc, expected 137: $(tail -5 kill.err)"
awk '/, ended/ { e = 1 } e && $1 == 1 && $3 == "exited" { f = 1 } END { exit !f }' kill.err ||
    err "the last block does not show rank 1 exited: $(tail -5 kill.err)"
no_leftovers

# mpiexec killed with SIGKILL: the socket stays; ferry top finds the job gone and removes it.
timeout -k 5 100 "$B/bin/mpiexec" --monitor=quiet -n 2 "$PWD/hang" "$PWD/go2" > k9.out 2> k9.err < /dev/null &
job=$!
sock() { ls "$SOCKDIR" 2>/dev/null | grep '^monitor\.'; }
wait_until 600 sock > /dev/null || err "no socket for the job to kill"
mpx=$(sock | sed 's/^monitor\.\([0-9]*\)\.sock$/\1/')
kill -9 "$mpx"
wait $job 2> /dev/null
gone() { ! pgrep -f "^$PWD/hang $PWD/go2" > /dev/null; }
wait_until 300 gone || err "ranks left after mpiexec was killed: $(pgrep -af "^$PWD/hang")"
[ -n "$(sock)" ] || err "the killed mpiexec's socket is not there (the test expects it to be)"
"$B/bin/ferry" top -l > stale.out 2>&1 || err "ferry top -l: status $?"
grep -q "no running job was started with mpiexec --monitor" stale.out || err "stale: $(cat stale.out)"
[ -z "$(sock)" ] || err "ferry top left the stale socket $(sock)"
no_leftovers
[ $fail = 0 ] && echo "PASS"
exit $fail
