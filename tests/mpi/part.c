/* Partitioned communication (MPI-4.1 chapter 4) around a ring of every size, each rank sending
 * to its right neighbour and receiving from its left:
 *   - equal partition counts, several rounds of Start/Pready/Wait on the same requests, with
 *     Parrived false before the round and true after, and the data checked;
 *   - different counts on the two sides (8 x 3 ints sent into 4 x 6 and 2 x 12 into 6 x 4, same
 *     total), marked with Pready_range and Pready_list;
 *   - early bird (on Ferry): the sender marks only partition 0 ready and then waits for the
 *     receiver, who must see its first partition arrive while the last has not (so partitions
 *     travel before the whole buffer is ready), then tells the sender to mark the rest;
 *   - a sender that marks every partition ready before the receiver makes its request;
 *   - a non-contiguous send type (a vector) into contiguous receive partitions, and large
 *     partitions (rendezvous);
 *   - with FY_TEST_PART_THREADS=n under MPI_THREAD_MULTIPLE: n threads mark disjoint partitions
 *     ready at the same time;
 *   - MPI_COMM_SELF to itself; errors (Pready on an inactive request or twice, Parrived out of
 *     range, a wildcard source, sides whose sizes differ) return the right classes. */
#include <pthread.h>

#include "mpitest.h"

static int right, left;
static int is_ferry;

/* The standard gives no class for a partition out of range; Ferry says MPI_ERR_ARG (MPICH
 * 4.0.2 says MPI_ERR_OTHER), so other libraries need only refuse. */
#define CHECK_REFUSED(rc, cls, what)                                                               \
    do {                                                                                           \
        int r_ = (rc);                                                                             \
        if (is_ferry)                                                                              \
            CHECK_CLASS(r_, cls, what);                                                            \
        else                                                                                       \
            CHECK(r_ != MPI_SUCCESS, "%s: accepted", what);                                        \
    } while (0)

static void ring_round(MPI_Comm comm, int sp, int sc, int rp, int rc, int rounds, int mode)
{
    int total = sp * sc;
    int *sbuf = malloc(sizeof(int) * (size_t)total), *rbuf = malloc(sizeof(int) * (size_t)total);
    MPI_Request s, r;
    MPI_OK(MPI_Psend_init(sbuf, sp, sc, MPI_INT, right, 5, comm, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Precv_init(rbuf, rp, rc, MPI_INT, left, 5, comm, MPI_INFO_NULL, &r));
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < total; i++) {
            sbuf[i] = mt_rank * 100000 + round * 1000 + i;
            rbuf[i] = -1;
        }
        MPI_OK(MPI_Start(&r));
        int flag = 1;
        MPI_OK(MPI_Parrived(r, rp - 1, &flag));
        CHECK(!flag, "partition %d arrived before the sender started (round %d)", rp - 1, round);
        MPI_Barrier(comm); /* every receiver has looked before any sender starts */
        MPI_OK(MPI_Start(&s));
        if (mode == 0) {
            for (int i = sp - 1; i >= 0; i--) /* backwards: units complete out of order */
                MPI_OK(MPI_Pready(i, s));
        } else if (mode == 1) {
            MPI_OK(MPI_Pready_range(sp / 2, sp - 1, s));
            if (sp / 2 > 0)
                MPI_OK(MPI_Pready_range(0, sp / 2 - 1, s));
        } else {
            int *list = malloc(sizeof(int) * (size_t)sp), n = 0;
            for (int i = 1; i < sp; i += 2)
                list[n++] = i;
            MPI_OK(MPI_Pready_list(n, list, s));
            n = 0;
            for (int i = 0; i < sp; i += 2)
                list[n++] = i;
            MPI_OK(MPI_Pready_list(n, list, s));
            free(list);
        }
        for (int j = 0; j < rp; j++) {
            do
                MPI_OK(MPI_Parrived(r, j, &flag));
            while (!flag);
        }
        MPI_Status st;
        MPI_OK(MPI_Wait(&r, &st));
        MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        int got = -1;
        MPI_Get_count(&st, MPI_INT, &got);
        CHECK(got == total && st.MPI_SOURCE == left && st.MPI_TAG == 5,
              "receive status: count %d source %d tag %d", got, st.MPI_SOURCE, st.MPI_TAG);
        for (int i = 0; i < total; i++)
            if (rbuf[i] != left * 100000 + round * 1000 + i) {
                CHECK(0, "sp %d rp %d round %d: element %d is %d, expected %d", sp, rp, round, i,
                      rbuf[i], left * 100000 + round * 1000 + i);
                break;
            }
    }
    MPI_OK(MPI_Request_free(&s));
    MPI_OK(MPI_Request_free(&r));
    CHECK(s == MPI_REQUEST_NULL && r == MPI_REQUEST_NULL, "Request_free left a handle");
    free(sbuf);
    free(rbuf);
}

