/* ferry run --debug gallery: rank 0 frees a buffer a second time in its cleanup. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static void cleanup(char *msg)
{
    free(msg); /* error: the second free, on rank 0 */
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *msg = malloc(64);
    strcpy(msg, "hello");
    MPI_Bcast(msg, 64, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0)
        free(msg);
    cleanup(msg);
    MPI_Finalize();
    return 0;
}
