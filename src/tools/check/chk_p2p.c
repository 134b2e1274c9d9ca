/* Point-to-point: signatures, truncation, buffers, and what blocked calls wait for.
 *
 * Every send on a communicator with a shadow first sends a small "shadow" message on the shadow
 * communicator to the same destination with the same tag: the sender's type signature summary,
 * the call, and where it was made (module and offset; the receiver resolves them only when it
 * reports). Every completed receive then takes the shadow from status.MPI_SOURCE with
 * status.MPI_TAG and compares. Non-overtaking makes the k-th shadow from (source, tag) belong to
 * the k-th message from (source, tag) that this rank matched; receives are matched in the order
 * they were posted, so a completed receive whose shadow could belong to an earlier-posted receive
 * still pending waits ("deferred") until that one has taken its own.
 *
 * MPI_Send sends its shadow synchronously (PMPI_Issend) and waits until the receiver matched it,
 * told to the watch as CHK_W_SYNC: a program that only works because standard sends are buffered
 * then shows up as a (potential) deadlock. Other sends' shadows are standard sends completed in
 * the background (the pending list) and at MPI_Finalize. */
#include "chk.h"

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the shadow message ------------------------------------------------------------------ */
#define SHADOW_PATH 512
typedef struct shadow {
    chk_sigsum_t sig;
    uint64_t off;         /* of the call in the sender's module */
    char call[32];        /* the sender's MPI function */
    char module[SHADOW_PATH];
} shadow_t;
#define SHADOW_HEAD offsetof(shadow_t, module)

/* The _c forms call the library's _c forms, the others the int ones: its messages then name the
 * function the program called. */
static bool is_c(const char *call)
{
    size_t n = strlen(call);
    return n > 2 && call[n - 2] == '_' && call[n - 1] == 'c';
}

static bool errors_fatal(MPI_Comm comm);

static bool typecheck(chk_comm_t *c)
{
    if (chk_log_on)
        return (chk_on & CHK_C_TYPE) && c;
    return (chk_on & CHK_C_TYPE) && c && c->shadow != MPI_COMM_NULL;
}

/* A peer the library will accept (else the call fails there, and no shadow may go or be
 * expected). */
static bool peer_ok(chk_comm_t *c, int peer, bool recv)
{
    if (peer == MPI_PROC_NULL || (recv && peer == MPI_ANY_SOURCE))
        return true;
    return peer >= 0 && peer < (c->inter ? c->rsize : c->size);
}

static bool tag_ok(int tag)
{
    return tag >= 0 && tag <= 0x7fffffff;
}

/* Background shadow sends, completed opportunistically and at MPI_Finalize. */
typedef struct {
    MPI_Request req;
    shadow_t *buf;
    void *raw; /* or a buffer of the checker's own (a packed copy) */
} pend_t;
static pend_t *pend;
static int npend, cappend;
static shadow_t *freelist[64];
static int nfree;

static shadow_t *shadow_alloc(void)
{
    shadow_t *s = NULL;
    chk_lock();
    if (nfree)
        s = freelist[--nfree];
    chk_unlock();
    return s ? s : malloc(sizeof *s);
}

static void shadow_release(shadow_t *s)
{
    chk_lock();
    if (nfree < 64)
        freelist[nfree++] = s, s = NULL;
    chk_unlock();
    free(s);
}

static void pend_poll(void)
{
    chk_lock();
    for (int i = 0; i < npend;) {
        int flag = 0;
        PMPI_Test(&pend[i].req, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            free(pend[i].raw);
            if (!pend[i].buf)
                ;
            else if (nfree < 64)
                freelist[nfree++] = pend[i].buf;
            else
                free(pend[i].buf);
            pend[i] = pend[--npend];
        } else {
            i++;
        }
    }
    chk_unlock();
}

static void pend_add_raw(MPI_Request r, void *raw);

static void pend_add(MPI_Request r, shadow_t *s)
{
    chk_lock();
    if (npend == cappend) {
        cappend = cappend ? 2 * cappend : 64;
        pend = realloc(pend, sizeof *pend * (size_t)cappend);
    }
    pend[npend++] = (pend_t){r, s, NULL};
    bool poll = npend >= 32;
    chk_unlock();
    if (poll)
        pend_poll();
}

static int shadow_make(shadow_t *s, const char *call, const void *ra, MPI_Datatype type, MPI_Count count)
{
    chk_sig_of(type, count, &s->sig);
    snprintf(s->call, sizeof s->call, "%s", call);
    const char *m = chk_module_of(ra, &s->off);
    size_t n = strlen(m);
    if (n >= SHADOW_PATH)
        n = SHADOW_PATH - 1;
    memcpy(s->module, m, n);
    s->module[n] = 0;
    return (int)(SHADOW_HEAD + n + 1);
}

static void pend_add_raw(MPI_Request r, void *raw)
{
    chk_lock();
    if (npend == cappend) {
        cappend = cappend ? 2 * cappend : 64;
        pend = realloc(pend, sizeof *pend * (size_t)cappend);
    }
    pend[npend++] = (pend_t){r, NULL, raw};
    chk_unlock();
}

/* Sends the shadow of a send in the background. */
static void shadow_send(chk_comm_t *c, int dest, int tag, const char *call, const void *ra,
                        MPI_Datatype type, MPI_Count count)
{
    if (!typecheck(c) || dest == MPI_PROC_NULL || !peer_ok(c, dest, false) || !tag_ok(tag))
        return;
    if (chk_log_on) {
        chk_log_send(c, dest, tag, call, ra, type, count);
        return;
    }
    shadow_t *s = shadow_alloc();
    int len = shadow_make(s, call, ra, type, count);
    MPI_Request r;
    PMPI_Isend(s, len, MPI_BYTE, dest, tag, c->shadow, &r);
    pend_add(r, s);
}

/* Waits for a request with a backoff: spin, then yield, then sleeps growing to 1 ms; stops
 * early when the watch releases the block. True when it completed. */
static bool backoff_wait(MPI_Request *r, bool watch)
{
    for (unsigned i = 0;; i++) {
        int flag = 0;
        PMPI_Test(r, &flag, MPI_STATUS_IGNORE);
        if (flag)
            return true;
        if (watch && chk_watch_released())
            return false;
        if (i < 100)
            continue;
        if (i < 200) {
            sched_yield();
            continue;
        }
        long ns = (long)(i - 199) * 10000;
        struct timespec ts = {0, ns > 1000000 ? 1000000 : ns};
        nanosleep(&ts, NULL);
    }
}

/* ---- requests ------------------------------------------------------------------------------ */
enum { R_SEND, R_RECV, R_OTHER };
typedef struct req {
    struct req *next;                   /* hash chain */
    struct req *pprev_post, *pnext_post; /* active receives in posting order */
    struct req *pprev_act, *pnext_act;   /* active sends and receives (their buffers) */
    bool in_act;
    MPI_Request req;
    int kind;
    bool persistent, active, posted;
    chk_comm_t *c;
    int peer, tag;
    const void *buf;
    MPI_Count count;
    MPI_Datatype type;
    const char *call;
    const void *ra;
    uint64_t seq;     /* posting order of receives */
    uint64_t csum;    /* sends: the buffer's checksum at the start */
    uint64_t gen;     /* this entry's number (a handle value may be reused) */
    MPI_Comm *newcomm; /* MPI_Comm_idup: where the library writes the new handle */
    void *ncoll;       /* a nonblocking collective's descriptor check (chk_coll.c) */
    uint64_t newid;
    uint64_t hgen;    /* the handle table's generation of it */
    bool summed;
} req_t;

#define RB 4096
static req_t *rtab[RB];
static req_t post_head = {.pnext_post = &post_head, .pprev_post = &post_head};
static req_t act_head = {.pnext_act = &act_head, .pprev_act = &act_head};

/* The list of requests whose buffers are in use, for the overlap checks. Lock held. */
static void act_link_locked(req_t *q)
{
    if (q->in_act || q->kind == R_OTHER)
        return;
    q->in_act = true;
    q->pnext_act = &act_head;
    q->pprev_act = act_head.pprev_act;
    act_head.pprev_act->pnext_act = q;
    act_head.pprev_act = q;
}

static void act_unlink_locked(req_t *q)
{
    if (!q->in_act)
        return;
    q->in_act = false;
    q->pprev_act->pnext_act = q->pnext_act;
    q->pnext_act->pprev_act = q->pprev_act;
}
static uint64_t next_seq = 1;

static void unpost_locked(req_t *q);

static unsigned rbucket(MPI_Request r)
{
    return ((unsigned)r * 2654435761u) % RB;
}

