/* Node-aware collectives (fy_hier.h): two levels, inside each host and between one leader per
 * host. Costs, with H hosts, q members on the largest host, n bytes; "host" is a collective
 * over one host's members (shared memory: a phase or two of copies, no network), "net" one over
 * the H leaders (the table's choice for H ranks over the network):
 *   Barrier    host barrier, net barrier (dissemination: ceil(log2 H) alpha), host barrier
 *   Bcast      the root's host first (host bcast from the root), then net bcast from that
 *              host's leader, then host bcast from the leader on every other host
 *   Reduce     host reduce to the leader, net reduce to the root's leader, then one message
 *              to the root when it is not its host's leader
 *   Allreduce  host reduce to the leader, net allreduce among leaders, host bcast
 *   Allgather  host gather of the members' blocks at the leader (packed, in rank order), net
 *              allgatherv of the hosts' packed blocks, host bcast of all of it, each member
 *              unpacking the blocks into their places: the result crosses the network once
 *              per host instead of once per rank, whatever order the ranks are in (a plain
 *              Allgather of a contiguous type over hosts of consecutive ranks works in the
 *              receive buffer: no copy out)
 * Against the flat algorithms over all p ranks, every step between hosts costs one network
 * latency and the host steps none, so the network sees ceil(log2 H) rounds instead of
 * ceil(log2 p), and each host's link carries its data once instead of once per member.
 * Reductions combine each host's members in rank order, then the hosts in the order of their
 * leaders: rank order exactly when every host's members are consecutive ranks, which a
 * non-commutative operator needs (fy_hier_sel_reduce_ok).
 *
 * After a failed phase the later ones still run (no member is left waiting) and the first
 * error is returned. Temporary vectors of the blocking forms are malloc'd per call: the shared
 * scratch of fy_coll_scratch belongs to the phases inside. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_hier.h"
#include "fy_knobs.h"
#include "fy_op.h"
#include "fy_runtime.h"

fy_hier_agree_fn_t *fy_hier_agree;

/* Private tags on the collective contexts, apart from the collectives' own (FY_TAG_*) and the
 * shared-memory slot's (40): the id agreement on c, the root's result on its host. */
enum { TAG_IDS = 41, TAG_ROOT = 42 };

enum {
    HIER_NO,     /* one host, or one member per host: the flat algorithms */
    HIER_YES,    /* two levels apply; the hidden communicators are made on the next blocking call */
    HIER_BUILT,  /* they exist */
    HIER_PAUSED, /* YES, but this call runs a flat algorithm (the ids must wait) */
};

typedef struct {
    int state;
    bool contiguous; /* every host's members are consecutive ranks */
    int nhosts;
    int *hidx;          /* rank -> its host, numbered in order of the hosts' lowest ranks */
    int *hrank;         /* rank -> its rank in its host's communicator (c's order) */
    fy_comm_t *host;    /* this member's host */
    fy_comm_t *leaders; /* the hosts' lowest ranks, in host order; NULL on other members */
} hier_t;

/* ---- Hosts ------------------------------------------------------------------------------ */

/* FERRY_COLL_HOSTS: world rank w is on host list[w % n]. Parsed once. */
enum { FAKE_MAX = FY_KNOB_TEXT_MAX };
static int fake[FAKE_MAX], nfake = -1;

static void fake_parse(void)
{
    nfake = 0;
    const char *t = fy_knob_text(FY_KNOB_COLL_HOSTS);
    while (t && *t && nfake < FAKE_MAX) {
        char *end;
        long v = strtol(t, &end, 10);
        if (end == t)
            break;
        fake[nfake++] = (int)v;
        t = *end == ',' ? end + 1 : end;
    }
}

static int host_id(int w)
{
    if (nfake > 0)
        return fake[w % nfake];
    return fy_rt.host_of ? fy_rt.host_of[w] : 0;
}

static void hier_free(hier_t *h)
{
    free(h->hidx);
    free(h);
}

/* c's hierarchy, worked out from every member's host on first use (the same on every member).
 * NULL when c can have none (no allocation then: single-host jobs pay a compare). */
