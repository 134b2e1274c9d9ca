/* Moved to later issues (collectives): MPI_Gather (results gathered with point-to-point). */
/* Ring accumulation: a token carrying an array travels the ring several times; each rank
 * transforms it in a rank-dependent, order-sensitive way. Rank 0 prints the token after
 * every lap, then the results of Sendrecv_replace and of a non-blocking ring, which it
 * collects from every rank with point-to-point, in rank order. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define LEN 6
#define LAPS 4

/* Rank 0 receives one value of type t from each rank into out[rank], in rank order (its own
 * by copying `bytes` bytes); the other ranks send theirs. */
static void collect(const void *mine, void *out, int bytes, MPI_Datatype t, int tag)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != 0) {
        MPI_Send(mine, 1, t, 0, tag, MPI_COMM_WORLD);
        return;
    }
    memcpy(out, mine, (size_t)bytes);
    for (int src = 1; src < size; src++)
        MPI_Recv((char *)out + (size_t)src * bytes, 1, t, src, tag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    long tok[LEN];
    for (int lap = 0; lap < LAPS; lap++) {
        if (rank == 0) {
            if (lap == 0)
                for (int i = 0; i < LEN; i++)
                    tok[i] = i + 1;
            for (int i = 0; i < LEN; i++)
                tok[i] = (tok[i] * 31 + lap) % 1000003;
            if (size > 1) {
                MPI_Send(tok, LEN, MPI_LONG, right, lap, MPI_COMM_WORLD);
                MPI_Recv(tok, LEN, MPI_LONG, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            printf("lap %d:", lap);
            for (int i = 0; i < LEN; i++)
                printf(" %ld", tok[i]);
            printf("\n");
        } else {
            MPI_Recv(tok, LEN, MPI_LONG, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < LEN; i++)
                tok[i] = (tok[i] * (rank + 2) + i * rank) % 1000003;
            MPI_Send(tok, LEN, MPI_LONG, right, lap, MPI_COMM_WORLD);
        }
    }

    /* Each rank's value shifts right by one, size times: everything returns home. */
    int v = rank * 100 + 7;
    int trail = 0;
    for (int i = 0; i < size; i++) {
        MPI_Sendrecv_replace(&v, 1, MPI_INT, right, 99, left, 99, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
        trail = trail * 3 + v % 10 + v / 100;
    }
    int trails[64];
    collect(&trail, trails, sizeof trail, MPI_INT, 100);
    if (rank == 0) {
        printf("replace: home=%d trails:", v);
        for (int i = 0; i < size; i++)
            printf(" %d", trails[i]);
        printf("\n");
    }

    /* Non-blocking both ways around the ring, with doubles. */
    double mine[3] = {rank * 0.25, rank + 1e-3, -rank}, fromleft[3], fromright[3];
    MPI_Request req[4];
    MPI_Irecv(fromleft, 3, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(fromright, 3, MPI_DOUBLE, right, 6, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(mine, 3, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(mine, 3, MPI_DOUBLE, left, 6, MPI_COMM_WORLD, &req[3]);
    MPI_Status sts[4];
    MPI_Waitall(4, req, sts);
    double mix = fromleft[0] * 3 + fromleft[1] - fromright[2] * 0.5;
    double mixes[64];
    collect(&mix, mixes, sizeof mix, MPI_DOUBLE, 101);
    if (rank == 0) {
        printf("nonblocking:");
        for (int i = 0; i < size; i++)
            printf(" %.6f", mixes[i]);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