static req_t *req_find_locked(MPI_Request r)
{
    for (req_t *q = rtab[rbucket(r)]; q; q = q->next)
        if (q->req == r)
            return q;
    return NULL;
}

static req_t *req_add(MPI_Request r, int kind, const char *call, const void *ra, bool persistent)
{
    req_t *q = calloc(1, sizeof *q);
    q->req = r;
    q->kind = kind;
    q->call = call;
    q->ra = ra;
    q->persistent = persistent;
    q->active = !persistent;
    chk_lock();
    req_t **pp = &rtab[rbucket(r)];
    for (req_t **p = pp; *p; p = &(*p)->next)
        if ((*p)->req == r) { /* a stale entry for a reused handle */
            req_t *old = *p;
            *p = old->next;
            unpost_locked(old);
            free(old);
            break;
        }
    static uint64_t next_gen = 1;
    q->gen = next_gen++;
    q->next = *pp;
    *pp = q;
    chk_unlock();
    chk_handle_t *h = chk_created(CHK_K_REQUEST, r, call, ra);
    q->hgen = h ? h->gen : 0;
    return q;
}

static void post_locked(req_t *q)
{
    if (chk_on & CHK_C_BUFFER)
        act_link_locked(q);
    q->seq = next_seq++;
    q->posted = true;
    q->pnext_post = &post_head;
    q->pprev_post = post_head.pprev_post;
    post_head.pprev_post->pnext_post = q;
    post_head.pprev_post = q;
}

static void unpost_locked(req_t *q)
{
    act_unlink_locked(q);
    if (!q->posted)
        return;
    q->posted = false;
    q->pprev_post->pnext_post = q->pnext_post;
    q->pnext_post->pprev_post = q->pprev_post;
}

void chk_req_other(MPI_Request req, const char *call, const void *ra, MPI_Comm comm, bool persistent)
{
    if (req == MPI_REQUEST_NULL)
        return;
    req_t *q = req_add(req, R_OTHER, call, ra, persistent);
    q->c = chk_comm_get(comm);
    /* A nonblocking collective takes its number on the communicator now (the watch names it). */
    if (q->c && strncmp(call, "MPI_I", 5) == 0)
        q->seq = __atomic_add_fetch(&q->c->nsent_coll, 1, __ATOMIC_RELAXED);
}

void chk_req_coll(MPI_Request req, void *nc)
{
    chk_lock();
    req_t *q = req_find_locked(req);
    if (q)
        q->ncoll = nc, nc = NULL;
    chk_unlock();
    chk_coll_nb_done(nc); /* not tracked: compared now */
}

void chk_comm_idup(MPI_Request req, MPI_Comm *newcomm, MPI_Comm parent, const char *call, const void *ra)
{
    if (req == MPI_REQUEST_NULL)
        return;
    req_t *q = req_add(req, R_OTHER, call, ra, false);
    q->c = chk_comm_get(parent);
    q->newcomm = newcomm;
    if (q->c) {
        q->seq = __atomic_add_fetch(&q->c->nsent_coll, 1, __ATOMIC_RELAXED);
        /* Equal on every member (collectives on the parent are made in one order), distinct
         * from the ids chk_comm_new agrees on (which end in the lowest member + 1 <= 2^24). */
        q->newid = chk_hash_bytes(chk_hash_bytes(0, &q->c->id, 8), &q->seq, 8) | (1ull << 62);
    }
}

/* ---- buffers ------------------------------------------------------------------------------- */
static void span(const void *buf, MPI_Count count, MPI_Datatype type, uintptr_t *lo, uintptr_t *hi)
{
    MPI_Count tlb = 0, text = 0, lb = 0, ext = 0;
    PMPI_Type_get_true_extent_c(type, &tlb, &text);
    PMPI_Type_get_extent_c(type, &lb, &ext);
    *lo = (uintptr_t)buf + (uintptr_t)tlb;
    *hi = count > 0 ? *lo + (uintptr_t)((count - 1) * ext + text) : *lo;
}

static bool overlaps(const void *b1, MPI_Count c1, MPI_Datatype t1, const void *b2, MPI_Count c2,
                     MPI_Datatype t2)
{
    if (!b1 || !b2 || c1 <= 0 || c2 <= 0 || b1 == MPI_BOTTOM || b2 == MPI_BOTTOM || b1 == MPI_IN_PLACE ||
        b2 == MPI_IN_PLACE)
        return false;
    if (!chk_valid(CHK_K_TYPE, t1) || !chk_valid(CHK_K_TYPE, t2))
        return false;
    uintptr_t l1, h1, l2, h2;
    span(b1, c1, t1, &l1, &h1);
    span(b2, c2, t2, &l2, &h2);
    return l1 < h2 && l2 < h1;
}

static uint64_t checksum(const void *buf, MPI_Count count, MPI_Datatype type)
{
    if (!chk_valid(CHK_K_TYPE, type))
        return 0;
    MPI_Count size = 0, tlb = 0, text = 0;
    PMPI_Type_size_c(type, &size);
    PMPI_Type_get_true_extent_c(type, &tlb, &text);
    if (count <= 0 || size == 0 || !buf)
        return 0;
    if (size == text) /* contiguous: the bytes themselves */
        return chk_hash_bytes(0, (const char *)buf + tlb, (size_t)(size * count));
    MPI_Count psize = 0, pos = 0;
    PMPI_Pack_size_c(count, type, MPI_COMM_SELF, &psize);
    void *tmp = malloc((size_t)psize + 1);
    PMPI_Pack_c(buf, count, type, tmp, psize, &pos, MPI_COMM_SELF);
    uint64_t h = chk_hash_bytes(0, tmp, (size_t)pos);
    free(tmp);
    return h;
}

/* A receive buffer must not overlap the buffer of a pending nonblocking receive or send. */
static void check_recv_overlap(const char *call, const void *ra, const void *buf, MPI_Count count,
                               MPI_Datatype type, const req_t *self)
{
    if (!(chk_on & CHK_C_BUFFER) || count <= 0 || act_head.pnext_act == &act_head)
        return; /* (nothing pending: no lock) */
    const char *ocall = NULL;
    const void *ora = NULL;
    chk_lock();
    for (req_t *q = act_head.pnext_act; q != &act_head; q = q->pnext_act)
        if (q != self && overlaps(buf, count, type, q->buf, q->count, q->type)) {
            ocall = q->call;
            ora = q->ra;
            break;
        }
    chk_unlock();
    if (ocall) {
        char w[600];
        chk_report(call, ra, "overlapping buffers: the receive buffer overlaps the buffer of a pending %s at %s",
                   ocall, chk_where(ora, w, sizeof w));
    }
}

/* ---- receives: shadows taken in matching order ------------------------------------------- */
typedef struct done {
    struct done *next;
    chk_comm_t *c;
    int src, tag;
    MPI_Datatype type;
    MPI_Count count;
    const char *call;
    const void *ra;
    uint64_t seq;
} done_t;
static done_t *deferred; /* in seq order */
static pthread_mutex_t consume_lock = PTHREAD_MUTEX_INITIALIZER;

static bool could_match(int peer, int tag, int src, int stag)
{
    return (peer == MPI_ANY_SOURCE || peer == src) && (tag == MPI_ANY_TAG || tag == stag);
}

/* For the log (chk_log.c): a receive posted before `seq` on that communicator that could take
 * (src, tag) is still pending. Lock held. */
bool chk_p2p_blocked(uint64_t comm, int src, int tag, uint64_t seq)
{
    for (req_t *q = post_head.pnext_post; q != &post_head && q->seq < seq; q = q->pnext_post)
        if (q->c && q->c->id == comm && could_match(q->peer, q->tag, src, tag))
            return true;
    return false;
}

/* True when an earlier-posted receive, pending or deferred, could own the shadow. Lock held. */
static bool blocked_locked(const done_t *d)
{
    for (req_t *q = post_head.pnext_post; q != &post_head && q->seq < d->seq; q = q->pnext_post)
        if (q->c == d->c && could_match(q->peer, q->tag, d->src, d->tag))
            return true;
    for (done_t *e = deferred; e && e->seq < d->seq; e = e->next)
        if (e->c == d->c && e->src == d->src && e->tag == d->tag)
            return true;
    return false;
}

