/* Point-to-point signatures by logs (FERRY_CHECK_P2P=log, the default): the cheap scheme.
 *
 * A shadow message per send (chk_p2p.c, FERRY_CHECK_P2P=shadow) costs a second message and a
 * receive per message: 6x the latency of a 1-byte ping-pong on shared memory. Here each side
 * only appends to a log: the sender (world rank s) one entry per message to world rank d, in
 * send order (communicator id, tag, signature summary, call and location); the receiver one
 * entry per matched message (communicator id, source, tag, its posting order, its own
 * signature). Every B entries the sender ships its entries for d in one batch on the world
 * shadow communicator, with the B-th message (a blocking send logs after its data, out of the
 * message's way, when one thread at a time calls MPI; otherwise before); the receiver, once it
 * has matched k*B messages from s, knows the k-th batch is sent or about to be (the send
 * returns once the receive matched it, without further help from the receiver) and receives
 * it. The k-th entry from s with (comm, tag) belongs to the receive with the k-th smallest
 * posting number among those that matched (comm, s, tag) (messages do not overtake, and
 * receives match in posting order),
 * as long as no receive posted earlier that could take (s, tag) is still pending: those pairs
 * wait. At MPI_Finalize the last batches go and every pair left is compared.
 *
 * Reports therefore come at a batch or at MPI_Finalize rather than at the receive, in the same
 * format, with both calls and lines; a job that dies first loses them (the shadow scheme does
 * not). */
#include "chk.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 256
#define BATCH_TAG 32000 /* on the world shadow, used by nothing else */
#define MODLEN 256

typedef struct went {        /* a sender's entry, as it travels */
    uint64_t comm;
    int32_t tag;
    int32_t mod;             /* index into the batch's module table */
    char call[24];           /* the sender's MPI function */
    uint64_t off;
    chk_sigsum_t sig;
} went_t;

typedef struct rent {        /* a receiver's entry */
    uint64_t comm, seq;
    int32_t tag, src_rank;   /* src_rank: in the communicator (for the report) */
    const char *call;
    const void *ra;
    MPI_Datatype type;       /* predefined: the summary is made when the pair is */
    MPI_Count count;
    chk_sigsum_t *dsig;      /* derived: made at the receive (the type may be freed after) */
    bool done;
} rent_t;

typedef struct {
    went_t *e;               /* sig.nruns < 0: a predefined type, summed at the batch from: */
    MPI_Datatype *ty;
    MPI_Count *cnt;
    const char **mods;       /* per entry, interned module path */
    const char **calls;      /* per entry, the MPI function (static storage): copied into
                                e[i].call at the batch, not at every message */
    int n;
    uint64_t total;          /* entries ever logged for this destination */
} sdest_t;

typedef struct {
    rent_t *r;
    int nr, capr;
    went_t *s;               /* sender entries not yet paired, in send order */
    const char **smod;       /* per entry, the sender's module (interned: one copy per path) */
    int ns, caps;
    uint64_t matched;        /* messages matched from this source */
    uint64_t batches;        /* batches received */
    bool fetching;
    bool queued;             /* in due[]: a batch to fetch at the next chk_log_poll */
} rsrc_t;

static sdest_t *sd;
static rsrc_t *rs;
static int nworld;
static MPI_Comm wshadow = MPI_COMM_NULL;
static MPI_Request *bpend; /* batch sends in flight */
static void **bbuf;
static int nbpend, capbpend;
static pthread_mutex_t fetch_lock = PTHREAD_MUTEX_INITIALIZER;
/* Sources with a batch due, fetched and paired by chk_log_poll before a blocking receive waits
 * (out of the way of the message that made it due); a second batch due is fetched at once. */
static int *due;
static int ndue;

bool chk_log_on;

void chk_log_init(MPI_Comm world_shadow)
{
    const char *m = getenv("FERRY_CHECK_P2P");
    chk_log_on = !(m && strcmp(m, "shadow") == 0) && world_shadow != MPI_COMM_NULL;
    if (!chk_log_on)
        return;
    wshadow = world_shadow;
    nworld = chk_size;
    sd = calloc((size_t)nworld, sizeof *sd);
    rs = calloc((size_t)nworld, sizeof *rs);
    due = calloc((size_t)nworld, sizeof *due);
}

