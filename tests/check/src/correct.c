/* A correct program that uses much of what the checker looks at: it must run with no report. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    /* 2 x MPI_INT matches 1 x contiguous(2, MPI_INT). */
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    int a[2] = {rank, rank}, b[2];
    MPI_Sendrecv(a, 1, two, next, 1, b, 2, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&two);

    /* Nonblocking, out of order completion, wildcards. */
    int x[4] = {0}, y[4] = {1, 2, 3, 4};
    MPI_Request r[4];
    MPI_Irecv(&x[0], 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&x[1], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&y[0], 1, MPI_INT, next, 5, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&y[1], 1, MPI_INT, next, 6, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);

    /* A message received smaller than the buffer is fine. */
    double d[8];
    if (rank == 0 && size > 1) {
        MPI_Send(d, 3, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Status st;
        MPI_Recv(d, 8, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, &st);
    }

    /* Persistent requests. */
    int pv = rank, pr = -1;
    MPI_Request pq[2];
    MPI_Send_init(&pv, 1, MPI_INT, next, 3, MPI_COMM_WORLD, &pq[0]);
    MPI_Recv_init(&pr, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, &pq[1]);
    for (int it = 0; it < 3; it++) {
        MPI_Startall(2, pq);
        MPI_Waitall(2, pq, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&pq[0]);
    MPI_Request_free(&pq[1]);

    /* Collectives, communicators. */
    int s = rank, t = 0;
    MPI_Allreduce(&s, &t, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Bcast(&t, 1, MPI_INT, 0, half);
    int *all = malloc(sizeof(int) * (size_t)size);
    MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Request ib;
    MPI_Ibarrier(half, &ib);
    MPI_Wait(&ib, MPI_STATUS_IGNORE);
    MPI_Comm_free(&half);
    free(all);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("correct: done\n");
    MPI_Finalize();
    return 0;
}
