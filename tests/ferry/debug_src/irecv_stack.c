/* ferry run --debug gallery: rank 1 posts a nonblocking receive into an array local to a
 * helper function, which returns before the message lands; MPI_Wait then writes into the
 * helper's dead stack frame. */
#include <mpi.h>
#include <stdio.h>

static MPI_Request post_recv(int from)
{
    int buf[4];
    MPI_Request req;
    MPI_Irecv(buf, 4, MPI_INT, from, 0, MPI_COMM_WORLD, &req);
    return req; /* buf dies here, the receive still pending */
}

int main(int argc, char **argv)
{
    int rank, data[4] = {1, 2, 3, 4}, ready = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Request r = post_recv(0);
        /* Only now may rank 0 send: the message cannot land before the receive is posted. */
        MPI_Send(&ready, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE); /* error: lands in post_recv's buf */
    } else if (rank == 0) {
        MPI_Recv(&ready, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(data, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    printf("rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
