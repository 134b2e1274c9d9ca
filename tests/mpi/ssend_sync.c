/* Synchronous mode: an Issend must not complete before the matching receive is posted, even
 * when the message has already arrived at the receiver (small, eager-sized and large messages,
 * to another rank and to self). The sender polls with MPI_Test, then tells the receiver (on
 * another tag) that it may post its receive. Also Ssend followed by Recv in the other order. */
#include "mpitest.h"

#define GO_TAG 99

static void check_not_done(MPI_Request *r, const char *what, size_t bytes)
{
    int flag = 0;
    double t0 = MPI_Wtime();
    /* Poll for a while, giving the message time to arrive. */
    while (MPI_Wtime() - t0 < 0.05) {
        MPI_OK(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
        if (flag)
            break;
    }
    CHECK(!flag, "%s of %zu bytes completed before the receive was posted", what, bytes);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    size_t sizes[] = {0, 8, 4000, 16384, 200000, (1u << 20) + 1};
    int n = (int)(sizeof sizes / sizeof sizes[0]);
    int peer = mt_rank ^ 1; /* pairs (0,1), (2,3), ...; an odd last rank works with itself */
    if (peer >= mt_size)
        peer = mt_rank;
    int sender = mt_rank <= peer;
    for (int i = 0; i < n; i++) {
        size_t bytes = sizes[i];
        unsigned char *buf = mt_malloc(bytes);
        if (peer == mt_rank) {
            MPI_Request s, r;
            mt_fill(buf, bytes, (unsigned)i);
            MPI_OK(MPI_Issend(buf, (int)bytes, MPI_BYTE, mt_rank, i, MPI_COMM_WORLD, &s));
            check_not_done(&s, "Issend to self", bytes);
            unsigned char *rbuf = mt_malloc(bytes);
            MPI_OK(MPI_Irecv(rbuf, (int)bytes, MPI_BYTE, mt_rank, i, MPI_COMM_WORLD, &r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
            CHECK_DATA(rbuf, bytes, (unsigned)i, "Issend to self");
            free(rbuf);
        } else if (sender) {
            MPI_Request s;
            mt_fill(buf, bytes, (unsigned)i);
            MPI_OK(MPI_Issend(buf, (int)bytes, MPI_BYTE, peer, i, MPI_COMM_WORLD, &s));
            check_not_done(&s, "Issend", bytes);
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD));
            MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            memset(buf, 0, bytes);
            MPI_OK(MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_DATA(buf, bytes, (unsigned)i, "Issend from %d", peer);
        }
        free(buf);
    }

    /* Blocking Ssends into receives posted in advance complete, in order. */
    if (peer != mt_rank) {
        int vals[3] = {1, 2, 3}, got[3] = {0, 0, 0};
        if (sender) {
            for (int k = 0; k < 3; k++)
                MPI_OK(MPI_Ssend(&vals[k], 1, MPI_INT, peer, 50, MPI_COMM_WORLD));
        } else {
            MPI_Request r[3];
            for (int k = 0; k < 3; k++)
                MPI_OK(MPI_Irecv(&got[k], 1, MPI_INT, peer, 50, MPI_COMM_WORLD, &r[k]));
            MPI_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
            CHECK(got[0] == 1 && got[1] == 2 && got[2] == 3, "Ssend order: %d %d %d", got[0],
                  got[1], got[2]);
        }
    }
    return mt_finish();
}