static void batch_send(int d)
{
    sdest_t *q = &sd[d];
    if (!q->n)
        return;
    /* header, module table, entries */
    const char *mods[BATCH];
    int nm = 0;
    /* A batch is mostly the same message again: what the previous entry has is copied. */
    for (int i = 0; i < q->n; i++)
        if (q->e[i].sig.nruns < 0) {
            if (i > 0 && q->ty[i] == q->ty[i - 1] && q->cnt[i] == q->cnt[i - 1])
                q->e[i].sig = q->e[i - 1].sig;
            else
                chk_sig_of(q->ty[i], q->cnt[i], &q->e[i].sig);
        }
    for (int i = 0; i < q->n; i++) {
        if (i > 0 && q->calls[i] == q->calls[i - 1]) {
            memcpy(q->e[i].call, q->e[i - 1].call, sizeof q->e[i].call);
        } else {
            strncpy(q->e[i].call, q->calls[i], sizeof q->e[i].call - 1);
            q->e[i].call[sizeof q->e[i].call - 1] = 0;
        }
        int k;
        for (k = 0; k < nm && mods[k] != q->mods[i]; k++)
            ;
        if (k == nm)
            mods[nm++] = q->mods[i];
        q->e[i].mod = k;
    }
    size_t len = 2 * sizeof(int32_t) + (size_t)nm * MODLEN + (size_t)q->n * sizeof(went_t);
    char *b = malloc(len); /* every byte written below (calloc would clear the entries too) */
    int32_t hdr[2] = {q->n, nm};
    memcpy(b, hdr, sizeof hdr);
    memset(b + sizeof hdr, 0, (size_t)nm * MODLEN);
    for (int k = 0; k < nm; k++)
        snprintf(b + sizeof hdr + (size_t)k * MODLEN, MODLEN, "%s", mods[k]);
    memcpy(b + sizeof hdr + (size_t)nm * MODLEN, q->e, (size_t)q->n * sizeof(went_t));
    MPI_Request r;
    PMPI_Isend(b, (int)len, MPI_BYTE, d, BATCH_TAG, wshadow, &r);
    q->n = 0;
    if (nbpend == capbpend) {
        capbpend = capbpend ? 2 * capbpend : 16;
        bpend = realloc(bpend, sizeof *bpend * (size_t)capbpend);
        bbuf = realloc(bbuf, sizeof *bbuf * (size_t)capbpend);
    }
    bpend[nbpend] = r;
    bbuf[nbpend++] = b;
    /* Completed batches give their buffers back. */
    for (int i = 0; i < nbpend;) {
        int flag = 0;
        PMPI_Test(&bpend[i], &flag, MPI_STATUS_IGNORE);
        if (flag) {
            free(bbuf[i]);
            bpend[i] = bpend[--nbpend];
            bbuf[i] = bbuf[nbpend];
        } else {
            i++;
        }
    }
}

void chk_log_send(chk_comm_t *c, int dest, int tag, const char *call, const void *ra, MPI_Datatype type,
                  MPI_Count count)
{
    int d = chk_world_of(c, dest);
    if (d < 0 || d >= nworld)
        return;
    uint64_t off;
    const char *mod = chk_module_of(ra, &off);
    bool pre = (((unsigned)type >> 30) & 3u) == 1;
    chk_sigsum_t ds;
    if (!pre)
        chk_sig_of(type, count, &ds);
    chk_lock();
    sdest_t *q = &sd[d];
    if (!q->e) {
        q->e = malloc(sizeof *q->e * BATCH);
        q->mods = malloc(sizeof *q->mods * BATCH);
        q->ty = malloc(sizeof *q->ty * BATCH);
        q->cnt = malloc(sizeof *q->cnt * BATCH);
        q->calls = malloc(sizeof *q->calls * BATCH);
    }
    went_t *e = &q->e[q->n];
    e->comm = c->id;
    e->tag = tag;
    e->off = off;
    q->calls[q->n] = call;
    if (pre) {
        e->sig.nruns = -1;
        q->ty[q->n] = type;
        q->cnt[q->n] = count;
    } else {
        e->sig = ds;
        q->ty[q->n] = MPI_DATATYPE_NULL; /* equal to no predefined type (batch_send's copies) */
    }
    q->mods[q->n++] = mod;
    q->total++;
    if (q->n == BATCH)
        batch_send(d); /* before this message's data: the receiver may count on it */
    chk_unlock();
}

