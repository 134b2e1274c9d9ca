/* A known program for the recorder's tests: ROUNDS times around the ring, each rank sends
 * 1000 bytes to the next (MPI_Send) and receives from the previous (MPI_Recv); then 3 x
 * MPI_Allreduce of one int and one MPI_Barrier. Counts per rank: 2 x ROUNDS messages... see
 * tests/prof/profile.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 10

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char buf[1000] = {0};
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < ROUNDS; i++) {
        if (rank == 0) {
            MPI_Send(buf, 1000, MPI_CHAR, next, 5, MPI_COMM_WORLD); /* SEND */
            MPI_Recv(buf, 1000, MPI_CHAR, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV */
        } else {
            MPI_Recv(buf, 1000, MPI_CHAR, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV */
            MPI_Send(buf, 1000, MPI_CHAR, next, 5, MPI_COMM_WORLD); /* SEND */
        }
    }
    int x = rank, y;
    for (int i = 0; i < 3; i++)
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring done %d\n", y);
    MPI_Finalize();
    return 0;
}
