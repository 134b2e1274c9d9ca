#!/usr/bin/env bash
# timeout: 240
# Jobs across test hosts (tests/hosts/fy_hosts; mpiexec -launcher-exec fy_hosts_agent): one
# ferry-proxy per host, at 2 hosts x 2 ranks and 4 x 1. Ranks run on their hosts with
# PMI_RANK/PMI_SIZE, FY_HOST_ID, FY_TCP_ADDR (the host's address toward mpiexec) and
# FY_SECRET_FD (the same 64 hex digits everywhere); PMI_process_mapping says where each rank is
# (blocks, round-robin, one host); a PMI put/fence/get exchange spans the hosts; -l labels,
# exit statuses and the messages naming rank and host, SIGPIPE when our stdout has no reader,
# stdin to rank 0 on whatever host it is,
# -genv/-env/-x/-genvnone, our environment and working directory, -wdir, MPMD, --timeout,
# MPI_Abort (PMI abort), SIGTERM to mpiexec; nothing left on any host after each. MPI programs
# (MPI_Init/Finalize; examples/cpi.c) run across hosts over the TCP transport (steps 3-4 of
# docs/plan-multihost.md).
. "$FY_SRC/tests/hosts/hosts.inc"
hosts_up 4
build_pmi_prog

# 2 hosts x 2: who runs where, with what.
run -hosts fyh1:2,fyh2:2 -n 4 sh -c 'echo "$PMI_RANK/$PMI_SIZE $(hostname) $FY_HOST_ID $FY_TCP_ADDR"'
expect_eq "status 2x2" 0 "$RC"
expect_eq "ranks 2x2" "0/4 fyh1 0 10.77.$NET.1
1/4 fyh1 0 10.77.$NET.1
2/4 fyh2 1 10.77.$NET.2
3/4 fyh2 1 10.77.$NET.2" "$(sort "$T/out")"
expect_eq "stderr 2x2" "" "$(cat "$T/err")"

# 4 x 1 with labels, by address and by name.
run -l -hosts 10.77.$NET.1,fyh2,fyh3,fyh4 -n 4 hostname
expect_eq "status 4x1" 0 "$RC"
expect_eq "labelled output 4x1" "[0] fyh1
[1] fyh2
[2] fyh3
[3] fyh4" "$(sort "$T/out")"
echo "4 hosts x 1 rank, hostname: ${SECS}s"

# The secret: 64 hex digits, the same for every rank on every host.
run -hosts fyh1,fyh2 -n 4 sh -c 'cat /proc/self/fd/$FY_SECRET_FD; echo'
expect_eq "one secret for all" 1 "$(sort -u "$T/out" | wc -l)"
grep -qE '^[0-9a-f]{64}$' "$T/out" || fail "the secret is not 64 hex digits: $(head -n 1 "$T/out")"

# PMI_process_mapping, read with a minimal PMI-1 client.
cat >"$T/pmi_map.py" <<'PY'
import os
fd = int(os.environ["PMI_FD"])
def line():
    b = b""
    while not b.endswith(b"\n"):
        c = os.read(fd, 1)
        if not c:
            break
        b += c
    return b.decode().strip()
os.write(fd, b"cmd=init pmi_version=1 pmi_subversion=1\n"); line()
os.write(fd, b"cmd=get key=PMI_process_mapping\n"); r = line()
print(os.environ["PMI_RANK"], r.split("value=", 1)[1] if "rc=0" in r else "none")
os.write(fd, b"cmd=finalize\n"); line()
PY
run -hosts fyh1:2,fyh2:2 -n 4 python3 "$T/pmi_map.py"
expect_eq "mapping, blocks of 2 on 2 hosts" "(vector,(0,2,2))" "$(awk '{print $2}' "$T/out" | sort -u)"
run -hosts fyh1:2,fyh2:2 -rr -n 4 python3 "$T/pmi_map.py"
expect_eq "mapping, round-robin" "(vector,(0,2,1),(0,2,1))" "$(awk '{print $2}' "$T/out" | sort -u)"
run -hosts fyh1:1,fyh2:3 -n 4 python3 "$T/pmi_map.py"
expect_eq "mapping, 1 and 3" "(vector,(0,1,1),(1,1,3))" "$(awk '{print $2}' "$T/out" | sort -u)"
timeout 60 "$MPIEXEC" -n 3 python3 "$T/pmi_map.py" >"$T/out" 2>&1
expect_eq "mapping, one host" "(vector,(0,1,3))" "$(awk '{print $2}' "$T/out" | sort -u)"
timeout 60 "$MPIEXEC" -n 2 sh -c 'echo "$FY_HOST_ID ${FY_TCP_ADDR-unset} $(cat /proc/self/fd/$FY_SECRET_FD | wc -c)"' >"$T/out" 2>&1
expect_eq "one host: host id, no address, a secret" "0 unset 64" "$(sort -u "$T/out")"

