/* comm: the time to make and free communicators, the cost a library pays at start-up and
 * solvers pay per phase. Standard MPI C; builds against any MPI.
 *
 *   comm.dup          MPI_Comm_dup + MPI_Comm_free of MPI_COMM_WORLD
 *   comm.split        MPI_Comm_split into two colors (even/odd ranks) + free
 *   comm.split_type   MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) + free
 *   comm.create_group MPI_Comm_create_group of the even ranks + free (even ranks only call it)
 *
 * Each is timed over many repetitions after a warm-up, between barriers; the value is the
 * maximum over ranks of the mean time of one create+free, the median over -r repetitions.
 * A call the MPI refuses with MPI_ERR_UNSUPPORTED_OPERATION is reported `unsupported`.
 *
 *   mpiexec -n 4 ./comm [-m] [-q] [-r reps] [-i iters]
 */
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

enum { OP_DUP, OP_SPLIT, OP_SPLIT_TYPE, OP_CREATE_GROUP, NOPS };
static const char *op_name[NOPS] = {"comm.dup", "comm.split", "comm.split_type",
                                    "comm.create_group"};

static int rank, size;

/* One create + free; returns an MPI error code. */
static int once(int op, MPI_Group evens)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    switch (op) {
    case OP_DUP: rc = MPI_Comm_dup(MPI_COMM_WORLD, &c); break;
    case OP_SPLIT: rc = MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c); break;
    case OP_SPLIT_TYPE:
        rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &c);
        break;
    case OP_CREATE_GROUP:
        if (rank % 2 == 0)
            rc = MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &c);
        break;
    }
    if (rc == MPI_SUCCESS && c != MPI_COMM_NULL)
        rc = MPI_Comm_free(&c);
    return rc;
}

static int unsupported(int rc)
{
    int cls = rc;
    MPI_Error_class(rc, &cls);
#ifdef MPI_ERR_UNSUPPORTED_OPERATION
    return cls == MPI_ERR_UNSUPPORTED_OPERATION;
#else
    return 0;
#endif
}

int main(int argc, char **argv)
{
    int machine = 0, quick = 0, reps = 5, iters = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m"))
            machine = 1;
        else if (!strcmp(argv[i], "-q"))
            quick = 1;
        else if (!strcmp(argv[i], "-r") && i + 1 < argc)
            bench_parse_int(argv[++i], &reps);
        else if (!strcmp(argv[i], "-i") && i + 1 < argc)
            bench_parse_int(argv[++i], &iters);
        else
            bench_die(rank, "usage: comm [-m] [-q] [-r reps] [-i iters]");
    }
    if (quick)
        reps = reps > 3 ? 3 : reps;
    if (iters <= 0)
        iters = quick ? 50 : 400;
    if (reps < 1)
        reps = 1;
    MPI_Group world, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int range[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(world, 1, range, &evens);
    if (!machine && rank == 0) {
        bench_print_library();
        printf("# comm: create + free, us per pair (max over ranks, median of %d reps of %d)\n",
               reps, iters);
    }
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int op = 0; op < NOPS; op++) {
        int rc = once(op, evens), any_unsupported = 0, bad = unsupported(rc);
        MPI_Allreduce(&bad, &any_unsupported, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        int failed = rc != MPI_SUCCESS && !bad, any_failed = 0;
        MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        const char *status = any_unsupported ? "unsupported" : any_failed ? "FAILED" : "ok";
        double median = 0, mn = 0, mean = 0;
        if (!any_unsupported && !any_failed) {
            for (int w = 0; w < iters / 10; w++) /* warm-up */
                once(op, evens);
            for (int r = 0; r < reps; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++)
                    once(op, evens);
                double mine = (MPI_Wtime() - t0) / iters * 1e6, worst = 0;
                MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                t[r] = worst;
            }
            bench_stats(t, reps, &median, &mn, &mean);
        }
        if (rank == 0) {
            if (machine)
                printf("RESULT bench=%s ranks=%d size=0 value=%.3f unit=us status=%s min=%.3f\n",
                       op_name[op], size, median, status, mn);
            else
                printf("%-18s %4d ranks  %10.2f us  (min %.2f)  %s\n", op_name[op], size, median,
                       mn, status);
        }
    }
    free(t);
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
