/* Active messages: one-sided operations on targets this process cannot reach itself (ranks of
 * other hosts; ranks of this host whose memory neither mapping nor CMA reaches, FERRY_CMA=0).
 * The target's progress engine executes them, whenever it is inside MPI (no thread).
 *
 * Carrier: point-to-point on the window's private communicator, whose point-to-point context
 * nobody else uses. Four tags:
 *   REQ    origin -> target: a request (am_msg_t, the target layout as runs, inline data);
 *          the target takes them with a matched probe, in arrival order;
 *   ODATA  origin -> target: the origin data of a request too large to travel inline, sent
 *          straight from the user's buffer (any datatype) and received straight into the
 *          window when the target layout is one block;
 *   RDATA  target -> origin: the data of Get, Get_accumulate, Fetch_and_op, Compare_and_swap,
 *          received straight into the user's result buffer by a receive posted at issue;
 *   ACK    target -> origin: lock grants, flush and unlock answers, and the answer of a request
 *          form that needs one (Rput, Raccumulate), into a receive posted before the request.
 * Messages from one rank on one tag match in order, so answers need no identifiers: the k-th
 * receive an origin posts for target t on a tag takes the k-th answer t sends on it.
 *
 * The target executes requests one at a time, in arrival order (those from one origin in the
 * order it issued them: accumulate ordering, and a flush or unlock answered after everything
 * issued before it), through the code a local origin runs (fy_osc_acc_direct with the target
 * itself as SELF), so atomicity holds against origins of the target's host. A lock it cannot
 * grant waits in a queue retried from progress; the requests behind it go on.
 *
 * Completion at the origin: per target, the operations sent without an answer since the last
 * flush (unsynced), the answers awaited (npend) and the sends not yet complete (nsend). A flush
 * sends FLUSH only where unsynced > 0 and waits until all three are zero there. */
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_op.h"
#include "fy_osc.h"
#include "fy_p2p.h"

enum { TAG_REQ = 1, TAG_ODATA = 2, TAG_RDATA = 3, TAG_ACK = 4 };

/* Request kinds: the six operations (FY_RMA_*), then synchronisation. */
enum { AM_LOCK = FY_RMA_CAS + 1, AM_UNLOCK, AM_FLUSH, AM_POST, AM_COMPLETE };
enum { AM_F_ACK = 1, AM_F_DATA = 2 };

/* A request's header; then nruns am_run_t; then the inline data (CAS: compare value, then
 * origin value). */
typedef struct am_msg {
    uint8_t kind;
    uint8_t flags;
    uint8_t basic; /* accumulates: fy_basic_t of the target elements */
    uint8_t lock;  /* LOCK, UNLOCK: FY_WLOCK_SHARED or _EXCL */
    int32_t op;    /* accumulates: the MPI_Op */
    uint32_t nruns;
    uint32_t reserved;
    int64_t off;    /* bytes from the target's window base (dynamic windows: the address) */
    uint64_t bytes; /* packed bytes of target data */
} am_msg_t;

/* The target layout: reps blocks, `stride` bytes apart, each of n units at `off` (relative to
 * am_msg_t.off). Units are bytes for Put and Get, elements of the basic kind for accumulates
 * (consecutive elements an element's extent apart). A vector is one run. */
typedef struct am_run {
    int64_t off;
    uint64_t n;
    int64_t stride;
    uint64_t reps;
} am_run_t;

/* An answer on ACK: the first error the target met since its last answer to this origin. */
typedef struct am_ack {
    int32_t err; /* MPI error class, 0 */
    int32_t kind;
    int64_t addr, lo, hi; /* the failed operation's target range */
} am_ack_t;

/* Origin side: an answer awaited. */
typedef struct am_pend {
    struct am_pend *next;
    fy_req_t *rr;   /* the receive */
    fy_req_t *user; /* the request form's request, or NULL */
    const char *fn;
    int target;
    bool ack;    /* rr receives `a`; else data into the user's buffer */
    size_t want; /* data: bytes expected */
    int64_t addr;
    am_ack_t a;
} am_pend_t;

/* A send in flight, with the block it sends from (NULL: user or window memory). */
typedef struct am_send {
    struct am_send *next;
    fy_req_t *r;
    void *blk;
    int peer;
} am_send_t;

typedef struct am_win {
    fy_win_t *w;
    struct am_win *next;
    uint32_t ctx;
    /* Origin side, per window rank. */
    uint32_t *unsynced, *npend, *nsend;
    uint8_t *held; /* FY_WLOCK_* taken through fy_osc_am_lock */
    unsigned tot_pend, tot_send;
    am_pend_t *pend;
    am_send_t *sends;
    /* The first error since the last flush, unlock or complete returned one: a class with
     * the range and function for its message, or a code whose message is written. */
    int err_cls, err_code, err_target;
    const char *err_fn;
    int64_t err_addr, err_lo, err_hi;
    /* Target side: the request being received or executed. */
    int stage; /* 0 none; 1 its message arriving; its separate data arriving: 2 straight into
                * the window (a Put), 3 into `data` (executed when in) */
    fy_req_t *cur;
    int cur_src;
    bool cur_bad;
    char *in, *data, *out, *msg;
    size_t in_cap, data_cap, out_cap, msg_cap;
    am_run_t *runs;
    size_t runs_cap;
    struct am_lq {
        int src, held;
    } *lq; /* locks waiting, in arrival order */
    int nlq;
    size_t lq_cap;
    am_ack_t *terr; /* per origin: the first error since the last answer */
} am_win_t;

