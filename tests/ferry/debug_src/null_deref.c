/* ferry run --debug gallery: a lookup that finds nothing on rank 1 returns NULL, and the caller
 * reads through it. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

struct cell {
    int key;
    double value;
};

static struct cell table[4] = {{0, 0.5}, {2, 1.5}, {4, 2.5}, {6, 3.5}};

static struct cell *find(int key)
{
    for (int i = 0; i < 4; i++)
        if (table[i].key == key)
            return &table[i];
    return NULL;
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct cell *c = find(rank);
    double v = c->value; /* error: c is NULL on rank 1 */
    double sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %g\n", sum);
    MPI_Finalize();
    return 0;
}
