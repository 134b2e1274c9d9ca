/* Wrong on purpose: two ranks each MPI_Send to the other, then MPI_Recv. It works only because
 * small standard sends are buffered (a potential deadlock). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a = 1, b = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank < 2) {
        MPI_Send(&a, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD); /* SEND */
        MPI_Recv(&b, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV */
    }
    MPI_Finalize();
    return 0;
}
