/* Matching and the protocols above the transports, in one process through the self transport:
 * rank 0 of 1, requests filled the way src/api/p2p_start.c fills them. The self transport
 * delivers inside the send call, so "send then post" exercises the unexpected queue and
 * "post then send" the posted queue; rendezvous reads are a memcpy. */
#include <stdlib.h>
#include <string.h>

#include "fy_comm.h"
#include "fy_err.h"
#include "fy_p2p.h"
#include "fy_request.h"
#include "fy_runtime.h"
#include "unit.h"

static fy_comm_t *world, *dup;

static fy_req_t *start(fy_req_kind_t kind, fy_comm_t *c, uint32_t ctx, void *buf, MPI_Aint count,
                       MPI_Datatype dt, int peer, int tag, fy_mode_t mode)
{
    fy_req_t *r = fy_req_alloc(kind);
    if (!r)
        abort();
    r->buf = buf;
    r->count = count;
    r->dt = fy_dtype_get(dt);
    r->peer = peer;
    r->tag = tag;
    r->comm = c;
    r->ctx = ctx;
    r->mode = (uint8_t)mode;
    fy_status_set(&r->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    int rc = kind == FY_REQ_RECV ? fy_p2p_irecv(r) : fy_p2p_isend(r);
    if (rc != MPI_SUCCESS)
        abort();
    return r;
}

/* On world's point-to-point context, from/to rank 0 (ourselves). */
static fy_req_t *isend(const void *buf, MPI_Aint count, MPI_Datatype dt, int tag)
{
    return start(FY_REQ_SEND, world, FY_CTX_P2P(world), (void *)buf, count, dt, 0, tag,
                 FY_MODE_STANDARD);
}
static fy_req_t *irecv(void *buf, MPI_Aint count, MPI_Datatype dt, int src, int tag)
{
    return start(FY_REQ_RECV, world, FY_CTX_P2P(world), buf, count, dt, src, tag, 0);
}

/* Progress a while; true when r completed. */
static int done(fy_req_t *r)
{
    for (int i = 0; i < 100 && !fy_req_is_done(r); i++)
        fy_progress();
    return fy_req_is_done(r);
}

/* Checks a completed receive: no error, envelope and byte count. */
static int recv_ok(fy_req_t *r, int src, int tag, size_t bytes)
{
    CHECK(done(r));
    CHECK_EQ(r->error, MPI_SUCCESS);
    CHECK_EQ(r->status.MPI_SOURCE, src);
    CHECK_EQ(r->status.MPI_TAG, tag);
    CHECK_EQ(fy_status_bytes(&r->status), bytes);
    CHECK_EQ(r->status.MPI_ERROR, MPI_SUCCESS);
    fy_req_free(r);
    return 0;
}

/* Completes and frees a send. */
static int send_ok(fy_req_t *r)
{
    CHECK(done(r));
    CHECK(!r->cancelled);
    fy_req_free(r);
    return 0;
}

/* Nothing left behind in any queue we use. */
static int clean(void)
{
    const uint32_t ctxs[] = {FY_CTX_P2P(world), FY_CTX_COLL(world), FY_CTX_P2P(dup)};
    for (size_t i = 0; i < UNIT_COUNT(ctxs); i++)
        CHECK(fy_p2p_probe(ctxs[i], MPI_ANY_SOURCE, MPI_ANY_TAG, false) == NULL);
    return 0;
}

/* Before each case: drop what a failed case left in the unexpected queues. */
static void scrub(void)
{
    const uint32_t ctxs[] = {FY_CTX_P2P(world), FY_CTX_COLL(world), FY_CTX_P2P(dup)};
    for (size_t i = 0; i < UNIT_COUNT(ctxs); i++) {
        fy_req_t *u;
        for (int n = 0;
             n < 100000 && (u = fy_p2p_probe(ctxs[i], MPI_ANY_SOURCE, MPI_ANY_TAG, true)); n++) {
            char sink[64];
            fy_req_t *r = fy_req_alloc(FY_REQ_RECV);
            r->buf = sink;
            r->dt = fy_dtype_get(MPI_BYTE);
            r->comm = world;
            r->ctx = ctxs[i];
            fy_p2p_mrecv(r, u); /* completes, and answers a rendezvous or synchronous sender */
            fy_req_free(r);
        }
    }
}

static int test_posted_then_send(void)
{
    int out[4] = {1, 2, 3, 4}, in[4] = {0};
    fy_req_t *r = irecv(in, 4, MPI_INT, 0, 7);
    CHECK(!done(r));
    CHECK_OK(send_ok(isend(out, 4, MPI_INT, 7)));
    CHECK_OK(recv_ok(r, 0, 7, sizeof out));
    CHECK(memcmp(in, out, sizeof out) == 0);
    return clean();
}

static int test_send_then_post(void)
{
    int out[4] = {5, 6, 7, 8}, in[4] = {0};
    CHECK_OK(send_ok(isend(out, 4, MPI_INT, 8))); /* eager: complete, the data is copied */
    out[0] = -1;
    fy_req_t *r = irecv(in, 4, MPI_INT, 0, 8);
    CHECK_OK(recv_ok(r, 0, 8, sizeof out));
    CHECK_EQ(in[0], 5);
    CHECK_EQ(in[3], 8);
    return clean();
}

static int test_wildcards(void)
{
    int v = 0, x;
    x = 3;
    CHECK_OK(send_ok(isend(&x, 1, MPI_INT, 3)));
    CHECK_OK(recv_ok(irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3), 0, 3, sizeof v));
    CHECK_EQ(v, 3);
    x = 4;
    CHECK_OK(send_ok(isend(&x, 1, MPI_INT, 4)));
    CHECK_OK(recv_ok(irecv(&v, 1, MPI_INT, 0, MPI_ANY_TAG), 0, 4, sizeof v));
    CHECK_EQ(v, 4);
    fy_req_t *r = irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG);
    CHECK(!done(r));
    x = 99;
    CHECK_OK(send_ok(isend(&x, 1, MPI_INT, 12345)));
    CHECK_OK(recv_ok(r, 0, 12345, sizeof v));
    CHECK_EQ(v, 99);
    return clean();
}

