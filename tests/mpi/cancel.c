/* Cancel: a receive that cannot match is cancelled (Test_cancelled true, buffer untouched) for
 * Irecv, a started persistent receive (which then works normally when restarted), and a
 * wildcard receive; cancel of a completed request has no effect. Cancel of a send: whatever
 * the implementation decides must be consistent: if Test_cancelled says cancelled, the message
 * never arrives; otherwise it arrives intact. Pairs (0,1), (2,3), ... */
#include "mpitest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Status st;
    MPI_Request r;
    int flag = -1;

    /* Receives on a communicator nobody sends on. */
    MPI_Comm quiet;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &quiet));
    int buf[4] = {1, 2, 3, 4};
    int srcs[3] = {0, MPI_ANY_SOURCE, 0};
    int tags[3] = {5, MPI_ANY_TAG, 6};
    for (int k = 0; k < 3; k++) {
        MPI_OK(MPI_Irecv(buf, 4, MPI_INT, srcs[k], tags[k], quiet, &r));
        MPI_OK(MPI_Cancel(&r));
        CHECK(r != MPI_REQUEST_NULL, "MPI_Cancel freed the request");
        if (k == 2) {
            flag = 0;
            while (!flag)
                MPI_OK(MPI_Test(&r, &flag, &st));
        } else {
            MPI_OK(MPI_Wait(&r, &st));
        }
        flag = 0;
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag == 1, "receive %d that cannot match was not cancelled", k);
        CHECK(buf[0] == 1 && buf[3] == 4, "cancelled receive %d changed the buffer", k);
    }

    /* Persistent receive: start, cancel, complete, then restart and use it. */
    int peer = mt_rank ^ 1;
    MPI_Request pr;
    int v = -1;
    int src = peer < mt_size ? peer : mt_rank;
    MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, src, 20, MPI_COMM_WORLD, &pr));
    MPI_OK(MPI_Start(&pr));
    MPI_OK(MPI_Cancel(&pr));
    MPI_OK(MPI_Wait(&pr, &st));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "started persistent receive was not cancelled");
    CHECK(pr != MPI_REQUEST_NULL, "Wait on a cancelled persistent request freed it");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* nobody sends tag 20 before every rank cancelled */
    MPI_OK(MPI_Start(&pr));
    int out = 300 + mt_rank;
    MPI_Request sr;
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, src, 20, MPI_COMM_WORLD, &sr));
    MPI_OK(MPI_Wait(&pr, &st));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0 && v == 300 + src, "restarted persistent receive: cancelled %d value %d", flag,
          v);
    MPI_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Request_free(&pr));

    /* Cancel of a completed receive has no effect. */
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, 0, 21, MPI_COMM_SELF, &sr));
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, 0, 21, MPI_COMM_SELF, &r));
    MPI_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    /* Make sure the receive is done before cancelling. */
    flag = 0;
    while (!flag)
        MPI_OK(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0 && v == out, "cancel of a completed receive: cancelled %d value %d", flag, v);

    /* Cancel of sends that the peer does not receive yet: consistent outcome. */
    if (peer < mt_size) {
        size_t sizes[3] = {8, 4000, 300000};
        for (int i = 0; i < 3; i++) {
            size_t n = sizes[i];
            unsigned char *b = mt_malloc(n);
            for (int k = 0; k < 2; k++) {
                const char *what = k ? "Issend" : "Isend";
                int data_tag = (k ? 50 : 30) + i, note_tag = (k ? 60 : 40) + i;
                int note = -1; /* 0 not cancelled, 1 cancelled, 2 still pending after Cancel */
                if (mt_rank < peer) {
                    mt_fill(b, n, (unsigned)i);
                    if (k)
                        MPI_OK(MPI_Issend(b, (int)n, MPI_BYTE, peer, data_tag, MPI_COMM_WORLD, &r));
                    else
                        MPI_OK(MPI_Isend(b, (int)n, MPI_BYTE, peer, data_tag, MPI_COMM_WORLD, &r));
                    MPI_OK(MPI_Cancel(&r));
                    /* After MPI_Cancel, completing the request is local: poll for up to 10 s
                     * (Ferry's answer comes from the peer, which may wait for a core). */
                    flag = 0;
                    double t0 = MPI_Wtime();
                    while (!flag && MPI_Wtime() - t0 < 10.0)
                        MPI_OK(MPI_Test(&r, &flag, &st));
                    if (flag) {
                        MPI_OK(MPI_Test_cancelled(&st, &note));
                    } else {
                        /* Known deviation, MPICH 4.0 (ch4:ucx): a cancelled send waits for the
                         * receiver. Let the peer receive it, then it must not be cancelled. */
                        if (!mt_is_mpich40())
                            CHECK(0, "%s of %zu bytes: no completion within 10 s of MPI_Cancel",
                                  what, n);
                        note = 2;
                    }
                    MPI_OK(MPI_Send(&note, 1, MPI_INT, peer, note_tag, MPI_COMM_WORLD));
                    if (note == 2) {
                        MPI_OK(MPI_Wait(&r, &st));
                        MPI_OK(MPI_Test_cancelled(&st, &note));
                        CHECK(note == 0, "%s of %zu bytes received by the peer but cancelled", what,
                              n);
                    }
                } else {
                    MPI_OK(MPI_Recv(&note, 1, MPI_INT, peer, note_tag, MPI_COMM_WORLD,
                                    MPI_STATUS_IGNORE));
                    if (note == 1) {
                        /* The cancelled message must never arrive; the note was sent after the
                         * cancel completed, so anything sent is here by now or never. */
                        MPI_OK(
                            MPI_Iprobe(peer, data_tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
                        CHECK(!flag, "%s of %zu bytes was cancelled but arrived anyway", what, n);
                        if (flag)
                            MPI_OK(MPI_Recv(b, (int)n, MPI_BYTE, peer, data_tag, MPI_COMM_WORLD,
                                            MPI_STATUS_IGNORE));
                    } else {
                        memset(b, 0, n);
                        MPI_OK(MPI_Recv(b, (int)n, MPI_BYTE, peer, data_tag, MPI_COMM_WORLD,
                                        MPI_STATUS_IGNORE));
                        CHECK_DATA(b, n, (unsigned)i, "not-cancelled %s of %zu bytes", what, n);
                    }
                }
            }
            free(b);
        }
    }
    MPI_OK(MPI_Comm_free(&quiet));
    return mt_finish();
}