# KVS across hosts: every rank's put, fenced, read by every rank.
for spec in "fyh1:2,fyh2:2" "fyh1,fyh2,fyh3,fyh4"; do
    run -hosts "$spec" -n 4 "$PMI_PROG" kvs
    expect_eq "status of the KVS exchange on $spec" 0 "$RC"
    grep -qx "No Errors" "$T/out" || fail "KVS exchange on $spec: $(cat "$T/out" "$T/err")"
done
run -hosts fyh1:2,fyh2:2 -n 4 "$PMI_PROG" info
expect_eq "PMI info 2x2" "rank 0 size 4 appnum 0
rank 1 size 4 appnum 0
rank 2 size 4 appnum 0
rank 3 size 4 appnum 0" "$(sed 's/ singleton.*//' "$T/out" | sort)"

# Exit statuses and messages.
run -hosts fyh1,fyh2 -n 4 sh -c 'exit $((PMI_RANK == 3 ? 5 : 0))'
expect_eq "status of a plain program exiting 5 on fyh2" 5 "$RC"
run -hosts fyh1,fyh2 -n 3 sh -c '[ "$PMI_RANK" = 1 ] && exec '"$PMI_PROG"' exit 3; exec '"$PMI_PROG"' wait'
expect_eq "status of a rank exiting before finalize" 3 "$RC"
grep -qE '^mpiexec: rank 1 \(pid [0-9]+\) on host fyh2 exited with status 3 before MPI_Finalize$' "$T/err" ||
    fail "message for a rank exiting early: $(cat "$T/err")"
expect_clean "after a rank exited early"
run -hosts fyh1,fyh2 -n 3 "$PMI_PROG" signal 11
expect_eq "status of a rank killed by SIGSEGV" 139 "$RC"
grep -qE '^mpiexec: rank 1 \(pid [0-9]+\) on host fyh2 was killed by signal 11' "$T/err" ||
    fail "message for a killed rank: $(cat "$T/err")"
expect_clean "after a rank was killed"
run -hosts fyh1,fyh2 -n 3 "$PMI_PROG" abort 7 "disk full"
expect_eq "status after MPI_Abort (PMI abort)" 7 "$RC"
grep -qx 'mpiexec: rank 1 on host fyh2 called MPI_Abort with code 7: disk full' "$T/err" ||
    fail "message for MPI_Abort: $(cat "$T/err")"
expect_clean "after MPI_Abort"

# Stdin goes to rank 0, here on fyh2, and only there.
head -c 3000000 /dev/urandom >"$T/data"
timeout 60 "$MPIEXEC" -launcher-exec "$AGENT" -hosts fyh2,fyh1 -n 3 \
    sh -c '[ "$PMI_RANK" = 0 ] && { hostname; cksum; } || wc -c' <"$T/data" >"$T/out" 2>"$T/err"
expect_eq "stdin status" 0 "$?"
expect_eq "stdin to rank 0 on fyh2" "$(printf '0\n0\nfyh2\n%s\n' "$(cksum <"$T/data")" | sort)" "$(sort "$T/out")"
yes | timeout 60 "$MPIEXEC" -launcher-exec "$AGENT" -hosts fyh2,fyh1 -n 2 \
    sh -c '[ "$PMI_RANK" = 0 ] && head -n 3 >/dev/null; exit 0'
expect_eq "status when rank 0 stops reading an endless stdin" 0 "$?"