/* ---- the receiving side ------------------------------------------------------------------- */
extern bool chk_p2p_blocked(uint64_t comm, int src_rank, int tag, uint64_t seq);

/* True when the pair is worth a report: a truncation or a signature that is not the prefix. */
static const chk_sigsum_t *rsig_of(const rent_t *r, chk_sigsum_t *tmp)
{
    if (r->dsig)
        return r->dsig;
    chk_sig_of(r->type, r->count, tmp);
    return tmp;
}

static bool pair_differs(const rent_t *r, const went_t *s)
{
    /* The common case without a summary: one predefined type on both sides. The receive's
     * is count x that type, of which the sent count x type is a prefix, or a truncation
     * (the library's error): equal either way. */
    if (!r->dsig && s->sig.nruns == 1 && s->sig.runs[0].type == (int32_t)r->type &&
        s->sig.runs[0].n <= r->count)
        return false;
    chk_sigsum_t tmp;
    const chk_sigsum_t *rsig = rsig_of(r, &tmp);
    /* A truncation is the library's error: fatal, it ended the job in the receive (reported
     * there); returned, the program handles it. */
    if (s->sig.bytes > rsig->bytes)
        return false;
    if (s->sig.anything || rsig->anything)
        return false;
    if (s->sig.nelem == rsig->nelem)
        return s->sig.hash != rsig->hash;
    if (rsig->nruns > CHK_SIG_RUNS || s->sig.nruns > CHK_SIG_RUNS)
        return false;
    int64_t left = s->sig.nelem;
    int n = 0;
    for (int i = 0; i < rsig->nruns && left > 0; i++, n++) {
        int64_t m = rsig->runs[i].n < left ? rsig->runs[i].n : left;
        if (n >= s->sig.nruns || rsig->runs[i].type != s->sig.runs[n].type || m != s->sig.runs[n].n)
            return true;
        left -= m;
    }
    return n != s->sig.nruns;
}

static void report_pair(const rent_t *r, const went_t *s, const char *smod, int src_world)
{
    char rs_[300], ss[300], w[600];
    chk_sigsum_t tmp;
    chk_sigsum_t rsig = *rsig_of(r, &tmp);
    (void)src_world;
    if (s->sig.bytes > rsig.bytes) {
        chk_sig_str(&rsig, rs_, sizeof rs_);
        chk_sig_str(&s->sig, ss, sizeof ss);
        chk_report(r->call, r->ra,
                   "truncation: receive buffer of %s (%lld bytes) for a message from rank %d of %s "
                   "(%lld bytes) sent with %s at %s",
                   rs_, (long long)rsig.bytes, r->src_rank, ss, (long long)s->sig.bytes,
                   s->call,
                   chk_where_remote(smod, s->off, w, sizeof w));
        return;
    }
    if (s->sig.anything || rsig.anything)
        return;
    if (!pair_differs(r, s))
        return;
    chk_sig_str(&rsig, rs_, sizeof rs_);
    chk_sig_str(&s->sig, ss, sizeof ss);
    chk_report(r->call, r->ra,
               "type mismatch: received %s (%lld bytes) from rank %d, which sent %s (%lld bytes) with %s at %s",
               rs_, (long long)rsig.bytes, r->src_rank, ss, (long long)s->sig.bytes,
               s->call,
               chk_where_remote(smod, s->off, w, sizeof w));
}

/* Pairs what can be paired from source `src`. Lock held; `final`: nothing is pending anymore. */
typedef struct {
    rent_t r;
    went_t s;
    const char *mod;
} pair_t;

