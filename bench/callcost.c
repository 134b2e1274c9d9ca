/*
 * callcost.c - what one MPI call costs a tool in front of libmpi (bench/prof.sh).
 *
 * Times `iters` calls of MPI_Comm_rank, a call that does almost nothing inside the library, so
 * that with a PMPI tool preloaded (mpiexec --profile, --trace, --check) the difference to a
 * run without it is the tool's cost per call: its clock reads, statistics and trace records.
 * Repeats that `reps` times and reports the median repetition's ns per call (rank 0).
 *
 * Usage: callcost [-m] [-i iters] [-r reps]
 *   -m  machine-readable: "RESULT bench=callcost ranks=N size=0 value=<ns> unit=ns status=ok"
 */
#include "bench_common.h"

int main(int argc, char **argv)
{
    int iters = 1000000, reps = 11, machine = 0;
    MPI_Init(&argc, &argv);
    const bench_opt_t opts[] = {
        {'m', BENCH_OPT_FLAG, &machine, 0},
        {'i', BENCH_OPT_INT, &iters, 1},
        {'r', BENCH_OPT_INT, &reps, 1},
    };
    if (bench_getopt(argc, argv, opts, 3) != 0 || reps > 1000) {
        fprintf(stderr, "usage: callcost [-m] [-i iters] [-r reps]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank, size, r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double ns[1000];
    for (int k = 0; k < reps; k++) {
        double t = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
        ns[k] = (MPI_Wtime() - t) * 1e9 / (double)iters;
    }
    qsort(ns, (size_t)reps, sizeof ns[0], cmp_double);
    if (rank == 0) {
        if (machine)
            printf("RESULT bench=callcost ranks=%d size=0 value=%.2f unit=ns status=ok min=%.2f\n",
                   size, ns[reps / 2], ns[0]);
        else
            printf("MPI_Comm_rank: %.2f ns per call (median of %d x %d; best %.2f)\n",
                   ns[reps / 2], reps, iters, ns[0]);
    }
    MPI_Finalize();
    return r < 0;
}