static hier_t *shape(fy_comm_t *c)
{
    hier_t *h = c->coll_hier;
    if (h)
        return h;
    if (nfake < 0)
        fake_parse();
    if (c->inter || c->size < 3 || (fy_rt.nhosts < 2 && nfake <= 0))
        return NULL;
    int p = c->size;
    h = calloc(1, sizeof *h);
    int *hidx = malloc(sizeof(int) * 4 * (size_t)p);
    if (!h || !hidx) {
        free(h);
        free(hidx);
        return NULL;
    }
    int *hrank = hidx + p, *ids = hrank + p, *count = ids + p;
    int nh = 0, most = 0;
    bool contiguous = true;
    for (int r = 0; r < p; r++) {
        int id = host_id(fy_comm_world_rank(c, r)), k = 0;
        while (k < nh && ids[k] != id)
            k++;
        if (k == nh) {
            ids[nh] = id;
            count[nh++] = 0;
        }
        hidx[r] = k;
        hrank[r] = count[k]++;
        if (count[k] > most)
            most = count[k];
        if (r > 0 && k != hidx[r - 1] && hrank[r] != 0)
            contiguous = false; /* back on a host seen before */
    }
    h->nhosts = nh;
    h->contiguous = contiguous;
    h->state = nh >= 2 && most >= 2 ? HIER_YES : HIER_NO;
    if (h->state == HIER_YES) {
        h->hidx = hidx;
        h->hrank = hrank;
    } else {
        free(hidx);
    }
    fy_comm_coll_free = fy_coll_comm_free;
    c->coll_hier = h;
    return h;
}

bool fy_hier_sel_ok(const fy_sel_t *s)
{
    hier_t *h = shape(s->comm);
    return h && (h->state == HIER_BUILT || (h->state == HIER_YES && !s->sched));
}

bool fy_hier_sel_reduce_ok(const fy_sel_t *s)
{
    return fy_hier_sel_ok(s) && (s->commute || ((hier_t *)s->comm->coll_hier)->contiguous);
}

static void name(fy_comm_t *n, const fy_comm_t *c, const char *what)
{
    snprintf(n->name, sizeof n->name, "%.*s (%s)", (int)(sizeof n->name - 16),
             c->name[0] ? c->name : "a communicator", what);
}

/* Makes the hidden communicators (a collective step over c). */
static int build(fy_comm_t *c, hier_t *h, int *outcome_p)
{
    uint64_t agreed[FY_CID_MASK_WORDS];
    *outcome_p = FY_HIER_IDS_NONE;
    int rc = fy_hier_agree ? fy_hier_agree(c, TAG_IDS, agreed, outcome_p) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS || *outcome_p != FY_HIER_IDS_OK)
        return rc;
    int p = c->size, mine = h->hidx[c->rank], n = 0;
    for (int r = 0; r < p; r++)
        n += h->hidx[r] == mine;
    int *world_of = malloc(sizeof(int) * (size_t)n);
    int *lw = h->hrank[c->rank] == 0 ? malloc(sizeof(int) * (size_t)h->nhosts) : NULL;
    if (!world_of || (h->hrank[c->rank] == 0 && !lw)) {
        free(world_of);
        free(lw);
        return fy_err_set(MPI_ERR_NO_MEM, "collective: out of memory for the host communicators");
    }
    for (int r = 0; r < p; r++) {
        if (h->hidx[r] == mine)
            world_of[h->hrank[r]] = fy_comm_world_rank(c, r);
        if (lw && h->hrank[r] == 0)
            lw[h->hidx[r]] = fy_comm_world_rank(c, r);
    }
    /* The host communicators take the lower id (all hosts alike), the leaders' the higher. */
    rc = fy_comm_create(c, n, h->hrank[c->rank], world_of, agreed, &h->host);
    if (rc != MPI_SUCCESS) {
        free(lw);
        return rc;
    }
    name(h->host, c, "host");
    if (lw) {
        agreed[h->host->cid / 64] &= ~(1ull << (h->host->cid % 64));
        rc = fy_comm_create(c, h->nhosts, mine, lw, agreed, &h->leaders);
        if (rc != MPI_SUCCESS) {
            fy_comm_release(h->host);
            h->host = NULL;
            return rc;
        }
        name(h->leaders, c, "leaders");
    }
    h->state = HIER_BUILT;
    return MPI_SUCCESS;
}

