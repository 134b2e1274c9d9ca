/* ferry run --debug gallery: a signed int accumulates the ranks' large values and overflows on
 * the root. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = INT_MAX - rank, all[64];
    MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int total = 0;
        for (int r = 0; r < size && r < 64; r++)
            total = total + all[r]; /* error: overflows at r == 1 */
        printf("total %d\n", total);
    }
    MPI_Finalize();
    return 0;
}