static int test_non_overtaking(void)
{
    int v[5];
    for (int i = 0; i < 5; i++)
        CHECK_OK(send_ok(isend(&i, 1, MPI_INT, 1)));
    for (int i = 0; i < 5; i++) {
        CHECK_OK(recv_ok(irecv(&v[0], 1, MPI_INT, 0, 1), 0, 1, sizeof(int)));
        CHECK_EQ(v[0], i);
    }
    /* A wildcard receive takes the earliest of several tags. */
    const int tags[4] = {2, 1, 2, 1};
    for (int i = 0; i < 4; i++)
        CHECK_OK(send_ok(isend(&i, 1, MPI_INT, tags[i])));
    for (int i = 0; i < 4; i++) {
        CHECK_OK(recv_ok(irecv(&v[0], 1, MPI_INT, 0, MPI_ANY_TAG), 0, tags[i], sizeof(int)));
        CHECK_EQ(v[0], i);
    }
    /* Posted receives match in the order they were posted, wildcards included. */
    fy_req_t *r[3] = {irecv(&v[0], 1, MPI_INT, 0, 5), irecv(&v[1], 1, MPI_INT, 0, MPI_ANY_TAG),
                      irecv(&v[2], 1, MPI_INT, MPI_ANY_SOURCE, 5)};
    for (int i = 10; i < 13; i++)
        CHECK_OK(send_ok(isend(&i, 1, MPI_INT, 5)));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(recv_ok(r[i], 0, 5, sizeof(int)));
        CHECK_EQ(v[i], 10 + i);
    }
    return clean();
}

