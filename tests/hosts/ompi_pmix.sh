#!/bin/bash
# timeout: 300
# PMIx across test hosts (issue 13): Ferry programs started by Open MPI's mpirun (a PMIx server
# on each host, its daemons started through the hosts' agent) on 2 hosts x 2 ranks. The ranks
# learn the layout from PMIx's node ids (two ranks per shared-memory segment), connect over TCP
# with the secret drawn by rank 0 and shared through PMIx, and print exactly what the same
# programs print under Ferry's own mpiexec on the same hosts. Nothing is left on any host.
# Needs root and Open MPI (openmpi-bin) with libpmix2.
. "$FY_SRC/tests/hosts/hosts.inc"
command -v mpirun.openmpi >/dev/null || { echo "SKIP: Open MPI (openmpi-bin) is not installed"; exit 0; }
ldconfig -p | grep -q 'libpmix\.so\.2 ' || { echo "SKIP: libpmix2 is not installed"; exit 0; }
hosts_up 2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI=(mpirun.openmpi --mca plm_rsh_agent "$AGENT" --mca oob_tcp_if_include "10.77.$NET.0/24"
    -H fyh1:2,fyh2:2 -n 4 -x "LD_LIBRARY_PATH=$FY_BUILD/lib")

cat >"$T/layout.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int rank, size, local;
    char host[64];
    MPI_Comm node;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    gethostname(host, sizeof host);
    printf("rank %d of %d on %s shares memory with %d\n", rank, size, host, local);
    MPI_Finalize();
    return 0;
}
C
"$FY_BUILD/bin/mpicc" -o "$T/layout" "$T/layout.c" || fail "cannot build layout.c"
timeout -k 5 120 "${OMPI[@]}" "$T/layout" >"$T/out" 2>"$T/err" </dev/null
expect_eq "status of layout under mpirun" 0 "$?"
expect_eq "layout under mpirun" "rank 0 of 4 on fyh1 shares memory with 2
rank 1 of 4 on fyh1 shares memory with 2
rank 2 of 4 on fyh2 shares memory with 2
rank 3 of 4 on fyh2 shares memory with 2" "$(sort "$T/out")"

for prog in cpi ring coll probe_order; do
    "$FY_BUILD/bin/mpicc" -O1 -o "$T/$prog" "$FY_SRC/tests/diff/src/$prog.c" -lm ||
        { fail "$prog: cannot build it"; continue; }
    run -hosts fyh1:2,fyh2:2 -n 4 "$T/$prog"
    [ "$RC" = 0 ] || { fail "$prog: mpiexec exited $RC: $(tail -3 "$T/err")"; continue; }
    cp "$T/out" "$T/$prog.ref"
    timeout -k 5 120 "${OMPI[@]}" "$T/$prog" >"$T/$prog.out" 2>"$T/$prog.err" </dev/null
    rc=$?
    [ $rc = 0 ] || { fail "$prog: mpirun exited $rc: $(tail -3 "$T/$prog.err")"; continue; }
    diff -u "$T/$prog.ref" "$T/$prog.out" >"$T/$prog.diff" ||
        fail "$prog: output under mpirun differs (- mpiexec, + mpirun): $(head -20 "$T/$prog.diff")"
    echo "$prog 2 hosts x 2: $(wc -l <"$T/$prog.out") lines, the same under mpiexec and mpirun (PMIx)"
done
expect_clean "after the PMIx runs"
finish
