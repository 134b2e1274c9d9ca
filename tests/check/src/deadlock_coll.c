/* Wrong on purpose: rank 0 waits in MPI_Barrier while rank 1 waits in MPI_Recv from rank 0. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Barrier(MPI_COMM_WORLD); /* BARRIER */
    else if (rank == 1)
        MPI_Recv(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV */
    if (rank == 1)
        MPI_Barrier(MPI_COMM_WORLD);
    else if (rank == 0)
        MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
