/* Wildcards: rank 0 receives every message from every other rank with MPI_ANY_SOURCE and
 * MPI_ANY_TAG (blocking and nonblocking), learns sender and tag from the status, and sees each
 * sender's messages in the order they were sent; MPI_STATUS_IGNORE with wildcards; a
 * specific-source receive posted beside a wildcard one; large messages with wildcards. */
#include "mpitest.h"

#define PER 40

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm phase2; /* the nonblocking phase's messages stay apart from the blocking phase's */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &phase2));
    MPI_Comm phase3; /* and the large messages' */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &phase3));
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
            CHECK(v[1] == nextseq[v[0]], "from %d: message %d arrived when %d was due", v[0], v[1],
                  nextseq[v[0]]);
            CHECK(st.MPI_TAG == (v[1] * 7 + v[0]) % 23, "from %d message %d: tag %d", v[0], v[1],
                  st.MPI_TAG);
            nextseq[v[0]] = v[1] + 1;
        }
        /* Nonblocking wildcard receives, some with STATUS_IGNORE, beside specific ones. */
        for (int i = 0; i < mt_size; i++)
            nextseq[i] = 0;
        size_t total = (size_t)(PER * nsend);
        int(*bufs)[2] = calloc((size_t)total, sizeof *bufs);
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

    /* Large messages (rendezvous-sized) received with wildcards: two per sender, sizes that
     * differ by sender; receives posted before or after the messages arrive. */
    {
        const size_t base = 100000;
        if (mt_rank != 0) {
            size_t n = base + (size_t)mt_rank * 11;
            unsigned char *b1 = mt_malloc(n), *b2 = mt_malloc(n);
            MPI_Request r[2];
            mt_fill(b1, n, (unsigned)(mt_rank * 2));
            mt_fill(b2, n, (unsigned)(mt_rank * 2 + 1));
            MPI_OK(MPI_Isend(b1, (int)n, MPI_BYTE, 0, 300, phase3, &r[0]));
            MPI_OK(MPI_Isend(b2, (int)n, MPI_BYTE, 0, 301, phase3, &r[1]));
            MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
            free(b1);
            free(b2);
        } else {
            int total = 2 * (mt_size - 1);
            size_t cap = base + (size_t)mt_size * 11;
            unsigned char *bufs = mt_malloc(cap * (size_t)(total > 0 ? total : 1));
            MPI_Request *reqs = mt_malloc((size_t)(total + 1) * sizeof *reqs);
            MPI_Status *sts = mt_malloc((size_t)(total + 1) * sizeof *sts);
            int *firsts = calloc((size_t)mt_size, sizeof(int));
            for (int k = 0; k < total; k++)
                MPI_OK(MPI_Irecv(bufs + (size_t)k * cap, (int)cap, MPI_BYTE, MPI_ANY_SOURCE,
                                 MPI_ANY_TAG, phase3, &reqs[k]));
            MPI_OK(MPI_Waitall(total, reqs, sts));
            for (int k = 0; k < total; k++) {
                int src = sts[k].MPI_SOURCE, count = -1;
                MPI_Get_count(&sts[k], MPI_BYTE, &count);
                if (src < 1 || src >= mt_size) {
                    CHECK(0, "large wildcard receive %d: source %d", k, src);
                    continue;
                }
                size_t n = base + (size_t)src * 11;
                int second = sts[k].MPI_TAG == 301;
                CHECK(count == (int)n, "large wildcard receive from %d: count %d, expected %zu",
                      src, count, n);
                CHECK(second == firsts[src], "large messages from %d matched out of order", src);
                firsts[src] = 1;
                CHECK_DATA(bufs + (size_t)k * cap, n, (unsigned)(src * 2 + second),
                           "large wildcard message %d from %d", second, src);
            }
            free(bufs);
            free(reqs);
            free(sts);
            free(firsts);
        }
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
    MPI_OK(MPI_Comm_free(&phase3));
    return mt_finish();
}
