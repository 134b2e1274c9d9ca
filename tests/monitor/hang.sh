#!/usr/bin/env bash
# timeout: 200
# mpiexec --monitor while a rank hangs: src/hang.c keeps rank 1 in MPI_Recv until the test
# creates a file, which it does once the printed blocks have shown rank 1 in MPI_Recv with a
# time that grows past 3 s (rank 0 computing, rank 2 in MPI_Barrier). Meanwhile a client that
# does not know the job's key is refused (and the refusal is logged). The job then ends
# normally with a last block, and leaves no socket and no process behind.
set -u
. "$FY_SRC/tests/monitor/common.inc"
build hang

timeout -k 5 150 "$B/bin/mpiexec" --monitor -n 3 "$PWD/hang" "$PWD/go" "$PWD/addr" > out 2> err < /dev/null &
job=$!
# Rank 1's time in MPI_Recv, block by block (whole seconds and more: "12.4 s").
recv_times() { awk '$1 == 1 && $3 == "MPI" && $4 == "MPI_Recv" && $6 == "s" { print $5 }' err; }
past_3s() { recv_times | awk '$1 >= 3.0 { f = 1 } END { exit !f }'; }
wait_until 1200 past_3s || err "rank 1 never shown in MPI_Recv for 3 s or more: $(tail -12 err)"

# A client without the key: greeted, its AUTH refused, the connection closed.
wait_until 100 test -s addr || err "no addr file from rank 0"
python3 - "$(cat addr)" > client.out 2>&1 <<'PY'
import socket, sys
addr = sys.argv[1]
host, port = addr.rsplit(":", 1)
host = host.split(",")[0]
s = socket.create_connection((host, int(port)), timeout=20)
f = s.makefile("rb")
hello = f.readline().decode()
print("hello:", hello.strip())
s.sendall(b"AUTH 1 3 4242 " + b"0" * 64 + b"\n")
rest = f.read()   # the server closes: nothing, and certainly no OK
print("reply:", repr(rest.decode()))
PY
grep -q "^hello: FERRY-MONITOR 1 [0-9a-f]\{64\}$" client.out || err "no greeting: $(cat client.out)"
grep -q "^reply: ''$" client.out || err "a client without the key was answered: $(cat client.out)"
wait_until 100 grep -q "ferry monitor: refused a connection from 127.0.0.1:[0-9]*: wrong key" err ||
    err "the refusal is not logged: $(grep refused err)"

touch go
wait $job
rc=$?
[ "$rc" = 0 ] || err "mpiexec exited with $rc: $(tail -8 err)"

times=$(recv_times | tr '\n' ' ')
echo "rank 1 in MPI_Recv, as printed each second: $times"
recv_times | awk 'NR > 1 && $1 <= prev { bad = 1 } { prev = $1; n++ } END { exit bad || n < 2 }' ||
    err "the time in MPI_Recv does not grow block after block: $times"
grep -Eq '^ +0 +[^ ]+ +compute ' err || err "rank 0 never shown computing"
grep -Eq '^ +2 +[^ ]+ +MPI +MPI_Barrier ' err || err "rank 2 never shown in MPI_Barrier"
grep -q '^ferry monitor: hang, 3 ranks, [0-9.]* s, ended' err || err "no last block: $(tail -5 err)"
[ "$(awk '/, ended/ { e = 1 } e && $3 == "finalized" { n++ } END { print n + 0 }' err)" = 3 ] ||
    err "the last block does not show 3 finalized ranks: $(tail -5 err)"
grep -q "^hang: " err && err "the program complained: $(grep '^hang: ' err)"
no_leftovers
[ $fail = 0 ] && echo "PASS"
exit $fail