static int test_selective_tags(void)
{
    int v;
    for (int t = 10; t < 13; t++) {
        int x = t * 100;
        CHECK_OK(send_ok(isend(&x, 1, MPI_INT, t)));
    }
    const int order[3] = {12, 10, 11};
    for (int i = 0; i < 3; i++) {
        CHECK(fy_p2p_probe(FY_CTX_P2P(world), 0, order[i], false) != NULL);
        CHECK_OK(recv_ok(irecv(&v, 1, MPI_INT, 0, order[i]), 0, order[i], sizeof v));
        CHECK_EQ(v, order[i] * 100);
    }
    return clean();
}

static int test_contexts(void)
{
    int v, x[3] = {1, 2, 3};
    const uint32_t ctx[3] = {FY_CTX_P2P(world), FY_CTX_COLL(world), FY_CTX_P2P(dup)};
    fy_comm_t *comm[3] = {world, world, dup};
    CHECK(FY_CTX_P2P(dup) != FY_CTX_P2P(world) && FY_CTX_P2P(dup) != FY_CTX_COLL(world));
    /* A wildcard receive on world's point-to-point context ignores its collective traffic. */
    fy_req_t *wild =
        start(FY_REQ_RECV, world, ctx[0], &v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    CHECK_OK(send_ok(start(FY_REQ_SEND, world, ctx[1], &x[1], 1, MPI_INT, 0, 2, 0)));
    CHECK(!done(wild));
    CHECK(fy_p2p_cancel_recv(wild));
    fy_req_free(wild);
    CHECK_OK(recv_ok(start(FY_REQ_RECV, world, ctx[1], &v, 1, MPI_INT, 0, 2, 0), 0, 2, sizeof v));
    CHECK_EQ(v, x[1]);
    /* A wildcard receive on the duplicate sees nothing sent on world. */
    wild = start(FY_REQ_RECV, dup, ctx[2], &v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    for (int i = 0; i < 2; i++)
        CHECK_OK(send_ok(start(FY_REQ_SEND, comm[i], ctx[i], &x[i], 1, MPI_INT, 0, 1, 0)));
    CHECK(!done(wild));
    CHECK(fy_p2p_cancel_recv(wild));
    fy_req_free(wild);
    CHECK_OK(send_ok(start(FY_REQ_SEND, dup, ctx[2], &x[2], 1, MPI_INT, 0, 1, 0)));
    for (int i = 2; i >= 0; i--) {
        fy_req_t *r =
            start(FY_REQ_RECV, comm[i], ctx[i], &v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
        CHECK_OK(recv_ok(r, 0, 1, sizeof v));
        CHECK_EQ(v, x[i]);
    }
    return clean();
}

static int check_truncated(fy_req_t *r, size_t bytes)
{
    CHECK(done(r));
    CHECK_EQ(r->error & 0xff, MPI_ERR_TRUNCATE);
    CHECK_EQ(fy_err_class_of(r->error), MPI_ERR_TRUNCATE);
    CHECK(strstr(fy_err_code_message(r->error), "truncated") != NULL);
    CHECK_EQ(r->status.MPI_ERROR, r->error);
    CHECK_EQ(fy_status_bytes(&r->status), bytes);
    fy_req_free(r);
    return 0;
}

static int test_truncate(void)
{
    int out[4] = {1, 2, 3, 4}, in[3] = {0, 0, -7};
    fy_req_t *r = irecv(in, 2, MPI_INT, 0, 9); /* posted */
    CHECK_OK(send_ok(isend(out, 4, MPI_INT, 9)));
    CHECK_OK(check_truncated(r, 2 * sizeof(int)));
    CHECK(in[0] == 1 && in[1] == 2 && in[2] == -7);
    CHECK_OK(send_ok(isend(out, 4, MPI_INT, 9))); /* unexpected */
    in[0] = in[1] = 0;
    CHECK_OK(check_truncated(irecv(in, 2, MPI_INT, 0, 9), 2 * sizeof(int)));
    CHECK(in[0] == 1 && in[1] == 2 && in[2] == -7);
    /* Rendezvous, unexpected then posted. */
    size_t n = fy_eager_max * 2 + 13, cap = fy_eager_max + 5;
    unsigned char *big = malloc(n), *dst = calloc(cap + 1, 1);
    CHECK(big && dst);
    for (size_t i = 0; i < n; i++)
        big[i] = (unsigned char)(i * 7 + 1);
    dst[cap] = 0xEE;
    for (int posted = 0; posted < 2; posted++) {
        fy_req_t *rr = posted ? irecv(dst, (MPI_Aint)cap, MPI_BYTE, 0, 9) : NULL;
        fy_req_t *s = isend(big, (MPI_Aint)n, MPI_BYTE, 9);
        if (!rr)
            rr = irecv(dst, (MPI_Aint)cap, MPI_BYTE, 0, 9);
        CHECK_OK(check_truncated(rr, cap));
        CHECK_OK(send_ok(s));
        CHECK(memcmp(dst, big, cap) == 0);
        CHECK_EQ(dst[cap], 0xEE);
    }
    free(big);
    free(dst);
    return clean();
}

static int test_probe(void)
{
    int out[4] = {4, 3, 2, 1}, in[4] = {0};
    const uint32_t ctx = FY_CTX_P2P(world);
    CHECK(fy_p2p_probe(ctx, MPI_ANY_SOURCE, MPI_ANY_TAG, false) == NULL);
    CHECK_OK(send_ok(isend(out, 4, MPI_INT, 20)));
    fy_req_t *u = fy_p2p_probe(ctx, MPI_ANY_SOURCE, 20, false);
    CHECK(u != NULL);
    CHECK_EQ(u->hdr.len, sizeof out);
    CHECK_EQ(u->hdr.src, 0);
    CHECK_EQ(u->hdr.tag, 20);
    CHECK(fy_p2p_probe(ctx, 0, MPI_ANY_TAG, false) == u); /* a probe leaves it there */
    CHECK(fy_p2p_probe(ctx, 0, 21, false) == NULL);
    CHECK(fy_p2p_probe(ctx, 1, 20, false) == NULL);
    CHECK(fy_p2p_probe(FY_CTX_COLL(world), 0, 20, false) == NULL);
    CHECK(fy_p2p_probe(ctx, 0, 20, true) == u); /* matched probe takes it */
    CHECK(fy_p2p_probe(ctx, MPI_ANY_SOURCE, MPI_ANY_TAG, false) == NULL);
    /* A receive posted now does not get the taken message. */
    fy_req_t *other = irecv(in, 4, MPI_INT, 0, 20);
    CHECK(!done(other));
    CHECK(fy_p2p_cancel_recv(other));
    fy_req_free(other);
    fy_req_t *r = fy_req_alloc(FY_REQ_RECV);
    r->buf = in;
    r->count = 4;
    r->dt = fy_dtype_get(MPI_INT);
    r->peer = MPI_ANY_SOURCE;
    r->tag = MPI_ANY_TAG;
    r->comm = world;
    r->ctx = ctx;
    r->bytes = sizeof in;
    CHECK_EQ(fy_p2p_mrecv(r, u), MPI_SUCCESS);
    CHECK_OK(recv_ok(r, 0, 20, sizeof in));
    CHECK(memcmp(in, out, sizeof in) == 0);
    return clean();
}

static int test_cancel_recv(void)
{
    int v = -1, x = 31;
    fy_req_t *r = irecv(&v, 1, MPI_INT, 0, 30);
    CHECK(fy_p2p_cancel_recv(r));
    CHECK(fy_req_is_done(r));
    CHECK(r->cancelled);
    CHECK(r->status.count_hi_and_cancelled & (int)0x80000000u);
    CHECK_EQ(fy_status_bytes(&r->status), 0);
    CHECK(!fy_p2p_cancel_recv(r)); /* already complete */
    fy_req_free(r);
    CHECK_OK(send_ok(isend(&x, 1, MPI_INT, 30)));
    CHECK_EQ(v, -1); /* the cancelled receive got nothing */
    r = irecv(&v, 1, MPI_INT, 0, 30);
    CHECK(!fy_p2p_cancel_recv(r)); /* matched at once: too late */
    CHECK_OK(recv_ok(r, 0, 30, sizeof v));
    CHECK_EQ(v, 31);
    return clean();
}

static int test_sync_mode(void)
{
    int x = 41, v = 0;
    fy_req_t *s = start(FY_REQ_SEND, world, FY_CTX_P2P(world), &x, 1, MPI_INT, 0, 40, FY_MODE_SYNC);
    CHECK(!done(s)); /* no receive yet */
    CHECK(fy_p2p_probe(FY_CTX_P2P(world), 0, 40, false) != NULL);
    CHECK_OK(recv_ok(irecv(&v, 1, MPI_INT, 0, 40), 0, 40, sizeof v));
    CHECK_EQ(v, 41);
    CHECK_OK(send_ok(s));
    /* Posted first: complete at once. Empty messages too. */
    fy_req_t *r = irecv(NULL, 0, MPI_INT, 0, 42);
    s = start(FY_REQ_SEND, world, FY_CTX_P2P(world), NULL, 0, MPI_INT, 0, 42, FY_MODE_SYNC);
    CHECK_OK(recv_ok(r, 0, 42, 0));
    CHECK_OK(send_ok(s));
    /* Withdrawn before any receive matches: cancelled, and nothing is left to receive. */
    s = start(FY_REQ_SEND, world, FY_CTX_P2P(world), &x, 1, MPI_INT, 0, 43, FY_MODE_SYNC);
    fy_p2p_cancel_send(s);
    CHECK(done(s));
    CHECK(s->cancelled);
    fy_req_free(s);
    return clean();
}

static int big_pair(size_t n, int send_first)
{
    unsigned char *out = malloc(n), *in = calloc(n, 1);
    CHECK(out && in);
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)(i ^ (i >> 8) ^ (i >> 16));
    fy_req_t *r = NULL, *s;
    if (!send_first)
        r = irecv(in, (MPI_Aint)n, MPI_BYTE, 0, 60);
    s = isend(out, (MPI_Aint)n, MPI_BYTE, 60);
    if (send_first) {
        /* Above the eager limit the sender waits for the receiver (rendezvous). */
        CHECK_EQ(done(s), n <= fy_eager_max);
        r = irecv(in, (MPI_Aint)n, MPI_BYTE, 0, 60);
    }
    CHECK_OK(recv_ok(r, 0, 60, n));
    CHECK_OK(send_ok(s));
    CHECK(memcmp(in, out, n) == 0);
    free(out);
    free(in);
    return 0;
}

static int test_rendezvous(void)
{
    /* The default threshold is a tuning choice; the cases straddle whatever it is. */
    CHECK(fy_eager_max >= 1024 && fy_eager_max <= 256 * 1024);
    const size_t sizes[] = {fy_eager_max, fy_eager_max + 1, 1 << 20, (1 << 22) + 3};
    for (size_t i = 0; i < UNIT_COUNT(sizes); i++)
        for (int send_first = 0; send_first < 2; send_first++)
            CHECK_OK(big_pair(sizes[i], send_first));
    /* A rendezvous message and a later eager one with the same tag stay in order. */
    size_t n = 300000; /* above the largest eager limit */
    unsigned char *big = malloc(n), *in = malloc(n);
    CHECK(big && in);
    memset(big, 0xAB, n);
    int small = 77;
    fy_req_t *s1 = isend(big, (MPI_Aint)n, MPI_BYTE, 61);
    CHECK_OK(send_ok(isend(&small, sizeof small, MPI_BYTE, 61)));
    CHECK_OK(recv_ok(irecv(in, (MPI_Aint)n, MPI_BYTE, 0, MPI_ANY_TAG), 0, 61, n));
    CHECK_OK(send_ok(s1));
    CHECK_EQ(in[n - 1], 0xAB);
    CHECK_OK(recv_ok(irecv(in, (MPI_Aint)n, MPI_BYTE, 0, 61), 0, 61, sizeof small));
    CHECK(memcmp(in, &small, sizeof small) == 0);
    /* An unmatched rendezvous send can be withdrawn. */
    s1 = isend(big, (MPI_Aint)n, MPI_BYTE, 62);
    fy_p2p_cancel_send(s1);
    CHECK(done(s1));
    CHECK(s1->cancelled);
    fy_req_free(s1);
    free(big);
    free(in);
    return clean();
}

/* MPI_DOUBLE_INT has a hole: sent packed, unpacked into the receiver's layout. */
static int test_pair_type(void)
{
    typedef struct {
        double d;
        int i;
    } di_t;
    enum { N = 3000 }; /* 36000 packed bytes: above the eager limit */
    di_t *out = malloc(N * sizeof *out), *in = malloc(N * sizeof *in);
    CHECK(out && in);
    for (int count = 3; count <= N; count = count == 3 ? N : N + 1)
        for (int send_first = 0; send_first < 2; send_first++) {
            for (int k = 0; k < count; k++) {
                out[k] = (di_t){k * 0.5, -k};
                in[k] = (di_t){-1, 12345};
            }
            fy_req_t *r = send_first ? NULL : irecv(in, count, MPI_DOUBLE_INT, 0, 70);
            fy_req_t *s = isend(out, count, MPI_DOUBLE_INT, 70);
            if (!r)
                r = irecv(in, count, MPI_DOUBLE_INT, 0, 70);
            CHECK_OK(recv_ok(r, 0, 70, (size_t)count * 12));
            CHECK_OK(send_ok(s));
            for (int k = 0; k < count; k++)
                CHECK(in[k].d == k * 0.5 && in[k].i == -k);
        }
    free(out);
    free(in);
    return clean();
}

static int test_proc_null(void)
{
    int x = 5, v = -3;
    fy_req_t *s = start(FY_REQ_SEND, world, FY_CTX_P2P(world), &x, 1, MPI_INT, MPI_PROC_NULL, 1, 0);
    CHECK(fy_req_is_done(s));
    fy_req_free(s);
    fy_req_t *r = irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 1);
    CHECK(fy_req_is_done(r));
    CHECK_OK(recv_ok(r, MPI_PROC_NULL, MPI_ANY_TAG, 0));
    CHECK_EQ(v, -3);
    return clean();
}

static const unit_case_t cases[] = {
    {"posted_then_send", test_posted_then_send},
    {"send_then_post", test_send_then_post},
    {"wildcards", test_wildcards},
    {"non_overtaking", test_non_overtaking},
    {"selective_tags", test_selective_tags},
    {"contexts", test_contexts},
    {"truncate", test_truncate},
    {"probe", test_probe},
    {"cancel_recv", test_cancel_recv},
    {"sync_mode", test_sync_mode},
    {"rendezvous", test_rendezvous},
    {"pair_type", test_pair_type},
    {"proc_null", test_proc_null},
};

int main(void)
{
    unsetenv("FERRY_EAGER_MAX");
    fy_rt.rank = 0;
    fy_rt.size = 1;
    fy_rt.initialized = true;
    if (fy_p2p_init() != MPI_SUCCESS || fy_comm_init() != MPI_SUCCESS)
        return 1;
    world = fy_comm_get(MPI_COMM_WORLD);
    if (!world || fy_comm_dup(world, fy_comm_free_cids(), &dup) != MPI_SUCCESS)
        return 1;
    int rc = unit_run_with(cases, UNIT_COUNT(cases), scrub);
    fy_comm_release(dup);
    fy_p2p_fini();
    fy_comm_fini();
    fy_req_pool_fini();
    return rc;
}
