/* Wrong on purpose: MPI_Comm_rank before MPI_Init. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank = -1, flag;
    MPI_Initialized(&flag); /* allowed before MPI_Init */
    if (!flag)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* RANK */
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
