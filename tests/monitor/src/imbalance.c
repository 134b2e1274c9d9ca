/* An imbalanced job (tests/monitor/imbalance.sh): rank 0 computes (no MPI call) until the file
 * argv[1] exists, the others wait for it in MPI_Allreduce. The monitor shows rank 0 near 0 % in
 * MPI and the others near 100 %. Gives up after 100 s without the file. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    volatile double x = 0;
    double t0 = now();
    if (rank == 0) {
        while (access(argv[1], F_OK) != 0) {
            for (int i = 0; i < 200000; i++)
                x += 1e-9 * i;
            if (now() - t0 > 100) {
                fprintf(stderr, "imbalance: %s never appeared\n", argv[1]);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
    }
    double in = x, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
