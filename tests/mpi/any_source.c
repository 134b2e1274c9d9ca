/* Wildcards: rank 0 receives every message from every other rank with MPI_ANY_SOURCE and
 * MPI_ANY_TAG (blocking and nonblocking), learns sender and tag from the status, and sees each
 * sender's messages in the order they were sent; MPI_STATUS_IGNORE with wildcards; a
 * specific-source receive posted beside a wildcard one. */
#include "mpitest.h"

#define PER 40

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm phase2; /* the nonblocking phase's messages stay apart from the blocking phase's */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &phase2));
    if (mt_rank != 0) {
        for (int i = 0; i < PER; i++) {
            int v[2] = {mt_rank, i};
            MPI_OK(MPI_Send(v, 2, MPI_INT, 0, (i * 7 + mt_rank) % 23, MPI_COMM_WORLD));
        }
        for (int i = 0; i < PER; i++) {
            int v[2] = {mt_rank, i};
            MPI_OK(MPI_Send(v, 2, MPI_INT, 0, 100 + i % 3, phase2));
        }
    } else {
        int nsend = mt_size - 1;
        int *nextseq = calloc((size_t)mt_size, sizeof(int));
        /* Blocking wildcard receives. */
        for (int k = 0; k < PER * nsend; k++) {
            int v[2] = {-1, -1};
            MPI_Status st;
            MPI_OK(MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_SOURCE == v[0], "status source %d, payload says %d", st.MPI_SOURCE, v[0]);
            if (v[0] < 1 || v[0] >= mt_size)
                continue;
            CHECK(v[1] == nextseq[v[0]], "from %d: message %d arrived when %d was due", v[0],
                  v[1], nextseq[v[0]]);
            CHECK(st.MPI_TAG == (v[1] * 7 + v[0]) % 23, "from %d message %d: tag %d", v[0], v[1],
                  st.MPI_TAG);
            nextseq[v[0]] = v[1] + 1;
        }
        /* Nonblocking wildcard receives, some with STATUS_IGNORE, beside specific ones. */
        for (int i = 0; i < mt_size; i++)
            nextseq[i] = 0;
        size_t total = (size_t)(PER * nsend);
        int (*bufs)[2] = calloc((size_t)total, sizeof *bufs);
        MPI_Request *reqs = calloc((size_t)total, sizeof *reqs);
        MPI_Status *sts = calloc((size_t)total, sizeof *sts);
        for (size_t k = 0; k < total; k++)
            MPI_OK(MPI_Irecv(bufs[k], 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, phase2, &reqs[k]));
        MPI_OK(MPI_Waitall((int)total, reqs, sts));
        /* Receives posted in order match in order: per sender, sequence numbers increase. */
        for (size_t k = 0; k < total; k++) {
            int src = bufs[k][0];
            CHECK(sts[k].MPI_SOURCE == src && sts[k].MPI_TAG == 100 + bufs[k][1] % 3,
                  "nonblocking wildcard %zu: status %d/%d, payload %d/%d", k, sts[k].MPI_SOURCE,
                  sts[k].MPI_TAG, src, bufs[k][1]);
            if (src < 1 || src >= mt_size)
                continue;
            CHECK(bufs[k][1] == nextseq[src], "nonblocking: from %d got %d when %d was due", src,
                  bufs[k][1], nextseq[src]);
            nextseq[src] = bufs[k][1] + 1;
        }
        free(bufs);
        free(reqs);
        free(sts);
        free(nextseq);
    }

    /* A specific receive posted before a wildcard one: rank 2's message matches the specific
     * receive (the first posted that matches), rank 1's the wildcard. */
    if (mt_size >= 3) {
        if (mt_rank == 0) {
            int a = -1, b = -1;
            MPI_Request r[2];
            MPI_Status st[2];
            MPI_OK(MPI_Irecv(&a, 1, MPI_INT, 2, 7, MPI_COMM_WORLD, &r[0]));
            MPI_OK(MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[1]));
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            MPI_OK(MPI_Waitall(2, r, st));
            CHECK(a == 2 && st[0].MPI_SOURCE == 2, "specific receive got %d", a);
            CHECK(b == 1 && st[1].MPI_SOURCE == 1 && st[1].MPI_TAG == 8,
                  "wildcard receive got %d from %d tag %d", b, st[1].MPI_SOURCE, st[1].MPI_TAG);
        } else {
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            if (mt_rank == 2)
                MPI_OK(MPI_Send(&mt_rank, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
            if (mt_rank == 1)
                MPI_OK(MPI_Send(&mt_rank, 1, MPI_INT, 0, 8, MPI_COMM_WORLD));
        }
    }
    MPI_OK(MPI_Comm_free(&phase2));
    return mt_finish();
}