static am_win_t *wins; /* windows that serve active messages */
static am_pend_t *pend_free;
static am_send_t *send_free;
static int serving;
static unsigned lq_polls;

/* ---- blocks: buffers for sends that outlive the call, recycled ---------------------------- */

typedef struct blk {
    struct blk *next;
    size_t cap;
} blk_t;
static blk_t *blk_free;
static int nblk_free;
enum { BLK_KEEP = 16 };

static void *blk_get(size_t len)
{
    for (blk_t **p = &blk_free; *p; p = &(*p)->next)
        if ((*p)->cap >= len) {
            blk_t *b = *p;
            *p = b->next;
            nblk_free--;
            return b + 1;
        }
    size_t cap = len < 4096 ? 4096 : len;
    blk_t *b = malloc(sizeof *b + cap);
    if (!b)
        return NULL;
    b->cap = cap;
    return b + 1;
}

static void blk_put(void *p)
{
    if (!p)
        return;
    blk_t *b = (blk_t *)p - 1;
    if (nblk_free >= BLK_KEEP || b->cap > ((size_t)1 << 20)) {
        free(b);
        return;
    }
    b->next = blk_free;
    blk_free = b;
    nblk_free++;
}

static bool grow(void **p, size_t *cap, size_t want)
{
    if (*cap >= want)
        return true;
    size_t c = *cap ? *cap : 256;
    while (c < want)
        c *= 2;
    void *q = realloc(*p, c);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

/* ---- sending -------------------------------------------------------------------------------- */

static const fy_dtype_t *byte_type(void)
{
    return fy_dtype_get(MPI_BYTE);
}

/* Sends count elements of d at buf to peer on tag through a request, listed until complete;
 * blk (a block from blk_get, or NULL) is released then. */
static int send_req(am_win_t *a, int peer, int tag, const void *buf, MPI_Aint count,
                    const fy_dtype_t *d, void *blk)
{
    am_send_t *s = send_free;
    if (s)
        send_free = s->next;
    else if (!(s = malloc(sizeof *s)))
        goto oom;
    s->r = fy_req_new_p2p(FY_REQ_SEND, buf, count, d, peer, tag, a->w->comm, a->ctx,
                          FY_MODE_STANDARD);
    if (!s->r) {
        s->next = send_free;
        send_free = s;
        goto oom;
    }
    int rc = fy_p2p_isend(s->r);
    if (rc != MPI_SUCCESS) {
        fy_req_free(s->r);
        s->next = send_free;
        send_free = s;
        blk_put(blk);
        return rc;
    }
    s->blk = blk;
    s->peer = peer;
    s->next = a->sends;
    a->sends = s;
    a->nsend[peer]++;
    a->tot_send++;
    return MPI_SUCCESS;
oom:
    blk_put(blk);
    return fy_err_set(MPI_ERR_NO_MEM, "one-sided communication: out of memory for a send");
}

/* Sends len bytes at p (reusable as soon as this returns): at once when small and nothing is
 * queued for the peer, else from a copy. */
static int send_copy(am_win_t *a, int peer, int tag, const void *p, size_t len)
{
    if (fy_p2p_send_now(a->w->comm, p, len, peer, tag) == 0)
        return MPI_SUCCESS;
    void *b = blk_get(len);
    if (!b)
        return fy_err_set(MPI_ERR_NO_MEM, "one-sided communication: out of memory for a send");
    memcpy(b, p, len);
    return send_req(a, peer, tag, b, (MPI_Aint)len, byte_type(), b);
}

static bool retire_sends(am_win_t *a)
{
    bool any = false;
    for (am_send_t **p = &a->sends; *p;) {
        am_send_t *s = *p;
        if (!fy_req_is_done(s->r)) {
            p = &s->next;
            continue;
        }
        *p = s->next;
        fy_req_free(s->r);
        blk_put(s->blk);
        a->nsend[s->peer]--;
        a->tot_send--;
        s->next = send_free;
        send_free = s;
        any = true;
    }
    return any;
}

/* ---- answers awaited (origin side) --------------------------------------------------------- */

static const char *kind_fn(int kind)
{
    static const char *const fn[] = {"MPI_Put", "MPI_Get", "MPI_Accumulate",
                                     "MPI_Get_accumulate", "MPI_Fetch_and_op",
                                     "MPI_Compare_and_swap"};
    return kind >= 0 && kind <= FY_RMA_CAS ? fn[kind] : "MPI_Win_flush";
}

static int range_error(const char *fn, int target, int64_t addr, int64_t lo, int64_t hi)
{
    return fy_err_set(MPI_ERR_RMA_RANGE,
                      "%s: target address 0x%lx + [%ld, %ld) is not inside a region rank %d "
                      "attached to the dynamic window (MPI_Win_attach); the target found it "
                      "when the operation reached it",
                      fn, (unsigned long)addr, (long)lo, (long)hi, target);
}

/* Posts the receive of an answer from target t: into the record's ack, or count elements of d
 * at buf. NULL when out of memory (message written). */
static am_pend_t *expect(am_win_t *a, int t, void *buf, MPI_Aint count, const fy_dtype_t *d)
{
    am_pend_t *e = pend_free;
    if (e)
        pend_free = e->next;
    else if (!(e = malloc(sizeof *e))) {
        fy_err_set(MPI_ERR_NO_MEM, "one-sided communication: out of memory");
        return NULL;
    }
    bool ack = buf == NULL;
    e->ack = ack;
    e->rr = ack ? fy_req_new_p2p(FY_REQ_RECV, &e->a, sizeof e->a, byte_type(), t, TAG_ACK,
                                 a->w->comm, a->ctx, FY_MODE_STANDARD)
                : fy_req_new_p2p(FY_REQ_RECV, buf, count, d, t, TAG_RDATA, a->w->comm, a->ctx,
                                 FY_MODE_STANDARD);
    if (!e->rr) {
        e->next = pend_free;
        pend_free = e;
        fy_err_set(MPI_ERR_NO_MEM, "one-sided communication: out of memory for a request");
        return NULL;
    }
    fy_p2p_irecv(e->rr);
    e->user = NULL;
    e->fn = NULL;
    e->target = t;
    e->want = ack ? 0 : fy_dtype_bytes(d, count);
    e->addr = 0;
    memset(&e->a, 0, sizeof e->a);
    e->next = a->pend;
    a->pend = e;
    a->npend[t]++;
    a->tot_pend++;
    return e;
}

static void retire_one(am_win_t *a, am_pend_t *e)
{
    int code = e->rr->cancelled ? MPI_ERR_OTHER : e->rr->error, cls = 0;
    const char *fn = e->fn;
    int64_t addr = e->addr, lo = 0, hi = (int64_t)e->want;
    if (code == MPI_SUCCESS && e->ack && e->a.err) {
        cls = e->a.err;
        fn = kind_fn(e->a.kind);
        addr = e->a.addr;
        lo = e->a.lo;
        hi = e->a.hi;
    } else if (code == MPI_SUCCESS && !e->ack && fy_status_bytes(&e->rr->status) != e->want) {
        cls = MPI_ERR_RMA_RANGE; /* a target answers a failed Get with nothing */
    }
    if (e->user) {
        if (code == MPI_SUCCESS && cls) {
            range_error(fn, e->target, addr, lo, hi);
            code = fy_err_code_for_message(cls);
        }
        e->user->error = code;
        e->user->status.MPI_ERROR = code;
        fy_req_complete(e->user);
    } else if (a->err_cls == 0 && (cls || code != MPI_SUCCESS)) {
        a->err_cls = cls ? cls : fy_err_class_of(code);
        a->err_code = cls ? 0 : code;
        a->err_fn = fn;
        a->err_target = e->target;
        a->err_addr = addr;
        a->err_lo = lo;
        a->err_hi = hi;
    }
    fy_req_free(e->rr);
    a->npend[e->target]--;
    a->tot_pend--;
    e->next = pend_free;
    pend_free = e;
}

static bool retire_pend(am_win_t *a)
{
    bool any = false;
    for (am_pend_t **p = &a->pend; *p;) {
        am_pend_t *e = *p;
        if (!fy_req_is_done(e->rr)) {
            p = &e->next;
            continue;
        }
        *p = e->next;
        retire_one(a, e);
        any = true;
    }
    return any;
}

/* The error a target reported since the last call, with its message; else MPI_SUCCESS. */
static int take_error(am_win_t *a, const char *fn)
{
    int cls = a->err_cls;
    a->err_cls = 0;
    if (cls == 0)
        return MPI_SUCCESS;
    if (a->err_code)
        return fy_err_set(cls, "%s: an answer from rank %d failed: %s", fn, a->err_target,
                          fy_err_code_message(a->err_code));
    return range_error(a->err_fn ? a->err_fn : fn, a->err_target, a->err_addr, a->err_lo,
                       a->err_hi);
}

/* ---- describing the target layout ------------------------------------------------------------ */

typedef struct {
    am_win_t *a;
    size_t n;   /* runs complete */
    bool have;  /* runs[n] is being built */
    int64_t x;  /* memory bytes from one unit to the next */
    uint64_t p; /* packed bytes of a unit */
    uint64_t pos;
    bool bytes;
    fy_basic_t kind; /* accumulates: the elements' kind (a pair kind arrives as its parts) */
    intptr_t base;
} flat_t;

static int add_block(flat_t *f, int64_t off, uint64_t n)
{
    am_run_t *g = &f->a->runs[f->n];
    if (f->have) {
        if (g->reps == 1 && off == g->off + (int64_t)g->n * f->x) {
            g->n += n;
            return 0;
        }
        if (n == g->n && (g->reps == 1 ? off != g->off
                                       : off == g->off + (int64_t)g->reps * g->stride)) {
            if (g->reps == 1)
                g->stride = off - g->off;
            g->reps++;
            return 0;
        }
        f->n++;
    }
    if (!grow((void **)&f->a->runs, &f->a->runs_cap, (f->n + 1) * sizeof(am_run_t)))
        return 1;
    f->a->runs[f->n] = (am_run_t){off, n, 0, 1};
    f->have = true;
    return 0;
}

static int flat_walk(void *arg, fy_basic_t kind, char *addr, MPI_Count n)
{
    flat_t *f = arg;
    int64_t off = (int64_t)((intptr_t)addr - f->base);
    uint64_t len = (uint64_t)n * fy_basic_size(kind);
    if (f->bytes)
        return add_block(f, off, len);
    if (kind == f->kind)
        return add_block(f, off, (uint64_t)n);
    /* Pair kinds arrive as their parts: an element starts where the packed position is a
     * multiple of the pair's packed size. */
    for (uint64_t k = (f->p - f->pos % f->p) % f->p; k < len; k += f->p)
        if (add_block(f, off + (int64_t)k, 1))
            return 1;
    f->pos += len;
    return 0;
}

/* count elements of d as runs (a->runs), in bytes or in elements of d's basic kind. */
static int flatten(am_win_t *a, const fy_dtype_t *d, MPI_Aint count, bool bytes, size_t *n_p)
{
    /* Walked from a made-up base far from 0, so that no offset is applied to a null pointer. */
    flat_t f = {.a = a, .bytes = bytes, .kind = d->basic, .base = (intptr_t)((uintptr_t)1 << 62)};
    f.p = bytes ? 1 : fy_basic_size(d->basic);
    f.x = bytes ? 1 : (int64_t)fy_acc_basic_type(d->basic)->extent;
    if (!grow((void **)&a->runs, &a->runs_cap, 4 * sizeof(am_run_t)))
        return MPI_ERR_NO_MEM;
    if (d->contig) {
        a->runs[0] = (am_run_t){d->true_lb, fy_dtype_bytes(d, count) / f.p, 0, 1};
        *n_p = 1;
        return MPI_SUCCESS;
    }
    if (fy_dtype_walk(d, (const void *)f.base, count, flat_walk, &f))
        return MPI_ERR_NO_MEM;
    *n_p = f.n + f.have;
    return MPI_SUCCESS;
}

/* ---- origin side ------------------------------------------------------------------------------- */

static int oom(const char *fn)
{
    return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
}

int fy_osc_am_issue(fy_win_t *w, fy_rma_op_t *op)
{
    am_win_t *a = w->am;
    int t = op->target, kind = op->kind;
    size_t bytes = fy_dtype_bytes(op->tdt, op->tcount);
    if (bytes == 0) {
        if (op->req)
            fy_req_complete(op->req);
        return MPI_SUCCESS;
    }
    bool noop = op->op == MPI_NO_OP && kind != FY_RMA_CAS;
    size_t nruns;
    if (flatten(a, op->tdt, op->tcount, kind == FY_RMA_PUT || kind == FY_RMA_GET, &nruns) !=
        MPI_SUCCESS)
        return oom(op->fn);
    size_t odata = kind == FY_RMA_GET || noop ? 0 : kind == FY_RMA_CAS ? 2 * bytes : bytes;
    size_t head = sizeof(am_msg_t) + nruns * sizeof(am_run_t);
    size_t inline_max = fy_eager_max / 8 > 1024 ? fy_eager_max / 8 : 1024;
    bool sep = odata && kind != FY_RMA_CAS && head + odata > inline_max;
    if (!grow((void **)&a->msg, &a->msg_cap, head + (sep ? 0 : odata)))
        return oom(op->fn);
    am_msg_t *m = (am_msg_t *)a->msg;
    *m = (am_msg_t){.kind = (uint8_t)kind,
                    .flags = sep ? AM_F_DATA : 0,
                    .basic = (uint8_t)op->tdt->basic,
                    .op = (int32_t)op->op,
                    .nruns = (uint32_t)nruns,
                    .off = (int64_t)op->toff,
                    .bytes = bytes};
    memcpy(m + 1, a->runs, nruns * sizeof(am_run_t));
    char *d = a->msg + head;
    if (kind == FY_RMA_CAS) {
        fy_dtype_pack(op->tdt, op->cbuf, 1, d);
        fy_dtype_pack(op->odt, op->obuf, 1, d + bytes);
    } else if (odata && !sep) {
        fy_dtype_pack(op->odt, op->obuf, op->ocount, d);
    }
    /* The answer's receive first, then the request. */
    am_pend_t *e = NULL;
    if (kind == FY_RMA_GET || kind == FY_RMA_GACC || kind == FY_RMA_FOP || kind == FY_RMA_CAS) {
        if (!(e = expect(a, t, op->rbuf, op->rcount, op->rdt)))
            return MPI_ERR_NO_MEM;
    } else if (op->req) {
        m->flags |= AM_F_ACK;
        if (!(e = expect(a, t, NULL, 0, NULL)))
            return MPI_ERR_NO_MEM;
    } else {
        a->unsynced[t]++;
    }
    if (e) {
        e->user = op->req;
        e->fn = op->fn;
        e->addr = (int64_t)op->toff;
    }
    int rc = send_copy(a, t, TAG_REQ, a->msg, head + (sep ? 0 : odata));
    if (rc == MPI_SUCCESS && sep)
        rc = send_req(a, t, TAG_ODATA, op->obuf, op->ocount, op->odt, NULL);
    return rc;
}

/* A request without data: FLUSH, UNLOCK, POST, COMPLETE. With an answer awaited when ack. */
static int send_sync(am_win_t *a, int t, int kind, int held, bool ack)
{
    if (ack && !expect(a, t, NULL, 0, NULL))
        return MPI_ERR_NO_MEM;
    am_msg_t m = {.kind = (uint8_t)kind, .flags = ack ? AM_F_ACK : 0, .lock = (uint8_t)held};
    return send_copy(a, t, TAG_REQ, &m, sizeof m);
}

typedef struct {
    am_win_t *a;
    int t; /* -1: every target */
} quiet_t;

static bool quiet(void *arg)
{
    quiet_t *q = arg;
    if (q->t < 0)
        return q->a->tot_pend == 0 && q->a->tot_send == 0;
    return q->a->npend[q->t] == 0 && q->a->nsend[q->t] == 0;
}

/* Until every answer awaited from t (-1: from all) has come and every send to it is complete. */
static void wait_quiet(am_win_t *a, int t)
{
    quiet_t q = {a, t};
    if (!quiet(&q)) {
        if (t >= 0)
            fy_wait_hint(a->w->t[t].world);
        fy_wait_until(quiet, &q);
    }
}

int fy_osc_am_flush(fy_win_t *w, int t)
{
    am_win_t *a = w->am;
    /* Even with nothing in flight: a rank that spins on flushes (a lock built on
     * Compare_and_swap to itself) must still serve the others. */
    fy_progress();
    int lo = t < 0 ? 0 : t, hi = t < 0 ? w->size : t + 1, rc = MPI_SUCCESS;
    for (int u = lo; u < hi && rc == MPI_SUCCESS; u++)
        if (a->unsynced[u]) {
            rc = send_sync(a, u, AM_FLUSH, 0, true);
            a->unsynced[u] = 0;
        }
    wait_quiet(a, t);
    int e = take_error(a, "MPI_Win_flush");
    return rc != MPI_SUCCESS ? rc : e;
}

int fy_osc_am_lock(fy_win_t *w, int t, int type)
{
    am_win_t *a = w->am;
    int held = type == MPI_LOCK_EXCLUSIVE ? FY_WLOCK_EXCL : FY_WLOCK_SHARED;
    if (w->t[t].local >= 0) {
        /* A rank of this host (CMA refused): its lock word is in our shared metadata. */
        fy_osc_lock_wait(w, t, held);
    } else {
        int rc = send_sync(a, t, AM_LOCK, held, true);
        if (rc != MPI_SUCCESS)
            return rc;
        wait_quiet(a, t); /* the grant */
    }
    a->held[t] = (uint8_t)held;
    return MPI_SUCCESS;
}

int fy_osc_am_unlock(fy_win_t *w, int t)
{
    am_win_t *a = w->am;
    int held = a->held[t], rc;
    a->held[t] = FY_WLOCK_NONE;
    if (w->t[t].local >= 0) {
        rc = fy_osc_am_flush(w, t);
        fy_osc_lock_release(w, t, held);
        return rc;
    }
    /* The target answers after executing everything issued before, then lets go. */
    rc = send_sync(a, t, AM_UNLOCK, held, true);
    a->unsynced[t] = 0;
    wait_quiet(a, t);
    int e = take_error(a, "MPI_Win_unlock");
    return rc != MPI_SUCCESS ? rc : e;
}

int fy_osc_am_post(fy_win_t *w, int o)
{
    return send_sync(w->am, o, AM_POST, 0, false);
}

int fy_osc_am_complete(fy_win_t *w, int t)
{
    am_win_t *a = w->am;
    /* The target counts it after executing what came before. Only a dynamic window's target
     * can find an error, so only there does the origin wait for its answer. */
    bool ack = w->flavor == MPI_WIN_FLAVOR_DYNAMIC;
    int rc = send_sync(a, t, AM_COMPLETE, 0, ack);
    a->unsynced[t] = 0;
    wait_quiet(a, t); /* results in place, origin buffers free */
    int e = take_error(a, "MPI_Win_complete");
    return rc != MPI_SUCCESS ? rc : e;
}

/* ---- target side ----------------------------------------------------------------------------- */

static void note_error(am_win_t *a, int src, const am_msg_t *m, int64_t lo, int64_t hi)
{
    am_ack_t *e = &a->terr[src];
    if (e->err == 0)
        *e = (am_ack_t){MPI_ERR_RMA_RANGE, m->kind, m->off, lo, hi};
}

static void answer(am_win_t *a, int src)
{
    am_ack_t ack = a->terr[src];
    memset(&a->terr[src], 0, sizeof ack);
    if (send_copy(a, src, TAG_ACK, &ack, sizeof ack) != MPI_SUCCESS)
        fy_fatal(MPI_ERR_NO_MEM, "out of memory answering a one-sided request");
}

/* Bytes [lo, hi) of the request's target range, relative to m->off: units x bytes apart, the
 * last one `last` bytes long (a pair's padding is not touched). */
static void span(const am_msg_t *m, const am_run_t *r, int64_t x, int64_t last, int64_t *lo_p,
                 int64_t *hi_p)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint32_t i = 0; i < m->nruns; i++) {
        int64_t a = r[i].off, b = r[i].off + (int64_t)(r[i].reps - 1) * r[i].stride;
        int64_t l = a < b ? a : b, h = (a < b ? b : a) + (int64_t)(r[i].n - 1) * x + last;
        lo = l < lo ? l : lo;
        hi = h > hi ? h : hi;
    }
    *lo_p = lo;
    *hi_p = hi;
}

