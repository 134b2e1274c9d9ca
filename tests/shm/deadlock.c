/* Deadlocks and near-deadlocks for the detector (FERRY_DEADLOCK_S):
 *   recv:    both ranks receive from each other first: a true deadlock;
 *   coll:    rank 0 skips a broadcast and finalizes while rank 1 waits in it (a peer that
 *            left a collective): a true deadlock;
 *   late:    rank 1 sleeps 3 s outside MPI before sending while rank 0 waits in MPI_Recv:
 *            not a deadlock, must end normally. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    const char *mode = argc > 1 ? argv[1] : "recv";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(mode, "recv") == 0) {
        MPI_Recv(&x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
    } else if (strcmp(mode, "coll") == 0) {
        if (rank == 1)
            MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        if (rank == 0)
            MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else {
            sleep(3);
            x = 5;
            MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        sleep(2); /* now rank 0 computes while rank 1 waits in the final barrier */
    }
    MPI_Finalize();
    if (rank == 0)
        printf("x %d\nNo Errors\n", x);
    return 0;
}