/* The hierarchy of c for a blocking call, made now if needed. NULL with MPI_SUCCESS: this call
 * runs the flat algorithm (the caller dispatches again, the hier rows failing meanwhile, then
 * calls resume); NULL with an error: the call fails. */
static hier_t *ready(fy_comm_t *c, int *rc_p)
{
    hier_t *h = c->coll_hier;
    *rc_p = MPI_SUCCESS;
    if (h->state == HIER_BUILT)
        return h;
    int outcome;
    *rc_p = build(c, h, &outcome);
    if (*rc_p != MPI_SUCCESS)
        return NULL;
    if (outcome == FY_HIER_IDS_OK)
        return h;
    h->state = outcome == FY_HIER_IDS_LATER ? HIER_PAUSED : HIER_NO;
    return NULL;
}

static int resume(fy_comm_t *c, int rc)
{
    hier_t *h = c->coll_hier;
    if (h->state == HIER_PAUSED)
        h->state = HIER_YES;
    return rc;
}

void fy_coll_comm_free(fy_comm_t *c)
{
    hier_t *h = c->coll_hier;
    c->coll_hier = NULL;
    if (h) {
        /* At MPI_Finalize (fy_comm_builtin cleared) the core frees every communicator in its
         * table, the hidden ones included: let go of them only. */
        if (fy_comm_builtin[0]) {
            if (h->leaders)
                fy_comm_release(h->leaders);
            if (h->host)
                fy_comm_release(h->host);
        }
        hier_free(h);
    }
    if (c->coll_shm)
        fy_shmc_free(c);
}

