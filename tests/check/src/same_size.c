/* Wrong on purpose: 4 x MPI_INT sent, 2 x MPI_DOUBLE received (16 bytes both). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, i[4] = {1, 2, 3, 4};
    double d[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(i, 4, MPI_INT, 1, 0, MPI_COMM_WORLD); /* SEND */
    else if (rank == 1)
        MPI_Recv(d, 2, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV */
    MPI_Finalize();
    return 0;
}
