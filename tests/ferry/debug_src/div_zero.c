/* ferry run --debug gallery: the work per rank is divided by a count that is zero on the last
 * rank. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int work = 1000, others = size - 1 - rank;
    int share = work / others; /* error: others == 0 on the last rank */
    int total = 0;
    MPI_Allreduce(&share, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total %d\n", total);
    MPI_Finalize();
    return 0;
}