static void compare(const done_t *d, const shadow_t *s)
{
    chk_sigsum_t r;
    chk_sig_of(d->type, d->count, &r);
    char rs[300], ss[300], w[600];
    if (s->sig.bytes > r.bytes) {
        /* A program that asked for errors to be returned on this communicator sees the
         * truncation itself (MPI_ERR_TRUNCATE); it is reported when it would end the job. */
        if (!errors_fatal(d->c->comm))
            return;
        chk_sig_str(&r, rs, sizeof rs);
        chk_sig_str(&s->sig, ss, sizeof ss);
        chk_report(d->call, d->ra,
                   "truncation: receive buffer of %s (%lld bytes) for a message from rank %d of %s "
                   "(%lld bytes) sent with %s at %s",
                   rs, (long long)r.bytes, d->src, ss, (long long)s->sig.bytes, s->call,
                   chk_where_remote(s->module, s->off, w, sizeof w));
        return;
    }
    if (s->sig.anything || r.anything)
        return;
    int64_t avail = 0;
    uint64_t h = chk_sig_prefix(d->type, d->count, s->sig.nelem, &avail);
    if (h == s->sig.hash && avail == s->sig.nelem)
        return;
    chk_sig_str(&r, rs, sizeof rs);
    chk_sig_str(&s->sig, ss, sizeof ss);
    chk_report(d->call, d->ra,
               "type mismatch: received %s (%lld bytes) from rank %d, which sent %s (%lld bytes) with %s at %s",
               rs, (long long)r.bytes, d->src, ss, (long long)s->sig.bytes, s->call,
               chk_where_remote(s->module, s->off, w, sizeof w));
}

static void consume(const done_t *d, shadow_t *pre)
{
    shadow_t *s = pre;
    if (!s) {
        s = shadow_alloc();
        pthread_mutex_lock(&consume_lock);
        PMPI_Recv(s, (int)sizeof *s, MPI_BYTE, d->src, d->tag, d->c->shadow, MPI_STATUS_IGNORE);
        pthread_mutex_unlock(&consume_lock);
    }
    compare(d, s);
    shadow_release(s);
}

/* Deferred receives whose turn has come. */
static void run_deferred(void)
{
    for (;;) {
        done_t *go = NULL;
        chk_lock();
        for (done_t **p = &deferred; *p; p = &(*p)->next)
            if (!blocked_locked(*p)) {
                go = *p;
                *p = go->next;
                break;
            }
        chk_unlock();
        if (!go)
            return;
        consume(go, NULL);
        free(go);
    }
}

/* A receive that matched a message completed with status st; seq is its posting order. */
static void recv_matched(chk_comm_t *c, const MPI_Status *st, MPI_Datatype type, MPI_Count count,
                         const char *call, const void *ra, uint64_t seq)
{
    if (!typecheck(c) || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0)
        return;
    if (chk_log_on) {
        chk_log_recv(c, st->MPI_SOURCE, st->MPI_TAG, type, count, call, ra, seq);
        return;
    }
    done_t d = {.c = c, .src = st->MPI_SOURCE, .tag = st->MPI_TAG, .type = type, .count = count,
                .call = call, .ra = ra, .seq = seq};
    chk_lock();
    if (blocked_locked(&d)) {
        done_t *e = malloc(sizeof *e);
        *e = d;
        done_t **p = &deferred;
        while (*p && (*p)->seq < seq)
            p = &(*p)->next;
        e->next = *p;
        *p = e;
        chk_unlock();
        return;
    }
    chk_unlock();
    consume(&d, NULL);
    if (deferred)
        run_deferred();
}

/* The same for a receive that may have been cancelled instead (one with a request; a blocking
 * receive has none to cancel, and skips the library call). */
static void recv_done(chk_comm_t *c, const MPI_Status *st, MPI_Datatype type, MPI_Count count,
                      const char *call, const void *ra, uint64_t seq)
{
    if (!typecheck(c) || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0)
        return;
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    if (cancelled)
        return;
    recv_matched(c, st, type, count, call, ra, seq);
}

/* True when errors on comm end the job (the default). */
static bool errors_fatal(MPI_Comm comm)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(comm, &eh);
    bool fatal = eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT;
    if (eh != MPI_ERRHANDLER_NULL)
        PMPI_Errhandler_free(&eh);
    return fatal;
}

/* A receive that returned rc matched a message (with valid arguments, only a truncation fails). */
static bool matched_rc(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        PMPI_Error_class(rc, &cls);
    return rc == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE;
}

/* ---- watch items ---------------------------------------------------------------------------- */
static chk_item_t item_of(int kind, chk_comm_t *c, int peer, int tag)
{
    return (chk_item_t){.kind = kind, .peer = peer == MPI_ANY_SOURCE ? -1 : chk_world_of(c, peer),
                        .tag = tag == MPI_ANY_TAG ? -1 : tag, .comm = c ? c->id : 0};
}

/* The watch is on and has a server to tell (mpiexec --check); without one nothing reads what
 * block1 would store (set in chk_p2p_init). */
static bool watching;

static void block1(const char *call, const void *ra, int kind, chk_comm_t *c, int peer, int tag)
{
    if (!watching)
        return;
    chk_item_t it = item_of(kind, c, peer, tag);
    chk_watch_block(call, ra, true, 1, &it);
}

static void unblock(void)
{
    if (watching)
        chk_watch_unblock();
}

void chk_block_other(const char *call, const void *ra)
{
    if (!(chk_on & CHK_C_WATCH) || chk_state != 1)
        return;
    chk_item_t it = {.kind = CHK_W_OTHER, .peer = -1, .tag = -1};
    chk_watch_block(call, ra, true, 1, &it);
}

void chk_unblock_other(void)
{
    if ((chk_on & CHK_C_WATCH) && chk_state == 1)
        chk_watch_unblock();
}

/* ---- sends ---------------------------------------------------------------------------------- */
/* False when an argument is not valid (a freed or null comm or type, a negative count, a NULL
 * buffer, a bad peer or tag): the library reports that, and the checker sends no shadow (no
 * data goes either) and matches nothing. */
static int tag_ub = 0x7fffffff;
static bool have_server;     /* FERRY_CHECK_ADDR: the deadlock watch can release a wait */
static int sync_per_site = 16; /* FERRY_CHECK_SYNC: synchronous standard sends per call site */

static bool pre_send(const char *call, const void *ra, MPI_Comm comm, MPI_Datatype type, const void *buf,
                     MPI_Count count, int peer, int tag, bool recv)
{
    /* Predefined handles (MPI_COMM_WORLD, MPI_INT: most messages) are never freed: a range test
     * instead of the table lookups. */
    if (!chk_predefined(comm) || !chk_predefined(type)) {
        bool ok = chk_use(CHK_K_COMM, comm, call, "comm", ra);
        ok = chk_use(CHK_K_TYPE, type, call, "datatype", ra) && ok;
        if (!ok || !chk_valid(CHK_K_COMM, comm) || !chk_valid(CHK_K_TYPE, type))
            return false;
    }
    if (count < 0)
        return false;
    if (!buf && count > 0 && (((unsigned)type >> 30) & 3u) == 1)
        return false;
    chk_comm_t *c = chk_comm_get(comm);
    if (!c || !peer_ok(c, peer, recv))
        return false;
    if (recv ? tag != MPI_ANY_TAG && (tag < 0 || tag > tag_ub) : (tag < 0 || tag > tag_ub))
        return false;
    return true;
}

void chk_p2p_init(void)
{
    chk_comm_t *w = chk_comm_get(MPI_COMM_WORLD);
    chk_log_init(w ? w->shadow : MPI_COMM_NULL);
    have_server = getenv("FERRY_CHECK_ADDR") != NULL;
    watching = have_server && (chk_on & CHK_C_WATCH);
    const char *e = getenv("FERRY_CHECK_SYNC");
    if (e)
        sync_per_site = atoi(e);
    int *ub, flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    if (flag)
        tag_ub = *ub;
}

static int raw_send(bool cf, int mode, const void *buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                    MPI_Comm comm)
{
    switch (mode) {
    case 1: return (cf ? PMPI_Bsend_c(buf, count, type, dest, tag, comm) : PMPI_Bsend(buf, (int)count, type, dest, tag, comm));
    case 2: return (cf ? PMPI_Ssend_c(buf, count, type, dest, tag, comm) : PMPI_Ssend(buf, (int)count, type, dest, tag, comm));
    case 3: return (cf ? PMPI_Rsend_c(buf, count, type, dest, tag, comm) : PMPI_Rsend(buf, (int)count, type, dest, tag, comm));
    default: return (cf ? PMPI_Send_c(buf, count, type, dest, tag, comm) : PMPI_Send(buf, (int)count, type, dest, tag, comm));
    }
}