/* Whether the request's range lies in one region attached to this rank's dynamic window. */
static bool attached(fy_win_t *w, uint64_t lo, uint64_t hi)
{
    fy_osc_rank_meta_t *me = &w->meta[w->mylocal];
    for (uint32_t i = 0; i < me->dyn_n; i++)
        if (lo >= me->dyn[i].base && hi <= me->dyn[i].base + me->dyn[i].len)
            return true;
    return false;
}

static char *where(fy_win_t *w, int64_t off)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return (char *)(uintptr_t)off;
    return (char *)w->t[w->rank].base + off;
}

/* Sends a result of len bytes (in a->out, or a block when large) to src. */
static void send_result(am_win_t *a, int src, char *p, size_t len, bool is_blk)
{
    int rc = is_blk ? send_req(a, src, TAG_RDATA, p, (MPI_Aint)len, byte_type(), p)
                    : send_copy(a, src, TAG_RDATA, p, len);
    if (rc != MPI_SUCCESS)
        fy_fatal(MPI_ERR_NO_MEM, "out of memory answering a one-sided request");
}

/* A result buffer of len bytes: a->out when a send_copy will do, else a block. */
static char *result_buf(am_win_t *a, size_t len, bool *is_blk)
{
    size_t small = fy_eager_max / 8;
    *is_blk = len > small;
    char *p = *is_blk ? blk_get(len) : grow((void **)&a->out, &a->out_cap, len) ? a->out : NULL;
    if (!p)
        fy_fatal(MPI_ERR_NO_MEM, "out of memory answering a one-sided request");
    return p;
}

