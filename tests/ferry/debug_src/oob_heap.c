/* ferry run --debug gallery: every rank reads one element past the end of a block from
 * malloc while summing its part of a vector. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = 8 + rank;
    double *part = malloc(n * sizeof *part);
    for (int i = 0; i < n; i++)
        part[i] = rank * n + i;
    double local = 0, global = 0;
    for (int i = 0; i <= n; i++)
        local += part[i]; /* error: reads part[n] */
    MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %g\n", global);
    free(part);
    MPI_Finalize();
    return 0;
}
