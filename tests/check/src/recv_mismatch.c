/* Wrong on purpose: rank 0 sends 4 floats, rank 1 receives 4 ints (same size, other types). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    float f[4] = {1, 2, 3, 4};
    int i[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(f, 4, MPI_FLOAT, 1, 7, MPI_COMM_WORLD); /* SEND */
    else if (rank == 1)
        MPI_Recv(i, 4, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV */
    MPI_Finalize();
    return 0;
}