/* Executes the request in a->in; its origin data at `in` (inline or received apart). */
static void execute(am_win_t *a, const char *in)
{
    fy_win_t *w = a->w;
    const am_msg_t *m = (const am_msg_t *)a->in;
    const am_run_t *runs = (const am_run_t *)(m + 1);
    int src = a->cur_src, kind = m->kind;
    bool reply = kind == FY_RMA_GET || kind == FY_RMA_GACC || kind == FY_RMA_FOP ||
                 kind == FY_RMA_CAS;
    if (a->cur_bad) {
        static char none;
        if (reply) /* an empty answer says it failed */
            send_result(a, src, &none, 0, false);
        if (m->flags & AM_F_ACK)
            answer(a, src);
        return;
    }
    size_t bytes = (size_t)m->bytes, pos = 0;
    if (kind == FY_RMA_PUT || kind == FY_RMA_GET) {
        bool is_blk = false;
        char *out = NULL;
        if (kind == FY_RMA_GET) {
            if (m->nruns == 1 && runs[0].reps == 1 && bytes > fy_eager_max / 8) {
                /* One large block: sent straight from the window. */
                if (send_req(a, src, TAG_RDATA, where(w, m->off + runs[0].off), (MPI_Aint)bytes,
                             byte_type(), NULL) != MPI_SUCCESS)
                    fy_fatal(MPI_ERR_NO_MEM, "out of memory answering a one-sided request");
                return;
            }
            out = result_buf(a, bytes, &is_blk);
        }
        for (uint32_t i = 0; i < m->nruns; i++)
            for (uint64_t r = 0; r < runs[i].reps; r++) {
                char *p = where(w, m->off + runs[i].off + (int64_t)r * runs[i].stride);
                if (kind == FY_RMA_PUT)
                    memcpy(p, in + pos, runs[i].n);
                else
                    memcpy(out + pos, p, runs[i].n);
                pos += runs[i].n;
            }
        if (kind == FY_RMA_GET)
            send_result(a, src, out, bytes, is_blk);
        else if (m->flags & AM_F_ACK)
            answer(a, src);
        return;
    }
    /* Accumulates: block by block, as an origin of this host would, on ourselves. */
    const fy_dtype_t *b = fy_acc_basic_type((fy_basic_t)m->basic);
    size_t p = fy_basic_size((fy_basic_t)m->basic);
    bool is_blk = false;
    char *res = reply ? result_buf(a, bytes, &is_blk) : NULL;
    const fy_dtype_t *byte = byte_type();
    for (uint32_t i = 0; i < m->nruns; i++)
        for (uint64_t r = 0; r < runs[i].reps; r++) {
            MPI_Aint n = (MPI_Aint)runs[i].n;
            size_t nb = (size_t)n * p;
            fy_rma_op_t sub = {.kind = kind == FY_RMA_FOP ? FY_RMA_GACC : kind,
                               .fn = kind_fn(kind),
                               .obuf = in ? in + pos : NULL,
                               .ocount = (MPI_Aint)nb,
                               .odt = byte,
                               .rbuf = res ? res + pos : NULL,
                               .rcount = (MPI_Aint)nb,
                               .rdt = byte,
                               .target = w->rank,
                               .tcount = n,
                               .tdt = b,
                               .op = (MPI_Op)m->op};
            if (kind == FY_RMA_CAS) {
                sub.odt = b; /* compare and origin value: one element each */
                sub.cbuf = in;
                sub.obuf = in + bytes;
                sub.op = MPI_REPLACE;
            }
            int64_t off = m->off + runs[i].off + (int64_t)r * runs[i].stride;
            if (fy_osc_acc_direct(w, &sub, off) != MPI_SUCCESS)
                fy_fatal(MPI_ERR_NO_MEM, "out of memory executing a one-sided accumulate");
            pos += nb;
        }
    if (reply)
        send_result(a, src, res, bytes, is_blk);
    else if (m->flags & AM_F_ACK)
        answer(a, src);
}