/* Blocking sends. mode: 0 standard (synchronous shadow, the watch's CHK_W_SYNC), 1 buffered,
 * 2 synchronous, 3 ready, 4 standard with a background shadow. */
static int send_blocking(const char *call, const void *ra, int mode, const void *buf, MPI_Count count,
                         MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    if (chk_outside(call, ra) || !pre_send(call, ra, comm, type, buf, count, dest, tag, false))
        goto plain;
    chk_comm_t *c = chk_comm_get(comm);
    if (dest == MPI_PROC_NULL)
        goto plain;
    if (!typecheck(c) || !peer_ok(c, dest, false) || !tag_ok(tag)) {
        block1(call, ra, CHK_W_SEND, c, dest, tag);
        int rc = raw_send(is_c(call), mode, buf, count, type, dest, tag, comm);
        unblock();
        return rc;
    }
    if (chk_log_on) {
        if (mode == 0 && have_server && chk_world_of(c, dest) != chk_rank && chk_ra_first(ra, sync_per_site)) {
            shadow_send(c, dest, tag, call, ra, type, count);
            /* The first sends of a call site go synchronously, from a packed copy: when the
             * receiver has not matched it, this program only works because standard sends
             * are buffered, and the watch says so (a potential deadlock) and releases it. */
            MPI_Count psize = 0, pos = 0;
            PMPI_Pack_size_c(count, type, comm, &psize);
            void *tmp = malloc((size_t)psize + 1);
            PMPI_Pack_c(buf, count, type, tmp, psize, &pos, comm);
            MPI_Request r;
            int rc = PMPI_Issend_c(tmp, pos, MPI_PACKED, dest, tag, comm, &r);
            if (rc != MPI_SUCCESS) {
                free(tmp);
                return rc;
            }
            int flag = 0;
            PMPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            if (flag) {
                free(tmp);
                return MPI_SUCCESS;
            }
            block1(call, ra, CHK_W_SYNC, c, dest, tag);
            bool done = backoff_wait(&r, true);
            unblock();
            if (done)
                free(tmp);
            else
                pend_add_raw(r, tmp);
            return MPI_SUCCESS;
        }
        /* One thread at a time: the log entry goes after the data, out of the message's way
         * (the receiver then waits for its peer's entries, which come once the send returns;
         * a failed send logs nothing). With threads the entry goes first, as the data of
         * another thread's send could otherwise come between. */
        bool after = !chk_threaded();
        if (!after)
            shadow_send(c, dest, tag, call, ra, type, count);
        block1(call, ra, CHK_W_SEND, c, dest, tag);
        int rc = raw_send(is_c(call), mode, buf, count, type, dest, tag, comm);
        unblock();
        if (after && rc == MPI_SUCCESS)
            shadow_send(c, dest, tag, call, ra, type, count);
        return rc;
    }
    /* Waiting for the receiver to match makes sense only where the deadlock watch can release
     * the wait (mpiexec --check), and never for a send to this rank itself. */
    if (mode == 0 && (!getenv("FERRY_CHECK_ADDR") || chk_world_of(c, dest) == chk_rank))
        mode = 4;
    shadow_t *s = shadow_alloc();
    int len = shadow_make(s, call, ra, type, count);
    MPI_Request sr;
    if (mode == 0)
        PMPI_Issend(s, len, MPI_BYTE, dest, tag, c->shadow, &sr);
    else
        PMPI_Isend(s, len, MPI_BYTE, dest, tag, c->shadow, &sr);
    block1(call, ra, CHK_W_SEND, c, dest, tag);
    int rc = raw_send(is_c(call), mode, buf, count, type, dest, tag, comm);
    unblock();
    if (mode != 0) {
        pend_add(sr, s);
        return rc;
    }
    int flag = 0;
    PMPI_Test(&sr, &flag, MPI_STATUS_IGNORE);
    if (flag) {
        shadow_release(s);
        return rc;
    }
    /* The data went out; until the receiver matched it, this send only completed because it was
     * buffered. */
    block1(call, ra, CHK_W_SYNC, c, dest, tag);
    bool done = backoff_wait(&sr, chk_on & CHK_C_WATCH);
    unblock();
    if (done)
        shadow_release(s);
    else
        pend_add(sr, s);
    return rc;
plain:
    return raw_send(is_c(call), mode, buf, count, type, dest, tag, comm);
}

#define BLOCKING_SEND(NAME, MODE)                                                                       \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)   \
    {                                                                                                     \
        return send_blocking("MPI_" #NAME, CHK_RA(), MODE, buf, count, datatype, dest, tag, comm);        \
    }                                                                                                     \
    int MPI_##NAME##_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,        \
                       MPI_Comm comm)                                                                     \
    {                                                                                                     \
        return send_blocking("MPI_" #NAME "_c", CHK_RA(), MODE, buf, count, datatype, dest, tag, comm);   \
    }
BLOCKING_SEND(Send, 0)
BLOCKING_SEND(Bsend, 1)
BLOCKING_SEND(Ssend, 2)
BLOCKING_SEND(Rsend, 3)

/* Nonblocking and persistent sends. mode as above; persistent: the shadow goes at each start. */
static int send_nb(const char *call, const void *ra, int mode, bool persistent, const void *buf,
                   MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    const bool cf = is_c(call);
    bool out = chk_outside(call, ra) || !pre_send(call, ra, comm, type, buf, count, dest, tag, false);
    chk_comm_t *c = out ? NULL : chk_comm_get(comm);
    if (!persistent && !out)
        shadow_send(c, dest, tag, call, ra, type, count);
    int rc;
    if (persistent) {
        switch (mode) {
        case 1: rc = (cf ? PMPI_Bsend_init_c(buf, count, type, dest, tag, comm, req) : PMPI_Bsend_init(buf, (int)count, type, dest, tag, comm, req)); break;
        case 2: rc = (cf ? PMPI_Ssend_init_c(buf, count, type, dest, tag, comm, req) : PMPI_Ssend_init(buf, (int)count, type, dest, tag, comm, req)); break;
        case 3: rc = (cf ? PMPI_Rsend_init_c(buf, count, type, dest, tag, comm, req) : PMPI_Rsend_init(buf, (int)count, type, dest, tag, comm, req)); break;
        default: rc = (cf ? PMPI_Send_init_c(buf, count, type, dest, tag, comm, req) : PMPI_Send_init(buf, (int)count, type, dest, tag, comm, req));
        }
    } else {
        switch (mode) {
        case 1: rc = (cf ? PMPI_Ibsend_c(buf, count, type, dest, tag, comm, req) : PMPI_Ibsend(buf, (int)count, type, dest, tag, comm, req)); break;
        case 2: rc = (cf ? PMPI_Issend_c(buf, count, type, dest, tag, comm, req) : PMPI_Issend(buf, (int)count, type, dest, tag, comm, req)); break;
        case 3: rc = (cf ? PMPI_Irsend_c(buf, count, type, dest, tag, comm, req) : PMPI_Irsend(buf, (int)count, type, dest, tag, comm, req)); break;
        default: rc = (cf ? PMPI_Isend_c(buf, count, type, dest, tag, comm, req) : PMPI_Isend(buf, (int)count, type, dest, tag, comm, req));
        }
    }
    if (rc != MPI_SUCCESS || out)
        return rc;
    req_t *q = req_add(*req, R_SEND, call, ra, persistent);
    q->c = c;
    q->peer = dest;
    q->tag = tag;
    q->buf = buf;
    q->count = count;
    q->type = type;
    if (!persistent && (chk_on & CHK_C_BUFFER) && dest != MPI_PROC_NULL) {
        q->csum = checksum(buf, count, type);
        q->summed = true;
        chk_lock();
        act_link_locked(q);
        chk_unlock();
    }
    return rc;
}

#define NB_SEND(NAME, MODE, PERS)                                                                          \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,     \
                   MPI_Request *request)                                                                   \
    {                                                                                                      \
        return send_nb("MPI_" #NAME, CHK_RA(), MODE, PERS, buf, count, datatype, dest, tag, comm, request); \
    }                                                                                                      \
    int MPI_##NAME##_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,         \
                       MPI_Comm comm, MPI_Request *request)                                                \
    {                                                                                                      \
        return send_nb("MPI_" #NAME "_c", CHK_RA(), MODE, PERS, buf, count, datatype, dest, tag, comm,     \
                       request);                                                                           \
    }
NB_SEND(Isend, 0, false)
NB_SEND(Ibsend, 1, false)
NB_SEND(Issend, 2, false)
NB_SEND(Irsend, 3, false)
NB_SEND(Send_init, 0, true)
NB_SEND(Bsend_init, 1, true)
NB_SEND(Ssend_init, 2, true)
NB_SEND(Rsend_init, 3, true)

