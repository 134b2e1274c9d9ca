/* Wrong on purpose: each rank names itself as MPI_Bcast's root. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Bcast(&x, 1, MPI_INT, rank, MPI_COMM_WORLD); /* BCAST */
    MPI_Finalize();
    return 0;
}