static int grant_locks(am_win_t *a)
{
    int n = 0;
    while (a->nlq && fy_osc_lock_try(a->w, a->w->rank, a->lq[0].held)) {
        int src = a->lq[0].src;
        memmove(a->lq, a->lq + 1, (size_t)(--a->nlq) * sizeof *a->lq);
        answer(a, src);
        n++;
    }
    return n;
}

/* The request in a->in has arrived whole: synchronisation is done at once; an operation
 * executes, or first receives its separate data (stage 2). */
static void begin(am_win_t *a)
{
    fy_win_t *w = a->w;
    const am_msg_t *m = (const am_msg_t *)a->in;
    int src = a->cur_src;
    size_t len = fy_status_bytes(&a->cur->status);
    fy_req_free(a->cur);
    a->cur = NULL;
    a->stage = 0;
    if (len < sizeof *m || (len - sizeof *m) / sizeof(am_run_t) < m->nruns)
        fy_fatal(MPI_ERR_INTERN, "corrupt one-sided request");
    switch (m->kind) {
    case AM_LOCK:
        if (!grow((void **)&a->lq, &a->lq_cap, (size_t)(a->nlq + 1) * sizeof *a->lq))
            fy_fatal(MPI_ERR_NO_MEM, "out of memory queueing a lock request");
        a->lq[a->nlq].src = src;
        a->lq[a->nlq].held = m->lock;
        a->nlq++;
        grant_locks(a);
        return;
    case AM_UNLOCK:
        fy_osc_lock_release(w, w->rank, m->lock);
        answer(a, src);
        grant_locks(a);
        return;
    case AM_FLUSH:
        answer(a, src);
        return;
    case AM_POST:
        __atomic_fetch_add(&w->rposted[src], 1, __ATOMIC_RELEASE);
        return;
    case AM_COMPLETE:
        __atomic_fetch_add(&w->rcompleted[src], 1, __ATOMIC_RELEASE);
        if (m->flags & AM_F_ACK)
            answer(a, src);
        return;
    default:
        break;
    }
    const am_run_t *runs = (const am_run_t *)(m + 1);
    bool acc = m->kind != FY_RMA_PUT && m->kind != FY_RMA_GET;
    a->cur_bad = false;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        int64_t lo, hi;
        const fy_dtype_t *b = acc ? fy_acc_basic_type((fy_basic_t)m->basic) : NULL;
        span(m, runs, b ? b->extent : 1, b ? b->true_extent : 1, &lo, &hi);
        if (!attached(w, (uint64_t)(m->off + lo), (uint64_t)(m->off + hi))) {
            a->cur_bad = true;
            if (m->kind == FY_RMA_PUT || m->kind == FY_RMA_ACC)
                note_error(a, src, m, lo, hi);
        }
    }
    const char *in = a->in + sizeof *m + m->nruns * sizeof(am_run_t);
    if (!(m->flags & AM_F_DATA)) {
        bool noop = (MPI_Op)m->op == MPI_NO_OP && m->kind != FY_RMA_CAS;
        execute(a, m->kind == FY_RMA_GET || (acc && noop) ? NULL : in);
        return;
    }
    /* The data follows apart: straight into the window when it is one block of a Put. */
    void *dst;
    size_t bytes = (size_t)m->bytes;
    if (m->kind == FY_RMA_PUT && !a->cur_bad && m->nruns == 1 && runs[0].reps == 1) {
        dst = where(w, m->off + runs[0].off);
    } else {
        if (!grow((void **)&a->data, &a->data_cap, bytes))
            fy_fatal(MPI_ERR_NO_MEM, "out of memory receiving one-sided data");
        dst = a->data;
    }
    a->cur = fy_req_new_p2p(FY_REQ_RECV, dst, (MPI_Aint)bytes, byte_type(), src, TAG_ODATA,
                            w->comm, a->ctx, FY_MODE_STANDARD);
    if (!a->cur)
        fy_fatal(MPI_ERR_NO_MEM, "out of memory for a request");
    fy_p2p_irecv(a->cur);
    a->stage = dst == a->data ? 3 : 2;
}

