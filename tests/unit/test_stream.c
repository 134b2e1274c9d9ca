/* The protocols a shared-memory peer uses, in one process: rank 0 of 1, with the peer's
 * transport replaced by a small FIFO of records that
 *   - holds only a few records, so sends meet FY_XPORT_AGAIN and wait in the peer's pending
 *     queue (control records too), and
 *   - refuses remote reads (FY_XPORT_NOTSUP), so every rendezvous falls back to CTS and DATA
 *     streaming in fragments of max_payload bytes.
 * Unlike the self transport it delivers later, from fifo_progress(), as a ring does. */
#include <stdlib.h>
#include <string.h>

#include "fy_comm.h"
#include "fy_err.h"
#include "fy_p2p.h"
#include "fy_request.h"
#include "fy_runtime.h"
#include "p2p_internal.h"
#include "unit.h"

enum { FIFO_MAX = 64, FRAG = 1000 };
typedef struct {
    fy_hdr_t h;
    unsigned char *payload;
} rec_t;
static rec_t fifo[FIFO_MAX];
static unsigned fifo_head, fifo_tail, fifo_cap = 3;
static long refused, reads_refused, delivered;

static int fifo_send(int dst, const fy_hdr_t *h, const void *payload, size_t len)
{
    (void)dst;
    if (fifo_tail - fifo_head >= fifo_cap) {
        refused++;
        return FY_XPORT_AGAIN;
    }
    rec_t *r = &fifo[fifo_tail % FIFO_MAX];
    r->h = *h;
    r->payload = len ? malloc(len) : NULL;
    if (len)
        memcpy(r->payload, payload, len);
    fifo_tail++;
    return 0;
}
static int fifo_send_fill(int dst, const fy_hdr_t *h, size_t len, fy_xport_fill_fn fill, void *arg)
{
    unsigned char tmp[FRAG > 0 ? FRAG : 1];
    if (len > sizeof tmp)
        return -1;
    if (fifo_tail - fifo_head >= fifo_cap) {
        refused++;
        return FY_XPORT_AGAIN;
    }
    fill(arg, tmp, len);
    return fifo_send(dst, h, tmp, len);
}
static int fifo_get(int src, uint64_t raddr, void *dst, size_t len)
{
    (void)src, (void)raddr, (void)dst, (void)len;
    reads_refused++;
    return FY_XPORT_NOTSUP;
}
static size_t fifo_max_payload(void)
{
    return FRAG;
}
static const fy_xport_ops_t fifo_ops = {
    .name = "fifo",
    .send = fifo_send,
    .send_fill = fifo_send_fill,
    .get = fifo_get,
    .max_payload = fifo_max_payload,
};

/* Delivers what is queued now (records sent while delivering wait for the next call). */
static int fifo_progress(void)
{
    int n = 0;
    for (unsigned end = fifo_tail; fifo_head != end; n++) {
        rec_t r = fifo[fifo_head++ % FIFO_MAX];
        fy_xport_deliver(&r.h, r.payload);
        free(r.payload);
        delivered++;
    }
    return n;
}

static fy_comm_t *world;

