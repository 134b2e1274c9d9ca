/* Matched probes: Mprobe/Improbe remove the message from matching (a second probe sees the next
 * message, an ordinary receive cannot take it), Mrecv/Imrecv receive exactly it, even with
 * another receive posted; MPI_MESSAGE_NO_PROC from PROC_NULL and Mrecv of it; Improbe false
 * when nothing matches; large messages. Rank 0 receives from every other rank. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Status st;
    MPI_Message msg;
    int flag = -1, count = -1;

    /* PROC_NULL. */
    MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) did not give MPI_MESSAGE_NO_PROC");
    CHECK_EMPTY(&st, MPI_PROC_NULL, "Mprobe from PROC_NULL");
    int x = 77;
    MPI_OK(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL, "Mrecv of MESSAGE_NO_PROC did not set MESSAGE_NULL");
    CHECK(x == 77, "Mrecv of MESSAGE_NO_PROC changed the buffer");
    CHECK_EMPTY(&st, MPI_PROC_NULL, "Mrecv of MPI_MESSAGE_NO_PROC");
    flag = 0;
    MPI_OK(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(flag == 1 && msg == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL): flag %d", flag);
    MPI_Request r;
    MPI_OK(MPI_Imrecv(&x, 1, MPI_INT, &msg, &r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK_EMPTY(&st, MPI_PROC_NULL, "Imrecv of MPI_MESSAGE_NO_PROC");

    MPI_Comm quiet;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &quiet));
    MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, quiet, &flag, &msg, &st));
    CHECK(flag == 0, "Improbe on a silent communicator: flag %d", flag);

    size_t sizes[3] = {4, 3000, (1u << 20) + 9};
    if (mt_rank != 0) {
        for (int i = 0; i < 3; i++) {
            /* Two messages with the same tag, first then second, both in flight at once (the
             * receiver probes both before receiving either). */
            unsigned char *b1 = mt_malloc(sizes[i]), *b2 = mt_malloc(sizes[i]);
            MPI_Request sr[2];
            mt_fill(b1, sizes[i], (unsigned)(mt_rank * 7 + i));
            mt_fill(b2, sizes[i], (unsigned)(mt_rank * 7 + i + 100));
            MPI_OK(MPI_Isend(b1, (int)sizes[i], MPI_BYTE, 0, i, MPI_COMM_WORLD, &sr[0]));
            MPI_OK(MPI_Isend(b2, (int)sizes[i], MPI_BYTE, 0, i, MPI_COMM_WORLD, &sr[1]));
            MPI_OK(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));
            free(b1);
            free(b2);
        }
    } else {
        for (int src = 1; src < mt_size; src++) {
            for (int i = 0; i < 3; i++) {
                MPI_Message m1, m2;
                MPI_Status s1, s2;
                if (i == 1) {
                    flag = 0;
                    while (!flag)
                        MPI_OK(MPI_Improbe(src, i, MPI_COMM_WORLD, &flag, &m1, &s1));
                } else {
                    MPI_OK(MPI_Mprobe(src, i, MPI_COMM_WORLD, &m1, &s1));
                }
                CHECK(m1 != MPI_MESSAGE_NULL && m1 != MPI_MESSAGE_NO_PROC,
                      "Mprobe gave no message");
                /* The second probe must see the second message, not the first again. */
                MPI_OK(MPI_Mprobe(src, i, MPI_COMM_WORLD, &m2, &s2));
                MPI_Get_count(&s1, MPI_BYTE, &count);
                CHECK(s1.MPI_SOURCE == src && s1.MPI_TAG == i && count == (int)sizes[i],
                      "Mprobe status: source %d tag %d count %d", s1.MPI_SOURCE, s1.MPI_TAG, count);
                unsigned char *b1 = mt_malloc(sizes[i]), *b2 = mt_malloc(sizes[i]);
                /* Receive them in the reverse order, the second with Imrecv. */
                MPI_OK(MPI_Imrecv(b2, (int)sizes[i], MPI_BYTE, &m2, &r));
                CHECK(m2 == MPI_MESSAGE_NULL, "Imrecv did not set the message to MESSAGE_NULL");
                MPI_OK(MPI_Wait(&r, &st));
                CHECK(st.MPI_SOURCE == src && st.MPI_TAG == i, "Imrecv status source %d tag %d",
                      st.MPI_SOURCE, st.MPI_TAG);
                MPI_OK(MPI_Mrecv(b1, (int)sizes[i], MPI_BYTE, &m1, &st));
                CHECK(m1 == MPI_MESSAGE_NULL, "Mrecv did not set the message to MESSAGE_NULL");
                MPI_Get_count(&st, MPI_BYTE, &count);
                CHECK(count == (int)sizes[i], "Mrecv count %d", count);
                CHECK_DATA(b1, sizes[i], (unsigned)(src * 7 + i), "first message %d from %d", i,
                           src);
                CHECK_DATA(b2, sizes[i], (unsigned)(src * 7 + i + 100), "second message %d from %d",
                           i, src);
                free(b1);
                free(b2);
            }
        }
    }

    /* A matched message is not taken by a receive posted later with wildcards. */
    if (mt_rank != 0) {
        int v[2] = {mt_rank, 1000 + mt_rank};
        MPI_OK(MPI_Send(&v[0], 1, MPI_INT, 0, 5, quiet));
        MPI_OK(MPI_Send(&v[1], 1, MPI_INT, 0, 5, quiet));
    } else {
        for (int src = 1; src < mt_size; src++) {
            MPI_Message m;
            int a = -1, b = -1;
            MPI_OK(MPI_Mprobe(src, 5, quiet, &m, &st));
            MPI_OK(MPI_Recv(&b, 1, MPI_INT, src, MPI_ANY_TAG, quiet, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Mrecv(&a, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
            CHECK(a == src && b == 1000 + src, "matched message from %d: Mrecv got %d, Recv got %d",
                  src, a, b);
        }
    }
    MPI_OK(MPI_Comm_free(&quiet));
    return mt_finish();
}