static int by_seq(const void *a, const void *b)
{
    const rent_t *x = a, *y = b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int pair_locked(int src, bool final, pair_t **out)
{
    rsrc_t *q = &rs[src];
    int np = 0, cap = 0, keep = 0, first = 0;
    pair_t *p = NULL;
    /* Receives in posting order: the k-th sender entry of a (comm, tag) goes to the first
     * unpaired receive of that (comm, tag), scanning from the first unpaired one. */
    bool sorted = true;
    for (int j = 1; j < q->nr && sorted; j++)
        sorted = q->r[j - 1].seq < q->r[j].seq;
    if (!sorted)
        qsort(q->r, (size_t)q->nr, sizeof *q->r, by_seq);
    for (int i = 0; i < q->ns; i++) {
        went_t *s = &q->s[i];
        while (first < q->nr && q->r[first].done)
            first++;
        rent_t *best = NULL;
        for (int j = first; j < q->nr; j++)
            if (!q->r[j].done && q->r[j].comm == s->comm && q->r[j].tag == s->tag) {
                best = &q->r[j];
                break;
            }
        /* an earlier sender entry with the same (comm, tag) still waiting keeps this one waiting */
        bool earlier = false;
        for (int k = 0; k < keep && !earlier; k++)
            earlier = q->s[k].comm == s->comm && q->s[k].tag == s->tag;
        if (earlier || !best || (!final && chk_p2p_blocked(best->comm, best->src_rank, best->tag, best->seq))) {
            if (keep != i) {
                q->s[keep] = q->s[i];
                q->smod[keep] = q->smod[i];
            }
            keep++;
            continue;
        }
        best->done = true;
        /* Only the pairs that differ are handed out (the comparison is cheap, the copy not). */
        if (!pair_differs(best, s)) {
            free(best->dsig);
        } else {
            if (np == cap) {
                cap = cap ? 2 * cap : 4;
                p = realloc(p, sizeof *p * (size_t)cap);
            }
            p[np].r = *best;
            p[np].s = *s;
            p[np].mod = q->smod[i];
            np++;
        }
    }
    q->ns = keep;
    int k = 0;
    for (int j = 0; j < q->nr; j++)
        if (!q->r[j].done)
            q->r[k++] = q->r[j];
    q->nr = k;
    *out = p;
    return np;
}

/* A sender's module path, kept once (the paths a job uses are few). Lock held. */
static const char *mod_intern(const char *path)
{
    static struct modn {
        struct modn *next;
        char path[MODLEN];
    } *mods;
    for (struct modn *m = mods; m; m = m->next)
        if (strncmp(m->path, path, MODLEN - 1) == 0)
            return m->path;
    struct modn *m = calloc(1, sizeof *m);
    memcpy(m->path, path, MODLEN - 1);
    m->next = mods;
    mods = m;
    return m->path;
}

static void take_batch(int src, const char *b)
{
    int32_t hdr[2];
    memcpy(hdr, b, sizeof hdr);
    const char *mods = b + sizeof hdr;
    const went_t *e = (const went_t *)(const void *)(mods + (size_t)hdr[1] * MODLEN);
    rsrc_t *q = &rs[src];
    if (q->ns + hdr[0] > q->caps) {
        q->caps = q->ns + hdr[0] + BATCH;
        q->s = realloc(q->s, sizeof *q->s * (size_t)q->caps);
        q->smod = realloc(q->smod, sizeof *q->smod * (size_t)q->caps);
    }
    /* The batch's module table, interned once per batch rather than copied per entry. */
    const char *mtab[BATCH];
    for (int k = 0; k < hdr[1] && k < BATCH; k++)
        mtab[k] = mod_intern(mods + (size_t)k * MODLEN);
    memcpy(&q->s[q->ns], e, sizeof *e * (size_t)hdr[0]);
    for (int i = 0; i < hdr[0]; i++) {
        int m = q->s[q->ns].mod;
        q->smod[q->ns++] = m >= 0 && m < hdr[1] && m < BATCH ? mtab[m] : "?";
    }
    q->batches++;
}

static void fetch_and_pair(int src, bool final)
{
    pthread_mutex_lock(&fetch_lock);
    for (;;) {
        chk_lock();
        bool due = rs[src].matched >= (rs[src].batches + 1) * BATCH;
        chk_unlock();
        if (!due)
            break;
        /* The sender shipped it before the data of the message that made the count. */
        MPI_Status st;
        int len = 0;
        PMPI_Probe(src, BATCH_TAG, wshadow, &st);
        PMPI_Get_count(&st, MPI_BYTE, &len);
        char *b = malloc((size_t)len);
        PMPI_Recv(b, len, MPI_BYTE, src, BATCH_TAG, wshadow, MPI_STATUS_IGNORE);
        chk_lock();
        take_batch(src, b);
        chk_unlock();
        free(b);
    }
    pair_t *p;
    chk_lock();
    int np = pair_locked(src, final, &p);
    chk_unlock();
    pthread_mutex_unlock(&fetch_lock);
    for (int i = 0; i < np; i++) {
        report_pair(&p[i].r, &p[i].s, p[i].mod, src);
        free(p[i].r.dsig);
    }
    free(p);
}

void chk_log_recv(chk_comm_t *c, int src_rank, int tag, MPI_Datatype type, MPI_Count count, const char *call,
                  const void *ra, uint64_t seq)
{
    int s = chk_world_of(c, src_rank);
    if (s < 0 || s >= nworld)
        return;
    rent_t r = {.comm = c->id, .seq = seq, .tag = tag, .src_rank = src_rank, .call = call, .ra = ra,
                .type = type, .count = count};
    if ((((unsigned)type >> 30) & 3u) != 1) {
        r.dsig = malloc(sizeof *r.dsig);
        chk_sig_of(type, count, r.dsig);
    }
    chk_lock();
    rsrc_t *q = &rs[s];
    if (q->nr == q->capr) {
        q->capr = q->capr ? 2 * q->capr : 64;
        q->r = realloc(q->r, sizeof *q->r * (size_t)q->capr);
    }
    q->r[q->nr++] = r;
    q->matched++;
    bool now = q->matched >= (q->batches + 2) * BATCH;
    if (!now && q->matched >= (q->batches + 1) * BATCH && !q->queued) {
        q->queued = true;
        due[ndue] = s;
        __atomic_store_n(&ndue, ndue + 1, __ATOMIC_RELAXED);
    }
    chk_unlock();
    if (now)
        fetch_and_pair(s, false);
}

void chk_log_poll(void)
{
    if (!__atomic_load_n(&ndue, __ATOMIC_RELAXED)) /* (the common case: no lock) */
        return;
    for (;;) {
        chk_lock();
        int s = ndue ? due[ndue - 1] : -1;
        if (s >= 0)
            __atomic_store_n(&ndue, ndue - 1, __ATOMIC_RELAXED);
        if (s >= 0)
            rs[s].queued = false;
        chk_unlock();
        if (s < 0)
            return;
        fetch_and_pair(s, false);
    }
}

/* At MPI_Finalize: the last batches, then every pair. */
void chk_log_fini(void)
{
    if (!chk_log_on)
        return;
    chk_lock();
    unsigned long long *out = calloc((size_t)nworld, sizeof *out), *in = calloc((size_t)nworld, sizeof *in);
    for (int d = 0; d < nworld; d++) {
        batch_send(d);
        out[d] = sd[d].total;
    }
    chk_unlock();
    PMPI_Alltoall(out, 1, MPI_UNSIGNED_LONG_LONG, in, 1, MPI_UNSIGNED_LONG_LONG, wshadow);
    for (int s = 0; s < nworld; s++) {
        uint64_t want = (in[s] + BATCH - 1) / BATCH;
        while (rs[s].batches < want) {
            MPI_Status st;
            int len = 0;
            PMPI_Probe(s, BATCH_TAG, wshadow, &st);
            PMPI_Get_count(&st, MPI_BYTE, &len);
            char *b = malloc((size_t)len);
            PMPI_Recv(b, len, MPI_BYTE, s, BATCH_TAG, wshadow, MPI_STATUS_IGNORE);
            chk_lock();
            take_batch(s, b);
            chk_unlock();
            free(b);
        }
        rs[s].queued = false;
        rs[s].matched = 0; /* no more fetching: pair what there is */
        rs[s].batches = 0;
        fetch_and_pair(s, true);
    }
    __atomic_store_n(&ndue, 0, __ATOMIC_RELAXED);
    for (int i = 0; i < nbpend; i++) {
        PMPI_Wait(&bpend[i], MPI_STATUS_IGNORE);
        free(bbuf[i]);
    }
    nbpend = 0;
    free(out);
    free(in);
}
