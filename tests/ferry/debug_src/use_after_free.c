/* ferry run --debug gallery: every rank frees its receive buffer, then reads it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *vals = malloc(size * sizeof *vals);
    MPI_Allgather(&rank, 1, MPI_INT, vals, 1, MPI_INT, MPI_COMM_WORLD);
    free(vals);
    int last = vals[size - 1]; /* error: vals was freed on the line above */
    printf("rank %d: last %d\n", rank, last);
    MPI_Finalize();
    return 0;
}
