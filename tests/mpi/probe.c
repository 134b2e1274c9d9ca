/* Probe and Iprobe: status source, tag and count of a waiting message before it is received;
 * probing does not consume the message (probe twice, then receive); wildcards; Iprobe returns
 * false when nothing matches; the receive after a probe gets the probed message; probes from
 * PROC_NULL; probing large messages. Rank 0 is the receiver, every other rank sends. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Status st;
    int flag = -1, count = -1;

    /* Nothing is sent on this dup, so Iprobe must say no. */
    MPI_Comm quiet;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &quiet));
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, quiet, &flag, &st));
    CHECK(flag == 0, "Iprobe on a silent communicator returned flag %d", flag);

    /* PROC_NULL: at once, empty status. */
    flag = 0;
    MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag == 1, "Iprobe from PROC_NULL: flag %d", flag);
    CHECK_EMPTY(&st, MPI_PROC_NULL, "Iprobe from PROC_NULL");
    MPI_OK(MPI_Probe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK_EMPTY(&st, MPI_PROC_NULL, "Probe from PROC_NULL");

    const int nmsg = 4;
    size_t sizes[4] = {0, 10, 5000, 300000};
    if (mt_rank != 0) {
        for (int i = 0; i < nmsg; i++) {
            unsigned char *b = mt_malloc(sizes[i]);
            mt_fill(b, sizes[i], (unsigned)(mt_rank * 10 + i));
            MPI_OK(MPI_Send(b, (int)sizes[i], MPI_BYTE, 0, 10 + i, MPI_COMM_WORLD));
            free(b);
        }
    } else {
        /* From each sender: Probe with specific source and tag, Iprobe until found, wildcards. */
        for (int src = 1; src < mt_size; src++) {
            for (int i = 0; i < nmsg; i++) {
                int tag = 10 + i;
                if (i % 2 == 0) {
                    MPI_OK(MPI_Probe(src, tag, MPI_COMM_WORLD, &st));
                } else {
                    flag = 0;
                    while (!flag)
                        MPI_OK(MPI_Iprobe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
                }
                MPI_Get_count(&st, MPI_BYTE, &count);
                CHECK(st.MPI_SOURCE == src && st.MPI_TAG == tag && count == (int)sizes[i],
                      "probe of message %d from %d: source %d tag %d count %d", i, src,
                      st.MPI_SOURCE, st.MPI_TAG, count);
                /* Probing again gives the same message. */
                MPI_OK(MPI_Probe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
                int c2 = -1;
                MPI_Get_count(&st, MPI_BYTE, &c2);
                if (mt_size == 2)
                    CHECK(st.MPI_SOURCE == src && c2 == count, "second probe: source %d count %d",
                          st.MPI_SOURCE, c2);
                /* Receive what the first probe saw, sized by its count. */
                unsigned char *b = mt_malloc((size_t)count);
                MPI_OK(MPI_Recv(b, count, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
                CHECK(st.MPI_SOURCE == src && st.MPI_TAG == tag, "receive after probe");
                CHECK_DATA(b, (size_t)count, (unsigned)(src * 10 + i),
                           "message %d from %d after probe", i, src);
                free(b);
            }
        }
        /* All consumed: nothing left. */
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(flag == 0, "Iprobe found a message after all were received (source %d tag %d)",
              st.MPI_SOURCE, st.MPI_TAG);
    }

    /* A probe with ANY_SOURCE sees messages from every sender; receive exactly the probed one. */
    if (mt_rank != 0) {
        int v = mt_rank;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 50, quiet));
    } else {
        int seen = 0;
        for (int k = 1; k < mt_size; k++) {
            MPI_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, quiet, &st));
            int v = -1;
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, quiet, MPI_STATUS_IGNORE));
            CHECK(v == st.MPI_SOURCE, "probed source %d, received value %d", st.MPI_SOURCE, v);
            if (v > 0 && v < 64)
                seen |= 1 << v;
        }
        if (mt_size < 32)
            CHECK(seen == ((1 << mt_size) - 2), "ANY_SOURCE probes saw senders mask %#x", seen);
    }
    /* STATUS_IGNORE is allowed. */
    MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_free(&quiet));
    return mt_finish();
}
