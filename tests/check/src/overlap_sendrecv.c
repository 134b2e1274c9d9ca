/* Wrong on purpose: MPI_Sendrecv with one buffer for both (that is MPI_Sendrecv_replace). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, a[4] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Sendrecv(a, 4, MPI_INT, (rank + 1) % size, 0, a, 4, MPI_INT, (rank + size - 1) % size, 0, /* SENDRECV */
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