/* The sender marks partition 0 only, then waits for word from the receiver. */
static void early_bird(void)
{
    enum { P = 4, C = 1000 };
    double *sbuf = malloc(sizeof(double) * P * C), *rbuf = malloc(sizeof(double) * P * C);
    for (int i = 0; i < P * C; i++)
        sbuf[i] = mt_rank + i * 0.5;
    MPI_Request s, r;
    MPI_OK(MPI_Psend_init(sbuf, P, C, MPI_DOUBLE, right, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Precv_init(rbuf, P, C, MPI_DOUBLE, left, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Start(&s));
    MPI_OK(MPI_Pready(0, s));
    int flag = 0;
    do
        MPI_OK(MPI_Parrived(r, 0, &flag));
    while (!flag);
    MPI_OK(MPI_Parrived(r, P - 1, &flag));
    CHECK(!flag, "last partition arrived before the sender marked it ready");
    /* Tell the left neighbour its first partition arrived; hear the same from the right. */
    int go = 1, heard = 0;
    MPI_OK(MPI_Sendrecv(&go, 1, MPI_INT, left, 10, &heard, 1, MPI_INT, right, 10, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    MPI_OK(MPI_Pready_range(1, P - 1, s));
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < P * C; i++)
        if (rbuf[i] != left + i * 0.5) {
            CHECK(0, "early bird: element %d is %g", i, rbuf[i]);
            break;
        }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    free(sbuf);
    free(rbuf);
}

/* Every partition is ready before the receiver even makes its request, so the sender learns
 * the receiver's layout only later, while it waits. */
static void late_receiver(void)
{
    enum { P = 6, C = 50 };
    int *sbuf = malloc(sizeof(int) * P * C), *rbuf = malloc(sizeof(int) * P * C);
    for (int i = 0; i < P * C; i++) {
        sbuf[i] = mt_rank * 1000 + i;
        rbuf[i] = -1;
    }
    MPI_Request s, r;
    MPI_OK(MPI_Psend_init(sbuf, P, C, MPI_INT, right, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Start(&s));
    MPI_OK(MPI_Pready_range(0, P - 1, s));
    int token = 0;
    MPI_OK(MPI_Sendrecv_replace(&token, 1, MPI_INT, right, 14, left, 14, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE));
    MPI_OK(MPI_Precv_init(rbuf, P / 2, 2 * C, MPI_INT, left, 13, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &r));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < P * C; i++)
        if (rbuf[i] != left * 1000 + i) {
            CHECK(0, "late receiver: element %d is %d", i, rbuf[i]);
            break;
        }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    free(sbuf);
    free(rbuf);
}

/* Every other int of the sender's buffer (a vector type) into contiguous partitions; big
 * partitions go by rendezvous. */
static void vector_large(void)
{
    enum { P = 3, N = 100000 }; /* ints per receive partition */
    MPI_Datatype vec;
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *sbuf = malloc(sizeof(int) * 2 * N * P), *rbuf = malloc(sizeof(int) * N * P);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(vec, &lb, &ext);
    for (int i = 0; i < 2 * N * P; i++)
        sbuf[i] = (i % 2) ? -7 : mt_rank + i / 2;
    /* The vector's extent is 2N-1 ints: partition k starts k * (2N-1) ints in, so pack by
     * hand into that layout. */
    int *layout = malloc((size_t)ext * P);
    for (int k = 0; k < P; k++)
        for (int i = 0; i < N; i++)
            layout[(size_t)k * (size_t)(ext / 4) + 2 * (size_t)i] = mt_rank + k * N + i;
    MPI_Request s, r;
    MPI_OK(MPI_Psend_init(layout, P, 1, vec, right, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Precv_init(rbuf, 2 * P, N / 2, MPI_INT, left, 11, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &r));
    for (int round = 0; round < 2; round++) {
        memset(rbuf, 0xff, sizeof(int) * N * P);
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Start(&s));
        MPI_OK(MPI_Pready_range(0, P - 1, s));
        MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < N * P; i++)
            if (rbuf[i] != left + i) {
                CHECK(0, "vector: element %d is %d, expected %d", i, rbuf[i], left + i);
                break;
            }
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    MPI_Type_free(&vec);
    free(layout);
    free(sbuf);
    free(rbuf);
}

typedef struct {
    MPI_Request req;
    int first, step, parts;
} marker_t;

static void *mark(void *arg)
{
    marker_t *m = arg;
    for (int i = m->first; i < m->parts; i += m->step)
        MPI_OK(MPI_Pready(i, m->req));
    return NULL;
}

static void threads(int nthreads)
{
    enum { P = 64, C = 257 };
    int *sbuf = malloc(sizeof(int) * P * C), *rbuf = malloc(sizeof(int) * P * C);
    MPI_Request s, r;
    MPI_OK(MPI_Psend_init(sbuf, P, C, MPI_INT, right, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Precv_init(rbuf, P / 4, C * 4, MPI_INT, left, 12, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &r));
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < P * C; i++) {
            sbuf[i] = mt_rank * 7 + round + i;
            rbuf[i] = -1;
        }
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Start(&s));
        pthread_t t[16];
        marker_t m[16];
        for (int k = 0; k < nthreads; k++) {
            m[k] = (marker_t){s, k, nthreads, P};
            pthread_create(&t[k], NULL, mark, &m[k]);
        }
        for (int k = 0; k < nthreads; k++)
            pthread_join(t[k], NULL);
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        for (int i = 0; i < P * C; i++)
            if (rbuf[i] != left * 7 + round + i) {
                CHECK(0, "threads: element %d is %d", i, rbuf[i]);
                break;
            }
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    free(sbuf);
    free(rbuf);
}

static void errors(void)
{
    int buf[4];
    MPI_Request s, r;
    MPI_OK(MPI_Psend_init(buf, 2, 2, MPI_INT, 0, 3, MPI_COMM_SELF, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Precv_init(buf, 2, 2, MPI_INT, 0, 3, MPI_COMM_SELF, MPI_INFO_NULL, &r));
    CHECK_CLASS(MPI_Pready(0, s), MPI_ERR_REQUEST, "Pready on an inactive request");
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Start(&s));
    CHECK_REFUSED(MPI_Pready(2, s), MPI_ERR_ARG, "Pready(2) of 2 partitions");
    CHECK_REFUSED(MPI_Pready_range(1, 0, s), MPI_ERR_ARG, "Pready_range(1, 0)");
    MPI_OK(MPI_Pready(1, s));
    if (is_ferry) /* erroneous; MPICH 4.0.2 does not notice */
        CHECK_CLASS(MPI_Pready(1, s), MPI_ERR_ARG, "Pready twice on one partition");
    int flag;
    CHECK_REFUSED(MPI_Parrived(r, 2, &flag), MPI_ERR_ARG, "Parrived(2) of 2 partitions");
    CHECK_CLASS(MPI_Parrived(s, 0, &flag), MPI_ERR_REQUEST, "Parrived on a send");
    MPI_OK(MPI_Pready(0, s));
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    if (is_ferry) { /* sizes that differ: erroneous; Ferry reports it and does not hang */
        int big[6] = {1, 2, 3, 4, 5, 6}, small[4] = {0};
        MPI_OK(MPI_Psend_init(big, 2, 3, MPI_INT, 0, 4, MPI_COMM_SELF, MPI_INFO_NULL, &s));
        MPI_OK(MPI_Precv_init(small, 2, 2, MPI_INT, 0, 4, MPI_COMM_SELF, MPI_INFO_NULL, &r));
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Start(&s));
        MPI_OK(MPI_Pready_range(0, 1, s));
        CHECK_CLASS(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE, "send of 24 bytes into 16");
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(small[0] == 1 && small[3] == 4, "the first 16 bytes arrive: %d %d", small[0],
              small[3]);
        MPI_Request_free(&s);
        MPI_Request_free(&r);
    }
    MPI_Request x = MPI_REQUEST_NULL;
    CHECK_CLASS(MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_SELF,
                               MPI_INFO_NULL, &x),
                MPI_ERR_RANK, "Precv_init from MPI_ANY_SOURCE");
    CHECK_CLASS(MPI_Psend_init(buf, 0, 2, MPI_INT, 0, 3, MPI_COMM_SELF, MPI_INFO_NULL, &x),
                MPI_ERR_ARG, "Psend_init with 0 partitions");
}

