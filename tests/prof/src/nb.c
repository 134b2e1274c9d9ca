/* Nonblocking and persistent messages, and collectives with known sizes (tests/prof/nb.sh).
 * Each rank, size >= 2, next = rank+1, prev = rank-1 (mod size):
 *   A: MPI_Irecv from prev (tag 7, 800 bytes), MPI_Isend to next, MPI_Waitall with
 *      MPI_STATUSES_IGNORE;
 *   B: MPI_Irecv from MPI_ANY_SOURCE (tag 8, 16 bytes), MPI_Isend to next, MPI_Waitany twice;
 *   C: persistent: MPI_Recv_init from prev (tag 9, 40 bytes) and MPI_Send_init to next,
 *      3 x (MPI_Startall, MPI_Testall until done), then MPI_Request_free;
 *   D: MPI_Bcast of 100 ints from root 1; MPI_Gather of 10 doubles to root 0; MPI_Ibarrier +
 *      MPI_Wait; MPI_Comm_split into even and odd ranks, MPI_Allreduce of 1 int on it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    char a[800] = {0}, b[800] = {0};
    MPI_Request r[2];
    MPI_Irecv(b, 800, MPI_CHAR, prev, 7, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(a, 800, MPI_CHAR, next, 7, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);

    int idx;
    MPI_Irecv(b, 16, MPI_CHAR, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(a, 16, MPI_CHAR, next, 8, MPI_COMM_WORLD, &r[1]);
    MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
    MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);

    MPI_Recv_init(b, 40, MPI_CHAR, prev, 9, MPI_COMM_WORLD, &r[0]);
    MPI_Send_init(a, 40, MPI_CHAR, next, 9, MPI_COMM_WORLD, &r[1]);
    for (int k = 0; k < 3; k++) {
        int done = 0;
        MPI_Startall(2, r);
        while (!done)
            MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);

    int v[100] = {0};
    double d[10] = {0}, all[10 * 64];
    MPI_Bcast(v, 100, MPI_INT, 1, MPI_COMM_WORLD);
    MPI_Gather(d, 10, MPI_DOUBLE, all, 10, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Request rb;
    MPI_Ibarrier(MPI_COMM_WORLD, &rb);
    MPI_Wait(&rb, MPI_STATUS_IGNORE);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int x = 1, y;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half);
    MPI_Comm_free(&half);
    if (rank == 0)
        printf("nb done\n");
    MPI_Finalize();
    return 0;
}