static int take_requests(am_win_t *a)
{
    int n = 0;
    for (;;) {
        if (a->stage) {
            if (!fy_req_is_done(a->cur))
                break;
            n++;
            if (a->stage == 1) {
                begin(a);
                continue;
            }
            int st = a->stage;
            fy_req_free(a->cur);
            a->cur = NULL;
            a->stage = 0;
            const am_msg_t *m = (const am_msg_t *)a->in;
            if (st == 3)
                execute(a, a->data);
            else if (m->flags & AM_F_ACK)
                answer(a, a->cur_src);
            continue;
        }
        fy_req_t *u = fy_p2p_probe(a->ctx, MPI_ANY_SOURCE, TAG_REQ, true);
        if (!u)
            break;
        size_t len = (size_t)u->hdr.len;
        if (!grow((void **)&a->in, &a->in_cap, len > 64 ? len : 64))
            fy_fatal(MPI_ERR_NO_MEM, "out of memory receiving a one-sided request");
        fy_req_t *r = fy_req_new_p2p(FY_REQ_RECV, a->in, (MPI_Aint)len, byte_type(),
                                     u->hdr.src, TAG_REQ, a->w->comm, a->ctx, FY_MODE_STANDARD);
        if (!r)
            fy_fatal(MPI_ERR_NO_MEM, "out of memory for a request");
        r->bytes = len;
        a->cur = r;
        a->cur_src = u->hdr.src;
        a->stage = 1;
        fy_p2p_mrecv(r, u);
    }
    return n;
}

