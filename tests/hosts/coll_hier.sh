#!/usr/bin/env bash
# timeout: 600
# Node-aware collectives across test hosts (tests/hosts/fy_hosts; mpiexec -launcher-exec
# fy_hosts_agent): tests/mpi/coll_hier.c, which checks every node-aware collective's results and,
# with FY_TEST_HIER=1, that the hier rows ran, on 2 hosts x 2 ranks in blocks and round robin,
# 1 + 3 ranks, 3 hosts of 3 + 1 + 1, and 2 x 2 with FERRY_NETMOD=tcp (host phases over TCP
# too); then coll_algos (every collective and form against a model) in blocks and round robin
# with an odd host. Shared memory inside each host, TCP between them.
. "$FY_SRC/tests/hosts/hosts.inc"
hosts_up 3
"$FY_BUILD/bin/mpicc" -O1 -o "$T/coll_hier" "$FY_SRC/tests/mpi/coll_hier.c" ||
    { echo "FAIL: cannot build coll_hier.c"; exit 1; }
"$FY_BUILD/bin/mpicc" -O1 -o "$T/coll_algos" "$FY_SRC/tests/mpi/coll_algos.c" ||
    { echo "FAIL: cannot build coll_algos.c"; exit 1; }

# Like hosts.inc's run, with room for a long test on oversubscribed cores.
job() { # what, then mpiexec's arguments
    local what=$1 start
    shift
    start=$(date +%s)
    timeout -k 5 240 "$MPIEXEC" -launcher-exec "$AGENT" "$@" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
    if [ $RC -eq 0 ] && grep -qx "No Errors" "$T/out"; then
        echo "ok: $what ($(($(date +%s) - start)) s)"
    else
        fail "$what: status $RC: $(head -c 2000 "$T/out" "$T/err")"
    fi
}

HIER="-genv FY_TEST_HIER 1"
job "coll_hier, 2 hosts x 2, blocks" -hosts fyh1:2,fyh2:2 -n 4 $HIER "$T/coll_hier"
job "coll_hier, 2 hosts x 2, round robin" -hosts fyh1:2,fyh2:2 -rr -n 4 $HIER "$T/coll_hier"
job "coll_hier, 1 + 3" -hosts fyh1:1,fyh2:3 -n 4 $HIER "$T/coll_hier"
job "coll_hier, 3 + 1 + 1" -hosts fyh1:3,fyh2:1,fyh3:1 -n 5 $HIER "$T/coll_hier"
job "coll_hier, 2 x 2, TCP only" -hosts fyh1:2,fyh2:2 -n 4 $HIER -genv FERRY_NETMOD tcp "$T/coll_hier"
job "coll_algos, 2 x 2" -hosts fyh1:2,fyh2:2 -n 4 "$T/coll_algos"
job "coll_algos, 2 + 2 + 1 round robin" -hosts fyh1:2,fyh2:2,fyh3:1 -rr -n 5 "$T/coll_algos"
expect_clean "after the jobs"
finish
