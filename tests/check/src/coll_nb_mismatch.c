/* Wrong on purpose: rank 0 starts an MPI_Ibcast where the others start an MPI_Ireduce. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 1, y = 0;
    MPI_Request r;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &r); /* IBCAST */
    else
        MPI_Ireduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &r); /* IREDUCE */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