static inline int keep(int rc, int rc2)
{
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* A vector of dt in its own layout (fy_op_span), malloc'd: *base_p is what to free. */
static char *typed_alloc(const fy_dtype_t *dt, MPI_Aint count, void **base_p)
{
    size_t origin, span = fy_op_span(dt, count, &origin);
    char *b = malloc(span ? span : 1);
    *base_p = b;
    if (!b) {
        fy_err_set(MPI_ERR_NO_MEM, "collective: out of memory for %zu bytes", span);
        return NULL;
    }
    return b + origin;
}

/* ---- Barrier ------------------------------------------------------------------------------ */

int fy_barrier_hier(fy_comm_t *c)
{
    int rc;
    hier_t *h = ready(c, &rc);
    if (!h)
        return rc != MPI_SUCCESS ? rc : resume(c, fy_barrier(c));
    rc = fy_barrier(h->host);
    if (h->leaders)
        rc = keep(rc, fy_barrier(h->leaders));
    return keep(rc, fy_barrier(h->host));
}

void fy_barrier_hier_sched(fy_sched_t *s)
{
    fy_comm_t *c = fy_sched_comm(s);
    hier_t *h = c->coll_hier;
    fy_sched_on(s, h->host);
    fy_barrier_sched(s);
    fy_sched_round(s);
    if (h->leaders) {
        fy_sched_on(s, h->leaders);
        fy_barrier_sched(s);
        fy_sched_round(s);
    }
    fy_sched_on(s, h->host);
    fy_barrier_sched(s);
    fy_sched_round(s);
    fy_sched_on(s, c);
}

/* ---- Bcast -------------------------------------------------------------------------------- */

int fy_bcast_hier(void *buf, MPI_Aint count, const fy_dtype_t *dt, int root, fy_comm_t *c)
{
    int rc;
    hier_t *h = ready(c, &rc);
    if (!h)
        return rc != MPI_SUCCESS ? rc : resume(c, fy_bcast(buf, count, dt, root, c));
    int rh = h->hidx[root];
    if (h->hidx[c->rank] == rh) { /* the root's host: from the root, then to the other hosts */
        rc = fy_bcast(buf, count, dt, h->hrank[root], h->host);
        if (h->leaders)
            rc = keep(rc, fy_bcast(buf, count, dt, rh, h->leaders));
    } else {
        if (h->leaders)
            rc = fy_bcast(buf, count, dt, rh, h->leaders);
        rc = keep(rc, fy_bcast(buf, count, dt, 0, h->host));
    }
    return rc;
}

void fy_bcast_hier_sched(fy_sched_t *s, void *buf, MPI_Aint count, const fy_dtype_t *dt, int root)
{
    fy_comm_t *c = fy_sched_comm(s);
    hier_t *h = c->coll_hier;
    int rh = h->hidx[root];
    bool root_host = h->hidx[c->rank] == rh;
    for (int step = 0; step < 2; step++) {
        if (step == (root_host ? 0 : 1)) {
            fy_sched_on(s, h->host);
            fy_bcast_sched(s, buf, count, dt, root_host ? h->hrank[root] : 0);
        } else if (h->leaders) {
            fy_sched_on(s, h->leaders);
            fy_bcast_sched(s, buf, count, dt, rh);
        }
        fy_sched_round(s);
    }
    fy_sched_on(s, c);
}

/* ---- Reduce ------------------------------------------------------------------------------- */

int fy_reduce_hier(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                   int root, fy_comm_t *c)
{
    int rc;
    hier_t *h = ready(c, &rc);
    if (!h)
        return rc != MPI_SUCCESS ? rc : resume(c, fy_reduce(sbuf, rbuf, count, dt, op, root, c));
    int rh = h->hidx[root], me = c->rank;
    if (!h->leaders) { /* the host's reduction; the root gets the result from its leader */
        rc = fy_reduce(sbuf, rbuf, count, dt, op, 0, h->host);
        if (me == root)
            rc = keep(rc, fy_coll_recv(rbuf, count, dt, 0, TAG_ROOT, h->host));
        return rc;
    }
    /* A leader: its host's result goes into the root's buffer when it is the root, else into a
     * temporary vector, which the leaders' reduction then uses in place. */
    void *base = NULL;
    char *acc = me == root ? rbuf : typed_alloc(dt, count, &base);
    if (!acc)
        return MPI_ERR_NO_MEM;
    const void *part = sbuf;
    if (h->host->size > 1) {
        rc = fy_reduce(sbuf, acc, count, dt, op, 0, h->host);
        part = acc;
    }
    rc = keep(rc, fy_reduce(part, acc, count, dt, op, rh, h->leaders));
    if (h->hidx[me] == rh && me != root)
        rc = keep(rc, fy_coll_send(acc, count, dt, h->hrank[root], TAG_ROOT, h->host));
    free(base);
    return rc;
}

void fy_reduce_hier_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                          const fy_dtype_t *dt, MPI_Op op, int root)
{
    fy_comm_t *c = fy_sched_comm(s);
    hier_t *h = c->coll_hier;
    int rh = h->hidx[root], me = c->rank;
    fy_sched_on(s, h->host);
    if (!h->leaders) {
        fy_reduce_sched(s, sbuf, rbuf, count, dt, op, 0);
        fy_sched_round(s);
        if (me == root)
            fy_sched_recv(s, rbuf, count, dt, 0);
        fy_sched_round(s);
        fy_sched_on(s, c);
        return;
    }
    char *acc = me == root ? rbuf : fy_sched_scratch_typed(s, dt, count, 1, NULL);
    if (!acc)
        return; /* the schedule reports it */
    const void *part = sbuf;
    if (h->host->size > 1) {
        fy_reduce_sched(s, sbuf, acc, count, dt, op, 0);
        fy_sched_round(s);
        part = acc;
    }
    fy_sched_on(s, h->leaders);
    fy_reduce_sched(s, part, acc, count, dt, op, rh);
    fy_sched_round(s);
    if (h->hidx[me] == rh && me != root) {
        fy_sched_on(s, h->host);
        fy_sched_send(s, acc, count, dt, h->hrank[root]);
        fy_sched_round(s);
    }
    fy_sched_on(s, c);
}

/* ---- Allreduce ---------------------------------------------------------------------------- */

int fy_allreduce_hier(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                      MPI_Op op, fy_comm_t *c)
{
    int rc;
    hier_t *h = ready(c, &rc);
    if (!h)
        return rc != MPI_SUCCESS ? rc : resume(c, fy_allreduce(sbuf, rbuf, count, dt, op, c));
    const void *part = sbuf; /* the leader's input to the leaders' allreduce */
    if (h->host->size > 1) {
        rc = fy_reduce(sbuf, rbuf, count, dt, op, 0, h->host);
        part = rbuf;
    }
    if (h->leaders)
        rc = keep(rc, fy_allreduce(part, rbuf, count, dt, op, h->leaders));
    if (h->host->size > 1)
        rc = keep(rc, fy_bcast(rbuf, count, dt, 0, h->host));
    return rc;
}

