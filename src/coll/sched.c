/* The schedule engine (fy_sched.h): building, starting, and advancing schedules from the progress
 * engine. Running schedules are on one list; while it is not empty fy_progress_hook points
 * here, and every progress pass advances each of them as far as it can go without waiting. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fy_coll.h"
#include "fy_err.h"
#include "fy_op.h"
#include "fy_p2p.h"
#include "fy_request.h"
#include "fy_runtime.h"
#include "fy_sched.h"

enum { OP_SEND, OP_RECV, OP_REDUCE, OP_COPY, OP_COPY_SAME, OP_CALL };
enum { INLINE_SCRATCH = 512, CACHE_MAX = 16 };

typedef struct {
    uint8_t kind;
    uint8_t on; /* whom a message addresses: 0 the schedule's communicator, k > 0 subs[k-1] */
    int peer;
    MPI_Aint count, count2;
    const fy_dtype_t *dt, *dt2;
    const void *src; /* send, reduce's in, copies' source */
    void *dst;       /* receive, reduce's inout, copies' destination */
    MPI_Op op;
    fy_op_t *uop; /* a user operator held by this reduction */
    fy_sched_fn_t fn;
    void *arg;
    fy_req_t *req; /* a message in flight */
} op_t;

typedef struct owned {
    struct owned *next;
    void (*free_fn)(void *);
    void *p;
} owned_t;

struct fy_sched {
    fy_comm_t *comm;
    fy_comm_t *cur; /* what fy_sched_comm returns: comm, or one of subs while adding their ops */
    const char *fn;
    int tag;
    /* Communicators within comm that operations address (fy_sched_on): an intercommunicator's
     * local group, the node-aware collectives' host and leaders communicators; each with the
     * tag of this schedule's messages there (a number of its own sequence). */
    fy_comm_t *subs[FY_SCHED_SUBS];
    int subtag[FY_SCHED_SUBS];
    int nsubs;
    uint8_t cur_on; /* the `on` of operations added now */
    op_t *ops;
    int nops, cap;
    int *first; /* first[k]: index of round k's first operation; first[nrounds] == nops */
    int nrounds, rcap;
    bool open;                             /* the last round takes more operations */
    bool failed;                           /* out of memory while building */
    bool running;                          /* started, not yet complete */
    bool rewind;                           /* a call asked to start again at round 0 */
    int round;                             /* running: the round whose messages are in flight */
    int inflight;                          /* messages of that round not yet complete */
    int error;                             /* the first error (a code), reported by the request */
    fy_req_t *req;                         /* the user's request (NULL before fy_sched_start) */
    owned_t *owned;                        /* scratch and other memory freed with the schedule */
    fy_sched_t *prev, *next;               /* on the running or the idle list (or the cache) */
    size_t inl_used;                       /* bytes of inl handed out */
    _Alignas(16) char inl[INLINE_SCRATCH]; /* small scratch, without a malloc each */
};

/* Freed schedules are kept (up to CACHE_MAX) with their operation and round arrays, so a
 * steady stream of small nonblocking collectives allocates only its request. (A fresh
 * operation array of 16 is a large-bin malloc, which makes glibc consolidate its fast bins:
 * a fifth of an 8-byte Iallreduce at 2 ranks went there.) */
static fy_sched_t *cache;
static int ncache;
static fy_sched_t *running_head; /* running schedules */
static fy_sched_t *idle_head;    /* built, persistent and inactive, or complete */
static bool advancing;           /* the hook is on the stack: do not re-enter */

static int sched_progress(void);

static void list_add(fy_sched_t **head, fy_sched_t *s)
{
    s->prev = NULL;
    s->next = *head;
    if (*head)
        (*head)->prev = s;
    *head = s;
}

static void list_del(fy_sched_t **head, fy_sched_t *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        *head = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->prev = s->next = NULL;
}

fy_sched_t *fy_sched_new(fy_comm_t *c, const char *fn)
{
    fy_sched_t *s = cache;
    if (s) { /* reuse the shell and its arrays */
        cache = s->next;
        ncache--;
        op_t *ops = s->ops;
        int *first = s->first, cap = s->cap, rcap = s->rcap;
        memset(s, 0, offsetof(fy_sched_t, inl));
        s->ops = ops;
        s->cap = cap;
        s->first = first;
        s->rcap = rcap;
    } else if (!(s = calloc(1, sizeof *s))) {
        fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for a schedule", fn);
        return NULL;
    }
    s->comm = s->cur = c;
    s->fn = fn;
    s->tag = fy_tag_sched(c->coll_seq++);
    /* Every member of c's local group makes the same schedules on c in the same order, so a
     * number of c->local's sequence keeps the local messages apart from any other schedule
     * that addresses that group. */
    if (c->inter) {
        s->subs[0] = c->local;
        s->subtag[0] = fy_tag_sched(c->local->coll_seq++);
        s->nsubs = 1;
    }
    c->refs++; /* MPI_Comm_free while this runs must not pull the communicator away */
    list_add(&idle_head, s);
    return s;
}

