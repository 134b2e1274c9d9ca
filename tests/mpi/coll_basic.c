/* Barrier, Bcast, Reduce and Allreduce on COMM_WORLD, a duplicate and COMM_SELF: every root,
 * counts 0, 1, odd, 1000 and 1<<18 (large), MPI_INT/MPI_DOUBLE/MPI_BYTE payloads; repeated
 * collectives back to back; a barrier waits for the last rank; point-to-point traffic pending
 * across collectives does not mix with them. */
#include "mpitest.h"

static int next_root(int root, int n, int count)
{
    if (count > 1000)
        return n;
    if (n <= 4)
        return root + 1;
    return root == 0 ? n - 1 : n;
}

static void run_on(MPI_Comm comm, const char *name, int big)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int counts[] = {0, 1, 7, 1000, 1 << 18};
    int ncounts = big ? 5 : n > 4 ? 3 : 4;

    for (int i = 0; i < 5; i++)
        MPI_OK(MPI_Barrier(comm));

    /* A barrier waits for the last rank: rank 0 arrives 0.3 s late, so every other rank spends
     * most of that in MPI_Barrier (0.1 s allows for the previous barrier's exit skew). */
    if (n > 1 && n <= 4 && comm == MPI_COMM_WORLD) {
        double t0 = MPI_Wtime();
        if (me == 0)
            while (MPI_Wtime() - t0 < 0.3)
                ;
        MPI_OK(MPI_Barrier(comm));
        double dt = MPI_Wtime() - t0;
        CHECK(me == 0 || dt >= 0.1,
              "%s: rank %d left MPI_Barrier %.3f s after entering, before "
              "rank 0 (0.3 s late) could have entered",
              name, me, dt);
    }

    for (int ci = 0; ci < ncounts; ci++) {
        int count = counts[ci];
        int *ibuf = mt_malloc((size_t)count * sizeof(int) + 4);
        double *dbuf = mt_malloc((size_t)count * sizeof(double) + 8);
        double *dres = mt_malloc((size_t)count * sizeof(double) + 8);
        int *ires = mt_malloc((size_t)count * sizeof(int) + 4);
        /* Every root on small communicators; first and last on larger ones; a large
         * count only from root 0. */
        for (int root = 0; root < n; root = next_root(root, n, count)) {
            /* Bcast of ints from root. */
            for (int k = 0; k < count; k++)
                ibuf[k] = me == root ? root * 7 + k : -1;
            MPI_OK(MPI_Bcast(ibuf, count, MPI_INT, root, comm));
            int bad = -1;
            for (int k = 0; k < count && bad < 0; k++)
                if (ibuf[k] != root * 7 + k)
                    bad = k;
            CHECK(bad < 0, "%s: Bcast of %d ints from %d: element %d", name, count, root, bad);

            /* Bcast of bytes (odd length). */
            unsigned char *bb = (unsigned char *)ires;
            size_t nb = (size_t)count * sizeof(int) + (count ? 3 : 0);
            if (me == root)
                mt_fill(bb, nb, (unsigned)(root + count));
            else
                memset(bb, 0, nb);
            MPI_OK(MPI_Bcast(bb, (int)nb, MPI_BYTE, root, comm));
            CHECK_DATA(bb, nb, (unsigned)(root + count), "%s: Bcast of %zu bytes from %d", name, nb,
                       root);

            /* Reduce SUM of doubles to root: exact for these small integers. */
            for (int k = 0; k < count; k++) {
                dbuf[k] = me + k * 0.5;
                dres[k] = -1;
            }
            MPI_OK(MPI_Reduce(dbuf, dres, count, MPI_DOUBLE, MPI_SUM, root, comm));
            if (me == root) {
                bad = -1;
                for (int k = 0; k < count && bad < 0; k++)
                    if (dres[k] != n * (n - 1) / 2.0 + n * k * 0.5)
                        bad = k;
                CHECK(bad < 0, "%s: Reduce SUM of %d doubles to %d: element %d is %g", name, count,
                      root, bad, bad < 0 ? 0 : dres[bad]);
            }
            /* Reduce MAX of ints. */
            for (int k = 0; k < count; k++)
                ibuf[k] = (me * 31 + k) % (n + 3);
            MPI_OK(MPI_Reduce(ibuf, ires, count, MPI_INT, MPI_MAX, root, comm));
            if (me == root) {
                bad = -1;
                for (int k = 0; k < count && bad < 0; k++) {
                    int want = 0;
                    for (int p = 0; p < n; p++)
                        if ((p * 31 + k) % (n + 3) > want)
                            want = (p * 31 + k) % (n + 3);
                    if (ires[k] != want)
                        bad = k;
                }
                CHECK(bad < 0, "%s: Reduce MAX of %d ints to %d: element %d", name, count, root,
                      bad);
            }
        }
        /* Allreduce SUM and MIN. */
        for (int k = 0; k < count; k++)
            ibuf[k] = me + k;
        MPI_OK(MPI_Allreduce(ibuf, ires, count, MPI_INT, MPI_SUM, comm));
        int bad = -1;
        for (int k = 0; k < count && bad < 0; k++)
            if (ires[k] != n * (n - 1) / 2 + n * k)
                bad = k;
        CHECK(bad < 0, "%s: Allreduce SUM of %d ints: element %d", name, count, bad);
        for (int k = 0; k < count; k++)
            dbuf[k] = (double)(me - k);
        MPI_OK(MPI_Allreduce(dbuf, dres, count, MPI_DOUBLE, MPI_MIN, comm));
        bad = -1;
        for (int k = 0; k < count && bad < 0; k++)
            if (dres[k] != (double)(0 - k))
                bad = k;
        CHECK(bad < 0, "%s: Allreduce MIN of %d doubles: element %d", name, count, bad);
        free(ibuf);
        free(dbuf);
        free(dres);
        free(ires);
    }

    /* Many small collectives back to back. */
    for (int i = 0; i < (n > 4 ? 10 : n > 2 ? 30 : 100); i++) {
        int v = i + me, s = -1;
        MPI_OK(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, comm));
        if (s != n * i + n * (n - 1) / 2) {
            CHECK(0, "%s: back-to-back Allreduce %d gave %d", name, i, s);
            break;
        }
        int b = me == i % n ? i : -1;
        MPI_OK(MPI_Bcast(&b, 1, MPI_INT, i % n, comm));
        if (b != i) {
            CHECK(0, "%s: back-to-back Bcast %d gave %d", name, i, b);
            break;
        }
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int big = mt_size <= 4;
    run_on(MPI_COMM_WORLD, "WORLD", big);
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    run_on(dup, "dup", 0);
    run_on(MPI_COMM_SELF, "SELF", 1);

    /* A receive pending across collectives on the same communicator is not disturbed by
     * them, and the message sent after them lands in it. */
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int v = -1, w = 500 + mt_rank, x = mt_rank, sum = 0;
    MPI_Request r;
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &r));
    MPI_OK(MPI_Barrier(dup));
    MPI_OK(MPI_Bcast(&x, 1, MPI_INT, 0, dup));
    MPI_OK(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, dup));
    MPI_OK(MPI_Reduce(&mt_rank, &sum, 1, MPI_INT, MPI_MAX, 0, dup));
    int flag = 1;
    MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a wildcard receive was matched by collective traffic");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* no rank sends before every rank has tested */
    MPI_OK(MPI_Send(&w, 1, MPI_INT, next, 0, dup));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(v == 500 + prev, "wildcard receive after collectives got %d", v);
    MPI_OK(MPI_Comm_free(&dup));
    return mt_finish();
}
