#!/usr/bin/env bash
# timeout: 600
# Node-aware collectives across real hosts (as the library sees them: FY_HOST_ID per part of an
# MPMD job, each part its own shared-memory segment, TCP between them): tests/mpi/coll_hier.c
# on 2 hosts x 2 ranks in blocks, 4 ranks round robin over 2 hosts, and 3 uneven hosts of
# 5 ranks, each checking that the hier rows ran (FY_TEST_HIER=1). Skips, saying why, while
# ranks on different hosts cannot talk (no TCP transport yet) or while the launcher's own
# process mapping puts every rank on one host whatever FY_HOST_ID says.
set -u
B=$FY_BUILD
S=$FY_SRC
"$B/bin/mpicc" -O1 -o coll_hier "$S/tests/mpi/coll_hier.c" || { echo "FAIL: compile"; exit 1; }
cat > hosts.c <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Comm node;
    int me, n, p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &n);
    if (me == 0)
        printf("node %d of %d\n", n, p);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
C
"$B/bin/mpicc" -o hosts hosts.c || { echo "FAIL: compile"; exit 1; }
MPX="$B/bin/mpiexec"
out=$(timeout 60 "$MPX" -n 2 -env FY_HOST_ID 0 ./hosts : -n 2 -env FY_HOST_ID 1 ./hosts 2>&1)
if echo "$out" | grep -q 'no transport between hosts\|another host'; then
    echo "SKIP: ranks on different hosts cannot talk yet (no TCP transport): $out" | head -3
    exit 0
fi
if echo "$out" | grep -q 'node 4 of 4'; then
    echo "SKIP: mpiexec serves PMI_process_mapping with every rank on one host, which FY_HOST_ID does not override (needs the multi-host launcher, plan step 5)"
    exit 0
fi
echo "$out" | grep -q 'node 2 of 4' || { echo "FAIL: 2 hosts of 2 expected: $out"; exit 1; }

fails=0
run() { # description, then mpiexec arguments
    local what=$1
    shift
    local o
    o=$(timeout 240 "$MPX" "$@" 2>&1)
    if [ $? -eq 0 ] && echo "$o" | grep -q '^No Errors'; then
        echo "ok: $what"
    else
        echo "FAIL: $what"
        echo "$o" | head -20
        fails=$((fails + 1))
    fi
}
E="-env FY_TEST_HIER 1"
run "2 hosts x 2 ranks, blocks" \
    -n 2 $E -env FY_HOST_ID a ./coll_hier : -n 2 $E -env FY_HOST_ID b ./coll_hier
run "4 ranks round robin over 2 hosts" \
    -n 1 $E -env FY_HOST_ID a ./coll_hier : -n 1 $E -env FY_HOST_ID b ./coll_hier : \
    -n 1 $E -env FY_HOST_ID a ./coll_hier : -n 1 $E -env FY_HOST_ID b ./coll_hier
run "3 uneven hosts, 5 ranks" \
    -n 3 $E -env FY_HOST_ID a ./coll_hier : -n 1 $E -env FY_HOST_ID b ./coll_hier : \
    -n 1 $E -env FY_HOST_ID c ./coll_hier
run "2 hosts x 2 ranks over TCP only" \
    -n 2 $E -env FERRY_NETMOD tcp -env FY_HOST_ID a ./coll_hier : \
    -n 2 $E -env FERRY_NETMOD tcp -env FY_HOST_ID b ./coll_hier
[ $fails -eq 0 ] && echo "No Errors" || exit 1
