/* Buffered mode: Buffer_attach/Buffer_detach (detach returns the buffer and size and waits
 * until buffered messages are delivered), many Bsends filling the buffer before the receiver
 * posts anything, the buffer reused after messages drain, Ibsend, a zero-size Bsend, attach
 * again after detach, the send buffer reusable at once after Bsend returns. */
#include "mpitest.h"

#define NMSG 50
#define MSG 1000

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int peer = mt_rank ^ 1;
    if (peer >= mt_size)
        peer = mt_rank; /* odd rank out talks to itself */
    int sender = mt_rank <= peer;
    int bsize = NMSG * (MSG + MPI_BSEND_OVERHEAD) + MPI_BSEND_OVERHEAD;
    char *bb = mt_malloc((size_t)bsize);

    for (int round = 0; round < 3; round++) {
        MPI_OK(MPI_Buffer_attach(bb, bsize));
        if (sender) {
            unsigned char msg[MSG];
            for (int i = 0; i < NMSG; i++) {
                mt_fill(msg, MSG, (unsigned)(round * 100 + i));
                if (i % 3 == 2) {
                    MPI_Request r;
                    MPI_OK(MPI_Ibsend(msg, MSG, MPI_BYTE, peer, i, MPI_COMM_WORLD, &r));
                    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE)); /* local: the data is buffered */
                } else {
                    MPI_OK(MPI_Bsend(msg, MSG, MPI_BYTE, peer, i, MPI_COMM_WORLD));
                }
                memset(msg, 0, MSG); /* the buffer is ours again */
            }
            MPI_OK(MPI_Bsend(NULL, 0, MPI_BYTE, peer, NMSG, MPI_COMM_WORLD));
        }
        if (!sender || peer == mt_rank) {
            if (peer != mt_rank) {
                /* Let everything sit in the sender's buffer for a moment. */
                double t0 = MPI_Wtime();
                while (MPI_Wtime() - t0 < 0.02)
                    ;
            }
            unsigned char msg[MSG];
            for (int i = NMSG - 1; i >= 0; i--) {
                MPI_OK(MPI_Recv(msg, MSG, MPI_BYTE, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK_DATA(msg, MSG, (unsigned)(round * 100 + i), "buffered message %d round %d", i,
                           round);
            }
            MPI_Status st;
            int count = -1;
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, NMSG, MPI_COMM_WORLD, &st));
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == 0, "zero-size Bsend: count %d", count);
        }
        void *p = NULL;
        int size = -1;
        MPI_OK(MPI_Buffer_detach(&p, &size));
        CHECK(p == bb && size == bsize, "Buffer_detach gave %p/%d, attached %p/%d", p, size,
              (void *)bb, bsize);
    }

    /* Refilling: a buffer for only 4 messages serves 40 as long as they drain in between. */
    int small = 4 * (MSG + MPI_BSEND_OVERHEAD);
    MPI_OK(MPI_Buffer_attach(bb, small));
    for (int i = 0; i < 40; i++) {
        unsigned char msg[MSG];
        if (sender) {
            mt_fill(msg, MSG, (unsigned)(1000 + i));
            MPI_OK(MPI_Bsend(msg, MSG, MPI_BYTE, peer, 7, MPI_COMM_WORLD));
        }
        if (!sender || peer == mt_rank) {
            MPI_OK(MPI_Recv(msg, MSG, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_DATA(msg, MSG, (unsigned)(1000 + i), "refilled buffer message %d", i);
        }
        if (i % 4 == 3 && peer != mt_rank) {
            /* Ensure the previous 4 have been received before buffering 4 more. */
            if (sender)
                MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            else
                MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 8, MPI_COMM_WORLD));
        }
    }
    void *p;
    int size;
    MPI_OK(MPI_Buffer_detach(&p, &size));
    CHECK(p == bb && size == small, "second Buffer_detach gave %p/%d", p, size);
    free(bb);
    return mt_finish();
}