void fy_allreduce_hier_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                             const fy_dtype_t *dt, MPI_Op op)
{
    fy_comm_t *c = fy_sched_comm(s);
    hier_t *h = c->coll_hier;
    const void *part = sbuf;
    if (h->host->size > 1) {
        fy_sched_on(s, h->host);
        fy_reduce_sched(s, sbuf, rbuf, count, dt, op, 0);
        fy_sched_round(s);
        part = rbuf;
    }
    if (h->leaders) {
        fy_sched_on(s, h->leaders);
        fy_allreduce_sched(s, part, rbuf, count, dt, op);
        fy_sched_round(s);
    }
    if (h->host->size > 1) {
        fy_sched_on(s, h->host);
        fy_bcast_sched(s, rbuf, count, dt, 0);
        fy_sched_round(s);
    }
    fy_sched_on(s, c);
}

/* ---- Allgather(v) ------------------------------------------------------------------------- */

/* The packed vector: the hosts one after the other in host order, each host's members in rank
 * order; block r of `bytes[r]` at off[r]. Host k's part: hbytes[k] at hoff[k]. This member's
 * host's members, by host rank: mbytes, moff (relative to its host's part). The arrays share
 * one allocation of packed_words() words, given to packed_layout. */
typedef struct {
    MPI_Aint *bytes, *off, *hbytes, *hoff, *mbytes, *moff;
    MPI_Aint total;
} packed_t;

static size_t packed_words(const hier_t *h, const fy_comm_t *c)
{
    return 2 * (size_t)c->size + 3 * (size_t)h->nhosts + 2 * (size_t)h->host->size;
}

static void packed_layout(const hier_t *h, const fy_comm_t *c, MPI_Aint rcount,
                          const MPI_Aint *rcounts, const fy_dtype_t *rdt, MPI_Aint *a, packed_t *L)
{
    int p = c->size, H = h->nhosts, q = h->host->size, mine = h->hidx[c->rank];
    L->bytes = a;
    L->off = a + p;
    L->hbytes = L->off + p;
    L->hoff = L->hbytes + H;
    MPI_Aint *fill = L->hoff + H;
    L->mbytes = fill + H;
    L->moff = L->mbytes + q;
    for (int k = 0; k < H; k++)
        L->hbytes[k] = fill[k] = 0;
    for (int r = 0; r < p; r++) {
        L->bytes[r] = fy_coll_count(rcount, rcounts, r) * rdt->size;
        L->hbytes[h->hidx[r]] += L->bytes[r];
    }
    L->total = 0;
    for (int k = 0; k < H; k++) {
        L->hoff[k] = L->total;
        L->total += L->hbytes[k];
    }
    for (int r = 0; r < p; r++) {
        int k = h->hidx[r];
        L->off[r] = L->hoff[k] + fill[k];
        fill[k] += L->bytes[r];
        if (k == mine) {
            L->mbytes[h->hrank[r]] = L->bytes[r];
            L->moff[h->hrank[r]] = L->off[r] - L->hoff[k];
        }
    }
}

/* The receive buffer is the packed vector itself: a plain Allgather (no counts, no
 * displacements) of a contiguous type whose hosts hold consecutive ranks (then host order is
 * rank order). The same on every member. */
static bool in_rbuf(const hier_t *h, const MPI_Aint *rcounts, const MPI_Aint *displs,
                    const fy_dtype_t *rdt)
{
    return !rcounts && !displs && rdt->contig && h->contiguous;
}

