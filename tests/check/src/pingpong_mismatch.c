/* Wrong on purpose (with an argument), in a blocking ping-pong of 1000 round trips: several
 * batches of the log scheme, whose blocking sends log after their data and whose receivers
 * fetch a due batch at their next receive. With BAD given, round trip BAD's ping is sent as
 * 1 x MPI_INT and received as 1 x MPI_FLOAT (the same size); with a second argument 1 rank 1
 * receives with MPI_Irecv + MPI_Wait instead. Without arguments the program is correct. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, x[1] = {0};
    MPI_Init(&argc, &argv);
    int bad = argc > 1 ? atoi(argv[1]) : -1, nb = argc > 2 ? atoi(argv[2]) : 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 1000; i++) {
        if (rank == 0) {
            MPI_Send(x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD); /* SEND */
            MPI_Recv(x, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Datatype t = i == bad ? MPI_FLOAT : MPI_INT;
            if (nb) {
                MPI_Request r;
                MPI_Irecv(x, 1, t, 0, 5, MPI_COMM_WORLD, &r); /* IRECV */
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(x, 1, t, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV */
            }
            MPI_Send(x, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
