/* Wrong on purpose: a communicator, a datatype and 12 persistent requests never freed. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[12];
    MPI_Comm dup;
    MPI_Datatype pair;
    MPI_Request req[12];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* DUP */
    MPI_Type_contiguous(2, MPI_INT, &pair); /* TYPE */
    MPI_Type_commit(&pair);
    for (int i = 0; i < 12; i++)
        MPI_Send_init(&buf[i], 1, MPI_INT, rank, i, MPI_COMM_WORLD, &req[i]); /* INIT */
    MPI_Finalize();
    return 0;
}
