/* ferry run --debug gallery: a correct program (a ring exchange, heap and stack arrays, a
 * reduction) that must give no report. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = 1000;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int i = 0; i < n; i++)
        x[i] = rank + i * 0.5;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Sendrecv(x, n, MPI_DOUBLE, next, 7, y, n, MPI_DOUBLE, prev, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    double local = 0, global = 0;
    for (int i = 0; i < n; i++)
        local += y[i];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(x);
    free(y);
    int counts[8] = {0};
    counts[rank % 8] = 1;
    if (rank == 0)
        printf("sum %g, first count %d\n", global, counts[0]);
    MPI_Finalize();
    return 0;
}
