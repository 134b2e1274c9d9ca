/* Wrong on purpose: a datatype used after MPI_Type_free, through a copy of its handle (the
 * variable given to MPI_Type_free itself becomes MPI_DATATYPE_NULL). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a[4] = {0};
    MPI_Datatype pair, copy;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    copy = pair;
    MPI_Type_free(&pair); /* FREE */
    if (rank == 0)
        MPI_Send(a, 2, copy, 1, 0, MPI_COMM_WORLD); /* SEND */
    else if (rank == 1)
        MPI_Recv(a, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