/* ---- receives ------------------------------------------------------------------------------ */
static int recv_blocking(const char *call, const void *ra, void *buf, MPI_Count count, MPI_Datatype type,
                         int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    const bool cf = is_c(call);
    if (chk_outside(call, ra))
        return (cf ? PMPI_Recv_c(buf, count, type, source, tag, comm, status) : PMPI_Recv(buf, (int)count, type, source, tag, comm, status));
    if (!pre_send(call, ra, comm, type, buf, count, source, tag, true))
        return (cf ? PMPI_Recv_c(buf, count, type, source, tag, comm, status) : PMPI_Recv(buf, (int)count, type, source, tag, comm, status));
    check_recv_overlap(call, ra, buf, count, type, NULL);
    chk_comm_t *c = chk_comm_get(comm);
    MPI_Status st = {0};
    if (status != MPI_STATUS_IGNORE)
        st = *status; /* what the call does not set (MPI_ERROR) stays the program's */
    if (!typecheck(c) || source == MPI_PROC_NULL || !peer_ok(c, source, true)) {
        block1(call, ra, CHK_W_RECV, c, source, tag);
        int rc = (cf ? PMPI_Recv_c(buf, count, type, source, tag, comm, &st) : PMPI_Recv(buf, (int)count, type, source, tag, comm, &st));
        unblock();
        if (status != MPI_STATUS_IGNORE)
            *status = st;
        return rc;
    }
    uint64_t seq = chk_count_up(&next_seq);
    if (chk_log_on || !errors_fatal(comm)) {
        if (chk_log_on)
            chk_log_poll();
        if (chk_log_on && (chk_on & CHK_C_TYPE) && chk_ra_first(ra, sync_per_site) && errors_fatal(comm)) {
            /* A truncation ends the job in the library: reported first, with what this side
             * knows (the sender's line comes with the shadow scheme); for the first receives of
             * a call site only, as a probe costs. */
            MPI_Status pst;
            block1(call, ra, CHK_W_RECV, c, source, tag);
            PMPI_Probe(source, tag, comm, &pst);
            unblock();
            MPI_Count got = 0, sz = 0;
            PMPI_Get_count_c(&pst, MPI_BYTE, &got);
            PMPI_Type_size_c(type, &sz);
            if (got > sz * count && source != MPI_ANY_SOURCE && tag != MPI_ANY_TAG) {
                chk_sigsum_t r;
                char rs[300];
                chk_sig_of(type, count, &r);
                chk_sig_str(&r, rs, sizeof rs);
                chk_report(call, ra, "truncation: receive buffer of %s (%lld bytes) for a message from rank %d "
                           "of %lld bytes (tag %d)", rs, (long long)r.bytes, pst.MPI_SOURCE, (long long)got,
                           pst.MPI_TAG);
            }
        }
        /* The program sees errors itself: the library's receive, compared afterwards (a
         * truncated message was matched too, and its shadow is taken). */
        block1(call, ra, CHK_W_RECV, c, source, tag);
        int rc = (cf ? PMPI_Recv_c(buf, count, type, source, tag, comm, &st)
                     : PMPI_Recv(buf, (int)count, type, source, tag, comm, &st));
        unblock();
        if (matched_rc(rc))
            recv_matched(c, &st, type, count, call, ra, seq);
        if (status != MPI_STATUS_IGNORE)
            *status = st;
        return rc;
    }
    /* Match first (the message is ours from here), compare with its shadow, then receive: a
     * truncation is reported before the library's error handler ends the job. */
    MPI_Message msg;
    block1(call, ra, CHK_W_RECV, c, source, tag);
    int rc = PMPI_Mprobe(source, tag, comm, &msg, &st);
    unblock();
    if (rc != MPI_SUCCESS)
        return rc;
    done_t d = {.c = c, .src = st.MPI_SOURCE, .tag = st.MPI_TAG, .type = type, .count = count,
                .call = call, .ra = ra, .seq = seq};
    chk_lock();
    bool later = st.MPI_SOURCE < 0 || blocked_locked(&d);
    chk_unlock();
    if (!later)
        consume(&d, NULL);
    rc = (cf ? PMPI_Mrecv_c(buf, count, type, &msg, &st) : PMPI_Mrecv(buf, (int)count, type, &msg, &st));
    if (later && rc == MPI_SUCCESS)
        recv_matched(c, &st, type, count, call, ra, seq);
    else if (deferred)
        run_deferred();
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return recv_blocking("MPI_Recv", CHK_RA(), buf, count, datatype, source, tag, comm, status);
}

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Status *status)
{
    return recv_blocking("MPI_Recv_c", CHK_RA(), buf, count, datatype, source, tag, comm, status);
}

static int recv_nb(const char *call, const void *ra, bool persistent, void *buf, MPI_Count count,
                   MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    const bool cf = is_c(call);
    bool out = chk_outside(call, ra) || !pre_send(call, ra, comm, type, buf, count, source, tag, true);
    if (!out)
        check_recv_overlap(call, ra, buf, count, type, NULL);
    int rc = persistent ? (cf ? PMPI_Recv_init_c(buf, count, type, source, tag, comm, req) : PMPI_Recv_init(buf, (int)count, type, source, tag, comm, req))
                        : (cf ? PMPI_Irecv_c(buf, count, type, source, tag, comm, req) : PMPI_Irecv(buf, (int)count, type, source, tag, comm, req));
    if (rc != MPI_SUCCESS || out)
        return rc;
    req_t *q = req_add(*req, R_RECV, call, ra, persistent);
    q->c = chk_comm_get(comm);
    q->peer = source;
    q->tag = tag;
    q->buf = buf;
    q->count = count;
    q->type = type;
    if (!persistent && source != MPI_PROC_NULL) {
        chk_lock();
        post_locked(q);
        chk_unlock();
    }
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    return recv_nb("MPI_Irecv", CHK_RA(), false, buf, count, datatype, source, tag, comm, request);
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return recv_nb("MPI_Irecv_c", CHK_RA(), false, buf, count, datatype, source, tag, comm, request);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    return recv_nb("MPI_Recv_init", CHK_RA(), true, buf, count, datatype, source, tag, comm, request);
}

int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return recv_nb("MPI_Recv_init_c", CHK_RA(), true, buf, count, datatype, source, tag, comm, request);
}

/* ---- matched probes and their receives ----------------------------------------------------- */
/* A message matched by Mprobe/Improbe takes its shadow at once (its turn in matching order is
 * now); the comparison waits for Mrecv/Imrecv, which give the buffer. */
typedef struct mmsg {
    struct mmsg *next;
    MPI_Message m;
    done_t d;
    shadow_t *s;
    bool deferred_recv; /* its shadow could not be taken yet */
} mmsg_t;
static mmsg_t *mmsgs;

static void matched(const char *call, const void *ra, MPI_Comm comm, MPI_Message m, const MPI_Status *st)
{
    chk_created(CHK_K_MESSAGE, m, call, ra);
    chk_comm_t *c = chk_comm_get(comm);
    if (!typecheck(c) || m == MPI_MESSAGE_NO_PROC || st->MPI_SOURCE < 0)
        return;
    mmsg_t *e = calloc(1, sizeof *e);
    e->m = m;
    e->d = (done_t){.c = c, .src = st->MPI_SOURCE, .tag = st->MPI_TAG, .call = call, .ra = ra};
    chk_lock();
    e->d.seq = next_seq++;
    bool later = !chk_log_on && blocked_locked(&e->d);
    chk_unlock();
    if (later || chk_log_on) {
        e->deferred_recv = true; /* (log mode: logged at the receive, with this number) */
    } else {
        e->s = shadow_alloc();
        pthread_mutex_lock(&consume_lock);
        PMPI_Recv(e->s, (int)sizeof *e->s, MPI_BYTE, e->d.src, e->d.tag, c->shadow, MPI_STATUS_IGNORE);
        pthread_mutex_unlock(&consume_lock);
    }
    chk_lock();
    e->next = mmsgs;
    mmsgs = e;
    chk_unlock();
}

static mmsg_t *take_mmsg(MPI_Message m)
{
    chk_lock();
    mmsg_t *e = NULL;
    for (mmsg_t **p = &mmsgs; *p; p = &(*p)->next)
        if ((*p)->m == m) {
            e = *p;
            *p = e->next;
            break;
        }
    chk_unlock();
    return e;
}