/* The progress hook: answers, retires, serves. */
static int serve(void)
{
    if (serving)
        return 0;
    serving = 1;
    int n = 0;
    for (am_win_t *a = wins; a; a = a->next) {
        n += retire_sends(a);
        n += retire_pend(a);
        if (fy_osc_acc_held == 0) {
            n += grant_locks(a);
            n += take_requests(a);
        }
        /* A lock request waits for a word that other processes of this host may release
         * without waking us: while one does, a wait must not sleep. Said on one pass in 16
         * only, so that the passes between still yield the CPU to the holder when the wait
         * does that. */
        n += a->nlq > 0 && (++lq_polls & 15) == 0;
    }
    serving = 0;
    return n;
}

/* ---- the window's state ------------------------------------------------------------------------ */

int fy_osc_am_init(fy_win_t *w)
{
    am_win_t *a = calloc(1, sizeof *a);
    int n = w->size;
    if (a) {
        a->unsynced = calloc((size_t)n, sizeof(uint32_t));
        a->npend = calloc((size_t)n, sizeof(uint32_t));
        a->nsend = calloc((size_t)n, sizeof(uint32_t));
        a->held = calloc((size_t)n, 1);
        a->terr = calloc((size_t)n, sizeof(am_ack_t));
    }
    if (!a || !a->unsynced || !a->npend || !a->nsend || !a->held || !a->terr) {
        if (a) {
            free(a->unsynced);
            free(a->npend);
            free(a->nsend);
            free(a->held);
            free(a->terr);
            free(a);
        }
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Win_create: out of memory");
    }
    a->w = w;
    a->ctx = FY_CTX_P2P(w->comm);
    a->next = wins;
    wins = a;
    w->am = a;
    fy_progress_osc_hook = serve;
    return MPI_SUCCESS;
}

