#!/usr/bin/env bash
# timeout: 90
# The shared-memory collectives really run (FERRY_COLL_TRACE=2 says which algorithm each
# collective took): Barrier, Bcast, short and long Allreduce and Reduce on a 4-rank world take
# the shm rows of the tables; with FERRY_SHM_COLL_SLOTS=0 they take message algorithms and the
# results stay right; with 2 slots, the third communicator doing collectives falls back to
# messages while the first two keep their slots, also after communicators are freed.
set -u
B=$FY_BUILD
cat > choice.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static int errs;
static void run(MPI_Comm c, int n)
{
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    double *v = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        v[i] = me + i;
    MPI_Allreduce(v, r, n, MPI_DOUBLE, MPI_SUM, c);
    for (int i = 0; i < n; i++)
        if (r[i] != (double)p * (p - 1) / 2 + (double)p * i)
            errs++;
    MPI_Reduce(v, r, n, MPI_DOUBLE, MPI_SUM, p - 1, c);
    if (me == p - 1)
        for (int i = 0; i < n; i++)
            if (r[i] != (double)p * (p - 1) / 2 + (double)p * i)
                errs++;
    for (int i = 0; i < n; i++)
        v[i] = me == 0 ? i : -1;
    MPI_Bcast(v, n, MPI_DOUBLE, 0, c);
    for (int i = 0; i < n; i++)
        if (v[i] != i)
            errs++;
    MPI_Barrier(c);
    /* Allgather and Alltoall of n doubles a block (short ones fit an area). */
    if (n <= 16) {
        double *g = malloc(sizeof(double) * n * p), *t = malloc(sizeof(double) * n * p);
        for (int i = 0; i < n * p; i++)
            t[i] = me * 1000 + i;
        MPI_Allgather(v, n, MPI_DOUBLE, g, n, MPI_DOUBLE, c);
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++)
                if (g[j * n + i] != i)
                    errs++;
        MPI_Alltoall(t, n, MPI_DOUBLE, g, n, MPI_DOUBLE, c);
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++)
                if (g[j * n + i] != j * 1000 + me * n + i)
                    errs++;
        free(g);
        free(t);
    }
    free(v);
    free(r);
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    run(MPI_COMM_WORLD, 1);
    run(MPI_COMM_WORLD, 100000);
    MPI_Comm d[3];
    for (int k = 0; k < 3; k++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &d[k]);
        char name[32];
        snprintf(name, sizeof name, "dup%d", k);
        MPI_Comm_set_name(d[k], name);
        run(d[k], 1);
    }
    MPI_Comm_free(&d[0]);
    MPI_Comm_free(&d[1]);
    MPI_Comm e;
    MPI_Comm_dup(MPI_COMM_WORLD, &e);
    MPI_Comm_set_name(e, "after_free");
    run(e, 1);
    MPI_Comm_free(&e);
    MPI_Comm_free(&d[2]);
    int all = 0;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf(all ? "wrong results: %d\n" : "results ok\n", all);
    MPI_Finalize();
    return all != 0;
}
C
"$B/bin/mpicc" -o choice choice.c || exit 1
fail=0
expect() { # file pattern what
    if ! grep -qE "$2" "$1"; then
        echo "FAIL: $3 (no line matching: $2)"
        grep '^ferry: rank 0' "$1" | sort
        fail=1
    fi
}
refuse() {
    if grep -qE "$2" "$1"; then
        echo "FAIL: $3 (a line matches: $2)"
        grep -E "$2" "$1" | head -5
        fail=1
    fi
}

FERRY_COLL_TRACE=2 FERRY_SHM_COLL_SLOTS=2 timeout 60 "$B/bin/mpiexec" -n 4 ./choice >out1 2>err1
[ $? -eq 0 ] && grep -q "results ok" out1 || { echo "FAIL: run with 2 slots"; cat out1 err1 | tail -20; fail=1; }
w='rank 0: %s on MPI_COMM_WORLD \(4 ranks, %s bytes\): %s$'
expect err1 "$(printf "$w" barrier 0 shm)" "Barrier in shared memory"
expect err1 "$(printf "$w" bcast 8 shm)" "short Bcast in shared memory"
expect err1 "$(printf "$w" bcast 800000 shm)" "long Bcast in shared memory"
expect err1 "$(printf "$w" allreduce 8 shm)" "short Allreduce in shared memory (flat)"
expect err1 "$(printf "$w" allreduce 800000 shm_slice)" "long Allreduce in shared memory (slices)"
expect err1 "$(printf "$w" reduce 8 shm)" "short Reduce in shared memory"
expect err1 "$(printf "$w" reduce 800000 shm_slice)" "long Reduce in shared memory (slices)"
expect err1 "$(printf "$w" allgather 8 shm)" "short Allgather in shared memory"
expect err1 "$(printf "$w" alltoall 8 shm)" "short Alltoall in shared memory"
# World holds one slot, dup0 the other; dup1 finds none and keeps messages; after dup0 and
# dup1 are freed, a new communicator gets dup0's slot back.
expect err1 'rank 0: allreduce on dup0 .*: shm$' "dup0 in shared memory"
expect err1 'rank 0: allreduce on dup1 .*: recursive_doubling$' "dup1 without a slot uses messages"
refuse err1 'rank 0: (barrier|bcast|reduce) on dup1 .*: shm' "dup1 has no slot (its first collective, an allreduce, found none)"
expect err1 'rank 0: allreduce on after_free .*: shm$' "a freed slot is taken again"

FERRY_COLL_TRACE=2 FERRY_SHM_COLL_SLOTS=0 timeout 60 "$B/bin/mpiexec" -n 4 ./choice >out2 2>err2
[ $? -eq 0 ] && grep -q "results ok" out2 || { echo "FAIL: run without a pool"; cat out2 err2 | tail -20; fail=1; }
refuse err2 ': shm(_slice)?$' "no pool: no shared-memory algorithm"
expect err2 "$(printf "$w" barrier 0 dissemination)" "no pool: Barrier by messages"

[ $fail -eq 0 ] && echo "PASS: shared-memory collectives chosen, and given up when there is no slot"
exit $fail