static void mrecv_check(mmsg_t *e, const char *call, const void *ra, void *buf, MPI_Count count,
                        MPI_Datatype type)
{
    (void)buf;
    if (!e)
        return;
    e->d.call = call;
    e->d.ra = ra;
    e->d.type = type;
    e->d.count = count;
    if (e->deferred_recv) {
        MPI_Status st = {0};
        st.MPI_SOURCE = e->d.src;
        st.MPI_TAG = e->d.tag;
        recv_done(e->d.c, &st, type, count, call, ra, e->d.seq);
    } else {
        compare(&e->d, e->s);
        shadow_release(e->s);
    }
    free(e);
}

static int mprobe(const char *call, const void *ra, int source, int tag, MPI_Comm comm, int *flag,
                  MPI_Message *message, MPI_Status *status)
{
    MPI_Status st = {0};
    int rc;
    if (status != MPI_STATUS_IGNORE)
        st = *status;
    if (chk_outside(call, ra))
        return flag ? PMPI_Improbe(source, tag, comm, flag, message, status)
                    : PMPI_Mprobe(source, tag, comm, message, status);
    chk_use(CHK_K_COMM, comm, call, "comm", ra);
    if (flag) {
        rc = PMPI_Improbe(source, tag, comm, flag, message, &st);
    } else {
        block1(call, ra, CHK_W_RECV, chk_comm_get(comm), source, tag);
        rc = PMPI_Mprobe(source, tag, comm, message, &st);
        unblock();
    }
    if (rc == MPI_SUCCESS && (!flag || *flag))
        matched(call, ra, comm, *message, &st);
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    return rc;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return mprobe("MPI_Mprobe", CHK_RA(), source, tag, comm, NULL, message, status);
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    return mprobe("MPI_Improbe", CHK_RA(), source, tag, comm, flag, message, status);
}

static int mrecv(const char *call, const void *ra, void *buf, MPI_Count count, MPI_Datatype type,
                 MPI_Message *message, MPI_Status *status)
{
    const bool cf = is_c(call);
    if (chk_outside(call, ra))
        return (cf ? PMPI_Mrecv_c(buf, count, type, message, status) : PMPI_Mrecv(buf, (int)count, type, message, status));
    chk_use(CHK_K_MESSAGE, *message, call, "message", ra);
    chk_use(CHK_K_TYPE, type, call, "datatype", ra);
    MPI_Message m = *message;
    mmsg_t *e = take_mmsg(m);
    if (e && !e->deferred_recv)
        mrecv_check(e, call, ra, buf, count, type), e = NULL;
    int rc = (cf ? PMPI_Mrecv_c(buf, count, type, message, status) : PMPI_Mrecv(buf, (int)count, type, message, status));
    chk_freed(CHK_K_MESSAGE, m, call, ra);
    mrecv_check(e, call, ra, buf, count, type);
    return rc;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    return mrecv("MPI_Mrecv", CHK_RA(), buf, count, datatype, message, status);
}

int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    return mrecv("MPI_Mrecv_c", CHK_RA(), buf, count, datatype, message, status);
}

static int imrecv(const char *call, const void *ra, void *buf, MPI_Count count, MPI_Datatype type,
                  MPI_Message *message, MPI_Request *req)
{
    const bool cf = is_c(call);
    if (chk_outside(call, ra))
        return (cf ? PMPI_Imrecv_c(buf, count, type, message, req) : PMPI_Imrecv(buf, (int)count, type, message, req));
    MPI_Message m = *message;
    mmsg_t *e = take_mmsg(m);
    /* Compared now: the shadow is already here and the buffer and type are known. */
    mrecv_check(e, call, ra, buf, count, type);
    int rc = (cf ? PMPI_Imrecv_c(buf, count, type, message, req) : PMPI_Imrecv(buf, (int)count, type, message, req));
    chk_freed(CHK_K_MESSAGE, m, call, ra);
    if (rc == MPI_SUCCESS)
        chk_req_other(*req, call, ra, MPI_COMM_NULL, false);
    return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    return imrecv("MPI_Imrecv", CHK_RA(), buf, count, datatype, message, request);
}

int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    return imrecv("MPI_Imrecv_c", CHK_RA(), buf, count, datatype, message, request);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    const void *ra = CHK_RA();
    if (chk_outside("MPI_Probe", ra))
        return PMPI_Probe(source, tag, comm, status);
    chk_use(CHK_K_COMM, comm, "MPI_Probe", "comm", ra);
    block1("MPI_Probe", ra, CHK_W_RECV, chk_comm_get(comm), source, tag);
    int rc = PMPI_Probe(source, tag, comm, status);
    unblock();
    return rc;
}

/* ---- send-receive -------------------------------------------------------------------------- */
static int sendrecv(const char *call, const void *ra, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                    int dest, int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source,
                    int rtag, MPI_Comm comm, MPI_Status *status, bool replace)
{
    const bool cf = is_c(call);
    if (chk_outside(call, ra))
        return replace ? (cf ? PMPI_Sendrecv_replace_c(rbuf, rcount, rtype, dest, stag, source, rtag, comm, status) : PMPI_Sendrecv_replace(rbuf, (int)rcount, rtype, dest, stag, source, rtag, comm, status))
                       : (cf ? PMPI_Sendrecv_c(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                                         comm, status) : PMPI_Sendrecv(sbuf, (int)scount, stype, dest, stag, rbuf, (int)rcount, rtype, source, rtag, comm, status));
    bool ok = pre_send(call, ra, comm, stype, sbuf, scount, dest, stag, false);
    ok = pre_send(call, ra, comm, rtype, rbuf, rcount, source, rtag, true) && ok;
    if (!ok)
        return replace ? (cf ? PMPI_Sendrecv_replace_c(rbuf, rcount, rtype, dest, stag, source, rtag, comm, status) : PMPI_Sendrecv_replace(rbuf, (int)rcount, rtype, dest, stag, source, rtag, comm, status))
                       : (cf ? PMPI_Sendrecv_c(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                                         comm, status) : PMPI_Sendrecv(sbuf, (int)scount, stype, dest, stag, rbuf, (int)rcount, rtype, source, rtag, comm, status));
    if (!replace && (chk_on & CHK_C_BUFFER) && overlaps(sbuf, scount, stype, rbuf, rcount, rtype))
        chk_report(call, ra, "overlapping buffers: the send and receive buffers overlap (use "
                             "MPI_Sendrecv_replace)");
    if (!replace)
        check_recv_overlap(call, ra, rbuf, rcount, rtype, NULL);
    chk_comm_t *c = chk_comm_get(comm);
    /* Sendrecv cannot deadlock on its own pair: its shadow need not be synchronous. */
    shadow_send(c, dest, stag, call, ra, stype, scount);
    uint64_t seq = chk_count_up(&next_seq);
    if (chk_on & CHK_C_WATCH) {
        chk_item_t it[2] = {item_of(CHK_W_SEND, c, dest, stag), item_of(CHK_W_RECV, c, source, rtag)};
        int n = dest == MPI_PROC_NULL ? 0 : 1;
        if (n == 0)
            it[0] = it[1];
        if (source != MPI_PROC_NULL)
            n++;
        chk_watch_block(call, ra, true, n, it);
    }
    MPI_Status st = {0};
    if (status != MPI_STATUS_IGNORE)
        st = *status;
    int rc = replace ? (cf ? PMPI_Sendrecv_replace_c(rbuf, rcount, rtype, dest, stag, source, rtag, comm, &st) : PMPI_Sendrecv_replace(rbuf, (int)rcount, rtype, dest, stag, source, rtag, comm, &st))
                     : (cf ? PMPI_Sendrecv_c(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
                                       &st) : PMPI_Sendrecv(sbuf, (int)scount, stype, dest, stag, rbuf, (int)rcount, rtype, source, rtag, comm, &st));
    unblock();
    if (matched_rc(rc) && source != MPI_PROC_NULL)
        recv_done(c, &st, rtype, rcount, call, ra, seq);
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv("MPI_Sendrecv", CHK_RA(), sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                    recvtype, source, recvtag, comm, status, false);
}

int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Status *status)
{
    return sendrecv("MPI_Sendrecv_c", CHK_RA(), sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                    recvtype, source, recvtag, comm, status, false);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv("MPI_Sendrecv_replace", CHK_RA(), buf, count, datatype, dest, sendtag, buf, count, datatype,
                    source, recvtag, comm, status, true);
}

int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv("MPI_Sendrecv_replace_c", CHK_RA(), buf, count, datatype, dest, sendtag, buf, count,
                    datatype, source, recvtag, comm, status, true);
}

