/* Wrong on purpose: rank 0 calls MPI_Bcast where the others call MPI_Reduce. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 1, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD); /* BCAST */
    else
        MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); /* REDUCE */
    MPI_Finalize();
    return 0;
}
