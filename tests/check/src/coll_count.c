/* Wrong on purpose: rank 1 broadcasts 2 ints where rank 0 broadcasts 1. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x[2] = {1, 2};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Bcast(x, rank == 0 ? 1 : 2, MPI_INT, 0, MPI_COMM_WORLD); /* BCAST */
    MPI_Finalize();
    return 0;
}
