/* Two phases 3 s apart, for --trace-window (tests/prof/filters.sh): MPI_Comm_rank right after
 * MPI_Init, a 3 s pause, then MPI_Allreduce. A window starting 1.5 s after MPI_Init holds the
 * second and not the first. */
#include <mpi.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 1, y;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct timespec ts = {3, 0};
    nanosleep(&ts, NULL);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