fy_comm_t *fy_sched_comm(const fy_sched_t *s)
{
    return s->cur;
}

void fy_sched_local(fy_sched_t *s, bool local)
{
    fy_sched_on(s, local && s->comm->inter ? s->comm->local : s->comm);
}

void fy_sched_on(fy_sched_t *s, fy_comm_t *t)
{
    int k = 0;
    if (t != s->comm) {
        while (k < s->nsubs && s->subs[k] != t)
            k++;
        if (k == s->nsubs) {
            if (k == FY_SCHED_SUBS) { /* a builder's mistake: reported as out of memory */
                s->failed = true;
                return;
            }
            s->subs[k] = t;
            s->subtag[k] = fy_tag_sched(t->coll_seq++);
            s->nsubs++;
        }
        k++;
    }
    s->cur = t;
    s->cur_on = (uint8_t)k;
}

int fy_sched_error(const fy_sched_t *s)
{
    return s->error;
}

int fy_sched_tag(const fy_sched_t *s)
{
    return s->tag;
}

static op_t *add(fy_sched_t *s, int kind)
{
    if (s->failed)
        return NULL;
    if (s->nops == s->cap) {
        int ncap = s->cap ? 2 * s->cap : 16;
        op_t *n = realloc(s->ops, sizeof *n * (size_t)ncap);
        if (!n) {
            s->failed = true;
            return NULL;
        }
        s->ops = n;
        s->cap = ncap;
    }
    if (!s->open) { /* a new round starts with this operation */
        if (s->nrounds + 2 > s->rcap) {
            int ncap = s->rcap ? 2 * s->rcap : 8;
            int *n = realloc(s->first, sizeof *n * (size_t)ncap);
            if (!n) {
                s->failed = true;
                return NULL;
            }
            s->first = n;
            s->rcap = ncap;
        }
        s->first[s->nrounds++] = s->nops;
        s->open = true;
    }
    op_t *o = &s->ops[s->nops++];
    s->first[s->nrounds] = s->nops;
    memset(o, 0, sizeof *o);
    o->kind = (uint8_t)kind;
    o->on = s->cur_on;
    return o;
}

static void hold(const fy_dtype_t *dt)
{
    if (dt)
        fy_dtype_ref(dt);
}

void fy_sched_send(fy_sched_t *s, const void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer)
{
    op_t *o = add(s, OP_SEND);
    if (o) {
        o->src = buf;
        o->count = count;
        o->dt = dt;
        o->peer = peer;
        hold(dt);
    }
}

void fy_sched_recv(fy_sched_t *s, void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer)
{
    op_t *o = add(s, OP_RECV);
    if (o) {
        o->dst = buf;
        o->count = count;
        o->dt = dt;
        o->peer = peer;
        hold(dt);
    }
}

void fy_sched_reduce(fy_sched_t *s, MPI_Op op, const fy_dtype_t *dt, const void *in, void *inout,
                     MPI_Aint count)
{
    op_t *o = add(s, OP_REDUCE);
    if (o) {
        o->op = op;
        o->dt = dt;
        o->src = in;
        o->dst = inout;
        o->count = count;
        hold(dt);
        fy_op_t *u = fy_op_get(op);
        if (u && !u->predef) { /* MPI_Op_free while this runs must not pull it away */
            fy_op_ref(u);
            o->uop = u;
        }
    }
}

void fy_sched_copy(fy_sched_t *s, const void *src, MPI_Aint scount, const fy_dtype_t *sdt,
                   void *dst, MPI_Aint rcount, const fy_dtype_t *rdt)
{
    op_t *o = add(s, OP_COPY);
    if (o) {
        o->src = src;
        o->count = scount;
        o->dt = sdt;
        o->dst = dst;
        o->count2 = rcount;
        o->dt2 = rdt;
        hold(sdt);
        hold(rdt);
    }
}

void fy_sched_copy_same(fy_sched_t *s, const fy_dtype_t *dt, const void *src, void *dst,
                        MPI_Aint count)
{
    if (src == dst)
        return;
    op_t *o = add(s, OP_COPY_SAME);
    if (o) {
        o->dt = dt;
        o->src = src;
        o->dst = dst;
        o->count = count;
        hold(dt);
    }
}