/* Isendrecv: the shadow goes now; the receive's request is tracked as a receive. */
static int isendrecv(const char *call, const void *ra, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                     int dest, int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source,
                     int rtag, MPI_Comm comm, MPI_Request *req, bool replace)
{
    const bool cf = is_c(call);
    bool out = chk_outside(call, ra) || !pre_send(call, ra, comm, stype, sbuf, scount, dest, stag, false) ||
               !pre_send(call, ra, comm, rtype, rbuf, rcount, source, rtag, true);
    chk_comm_t *c = out ? NULL : chk_comm_get(comm);
    if (!out)
        shadow_send(c, dest, stag, call, ra, stype, scount);
    int rc = replace ? (cf ? PMPI_Isendrecv_replace_c(rbuf, rcount, rtype, dest, stag, source, rtag, comm, req) : PMPI_Isendrecv_replace(rbuf, (int)rcount, rtype, dest, stag, source, rtag, comm, req))
                     : (cf ? PMPI_Isendrecv_c(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
                                        req) : PMPI_Isendrecv(sbuf, (int)scount, stype, dest, stag, rbuf, (int)rcount, rtype, source, rtag, comm, req));
    if (rc != MPI_SUCCESS || out)
        return rc;
    req_t *q = req_add(*req, R_RECV, call, ra, false);
    q->c = c;
    q->peer = source;
    q->tag = rtag;
    q->buf = rbuf;
    q->count = rcount;
    q->type = rtype;
    if (source != MPI_PROC_NULL) {
        chk_lock();
        post_locked(q);
        chk_unlock();
    }
    return rc;
}

int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return isendrecv("MPI_Isendrecv", CHK_RA(), sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                     recvtype, source, recvtag, comm, request, false);
}

int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Request *request)
{
    return isendrecv("MPI_Isendrecv_c", CHK_RA(), sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                     recvcount, recvtype, source, recvtag, comm, request, false);
}

int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return isendrecv("MPI_Isendrecv_replace", CHK_RA(), buf, count, datatype, dest, sendtag, buf, count,
                     datatype, source, recvtag, comm, request, true);
}

int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return isendrecv("MPI_Isendrecv_replace_c", CHK_RA(), buf, count, datatype, dest, sendtag, buf, count,
                     datatype, source, recvtag, comm, request, true);
}

/* ---- starting persistent requests ---------------------------------------------------------- */
static void started(MPI_Request r, const void *ra)
{
    chk_lock();
    req_t *q = req_find_locked(r);
    chk_unlock();
    if (!q)
        return;
    q->active = true;
    if (q->kind == R_SEND) {
        shadow_send(q->c, q->peer, q->tag, q->call, q->ra, q->type, q->count);
        if ((chk_on & CHK_C_BUFFER) && q->peer != MPI_PROC_NULL) {
            q->csum = checksum(q->buf, q->count, q->type);
            q->summed = true;
            chk_lock();
            act_link_locked(q);
            chk_unlock();
        }
    } else if (q->kind == R_RECV && q->peer != MPI_PROC_NULL) {
        check_recv_overlap("MPI_Start", ra, q->buf, q->count, q->type, q);
        chk_lock();
        unpost_locked(q);
        post_locked(q);
        chk_unlock();
    }
}

int MPI_Start(MPI_Request *request)
{
    const void *ra = CHK_RA();
    if (chk_outside("MPI_Start", ra))
        return PMPI_Start(request);
    chk_use(CHK_K_REQUEST, *request, "MPI_Start", "request", ra);
    /* The shadow goes before the data: started() first. */
    started(*request, ra);
    return PMPI_Start(request);
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    const void *ra = CHK_RA();
    if (chk_outside("MPI_Startall", ra))
        return PMPI_Startall(count, array_of_requests);
    for (int i = 0; i < count; i++) {
        chk_use(CHK_K_REQUEST, array_of_requests[i], "MPI_Startall", "array_of_requests", ra);
        started(array_of_requests[i], ra);
    }
    return PMPI_Startall(count, array_of_requests);
}

/* ---- completion ---------------------------------------------------------------------------- */
static const char *const wait_names[] = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
                                         "MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome"};

/* What a wait on these requests waits for, told to the watch. */
static void block_reqs(const char *call, const void *ra, bool all, int n, const MPI_Request *r)
{
    if (!(chk_on & CHK_C_WATCH))
        return;
    chk_item_t it[CHK_WATCH_MAX_ITEMS];
    int k = 0, total = 0;
    chk_lock();
    for (int i = 0; i < n; i++) {
        if (r[i] == MPI_REQUEST_NULL)
            continue;
        req_t *q = req_find_locked(r[i]);
        chk_item_t x = {.kind = CHK_W_OTHER, .peer = -1, .tag = -1};
        if (q && q->kind == R_RECV)
            x = item_of(CHK_W_RECV, q->c, q->peer, q->tag);
        else if (q && q->kind == R_SEND)
            x = item_of(CHK_W_SEND, q->c, q->peer, q->tag);
        else if (q && q->c && q->call && strstr(q->call, "MPI_I")) {
            x.kind = CHK_W_COLL;
            x.comm = q->c->id;
            x.coll = q->call;
            x.seq = q->seq;
        }
        if (k < CHK_WATCH_MAX_ITEMS)
            it[k++] = x;
        total++;
    }
    chk_unlock();
    if (total == 0) {
        it[0] = (chk_item_t){.kind = CHK_W_OTHER, .peer = -1, .tag = -1};
        total = 1;
    }
    (void)k;
    chk_watch_block(call, ra, all, total, it);
}

/* A request handle `r` completed with status st (inactive persistent, or freed). */
static void completed(req_t *q, MPI_Request r, const MPI_Status *st, const char *call, const void *ra)
{
    if (!q)
        return;
    chk_lock();
    unpost_locked(q);
    chk_unlock();
    if (q->newcomm && *q->newcomm != MPI_COMM_NULL)
        chk_comm_new_local(*q->newcomm, q->newid, q->call, q->ra);
    if (q->kind == R_SEND && q->summed) {
        q->summed = false;
        /* (a type freed while the send was pending cannot be summed again: not compared) */
        if (chk_valid(CHK_K_TYPE, q->type) && checksum(q->buf, q->count, q->type) != q->csum) {
            char w[600];
            chk_report(call, ra, "send buffer modified before the nonblocking send completed (%s at %s)",
                       q->call, chk_where(q->ra, w, sizeof w));
        }
    } else if (q->kind == R_RECV && q->active) {
        recv_done(q->c, st, q->type, q->count, q->call, q->ra, q->seq);
    }
    q->active = false;
    if (!q->persistent) {
        chk_freed_gen(CHK_K_REQUEST, r, q->hgen, call, ra);
        free(q);
        if (deferred)
            run_deferred();
    } else if (deferred) {
        run_deferred();
    }
}

