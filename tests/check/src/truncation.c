/* Wrong on purpose: 8 ints sent into a receive buffer of 4. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a[8] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(a, 8, MPI_INT, 1, 3, MPI_COMM_WORLD); /* SEND */
    else if (rank == 1)
        MPI_Recv(a, 4, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV */
    MPI_Finalize();
    return 0;
}