int fy_allgatherv_hier(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                       MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                       const fy_dtype_t *rdt, fy_comm_t *c)
{
    int rc;
    hier_t *h = ready(c, &rc);
    if (!h)
        return rc != MPI_SUCCESS ? rc
                                 : resume(c, fy_allgatherv(sbuf, scount, sdt, rbuf, rcount,
                                                           rcounts, displs, rdt, c));
    packed_t L;
    MPI_Aint *words = malloc(sizeof(MPI_Aint) * packed_words(h, c));
    if (!words)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Allgather: out of memory");
    packed_layout(h, c, rcount, rcounts, rdt, words, &L);
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    int me = c->rank, mine = h->hidx[me];
    bool direct = in_rbuf(h, rcounts, displs, rdt);
    char *P = !L.total ? NULL : direct ? (char *)rbuf + rdt->lb : malloc((size_t)L.total);
    if (L.total && !P) {
        free(words);
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Allgather: out of memory for %zu bytes",
                          (size_t)L.total);
    }
    if (!P)
        goto out; /* every block is empty, on every member */
    if (sbuf == MPI_IN_PLACE) { /* our block is in its place in rbuf */
        sbuf = (char *)rbuf + fy_coll_displ(rcount, displs, me) * rdt->extent;
        scount = fy_coll_count(rcount, rcounts, me);
        sdt = rdt;
    }
    if (h->host->size > 1)
        rc = fy_gatherv(sbuf, scount, sdt, P + L.hoff[mine], 0, L.mbytes, L.moff, byte, 0,
                        h->host);
    else
        rc = fy_coll_copy(sbuf, scount, sdt, P + L.off[me], L.bytes[me], byte);
    if (h->leaders)
        rc = keep(rc, fy_allgatherv(MPI_IN_PLACE, 0, byte, P, 0, L.hbytes, L.hoff, byte,
                                    h->leaders));
    if (h->host->size > 1)
        rc = keep(rc, fy_bcast(P, L.total, byte, 0, h->host));
    for (int r = 0; r < c->size && rc == MPI_SUCCESS && !direct; r++)
        rc = fy_coll_copy(P + L.off[r], L.bytes[r], byte,
                          (char *)rbuf + fy_coll_displ(rcount, displs, r) * rdt->extent,
                          fy_coll_count(rcount, rcounts, r), rdt);
out:
    if (!direct)
        free(P);
    free(words);
    return rc;
}

void fy_allgatherv_hier_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                              const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                              const MPI_Aint *rcounts, const MPI_Aint *displs,
                              const fy_dtype_t *rdt)
{
    fy_comm_t *c = fy_sched_comm(s);
    hier_t *h = c->coll_hier;
    packed_t L;
    MPI_Aint *words = fy_sched_scratch(s, sizeof(MPI_Aint) * packed_words(h, c));
    if (!words)
        return; /* the schedule reports it */
    packed_layout(h, c, rcount, rcounts, rdt, words, &L);
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    int me = c->rank, mine = h->hidx[me];
    bool direct = in_rbuf(h, rcounts, displs, rdt);
    char *P = !L.total ? NULL
              : direct ? (char *)rbuf + rdt->lb
                       : fy_sched_scratch(s, (size_t)L.total);
    if (!P)
        return; /* nothing to move, or out of memory (the schedule reports it) */
    if (sbuf == MPI_IN_PLACE) {
        sbuf = (char *)rbuf + fy_coll_displ(rcount, displs, me) * rdt->extent;
        scount = fy_coll_count(rcount, rcounts, me);
        sdt = rdt;
    }
    if (h->host->size > 1) {
        fy_sched_on(s, h->host);
        fy_gatherv_sched(s, sbuf, scount, sdt, P + L.hoff[mine], 0, L.mbytes, L.moff, byte, 0);
    } else {
        fy_sched_copy(s, sbuf, scount, sdt, P + L.off[me], L.bytes[me], byte);
    }
    fy_sched_round(s);
    if (h->leaders) {
        fy_sched_on(s, h->leaders);
        fy_allgatherv_sched(s, MPI_IN_PLACE, 0, byte, P, 0, L.hbytes, L.hoff, byte);
        fy_sched_round(s);
    }
    if (h->host->size > 1) {
        fy_sched_on(s, h->host);
        fy_bcast_sched(s, P, L.total, byte, 0);
        fy_sched_round(s);
    }
    for (int r = 0; r < c->size && !direct; r++)
        fy_sched_copy(s, P + L.off[r], L.bytes[r], byte,
                      (char *)rbuf + fy_coll_displ(rcount, displs, r) * rdt->extent,
                      fy_coll_count(rcount, rcounts, r), rdt);
    fy_sched_on(s, c);
}
