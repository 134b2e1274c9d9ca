/*
 * hello.c - the smallest complete MPI job: MPI_Init, one MPI_Barrier, MPI_Finalize. bench/hosts.sh
 * times whole launches of it (mpiexec start to exit) as the startup time of a job across hosts.
 * With -m rank 0 prints one RESULT line: value = the ranks that met in the barrier, ready_ns =
 * the machine's real-time clock (ns) when rank 0 left it, so that a harness on the same machine
 * (bench/hosts.sh: the test hosts share one kernel and its clock) can tell the time to a job
 * whose every rank has passed MPI_Init from the time of the whole launch.
 */
#define _POSIX_C_SOURCE 200112L
#include "bench_common.h"

#include <time.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (rank == 0 && argc > 1 && strcmp(argv[1], "-m") == 0)
        printf("RESULT bench=hello ranks=%d size=0 value=%d unit=ranks status=ok ready_ns=%lld\n",
               size, size, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    bench_finalize(rank);
    return 0;
}