static bool all_done(void *arg)
{
    am_win_t *a = arg;
    for (am_send_t *s = a->sends; s; s = s->next)
        if (!fy_req_is_done(s->r))
            return false;
    for (am_pend_t *e = a->pend; e; e = e->next)
        if (!fy_req_is_done(e->rr))
            return false;
    return a->stage == 0 || fy_req_is_done(a->cur);
}

void fy_osc_am_fini(fy_win_t *w)
{
    am_win_t *a = w->am;
    if (!a)
        return;
    for (am_win_t **p = &wins; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            break;
        }
    if (!wins)
        fy_progress_osc_hook = NULL;
    /* After the flush and barrier of Win_free nothing is in flight. A window never freed
     * (MPI_Finalize) may still await answers: receives not yet matched are withdrawn, and what
     * is on its way is waited for. */
    for (am_pend_t *e = a->pend; e; e = e->next)
        fy_p2p_cancel_recv(e->rr);
    if (a->stage)
        fy_p2p_cancel_recv(a->cur);
    if (!all_done(a))
        fy_wait_until(all_done, a);
    retire_sends(a);
    retire_pend(a);
    if (a->stage)
        fy_req_free(a->cur);
    free(a->unsynced);
    free(a->npend);
    free(a->nsend);
    free(a->held);
    free(a->terr);
    free(a->in);
    free(a->data);
    free(a->out);
    free(a->msg);
    free(a->runs);
    free(a->lq);
    free(a);
    w->am = NULL;
    if (!wins) {
        while (pend_free) {
            am_pend_t *e = pend_free;
            pend_free = e->next;
            free(e);
        }
        while (send_free) {
            am_send_t *s = send_free;
            send_free = s->next;
            free(s);
        }
        while (blk_free) {
            blk_t *b = blk_free;
            blk_free = b->next;
            free(b);
        }
        nblk_free = 0;
    }
}
