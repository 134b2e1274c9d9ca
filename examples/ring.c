/* A token travels around the ring of ranks several times; each rank adds its rank number.
 * Rank 0 checks the total: laps * (0 + 1 + ... + size-1). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, laps = 10;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long token = 0;
    for (int lap = 0; lap < laps; lap++) {
        if (rank == 0) {
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
