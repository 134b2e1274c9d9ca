/* ferry run --debug gallery: rank 1 writes one element past the end of a stack array (the
 * classic off-by-one loop bound); the other ranks are correct. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, n = 10;
    int buf[10];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        n = 11;
    for (int i = 0; i < n; i++)
        buf[i] = rank + i; /* error: i == 10 on rank 1 */
    int sum = 0, total = 0;
    for (int i = 0; i < 10; i++)
        sum += buf[i];
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total %d\n", total);
    MPI_Finalize();
    return 0;
}