int main(int argc, char **argv)
{
    const char *th = getenv("FY_TEST_PART_THREADS");
    int nthreads = th ? atoi(th) : 0, provided = 0;
    if (nthreads > 16)
        nthreads = 16;
    MPI_Init_thread(&argc, &argv, nthreads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    mt_setup();
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    is_ferry = strstr(lib, "Ferry") != NULL;
    right = (mt_rank + 1) % mt_size;
    left = (mt_rank + mt_size - 1) % mt_size;
    if (nthreads) {
        CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
        threads(nthreads);
        return mt_finish();
    }
    for (int mode = 0; mode < 3; mode++) {
        ring_round(MPI_COMM_WORLD, 4, 5, 4, 5, 3, mode);
        ring_round(MPI_COMM_WORLD, 8, 3, 4, 6, 2, mode);
        ring_round(MPI_COMM_WORLD, 2, 12, 6, 4, 2, mode);
        ring_round(MPI_COMM_WORLD, 3, 0, 2, 0, 2, mode); /* empty partitions */
    }
    /* The standard allows holding every partition back until the last is ready (MPICH 4.0.2
     * does): early delivery is Ferry's promise (docs/DESIGN.md), checked on Ferry only. */
    if (is_ferry)
        early_bird();
    vector_large();
    late_receiver();
    int save_r = right, save_l = left, save_rank = mt_rank, save_size = mt_size;
    right = left = 0;
    mt_rank = 0;
    MPI_Comm self;
    MPI_Comm_dup(MPI_COMM_SELF, &self);
    ring_round(self, 5, 2, 10, 1, 2, 0);
    MPI_Comm_free(&self);
    right = save_r, left = save_l, mt_rank = save_rank, mt_size = save_size;
    errors();
    return mt_finish();
}
