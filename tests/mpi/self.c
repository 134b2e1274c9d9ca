/* Messages to one's own rank, on COMM_WORLD and COMM_SELF: Isend then Recv, Irecv then Send,
 * Bsend then Recv, Irecv then Rsend, Issend (not complete until the receive is posted, then
 * complete), Ssend into a posted Irecv, sizes 0 to 4 MiB + 1; probes of self messages; many
 * self messages queued before any receive. */
#include "modes.h"

static void self_xfer(MPI_Comm comm, int me, size_t n, unsigned seed)
{
    unsigned char *s = mt_malloc(n), *r = mt_malloc(n);
    MPI_Request sr, rr;
    MPI_Status st;
    int flag, count;
    mt_fill(s, n, seed);

    /* Isend first, the receive later (after a probe). */
    MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, me, 1, comm, &sr));
    MPI_OK(MPI_Probe(me, 1, comm, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == (int)n && st.MPI_SOURCE == me, "probe of a self message: count %d source %d",
          count, st.MPI_SOURCE);
    memset(r, 0, n);
    MPI_OK(MPI_Recv(r, (int)n, MPI_BYTE, me, 1, comm, &st));
    MPI_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    CHECK_DATA(r, n, seed, "Isend to self of %zu bytes", n);

    /* Irecv first, then a blocking Send, Rsend and Ssend. */
    for (int mode = 0; mode < 3; mode++) {
        memset(r, 0, n);
        MPI_OK(MPI_Irecv(r, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 2, comm, &rr));
        if (mode == 0)
            MPI_OK(MPI_Send(s, (int)n, MPI_BYTE, me, 2, comm));
        else if (mode == 1)
            MPI_OK(MPI_Rsend(s, (int)n, MPI_BYTE, me, 2, comm));
        else
            MPI_OK(MPI_Ssend(s, (int)n, MPI_BYTE, me, 2, comm));
        MPI_OK(MPI_Wait(&rr, &st));
        CHECK(st.MPI_SOURCE == me && st.MPI_TAG == 2, "self receive status %d/%d", st.MPI_SOURCE,
              st.MPI_TAG);
        CHECK_DATA(r, n, seed, "%s to self of %zu bytes into a posted receive",
                   mode == 0   ? "Send"
                   : mode == 1 ? "Rsend"
                               : "Ssend",
                   n);
    }

    /* Bsend to self, received afterwards. */
    memset(r, 0, n);
    MPI_OK(MPI_Bsend(s, (int)n, MPI_BYTE, me, 3, comm));
    MPI_OK(MPI_Recv(r, (int)n, MPI_BYTE, me, 3, comm, MPI_STATUS_IGNORE));
    CHECK_DATA(r, n, seed, "Bsend to self of %zu bytes", n);

    /* Issend to self: pending until the receive is posted. */
    MPI_OK(MPI_Issend(s, (int)n, MPI_BYTE, me, 4, comm, &sr));
    flag = 0;
    for (int i = 0; i < 100 && !flag; i++)
        MPI_OK(MPI_Test(&sr, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "Issend to self of %zu bytes completed before the receive was posted", n);
    memset(r, 0, n);
    MPI_OK(MPI_Irecv(r, (int)n, MPI_BYTE, me, 4, comm, &rr));
    MPI_Request both[2] = {sr, rr};
    MPI_OK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
    CHECK_DATA(r, n, seed, "Issend to self of %zu bytes", n);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    size_t sizes[] = {0, 1, 7, 4096, 16385, 100000, (4u << 20) + 1};
    void *bb = mt_attach(sizes[6], 1);
    for (int i = 0; i < 7; i++) {
        self_xfer(MPI_COMM_WORLD, mt_rank, sizes[i], (unsigned)i);
        self_xfer(MPI_COMM_SELF, 0, sizes[i], (unsigned)(i + 50));
    }

    /* 200 self messages queued before any receive, received in reverse tag order. */
    int vals[200], got[200];
    MPI_Request r[200];
    for (int i = 0; i < 200; i++) {
        vals[i] = i * 3;
        MPI_OK(MPI_Isend(&vals[i], 1, MPI_INT, 0, i, MPI_COMM_SELF, &r[i]));
    }
    for (int i = 199; i >= 0; i--)
        MPI_OK(MPI_Recv(&got[i], 1, MPI_INT, 0, i, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Waitall(200, r, MPI_STATUSES_IGNORE));
    int ok = 1;
    for (int i = 0; i < 200; i++)
        ok &= got[i] == i * 3;
    CHECK(ok, "queued self messages received out of place");
    mt_detach(bb);
    return mt_finish();
}
