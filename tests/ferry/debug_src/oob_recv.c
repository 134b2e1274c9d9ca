/* ferry run --debug gallery: rank 1 receives 16 ints into a stack array of 8 (the count is the
 * sender's, not the buffer's), so MPI_Recv itself writes past the end of the array. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, data[16], part[8];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 16; i++)
        data[i] = i;
    if (rank == 0)
        MPI_Send(data, 16, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(part, 16, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* error */
    if (rank == 1)
        printf("part[0] %d\n", part[0]);
    MPI_Finalize();
    return 0;
}
