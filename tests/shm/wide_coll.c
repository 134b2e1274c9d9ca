/* Collectives at many ranks on few cores (wide_coll.sh runs 256 ranks on 2): loops of
 * MPI_Allreduce (8 B and 64 KiB), MPI_Barrier, MPI_Bcast (8 B and 64 KiB, the root moving
 * round the ranks), MPI_Reduce of 64 KiB to a moving root, and an Allreduce on each half of a
 * split communicator, every result checked element by element. Bounded work: argv[1] loops of
 * the short operations, argv[2] of the 64 KiB ones. Rank 0 prints the slowest rank's time per
 * operation (for the reader: nothing is asserted about time) and what the job's memory costs
 * after the loops (footprint.h). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "footprint.h"

enum { BIG = 8192 }; /* doubles: 64 KiB */

static int errs;

static void check(int ok, const char *what, int iter)
{
    if (!ok && errs++ < 10)
        fprintf(stderr, "wrong %s result at iteration %d\n", what, iter);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    int big_iters = argc > 2 ? atoi(argv[2]) : 40;
    double *a = malloc(BIG * sizeof(double)), *b = malloc(BIG * sizeof(double));
    double t[7] = {0};
    /* Sums of small integers in doubles are exact, so every member's result must be these. */
    double ranks_sum = (double)size * (size - 1) / 2;
    MPI_Barrier(MPI_COMM_WORLD);

    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        double x = rank + i, y = -1;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        check(y == ranks_sum + (double)i * size, "8-byte allreduce", i);
    }
    t[0] = MPI_Wtime() - t0;

    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    t[1] = MPI_Wtime() - t0;

    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        long v = rank == i % size ? 1000 + i : -1;
        MPI_Bcast(&v, 1, MPI_LONG, i % size, MPI_COMM_WORLD);
        check(v == 1000 + i, "8-byte bcast", i);
    }
    t[2] = MPI_Wtime() - t0;

    t0 = MPI_Wtime();
    for (int i = 0; i < big_iters; i++) {
        for (int k = 0; k < BIG; k++)
            a[k] = rank + k + i;
        MPI_Allreduce(a, b, BIG, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        int ok = 1;
        for (int k = 0; k < BIG; k++)
            ok &= b[k] == ranks_sum + (double)(k + i) * size;
        check(ok, "64 KiB allreduce", i);
    }
    t[3] = MPI_Wtime() - t0;

    t0 = MPI_Wtime();
    for (int i = 0; i < big_iters; i++) {
        int root = (i * 37) % size;
        for (int k = 0; k < BIG; k++)
            a[k] = rank == root ? k + i : -1;
        MPI_Bcast(a, BIG, MPI_DOUBLE, root, MPI_COMM_WORLD);
        int ok = 1;
        for (int k = 0; k < BIG; k++)
            ok &= a[k] == k + i;
        check(ok, "64 KiB bcast", i);
    }
    t[4] = MPI_Wtime() - t0;

    t0 = MPI_Wtime();
    for (int i = 0; i < big_iters; i++) {
        int root = (i * 53 + 1) % size;
        for (int k = 0; k < BIG; k++)
            a[k] = rank * (k % 3) + i;
        MPI_Reduce(a, b, BIG, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank == root) {
            int ok = 1;
            for (int k = 0; k < BIG; k++)
                ok &= b[k] == ranks_sum * (k % 3) + (double)i * size;
            check(ok, "64 KiB reduce", i);
        }
    }
    t[5] = MPI_Wtime() - t0;

    /* Two communicators at once, each of half the machine's ranks, in one slot each. */
    MPI_Comm half;
    int color = rank < size / 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, size - rank, &half);
    int hsize;
    MPI_Comm_size(half, &hsize);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        long x = rank, y = -1;
        MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_MAX, half);
        check(y == (color ? size / 2 - 1 : size - 1), "split allreduce", i);
    }
    t[6] = MPI_Wtime() - t0;
    MPI_Comm_free(&half);

    long long mine[3], tot[3];
    long long seg_kb;
    segment(&seg_kb, &mine[0]);
    mine[1] = field("/proc/self/smaps_rollup", "Pss:");
    mine[2] = field("/proc/self/status", "VmHWM:");
    MPI_Reduce(mine, tot, 3, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double tm[7];
    MPI_Reduce(t, tm, 7, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int all_errs;
    MPI_Reduce(&errs, &all_errs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double us = 1e6;
        printf("ranks %d us/op: allreduce_8 %.1f barrier %.1f bcast_8 %.1f allreduce_64k %.1f "
               "bcast_64k %.1f reduce_64k %.1f split_allreduce_8 %.1f\n",
               size, tm[0] / iters * us, tm[1] / iters * us, tm[2] / iters * us,
               tm[3] / big_iters * us, tm[4] / big_iters * us, tm[5] / big_iters * us,
               tm[6] / iters * us);
        printf("ranks %d segment_kb %lld segment_pss_sum_kb %lld pss_sum_kb %lld hwm_sum_kb %lld\n",
               size, seg_kb, tot[0], tot[1], tot[2]);
        if (all_errs == 0)
            printf("No Errors\n");
        else
            printf("Found %d errors\n", all_errs);
    }
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