static fy_req_t *start(fy_req_kind_t kind, void *buf, MPI_Aint count, int tag, fy_mode_t mode)
{
    fy_req_t *r = fy_req_alloc(kind);
    r->buf = buf;
    r->count = count;
    r->dt = fy_dtype_get(MPI_BYTE);
    r->peer = kind == FY_REQ_RECV && tag == MPI_ANY_TAG ? MPI_ANY_SOURCE : 0;
    r->tag = tag;
    r->comm = world;
    r->ctx = FY_CTX_P2P(world);
    r->mode = (uint8_t)mode;
    fy_status_set(&r->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    if ((kind == FY_REQ_RECV ? fy_p2p_irecv(r) : fy_p2p_isend(r)) != MPI_SUCCESS)
        abort();
    return r;
}

static int all_done(fy_req_t **r, int n)
{
    for (int i = 0; i < n; i++)
        if (!fy_req_is_done(r[i]))
            return 0;
    return 1;
}

/* Progress until every request completed (or give up). */
static int run_until(fy_req_t **r, int n)
{
    for (int i = 0; i < 100000 && !all_done(r, n); i++) {
        fy_progress();
        fifo_progress();
    }
    return all_done(r, n);
}

static inline unsigned char pat(int seq, size_t i)
{
    return (unsigned char)(seq * 31 + i * 7 + (i >> 9));
}

static fy_peer_t saved;
static void use_fifo(unsigned cap)
{
    saved = fy_peers[0];
    fy_peers[0].ops = &fifo_ops;
    fy_peers[0].max_payload = FRAG;
    fifo_cap = cap;
    refused = reads_refused = delivered = 0;
}
static void use_self(void)
{
    fy_peers[0] = saved;
}

/* Mixed eager and streamed messages with one tag, half sent before the receives are posted
 * and half after: each receive gets its own message, in order, whole. */
static int test_stream_order(void)
{
    use_fifo(3);
    enum { N = 42 };
    static const size_t sizes[] = {0, 100, FRAG, FRAG + 1, 5000, 20000, 3, 2 * FRAG};
    unsigned char *out[N], *in[N];
    fy_req_t *req[2 * N];
    for (int i = 0; i < N; i++) {
        size_t n = sizes[i % UNIT_COUNT(sizes)];
        out[i] = malloc(n + 1);
        in[i] = calloc(n + 1, 1);
        CHECK(out[i] && in[i]);
        for (size_t k = 0; k < n; k++)
            out[i][k] = pat(i, k);
    }
    for (int half = 0; half < 2; half++) {
        int lo = half * N / 2, hi = lo + N / 2;
        for (int pass = 0; pass < 2; pass++)
            for (int i = lo; i < hi; i++) {
                size_t n = sizes[i % UNIT_COUNT(sizes)];
                if ((pass == 0) == (half == 0)) /* first half: sends first */
                    req[2 * i] = start(FY_REQ_SEND, out[i], (MPI_Aint)n, 7,
                                       i % 5 == 4 ? FY_MODE_SYNC : FY_MODE_STANDARD);
                else
                    req[2 * i + 1] =
                        start(FY_REQ_RECV, in[i], (MPI_Aint)n, i % 3 ? 7 : MPI_ANY_TAG, 0);
            }
        CHECK(run_until(req + 2 * lo, 2 * (hi - lo)));
    }
    for (int i = 0; i < N; i++) {
        size_t n = sizes[i % UNIT_COUNT(sizes)];
        fy_req_t *r = req[2 * i + 1];
        CHECK_EQ(r->error, MPI_SUCCESS);
        CHECK_EQ(r->status.MPI_TAG, 7);
        CHECK_EQ(fy_status_bytes(&r->status), n);
        CHECK(memcmp(in[i], out[i], n) == 0);
        CHECK(!req[2 * i]->cancelled);
        fy_req_free(req[2 * i]);
        fy_req_free(r);
        free(out[i]);
        free(in[i]);
    }
    CHECK(refused > 0);       /* the pending queue was used */
    CHECK(reads_refused > 0); /* and the streaming fallback */
    CHECK_EQ(fy_pending_total, 0);
    CHECK_EQ(fifo_tail - fifo_head, 0);
    CHECK(fy_p2p_probe(FY_CTX_P2P(world), MPI_ANY_SOURCE, MPI_ANY_TAG, false) == NULL);
    use_self();
    return 0;
}

/* A streamed message into a smaller buffer: truncated, the buffer's worth arrives, nothing
 * beyond it is written, and the sender still completes. */
static int test_stream_truncate(void)
{
    use_fifo(2);
    size_t n = 7 * FRAG + 123, cap = 2 * FRAG + 10;
    unsigned char *out = malloc(n), *in = malloc(cap + 16);
    CHECK(out && in);
    for (size_t k = 0; k < n; k++)
        out[k] = pat(5, k);
    memset(in, 0xEE, cap + 16);
    fy_req_t *r[2];
    r[0] = start(FY_REQ_SEND, out, (MPI_Aint)n, 9, FY_MODE_STANDARD);
    r[1] = start(FY_REQ_RECV, in, (MPI_Aint)cap, 9, 0);
    CHECK(run_until(r, 2));
    CHECK_EQ(fy_err_class_of(r[1]->error), MPI_ERR_TRUNCATE);
    CHECK_EQ(fy_status_bytes(&r[1]->status), cap);
    CHECK(memcmp(in, out, cap) == 0);
    for (size_t k = cap; k < cap + 16; k++)
        CHECK_EQ(in[k], 0xEE);
    CHECK(reads_refused == 1);
    fy_req_free(r[0]);
    fy_req_free(r[1]);
    free(out);
    free(in);
    CHECK_EQ(fy_pending_total, 0);
    use_self();
    return 0;
}

/* A send queued behind a full transport can be cancelled locally; a later send still
 * arrives, alone. */
static int test_cancel_queued(void)
{
    use_fifo(1);
    int a = 1, b = 2, c = 3, v = 0;
    fy_req_t *s[3] = {start(FY_REQ_SEND, &a, sizeof a, 11, FY_MODE_STANDARD),
                      start(FY_REQ_SEND, &b, sizeof b, 11, FY_MODE_STANDARD),
                      start(FY_REQ_SEND, &c, sizeof c, 11, FY_MODE_STANDARD)};
    CHECK(fy_req_is_done(s[0]));
    CHECK(!fy_req_is_done(s[1])); /* waiting in the pending queue */
    fy_p2p_cancel_send(s[1]);
    CHECK(fy_req_is_done(s[1]) && s[1]->cancelled);
    CHECK(run_until(s, 3));
    for (int want = 1; want <= 3; want += 2) {
        fy_req_t *r = start(FY_REQ_RECV, &v, sizeof v, 11, 0);
        CHECK(run_until(&r, 1));
        CHECK_EQ(v, want);
        fy_req_free(r);
    }
    CHECK(fy_p2p_probe(FY_CTX_P2P(world), MPI_ANY_SOURCE, MPI_ANY_TAG, false) == NULL);
    for (int i = 0; i < 3; i++)
        fy_req_free(s[i]);
    CHECK_EQ(fy_pending_total, 0);
    use_self();
    return 0;
}

/* Once a send waits in the pending queue, later sends go behind it even when the transport
 * has room again: otherwise they would overtake it. */
static int test_pending_keeps_order(void)
{
    use_fifo(2);
    int x[5] = {10, 11, 12, 13, 14}, v = 0;
    fy_req_t *s[5];
    for (int i = 0; i < 3; i++)
        s[i] = start(FY_REQ_SEND, &x[i], sizeof x[i], 12, FY_MODE_STANDARD);
    CHECK(!fy_req_is_done(s[2]));
    fifo_progress(); /* room again, but the pending queue has not been retried */
    for (int i = 3; i < 5; i++)
        s[i] = start(FY_REQ_SEND, &x[i], sizeof x[i], 12, FY_MODE_STANDARD);
    CHECK(run_until(s, 5));
    for (int i = 0; i < 5; i++) {
        fy_req_t *r = start(FY_REQ_RECV, &v, sizeof v, 12, 0);
        CHECK(run_until(&r, 1));
        CHECK_EQ(v, x[i]);
        fy_req_free(r);
        fy_req_free(s[i]);
    }
    CHECK_EQ(fy_pending_total, 0);
    use_self();
    return 0;
}

static const unit_case_t cases[] = {
    {"pending_keeps_order", test_pending_keeps_order},
    {"stream_order", test_stream_order},
    {"stream_truncate", test_stream_truncate},
    {"cancel_queued", test_cancel_queued},
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
    if (!world)
        return 1;
    int rc = unit_run(cases, UNIT_COUNT(cases));
    fy_p2p_fini();
    fy_comm_fini();
    fy_req_pool_fini();
    return rc;
}