void fy_sched_call(fy_sched_t *s, fy_sched_fn_t fn, void *arg)
{
    op_t *o = add(s, OP_CALL);
    if (o) {
        o->fn = fn;
        o->arg = arg;
    }
}

void fy_sched_round(fy_sched_t *s)
{
    s->open = false;
}

bool fy_sched_own(fy_sched_t *s, void *p, void (*free_fn)(void *))
{
    owned_t *w = malloc(sizeof *w);
    if (!w) {
        free_fn(p);
        s->failed = true;
        return false;
    }
    w->p = p;
    w->free_fn = free_fn;
    w->next = s->owned;
    s->owned = w;
    return true;
}

void *fy_sched_scratch(fy_sched_t *s, size_t bytes)
{
    if (s->failed)
        return NULL;
    size_t need = (bytes + 15) & ~(size_t)15;
    if (need <= INLINE_SCRATCH - s->inl_used) {
        char *p = s->inl + s->inl_used;
        s->inl_used += need;
        memset(p, 0, bytes);
        return p;
    }
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        s->failed = true;
        return NULL;
    }
    return fy_sched_own(s, p, free) ? p : NULL;
}

char *fy_sched_scratch_typed(fy_sched_t *s, const fy_dtype_t *dt, MPI_Aint count, int n,
                             size_t *stride_p)
{
    size_t origin, span = fy_op_span(dt, count, &origin);
    span = (span + 63) & ~(size_t)63; /* keep each vector as aligned as the first */
    char *p = fy_sched_scratch(s, span * (size_t)(n > 0 ? n : 1));
    if (stride_p)
        *stride_p = span;
    return p ? p + origin : NULL;
}

static void destroy(fy_sched_t *s)
{
    list_del(s->running ? &running_head : &idle_head, s);
    for (int i = 0; i < s->nops; i++) {
        op_t *o = &s->ops[i];
        if (o->dt && !o->dt->predefined)
            fy_dtype_release(o->dt);
        if (o->dt2 && !o->dt2->predefined)
            fy_dtype_release(o->dt2);
        if (o->uop)
            fy_op_release(o->uop);
    }
    while (s->owned) {
        owned_t *w = s->owned;
        s->owned = w->next;
        w->free_fn(w->p);
        free(w);
    }
    fy_comm_release(s->comm);
    if (ncache < CACHE_MAX) {
        s->next = cache;
        cache = s;
        ncache++;
        return;
    }
    free(s->ops);
    free(s->first);
    free(s);
}

void fy_sched_free(fy_sched_t *s)
{
    if (s->running) { /* MPI_Request_free of an active one: it finishes on its own */
        s->req->user_freed = true;
        return;
    }
    if (s->req)
        s->req->sched = NULL;
    destroy(s);
}

/* Records the first error as a code (so that its message survives). */
static void fail(fy_sched_t *s, int err)
{
    if (s->error == MPI_SUCCESS && err != MPI_SUCCESS)
        s->error = err > 0xff ? err : fy_err_code_for_message(err);
}

