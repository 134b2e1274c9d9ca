/* A job that runs until it is ended from outside (tests/slurm/scancel.sh, nodefail.sh): every
 * rank says where it runs once all are in MPI, then they loop over an Allreduce with a short
 * sleep, so that at any moment ranks are inside MPI waiting for each other. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, len, one = 1, sum;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("ready %d %s\n", rank, host);
    fflush(stdout);
    for (;;) {
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (sum != size) {
            printf("rank %d: sum %d, expected %d\n", rank, sum, size);
            return 1;
        }
        usleep(10000);
    }
}
