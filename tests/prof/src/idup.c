/* MPI_Comm_idup of a split communicator, then a message on it (tests/prof/trace.sh): the
 * communicator is registered at its first use, with the members' world ranks and an id equal on
 * its members (made at the idup, without a message). 4 ranks. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half, d;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Request r;
    MPI_Comm_idup(half, &d, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int hr, hs;
    MPI_Comm_rank(d, &hr);
    MPI_Comm_size(d, &hs);
    if (hr == 0) MPI_Send(&x, 1, MPI_INT, 1, 3, d);
    if (hr == 1) MPI_Recv(&x, 1, MPI_INT, 0, 3, d, MPI_STATUS_IGNORE);
    MPI_Comm_free(&d);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
