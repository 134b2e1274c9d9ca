/* Wrong on purpose: two ranks each wait in MPI_Recv for the other (a deadlock). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank < 2) {
        MPI_Recv(&a, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV */
        MPI_Send(&a, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
