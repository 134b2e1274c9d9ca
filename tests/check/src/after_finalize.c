/* Wrong on purpose: MPI_Barrier after MPI_Finalize. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int flag;
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    MPI_Finalized(&flag); /* allowed after MPI_Finalize */
    if (flag)
        MPI_Barrier(MPI_COMM_WORLD); /* BARRIER */
    return 0;
}
