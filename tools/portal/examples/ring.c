/* A token travels around the ring of ranks: rank 0 starts it, every rank adds its own
 * number and passes it on to the next. Each rank says what it received, so the output
 * shows one line per rank and lap; rank 0 checks the total at the end.
 * Arguments: [laps] (default 3). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int laps = argc > 1 ? atoi(argv[1]) : 3;
    if (laps < 1)
        laps = 1;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long token = 0;
    for (int lap = 0; lap < laps; lap++) {
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("lap %d: the token came back to rank 0 with %ld\n", lap + 1, token);
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("lap %d: rank %d got %ld from rank %d\n", lap + 1, rank, token, prev);
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) {
        long expect = (long)laps * size * (size - 1) / 2;
        printf("ring of %d ranks, %d laps: token %ld (expected %ld) %s\n", size, laps, token,
               expect, token == expect ? "ok" : "WRONG");
    }
    MPI_Finalize();
    return 0;
}
