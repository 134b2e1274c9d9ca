/*
 * trace_events.c - a job that makes a known number of trace events (bench/trace_big.sh).
 *
 * Each rank makes `events` / 4 MPI_Sendrecv calls around a ring of all ranks: under
 * `mpiexec --trace` each call records ENTER, SEND, RECV and LEAVE, so every rank's trace holds
 * `events` events (plus a handful from MPI_Finalize). Rank 0 prints how long MPI_Finalize took
 * (with --trace: the last chunks written, the clock sync and the profile).
 *
 * Usage: trace_events [events] (default 1000000)
 */
#define _POSIX_C_SOURCE 200112L
#include "bench_common.h"

#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long events = argc > 1 ? atol(argv[1]) : 1000000;
    int rank, size, out = 0, in = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (events < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: trace_events [events >= 4]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long i = 0; i < events / 4; i++)
        MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_INT,
                     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    MPI_Finalize();
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (rank == 0)
        printf("MPI_Finalize: %.3f s\n", (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
    return 0;
}
