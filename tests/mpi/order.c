/* The non-overtaking rule: messages from one sender that match the same receive arrive in the
 * order sent, whatever their sizes (small after large, zero-size between) and whatever the send
 * modes (Isend, Issend, Ibsend and blocking Send mixed); per-tag streams stay ordered when received tag by tag;
 * receives posted in order are matched in order. Every rank sends to rank 0. */
#include "mpitest.h"

#define NMSG 300

static size_t size_of(int i)
{
    /* mostly small, now and then eager-sized or large, sometimes empty */
    if (i % 50 == 25)
        return 200000 + (size_t)i;
    if (i % 10 == 3)
        return 9000 + (size_t)i;
    if (i % 7 == 0)
        return 0;
    return (size_t)(4 + i % 13) * 4;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    const size_t maxsz = 200000 + NMSG;
    unsigned char *buf = mt_malloc(maxsz);

    if (mt_rank != 0) {
        unsigned char **bufs = mt_malloc(NMSG * sizeof *bufs);
        MPI_Request *reqs = mt_malloc(NMSG * sizeof *reqs);
        int bsize = NMSG * (int)(256 + MPI_BSEND_OVERHEAD);
        void *bb = mt_malloc((size_t)bsize);
        MPI_OK(MPI_Buffer_attach(bb, bsize));
        for (int i = 0; i < NMSG; i++) {
            size_t n = size_of(i);
            bufs[i] = mt_malloc(n + 4);
            /* a sequence number, then a pattern */
            if (n >= 4) {
                memcpy(bufs[i], &i, sizeof i);
                mt_fill(bufs[i] + 4, n - 4, (unsigned)(mt_rank * NMSG + i));
            }
            /* one stream (tag 1), mixed modes */
            if (i % 5 == 1)
                MPI_OK(MPI_Issend(bufs[i], (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[i]));
            else if (i % 5 == 2 && n <= 256)
                MPI_OK(MPI_Ibsend(bufs[i], (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[i]));
            else if (i % 5 == 3 && n <= 256) { /* blocking: Ferry's request-less path */
                MPI_OK(MPI_Send(bufs[i], (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD));
                reqs[i] = MPI_REQUEST_NULL;
            } else
                MPI_OK(MPI_Isend(bufs[i], (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[i]));
        }
        MPI_OK(MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE));
        for (int i = 0; i < NMSG; i++)
            free(bufs[i]);

        /* Three tags interleaved: A B C A B C ...; blocking sends. */
        for (int i = 0; i < 60; i++) {
            int v[2] = {i / 3, mt_rank};
            MPI_OK(MPI_Send(v, 2, MPI_INT, 0, 10 + i % 3, MPI_COMM_WORLD));
        }
        void *p;
        int sz;
        MPI_OK(MPI_Buffer_detach(&p, &sz));
        free(bb);
        free(bufs);
        free(reqs);
    } else {
        /* Stream from each sender, received with ANY_TAG from that sender: in order. */
        for (int src = 1; src < mt_size; src++) {
            for (int i = 0; i < NMSG; i++) {
                size_t n = size_of(i);
                MPI_Status st;
                int count = -1;
                MPI_OK(MPI_Recv(buf, (int)maxsz, MPI_BYTE, src, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_BYTE, &count);
                if (count != (int)n) {
                    int seq = -1;
                    if (count >= 4)
                        memcpy(&seq, buf, sizeof seq);
                    CHECK(0, "from %d: message %d expected (%zu bytes), got %d bytes (seq %d)", src,
                          i, n, count, seq);
                    break;
                }
                if (n >= 4) {
                    int seq = -1;
                    memcpy(&seq, buf, sizeof seq);
                    CHECK(seq == i, "from %d: message %d expected, got %d", src, i, seq);
                    CHECK_DATA(buf + 4, n - 4, (unsigned)(src * NMSG + i), "from %d message %d",
                               src, i);
                }
            }
        }
        /* Tag streams: receive all of tag 12 from each sender first, then 10, then 11. */
        int order[3] = {12, 10, 11};
        for (int src = 1; src < mt_size; src++)
            for (int t = 0; t < 3; t++)
                for (int i = 0; i < 20; i++) {
                    int v[2] = {-1, -1};
                    MPI_OK(
                        MPI_Recv(v, 2, MPI_INT, src, order[t], MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    CHECK(v[0] == i && v[1] == src, "tag %d from %d: got seq %d, expected %d",
                          order[t], src, v[0], i);
                }
    }

    /* Receives posted in order are matched in order (rank 1 sends 50 to rank 0). */
    if (mt_size > 1 && mt_rank <= 1) {
        int vals[50];
        MPI_Request r[50];
        if (mt_rank == 1) {
            for (int i = 0; i < 50; i++) {
                vals[i] = i;
                MPI_OK(MPI_Isend(&vals[i], 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &r[i]));
            }
        } else {
            for (int i = 0; i < 50; i++)
                MPI_OK(MPI_Irecv(&vals[i], 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &r[i]));
        }
        MPI_OK(MPI_Waitall(50, r, MPI_STATUSES_IGNORE));
        if (mt_rank == 0) {
            int ok = 1;
            for (int i = 0; i < 50; i++)
                ok &= vals[i] == i;
            CHECK(ok, "posted receives were not matched in the order posted");
        }
    }
    free(buf);
    return mt_finish();
}