# Our output without a reader (`| head`): ranks on every host get SIGPIPE, quietly, as on one host.
timeout 60 "$MPIEXEC" -launcher-exec "$AGENT" -hosts fyh1,fyh2,fyh3 -n 3 yes </dev/null 2>"$T/err" | head -n 2 >/dev/null
expect_eq "status when our stdout is closed" 141 "${PIPESTATUS[0]}"
expect_eq "stderr when our stdout is closed" "" "$(cat "$T/err")"
expect_clean "after our stdout was closed"

# Environment and directories.
export FY_T_OURS=ours
run -hosts fyh1,fyh2 -n 2 -genv FY_T_G g -x FY_T_X=x sh -c 'echo "$(hostname) ${FY_T_G-} ${FY_T_X-} ${FY_T_OURS-} $(pwd)"'
expect_eq "-genv, -x, our environment and directory" "fyh1 g x ours $T
fyh2 g x ours $T" "$(sort "$T/out")"
run -hosts fyh1,fyh2 -n 2 -genvnone /bin/sh -c 'echo "${FY_T_OURS-none} $PMI_RANK"'
expect_eq "-genvnone" "none 0
none 1" "$(sort "$T/out")"
mkdir -p "$T/sub"
run -hosts fyh1,fyh2 -n 1 -wdir "$T/sub" -env FY_T_L one sh -c 'echo "a $(hostname) $(pwd) ${FY_T_L-}"' : \
    -n 1 sh -c 'echo "b $(hostname) $(pwd) ${FY_T_L-}"'
expect_eq "MPMD with -wdir and -env per program" "a fyh1 $T/sub one
b fyh2 $T " "$(sort "$T/out")"
run -hosts fyh1,fyh2 -n 1 "$PMI_PROG" info : -n 1 "$PMI_PROG" info
expect_eq "MPMD appnums" "rank 0 size 2 appnum 0
rank 1 size 2 appnum 1" "$(sed 's/ singleton.*//' "$T/out" | sort)"

# --timeout and SIGTERM end every rank on every host.
run --timeout 2 -hosts fyh1,fyh2 -n 4 sleep 600
expect_eq "status after --timeout" 124 "$RC"
grep -q "job timed out after 2 seconds" "$T/err" || fail "no timeout message: $(cat "$T/err")"
expect_clean "after --timeout"
timeout -k 5 60 "$MPIEXEC" -launcher-exec "$AGENT" -hosts fyh1,fyh2 -n 4 sh -c 'echo up; exec sleep 600' \
    >"$T/out" 2>"$T/err" </dev/null &
pid=$!
for _ in $(seq 1000); do [ "$(grep -c up "$T/out")" = 4 ] && break; sleep 0.01; done
kill -TERM $pid
wait $pid
expect_eq "status after SIGTERM to mpiexec" 143 "$?"
expect_clean "after SIGTERM"

# MPI programs: MPI_Init/Comm_rank/Finalize, then examples/cpi.c.
cat >"$T/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int rank, size;
    char host[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof(host));
    printf("%d/%d %s\n", rank, size, host);
    MPI_Finalize();
    return 0;
}
C
"$FY_BUILD/bin/mpicc" -o "$T/hello" "$T/hello.c" || fail "cannot build hello.c"
"$FY_BUILD/bin/mpicc" -o "$T/cpi" "$FY_SRC/examples/cpi.c" -lm || fail "cannot build cpi.c"
run -hosts fyh1:2,fyh2:2 -n 4 "$T/hello"
expect_eq "MPI hello 2x2" 0 "$RC"
expect_eq "MPI hello 2x2 output" "0/4 fyh1
1/4 fyh1
2/4 fyh2
3/4 fyh2" "$(sort "$T/out")"
run -hosts fyh1,fyh2,fyh3,fyh4 -n 4 "$T/hello"
expect_eq "MPI hello 4x1" 0 "$RC"
echo "4 hosts x 1 rank, MPI hello: ${SECS}s"
for spec in "fyh1:2,fyh2:2" "fyh1,fyh2,fyh3,fyh4"; do
    run -hosts "$spec" -n 4 "$T/cpi"
    expect_eq "cpi on $spec" 0 "$RC"
    grep -q "pi is approximately 3.14159" "$T/out" || fail "cpi on $spec: $(cat "$T/out" "$T/err")"
done
run -hosts fyh1,fyh2 -n 4 "$PMI_PROG" abort 3
expect_eq "MPI_Abort status" 3 "$RC"
expect_clean "at the end"
finish