static int do_wait(int which, const void *ra, int count, MPI_Request *reqs, int *index, int *flag,
                   int *outcount, int *indices, MPI_Status *statuses)
{
    const char *call = wait_names[which];
    bool test = which >= 4;
    int mode = which & 3; /* 0 one, 1 all, 2 any, 3 some */
    if (chk_outside(call, ra) || count < 0)
        goto plain;
    for (int i = 0; i < count; i++)
        if (!chk_use(CHK_K_REQUEST, reqs[i], call, count == 1 && mode == 0 ? "request" : "array_of_requests", ra))
            goto plain;
    MPI_Request stackold[16];
    MPI_Status stackst[16];
    MPI_Request *old = count <= 16 ? stackold : malloc(sizeof(MPI_Request) * (size_t)count);
    MPI_Status *st = count <= 16 ? stackst : malloc(sizeof(MPI_Status) * (size_t)count);
    if (old == NULL || st == NULL) { /* out of memory: the program's call, unchecked */
        if (old != stackold)
            free(old);
        if (st != stackst)
            free(st);
        goto plain;
    }
    if (count > 0) /* a count of 0 may come with a NULL array */
        memcpy(old, reqs, sizeof(MPI_Request) * (size_t)count);
    /* What the call does not set (MPI_ERROR of a single completion) stays the program's. */
    if (mode == 0 || mode == 2) {
        if (statuses != MPI_STATUS_IGNORE)
            st[0] = statuses[0];
    } else if (statuses != MPI_STATUSES_IGNORE && count > 0) {
        memcpy(st, statuses, sizeof(MPI_Status) * (size_t)count);
    }
    /* Nonblocking collectives: their descriptors are compared first (every rank posted its
     * Iallreduce with the collective): a mismatched collective would never complete. */
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        chk_lock();
        req_t *q = req_find_locked(reqs[i]);
        void *nc = q ? q->ncoll : NULL;
        if (q)
            q->ncoll = NULL;
        chk_unlock();
        if (nc) {
            if (!test)
                block_reqs(call, ra, true, 1, &reqs[i]);
            chk_coll_nb_done(nc);
            if (!test)
                unblock();
        }
    }
    if (!test)
        block_reqs(call, ra, mode != 2 && mode != 3, count, reqs);
    /* The entries leave the table while the call runs: a request it frees may have its handle
     * value given to a new request of another thread before the bookkeeping below, whose
     * req_add must not find (and free) this one. Those that stay are put back. */
    req_t *stackq[16];
    req_t **qs = count <= 16 ? stackq : malloc(sizeof(req_t *) * (size_t)count);
    chk_lock();
    for (int i = 0; i < count; i++) {
        req_t *q = old[i] == MPI_REQUEST_NULL ? NULL : req_find_locked(old[i]);
        qs[i] = q;
        if (q && !q->persistent)
            for (req_t **p = &rtab[rbucket(old[i])]; *p; p = &(*p)->next)
                if (*p == q) {
                    *p = q->next;
                    break;
                }
    }
    chk_unlock();
    int rc = MPI_SUCCESS, f = 1, idx = MPI_UNDEFINED, oc = 0;
    int *ind = NULL;
    switch (which) {
    case 0: rc = PMPI_Wait(reqs, st); break;
    case 1: rc = PMPI_Waitall(count, reqs, st); break;
    case 2: rc = PMPI_Waitany(count, reqs, &idx, st); break;
    case 3:
        ind = malloc(sizeof(int) * (size_t)(count + 1));
        rc = PMPI_Waitsome(count, reqs, &oc, ind, st);
        break;
    case 4: rc = PMPI_Test(reqs, &f, st); break;
    case 5: rc = PMPI_Testall(count, reqs, &f, st); break;
    case 6: rc = PMPI_Testany(count, reqs, &idx, &f, st); break;
    default:
        ind = malloc(sizeof(int) * (size_t)(count + 1));
        rc = PMPI_Testsome(count, reqs, &oc, ind, st);
        break;
    }
    if (!test)
        unblock();
    bool stackdone[16] = {false};
    bool *done = count <= 16 ? stackdone : calloc((size_t)count, sizeof(bool));
    /* Post-process what completed: a nonblocking request the call freed (even with an error),
     * an active persistent one when the call succeeded. */
    if (mode == 0 || mode == 1) {
        for (int i = 0; i < count; i++)
            if (old[i] != MPI_REQUEST_NULL && (reqs[i] == MPI_REQUEST_NULL || (rc == MPI_SUCCESS && f) ||
                                               (rc == MPI_ERR_IN_STATUS && st[i].MPI_ERROR != MPI_ERR_PENDING))) {
                done[i] = true;
                completed(qs[i], old[i], &st[i], call, ra);
            }
    } else if (mode == 2) {
        if (f && idx != MPI_UNDEFINED && idx >= 0) {
            done[idx] = true;
            completed(qs[idx], old[idx], &st[0], call, ra);
        }
    } else {
        if (oc != MPI_UNDEFINED)
            for (int k = 0; k < oc; k++) {
                done[ind[k]] = true;
                completed(qs[ind[k]], old[ind[k]], &st[k], call, ra);
            }
    }
    chk_lock();
    for (int i = 0; i < count; i++)
        if (qs[i] && !done[i] && !qs[i]->persistent) {
            req_t **pp = &rtab[rbucket(old[i])];
            qs[i]->next = *pp;
            *pp = qs[i];
        }
    chk_unlock();
    if (qs != stackq)
        free(qs);
    if (done != stackdone)
        free(done);
    /* Give the statuses back. */
    if (mode == 0 || mode == 2) {
        if (statuses != MPI_STATUS_IGNORE)
            statuses[0] = st[0];
    } else if (mode == 1) {
        if (statuses != MPI_STATUSES_IGNORE && count > 0)
            memcpy(statuses, st, sizeof(MPI_Status) * (size_t)count);
    } else if (statuses != MPI_STATUSES_IGNORE && oc != MPI_UNDEFINED && oc > 0) {
        memcpy(statuses, st, sizeof(MPI_Status) * (size_t)oc);
    }
    if (flag)
        *flag = f;
    if (index)
        *index = idx;
    if (outcount) {
        *outcount = oc;
        if (oc != MPI_UNDEFINED && oc > 0)
            memcpy(indices, ind, sizeof(int) * (size_t)oc);
    }
    free(ind);
    if (old != stackold)
        free(old);
    if (st != stackst)
        free(st);
    if (npend)
        pend_poll();
    chk_coll_nb_poll(false);
    return rc;
plain:
    switch (which) {
    case 0: return PMPI_Wait(reqs, statuses);
    case 1: return PMPI_Waitall(count, reqs, statuses);
    case 2: return PMPI_Waitany(count, reqs, index, statuses);
    case 3: return PMPI_Waitsome(count, reqs, outcount, indices, statuses);
    case 4: return PMPI_Test(reqs, flag, statuses);
    case 5: return PMPI_Testall(count, reqs, flag, statuses);
    case 6: return PMPI_Testany(count, reqs, index, flag, statuses);
    default: return PMPI_Testsome(count, reqs, outcount, indices, statuses);
    }
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    return do_wait(0, CHK_RA(), 1, request, NULL, NULL, NULL, NULL, status);
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    return do_wait(1, CHK_RA(), count, array_of_requests, NULL, NULL, NULL, NULL, array_of_statuses);
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status)
{
    return do_wait(2, CHK_RA(), count, array_of_requests, indx, NULL, NULL, NULL, status);
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    return do_wait(3, CHK_RA(), incount, array_of_requests, NULL, NULL, outcount, array_of_indices,
                   array_of_statuses);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    return do_wait(4, CHK_RA(), 1, request, NULL, flag, NULL, NULL, status);
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    return do_wait(5, CHK_RA(), count, array_of_requests, NULL, flag, NULL, NULL, array_of_statuses);
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status)
{
    return do_wait(6, CHK_RA(), count, array_of_requests, indx, flag, NULL, NULL, status);
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    return do_wait(7, CHK_RA(), incount, array_of_requests, NULL, NULL, outcount, array_of_indices,
                   array_of_statuses);
}

int MPI_Request_free(MPI_Request *request)
{
    const void *ra = CHK_RA();
    if (chk_outside("MPI_Request_free", ra))
        return PMPI_Request_free(request);
    MPI_Request r = *request;
    chk_use(CHK_K_REQUEST, r, "MPI_Request_free", "request", ra);
    chk_lock();
    req_t *q = req_find_locked(r);
    uint64_t gen = q ? q->gen : 0;
    chk_unlock();
    uint64_t hgen = chk_gen(CHK_K_REQUEST, r);
    int rc = PMPI_Request_free(request);
    if (rc == MPI_SUCCESS) {
        chk_freed_gen(CHK_K_REQUEST, r, hgen, "MPI_Request_free", ra);
        chk_lock();
        q = req_find_locked(r);
        if (q && q->gen == gen) {
            unpost_locked(q);
            for (req_t **p = &rtab[rbucket(r)]; *p; p = &(*p)->next)
                if (*p == q) {
                    *p = q->next;
                    break;
                }
        } else {
            q = NULL;
        }
        chk_unlock();
        free(q);
        if (deferred)
            run_deferred();
    }
    return rc;
}

int MPI_Cancel(MPI_Request *request)
{
    const void *ra = CHK_RA();
    if (chk_outside("MPI_Cancel", ra))
        return PMPI_Cancel(request);
    chk_use(CHK_K_REQUEST, *request, "MPI_Cancel", "request", ra);
    return PMPI_Cancel(request);
}

/* At MPI_Finalize: the background shadows complete (their receivers took them with the data);
 * a shadow whose data was never received is cancelled after a while rather than waited for. */
void chk_p2p_fini(void)
{
    chk_coll_nb_poll(true);
    chk_log_fini();
    for (int i = 0; i < 2000 && npend; i++) {
        pend_poll();
        if (npend) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
    }
    chk_lock();
    for (int i = 0; i < npend; i++) {
        PMPI_Cancel(&pend[i].req);
        PMPI_Request_free(&pend[i].req);
    }
    npend = 0;
    while (deferred) {
        done_t *d = deferred;
        deferred = d->next;
        free(d);
    }
    chk_unlock();
}