static void start_msg(fy_sched_t *s, op_t *o)
{
    fy_comm_t *c = o->on ? s->subs[o->on - 1] : s->comm;
    bool send = o->kind == OP_SEND;
    fy_req_t *r =
        fy_req_new_p2p(send ? FY_REQ_SEND : FY_REQ_RECV, send ? o->src : o->dst, o->count, o->dt,
                       o->peer, o->on ? s->subtag[o->on - 1] : s->tag, c, FY_CTX_COLL(c),
                       FY_MODE_STANDARD);
    if (!r) {
        fail(s, fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for a request", s->fn));
        return;
    }
    int rc = send ? fy_p2p_isend(r) : fy_p2p_irecv(r);
    if (rc != MPI_SUCCESS) {
        fy_req_free(r);
        fail(s, rc);
        return;
    }
    o->req = r;
    s->inflight++;
}

/* Runs round s->round's local operations and starts its messages. */
static void start_round(fy_sched_t *s)
{
    for (int i = s->first[s->round]; i < s->first[s->round + 1]; i++) {
        op_t *o = &s->ops[i];
        int rc = MPI_SUCCESS;
        switch (o->kind) {
        case OP_SEND:
        case OP_RECV: start_msg(s, o); break;
        case OP_REDUCE:
            rc = fy_op_apply(o->op, o->dt, o->src, o->dst, o->count);
            if (rc != MPI_SUCCESS)
                rc = fy_err_set(rc, "%s: reduction failed", s->fn);
            break;
        case OP_COPY: rc = fy_coll_copy(o->src, o->count, o->dt, o->dst, o->count2, o->dt2); break;
        case OP_COPY_SAME: fy_op_copy(o->dt, o->src, o->dst, o->count); break;
        case OP_CALL:
            rc = o->fn(s, o->arg);
            if (rc == FY_SCHED_REWIND) {
                s->rewind = true;
                rc = MPI_SUCCESS;
            }
            break;
        }
        fail(s, rc);
    }
}

/* Collects the messages of the current round that have completed; true when none is left. */
static bool reap(fy_sched_t *s, int *moved)
{
    for (int i = s->first[s->round]; i < s->first[s->round + 1] && s->inflight; i++) {
        fy_req_t *r = s->ops[i].req;
        if (r && fy_req_is_done(r)) {
            fail(s, r->error);
            fy_req_free(r);
            s->ops[i].req = NULL;
            s->inflight--;
            ++*moved;
        }
    }
    return s->inflight == 0;
}

static void complete(fy_sched_t *s)
{
    list_del(&running_head, s);
    s->running = false;
    list_add(&idle_head, s);
    if (!running_head)
        fy_progress_hook = NULL;
    fy_req_t *r = s->req;
    r->error = s->error;
    fy_status_set(&r->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    if (r->user_freed) { /* nobody will wait for it */
        fy_req_free(r);
        s->req = NULL;
        destroy(s);
        return;
    }
    fy_req_complete(r);
}

/* Advances s as far as it goes without waiting; returns how much happened. A rewind ends the
 * pass: what the schedule retries for (a token another creation holds) can only change when
 * something else runs, so it starts again at the next pass instead of looping here. */
static int advance(fy_sched_t *s)
{
    int moved = 0;
    while (s->running) {
        if (s->inflight && !reap(s, &moved))
            break;
        if (s->rewind) {
            s->rewind = false;
            s->round = -1;
            break;
        }
        if (++s->round >= s->nrounds) {
            complete(s);
            moved++;
            break;
        }
        start_round(s);
        moved++;
    }
    return moved;
}

static int sched_progress(void)
{
    if (advancing)
        return 0;
    advancing = true;
    int n = 0;
    for (fy_sched_t *s = running_head, *next; s; s = next) {
        next = s->next; /* advance may complete s and move or free it */
        n += advance(s);
    }
    advancing = false;
    return n;
}

static void launch(fy_sched_t *s)
{
    fy_req_t *r = s->req;
    atomic_store_explicit(&r->done, false, memory_order_relaxed);
    r->error = MPI_SUCCESS;
    if (r->persistent)
        r->active = true;
    s->error = MPI_SUCCESS;
    s->round = -1;
    s->inflight = 0;
    s->rewind = false;
    list_del(&idle_head, s);
    s->running = true;
    list_add(&running_head, s);
    fy_progress_hook = sched_progress;
    if (!advancing) { /* start the first round's messages now */
        advancing = true;
        advance(s);
        advancing = false;
    }
}

int fy_sched_start(fy_sched_t *s, bool persistent, fy_req_t **req_p)
{
    fy_req_t *r = s->failed ? NULL : fy_req_alloc(FY_REQ_COLL);
    if (!r) {
        const char *fn = s->fn;
        destroy(s);
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for a schedule", fn);
    }
    r->comm = s->comm;
    r->sched = s;
    r->persistent = persistent;
    fy_status_set(&r->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    s->req = r;
    if (persistent)
        fy_req_complete(r); /* inactive: Wait and Test return at once */
    else
        launch(s);
    *req_p = r;
    return MPI_SUCCESS;
}

int fy_sched_restart(fy_req_t *r)
{
    launch(r->sched);
    return MPI_SUCCESS;
}

int fy_sched_run(fy_sched_t *s)
{
    fy_req_t *r = NULL; /* set on success (an -O3 build cannot tell) */
    int rc = fy_sched_start(s, false, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    fy_wait_req(r);
    rc = r->error;
    fy_sched_free(s);
    fy_req_free(r);
    return rc;
}

static bool freed_all_done(void *arg)
{
    (void)arg;
    for (fy_sched_t *s = running_head; s; s = s->next)
        if (s->req->user_freed)
            return false;
    return true;
}

void fy_sched_fini(void)
{
    fy_wait_until(freed_all_done, NULL);
    while (running_head) { /* erroneous: never completed; drop them */
        fy_sched_t *s = running_head;
        for (int i = 0; i < s->nops; i++)
            if (s->ops[i].req && !fy_req_is_done(s->ops[i].req))
                s->ops[i].req = NULL; /* the pool goes away with MPI_Finalize */
        destroy(s);
    }
    while (idle_head)
        destroy(idle_head);
    while (cache) {
        fy_sched_t *s = cache;
        cache = s->next;
        free(s->ops);
        free(s->first);
        free(s);
    }
    ncache = 0;
    fy_progress_hook = NULL;
}
