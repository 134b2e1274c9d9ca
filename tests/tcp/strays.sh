#!/bin/sh
# timeout: 120
# The TCP transport's listeners against strangers (issue 12, security): while a job of 2 ranks
# runs over TCP (FERRY_NETMOD=tcp), connections to a rank's port that send garbage, greet
# correctly but cannot prove the job's secret, say nothing, or hang up at once are dropped, each
# with one line naming the address and why; the job goes on and ends with the right data and
# status 0. The secret is in no command line or environment of the ranks. Loopback only: no
# root needed.
. "$FY_SRC/tests/launcher/lib.inc"
cat >"$T/wait.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
/* Says it is up, then waits (barriers, so both ranks are connected) until the test has made
 * its stray connections (the file "go"), then checks one message. */
int main(int argc, char **argv)
{
    int rank, x = 0, ok = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("up %d %d\n", rank, (int)getpid());
    fflush(stdout);
    /* Rank 0 looks for the file and tells the other: were each rank to look for itself, one
     * could see it an iteration before the other and call MPI_Bcast below against the other's
     * next collective of this loop, and the job would hang (a collective mismatch; it did,
     * under load, about one run in eight). */
    int all = 0;
    for (int i = 0; i < 6000; i++) {
        all = rank == 0 && access(argv[1], F_OK) == 0;
        MPI_Barrier(MPI_COMM_WORLD); /* rank 0 receives: its progress serves the strays */
        MPI_Bcast(&all, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (all)
            break;
        usleep(10000);
    }
    if (rank == 0)
        x = 12345;
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    ok = x == 12345 && all;
    printf("done %d %s\n", rank, ok ? "ok" : "BAD");
    MPI_Finalize();
    return ok ? 0 : 1;
}
C
"$FY_BUILD/bin/mpicc" -o "$T/wait" "$T/wait.c" || fail "cannot build the program"
cat >"$T/stray.py" <<'PY'
import socket, struct, sys, time
port = int(sys.argv[1])
def conn():
    return socket.create_connection(("127.0.0.1", port), timeout=5)
# Garbage.
s = conn(); s.sendall(b"GET / HTTP/1.0\r\n\r\n" + b"x" * 40); time.sleep(0.2); s.close()
# A proper greeting claiming to be rank 1 (to rank 0), then a wrong proof.
s = conn()
s.sendall(struct.pack("<III", 0x31545946, 1, 0) + b"\x01" * 16)
ch = b""
while len(ch) < 56:
    d = s.recv(56 - len(ch))
    if not d:
        break
    ch += d
print("challenge bytes", len(ch))
s.sendall(b"\x00" * 32)
time.sleep(0.2); s.close()
# Silence: dropped after a second.
s = conn(); time.sleep(1.6); s.close()
# Hang up at once.
s = conn(); s.close()
PY
FERRY_NETMOD=tcp "$MPIEXEC" -n 2 "$T/wait" "$T/go" >"$T/out" 2>"$T/err" &
job=$!
for _ in $(seq 3000); do [ "$(grep -c '^up ' "$T/out")" = 2 ] && break; sleep 0.01; done
pid0=$(awk '$1 == "up" && $2 == 0 { print $3 }' "$T/out")
[ -n "$pid0" ] || fail "the job did not come up: $(cat "$T/err")"
port=$(ss -ltnpH 2>/dev/null | grep "pid=$pid0," | awk '{ print $4 }' | sed 's/.*://' | head -n 1)
if [ -z "$port" ]; then
    fail "no listening TCP port of rank 0 (pid $pid0) found with ss"
else
    python3 "$T/stray.py" "$port" >"$T/stray.out" 2>&1 || fail "the stray client failed: $(cat "$T/stray.out")"
    grep -q "challenge bytes 56" "$T/stray.out" || fail "no challenge for a proper greeting: $(cat "$T/stray.out")"
    for p in $(awk '$1 == "up" { print $3 }' "$T/out"); do
        tr '\0' '\n' </proc/"$p"/cmdline | grep -qE '^[0-9a-f]{64}$' && fail "a secret on rank $p's command line"
        tr '\0' '\n' </proc/"$p"/environ | grep -qE '[0-9a-f]{64}' && fail "a secret in rank $p's environment"
    done
fi
touch "$T/go"
wait $job
RC=$?
expect_eq "status of the job" 0 "$RC"
expect_eq "results" "done 0 ok
done 1 ok" "$(grep '^done' "$T/out" | sort)"
for why in "not a Ferry rank of this job" "does not know the job's secret" \
    "did not complete the handshake within a second" "closed before saying who it is"; do
    grep -q "^Ferry: rank 0: dropped a TCP connection from 127.0.0.1: $why" "$T/err" ||
        fail "no line for a stray that $why: $(cat "$T/err")"
done
[ "$(wc -l <"$T/err")" = 4 ] || fail "expected 4 lines on stderr: $(cat "$T/err")"
finish
