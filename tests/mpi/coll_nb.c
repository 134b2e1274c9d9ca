/* Nonblocking collectives (MPI_I...), checked against the blocking ones:
 *   - every collective (coll_cases.h) for int, double, a derived vector with holes and a pair
 *     type under a non-commutative user operator, counts 0, 1, 7 and large (past the eager
 *     limit), MPI_IN_PLACE where allowed, both ends as root; again on a split communicator
 *     whose ranks run backwards relative to MPI_COMM_WORLD;
 *   - Ibarrier does not complete before every rank has entered it;
 *   - several collectives outstanding at once on two communicators, of different kinds and of
 *     the same kind, completed in reverse order with Waitall, Testsome, Waitany and Wait;
 *   - overlap with point-to-point traffic on the same communicator (wildcard receives posted
 *     before the collective must not see its messages);
 *   - zero counts with NULL buffers; MPI_Request_free of an active collective (it finishes
 *     by itself); MPI_Cancel of a collective request is an error. */
#include <unistd.h>

#include "coll_cases.h"

/* Ibarrier: no rank completes it before the last rank has entered. Rank 0 enters last, after
 * every other rank has reported (point to point) that its own Ibarrier is still pending. */
static void ibarrier_waits(void)
{
    MPI_Request req;
    int flag = 1, token = 0;
    if (mt_rank != 0) {
        MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        for (int i = 0; i < 50; i++)
            MPI_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Ibarrier completed before rank 0 entered it");
        token = flag;
        MPI_OK(MPI_Send(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        for (int i = 1; i < mt_size; i++)
            MPI_OK(
                MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    CHECK(req == MPI_REQUEST_NULL, "MPI_Wait did not free the Ibarrier request");
}

enum { N = 1000, NREQ = 10 };

/* Expected values, computed from the rank alone. */
static int sum_ranks(int p)
{
    return p * (p - 1) / 2;
}

/* Ten collectives outstanding on two communicators (a duplicate of world and world reversed),
 * completed in reverse order by `how`: 0 Waitall, 1 Testsome, 2 Waitany, 3 Wait each. */
static void outstanding(MPI_Comm a, MPI_Comm b, int how)
{
    int p = mt_size, ra, rb;
    MPI_Comm_rank(a, &ra);
    MPI_Comm_rank(b, &rb);
    int *in = mt_malloc(sizeof(int) * N), *sum1 = mt_malloc(sizeof(int) * N),
        *sum2 = mt_malloc(sizeof(int) * N), *bc = mt_malloc(sizeof(int) * N),
        *ag = mt_malloc(sizeof(int) * (size_t)p), *a2a_s = mt_malloc(sizeof(int) * (size_t)p),
        *a2a_r = mt_malloc(sizeof(int) * (size_t)p), *gat = mt_malloc(sizeof(int) * (size_t)p),
        *scan = mt_malloc(sizeof(int) * N), *red = mt_malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++) {
        in[i] = mt_rank + i;
        bc[i] = rb == 0 ? 3 * i + 1 : -1;
    }
    for (int j = 0; j < p; j++)
        a2a_s[j] = ra * 100 + j;
    MPI_Request r[NREQ];
    MPI_OK(MPI_Iallreduce(in, sum1, N, MPI_INT, MPI_SUM, a, &r[0]));
    MPI_OK(MPI_Ibcast(bc, N, MPI_INT, 0, b, &r[1]));
    MPI_OK(MPI_Iallgather(&ra, 1, MPI_INT, ag, 1, MPI_INT, a, &r[2]));
    MPI_OK(MPI_Ialltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, a, &r[3]));
    MPI_OK(MPI_Iallreduce(in, sum2, N, MPI_INT, MPI_SUM, b, &r[4]));
    MPI_OK(MPI_Igather(&rb, 1, MPI_INT, gat, 1, MPI_INT, p - 1, b, &r[5]));
    MPI_OK(MPI_Ibarrier(a, &r[6]));
    MPI_OK(MPI_Iscan(in, scan, N, MPI_INT, MPI_SUM, b, &r[7]));
    MPI_OK(MPI_Ireduce(in, red, N, MPI_INT, MPI_MAX, 0, a, &r[8]));
    MPI_OK(MPI_Ibarrier(b, &r[9]));
    MPI_Request rev[NREQ];
    for (int i = 0; i < NREQ; i++)
        rev[i] = r[NREQ - 1 - i];
    if (how == 0) {
        MPI_OK(MPI_Waitall(NREQ, rev, MPI_STATUSES_IGNORE));
    } else if (how == 1) {
        int left = NREQ, out, idx[NREQ];
        while (left > 0) {
            MPI_OK(MPI_Testsome(NREQ, rev, &out, idx, MPI_STATUSES_IGNORE));
            CHECK(out != MPI_UNDEFINED, "Testsome: no active request while %d are left", left);
            if (out == MPI_UNDEFINED)
                break;
            left -= out;
        }
    } else if (how == 2) {
        for (int k = 0; k < NREQ; k++) {
            int idx;
            MPI_OK(MPI_Waitany(NREQ, rev, &idx, MPI_STATUS_IGNORE));
            CHECK(idx != MPI_UNDEFINED && rev[idx] == MPI_REQUEST_NULL, "Waitany index %d", idx);
        }
    } else {
        for (int i = 0; i < NREQ; i++)
            MPI_OK(MPI_Wait(&rev[i], MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < NREQ; i++)
        CHECK(rev[i] == MPI_REQUEST_NULL, "request %d not freed by its completion", i);
    int rsum = sum_ranks(p), bad = 0;
    for (int i = 0; i < N; i++) {
        bad += sum1[i] != rsum + p * i || sum2[i] != rsum + p * i || bc[i] != 3 * i + 1;
        /* scan on b (ranks reversed): world ranks p-1 .. p-1-rb */
        int expect = 0;
        for (int q = 0; q <= rb; q++)
            expect += (p - 1 - q) + i;
        bad += scan[i] != expect;
        if (ra == 0)
            bad += red[i] != p - 1 + i;
    }
    for (int j = 0; j < p; j++) {
        bad += ag[j] != j || a2a_r[j] != j * 100 + ra;
        if (rb == p - 1)
            bad += gat[j] != j;
    }
    CHECK(bad == 0, "%d wrong values after ten outstanding collectives (completion %d)", bad, how);
    free(in);
    free(sum1);
    free(sum2);
    free(bc);
    free(ag);
    free(a2a_s);
    free(a2a_r);
    free(gat);
    free(scan);
    free(red);
}

/* Six of the same kind on one communicator, with different data, waited for last first. */
static void same_kind(MPI_Comm c)
{
    enum { K = 6 };
    int in[K][64], out[K][64], p = mt_size;
    MPI_Request r[K];
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < 64; i++)
            in[k][i] = (k + 1) * (mt_rank + i);
        MPI_OK(MPI_Iallreduce(in[k], out[k], 64, MPI_INT, MPI_SUM, c, &r[k]));
    }
    for (int k = K - 1; k >= 0; k--)
        MPI_OK(MPI_Wait(&r[k], MPI_STATUS_IGNORE));
    int bad = 0;
    for (int k = 0; k < K; k++)
        for (int i = 0; i < 64; i++)
            bad += out[k][i] != (k + 1) * (sum_ranks(p) + p * i);
    CHECK(bad == 0, "%d wrong values in six outstanding Iallreduce on one communicator", bad);
}

/* Collectives and point-to-point on the same communicator at once: a wildcard receive posted
 * before the collectives must get the point-to-point message, not a collective's. */
static void with_p2p(MPI_Comm c)
{
    int p = mt_size, right = (mt_rank + 1) % p, left = (mt_rank - 1 + p) % p;
    int any = -1, ring = -1, msg = mt_rank * 10, sum[256], in[256], all[64];
    MPI_Request r[5];
    MPI_Status st;
    for (int i = 0; i < 256; i++)
        in[i] = i;
    MPI_OK(MPI_Irecv(&any, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &r[0]));
    MPI_OK(MPI_Iallreduce(in, sum, 256, MPI_INT, MPI_SUM, c, &r[1]));
    MPI_OK(MPI_Ibarrier(c, &r[2]));
    MPI_OK(MPI_Isend(&msg, 1, MPI_INT, right, 4, c, &r[3]));
    MPI_OK(MPI_Wait(&r[0], &st));
    MPI_OK(
        MPI_Sendrecv(&msg, 1, MPI_INT, right, 3, &ring, 1, MPI_INT, left, 3, c, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Iallgather(&msg, 1, MPI_INT, all, 1, MPI_INT, c, &r[4]));
    MPI_OK(MPI_Waitall(4, r + 1, MPI_STATUSES_IGNORE));
    CHECK(any == left * 10 && st.MPI_SOURCE == left && st.MPI_TAG == 4,
          "wildcard receive got %d from %d tag %d, expected %d from %d tag 4", any, st.MPI_SOURCE,
          st.MPI_TAG, left * 10, left);
    CHECK(ring == left * 10, "Sendrecv beside collectives got %d, expected %d", ring, left * 10);
    int bad = 0;
    for (int i = 0; i < 256; i++)
        bad += sum[i] != p * i;
    for (int j = 0; j < p; j++)
        bad += all[j] != j * 10;
    CHECK(bad == 0, "%d wrong values in collectives beside point-to-point", bad);
}

static void misc(void)
{
    MPI_Request r;
    /* Static: a freed request may still write into them after this function has returned. */
    static int sum[4], one[4] = {1, 1, 1, 1};
    int x = mt_rank, y = -1;
    /* Zero counts, NULL buffers. */
    MPI_OK(MPI_Ibcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Iallreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Iallgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    /* Test until done. */
    MPI_OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r));
    for (int flag = 0; !flag;)
        MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(y == mt_size - 1 && r == MPI_REQUEST_NULL, "Iallreduce by Test: %d", y);
    /* MPI_Request_free of an active collective: it runs to its end by itself. Known deviation,
     * MPICH 4.0: it refuses to free an active nonblocking collective request (kind=10). */
    if (!mt_is_mpich40()) {
        MPI_OK(MPI_Iallreduce(one, sum, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Request_free(&r));
        CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free did not set MPI_REQUEST_NULL");
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    /* MPI_Cancel of a collective request is erroneous: an error, and the request completes. */
    MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r));
    CHECK(MPI_Cancel(&r) != MPI_SUCCESS, "MPI_Cancel of an Ibarrier request succeeded");
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm dup, rev;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - mt_rank, &rev));
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(rev, MPI_ERRORS_RETURN);
    cc_mode = M_NB;

    cc_setup(dup);
    cc_barrier();
    const int counts[] = {0, 1, 7};
    for (int ti = 0; ti < NTYPES; ti++)
        for (unsigned ci = 0; ci < sizeof counts / sizeof *counts; ci++)
            cc_all(ti, counts[ci]);
    /* Large: past the eager limit (with FERRY_EAGER_MAX=64, a testlist line) for the
     * whole-vector collectives. */
    cc_all(T_INT, 20000);
    cc_all(T_VEC, 9000);
    /* Rank order is the communicator's: the non-commutative operator on a reversed one. */
    cc_setup(rev);
    cc_all(T_AFFINE, 5);
    cc_all(T_INT, 3);

    ibarrier_waits();
    for (int how = 0; how < 4; how++)
        outstanding(dup, rev, how);
    same_kind(dup);
    same_kind(rev);
    with_p2p(dup);
    with_p2p(MPI_COMM_WORLD);
    misc();

    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Comm_free(&rev));
    return mt_finish();
}
