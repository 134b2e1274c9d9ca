/* Wrong on purpose: MPI_Allreduce with the same send and receive buffer, not MPI_IN_PLACE. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int a[4] = {1, 2, 3, 4};
    MPI_Init(&argc, &argv);
    MPI_Allreduce(a, a, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* ALLREDUCE */
    MPI_Finalize();
    return 0;
}
