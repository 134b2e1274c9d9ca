/* The correctness matrix of the intracommunicator collectives, checked against an independent
 * model (coll_model.h: every process computes any process's contribution from a formula, so
 * each result is known exactly without trusting another collective):
 *   - Barrier (each form: a late rank waits until every other rank has announced it is about
 *     to enter, then polls for an "I have left" message, which must not come before it
 *     enters), Bcast, Gather(v), Scatter(v), Allgather(v), Alltoall(v/w), Reduce, Allreduce,
 *     Reduce_scatter(_block), Scan, Exscan;
 *   - in three forms: blocking; nonblocking with other work overlapping (a point-to-point
 *     ring on the same communicator and an Iallreduce on a duplicate, completed in varying
 *     orders); persistent, started three times with new data each time (and overlap at the
 *     second start);
 *   - datatypes MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_UNSIGNED_CHAR, MPI_LONG_LONG, a vector with
 *     holes, a struct {int, double, short} with holes, MPI_2INT and MPI_DOUBLE_INT, 2x2
 *     unsigned matrices; Alltoallw with blocks received in a wider (resized) type or as plain
 *     ints;
 *   - operators SUM, PROD, MAX, MIN, BAND, BOR, BXOR, LAND, LOR, LXOR, MINLOC, MAXLOC, a
 *     commutative user operator (on the vector and the struct) and a non-commutative one (2x2
 *     matrix product mod 2^32, so that a wrong order shows);
 *   - counts 0, 1, 7, 33 and large (about 80 KB per block, past the eager limit where the testlist lowers it); MPI_IN_PLACE
 *     wherever the standard allows it; v-forms with uneven counts, zero counts and
 *     displacements that are not monotone in the rank, with gaps that must stay untouched;
 *   - the root turning from case to case, and every root for a few cases;
 *   - on MPI_COMM_WORLD, a split with reversed rank order, a duplicate and two halves (odd and
 *     even world ranks, reversed) running at the same time.
 * Receive buffers start as sentinel bytes and the whole buffer (with a guard area after it) is
 * compared with the model's image, so holes, gaps and overruns show; send buffers must not
 * change. The first failures are printed with the collective, form, communicator, type,
 * operator, count, root, start, rank, place, expected and received value.
 *
 * The whole matrix runs on world; the reversed split, the duplicate and the halves take
 * subsets. About 10000 cases; 1-4 s at 1-9 processes on 2 cores.
 * FY_TEST_MATRIX=quick shrinks the matrix, FY_TEST_MATRIX=full grows it (every form, every root,
 * the whole matrix on every communicator); FY_TEST_MATRIX_PROFILE=1 prints the time spent per
 * collective and form. */
#include <unistd.h>

#include "coll_model.h"

enum { F_BLOCK, F_NB, F_PERSIST, NFORMS };
static const char *const form_name[NFORMS] = {"blocking", "nonblocking", "persistent"};

enum {
    C_BCAST,
    C_GATHER,
    C_GATHERV,
    C_SCATTER,
    C_SCATTERV,
    C_ALLGATHER,
    C_ALLGATHERV,
    C_ALLTOALL,
    C_ALLTOALLV,
    C_ALLTOALLW,
    C_REDUCE,
    C_ALLREDUCE,
    C_REDUCE_SCATTER,
    C_REDUCE_SCATTER_BLOCK,
    C_SCAN,
    C_EXSCAN,
    NCOLLS
};
static const char *const coll_name[NCOLLS] = {"Bcast",          "Gather",
                                              "Gatherv",        "Scatter",
                                              "Scatterv",       "Allgather",
                                              "Allgatherv",     "Alltoall",
                                              "Alltoallv",      "Alltoallw",
                                              "Reduce",         "Allreduce",
                                              "Reduce_scatter", "Reduce_scatter_block",
                                              "Scan",           "Exscan"};

static int rooted(int c)
{
    return c <= C_SCATTERV || c == C_REDUCE;
}

static int reduction(int c)
{
    return c >= C_REDUCE;
}

typedef struct {
    MPI_Comm c, side; /* side: a duplicate, for the collective that overlaps */
    const char *name;
    int rank, size;
    unsigned rot, frot, irot; /* turn the root, form and type from case to case */
} comm_t;

typedef struct {
    comm_t *cm;
    int coll, form, op, n, root, inplace, starts;
    const cm_type_t *t;
    unsigned seed; /* of the first start; start s uses seed + s */
} case_t;

enum { GUARD = 40, RING = 40 };
static unsigned g_case;
static int g_level = 1;                  /* 0 quick, 1 default, 2 full */
static double g_time[NCOLLS][NFORMS][2]; /* FY_TEST_MATRIX_PROFILE: seconds, small/large */

static void describe(const case_t *k, int s, char *out, size_t n)
{
    char root[16] = "-";
    if (rooted(k->coll))
        snprintf(root, sizeof root, "%d", k->root);
    snprintf(out, n,
             "%s (%s) on %s [size %d, rank %d = world %d]: type %s, op %s, count %d, root %s, "
             "in place %d, start %d of %d",
             coll_name[k->coll], form_name[k->form], k->cm->name, k->cm->size, k->cm->rank, mt_rank,
             k->t->name, cm_opname[k->op], k->n, root, k->inplace, s + 1, k->starts);
}

static void check(const case_t *k, int s, const char *bufname, const cm_type_t *t, const char *exp,
                  const char *got, size_t bytes, const cm_blocks_t *b)
{
    if (memcmp(exp, got, bytes) == 0)
        return;
    char what[400];
    describe(k, s, what, sizeof what);
    cm_compare(what, bufname, t, exp, got, bytes, b);
}

static void fail(const case_t *k, int s, const char *msg)
{
    char what[400];
    describe(k, s, what, sizeof what);
    mt_errs++;
    if (cm_printed++ < 25) {
        printf("[rank %d] FAIL %s: %s\n", mt_rank, what, msg);
        fflush(stdout);
    }
}

/* ---- the work that overlaps a nonblocking or persistent collective ---- */

typedef struct {
    MPI_Request r[3];
    int nr, out[RING], in[RING], sin[8], sout[8];
    unsigned seed;
} overlap_t;

static void overlap_start(const case_t *k, overlap_t *o, unsigned seed)
{
    comm_t *cm = k->cm;
    int p = cm->size, me = cm->rank;
    o->nr = 0;
    o->seed = seed;
    if (p > 1) {
        for (int i = 0; i < RING; i++) {
            o->out[i] = (int)(seed * 31u + (unsigned)me * 1000u + (unsigned)i);
            o->in[i] = -1;
        }
        MPI_OK(MPI_Irecv(o->in, RING, MPI_INT, (me + p - 1) % p, 77, cm->c, &o->r[o->nr++]));
        MPI_OK(MPI_Isend(o->out, RING, MPI_INT, (me + 1) % p, 77, cm->c, &o->r[o->nr++]));
    }
    for (int i = 0; i < 8; i++) {
        o->sin[i] = me + i + (int)(seed % 7);
        o->sout[i] = -1;
    }
    MPI_OK(MPI_Iallreduce(o->sin, o->sout, 8, MPI_INT, MPI_SUM, cm->side, &o->r[o->nr++]));
}

static void overlap_check(const case_t *k, int s, overlap_t *o)
{
    int p = k->cm->size, left = (k->cm->rank + p - 1) % p, bad = 0;
    for (int i = 0; i < o->nr; i++)
        bad += o->r[i] != MPI_REQUEST_NULL;
    if (p > 1)
        for (int i = 0; i < RING; i++)
            bad += o->in[i] != (int)(o->seed * 31u + (unsigned)left * 1000u + (unsigned)i);
    for (int i = 0; i < 8; i++)
        bad += o->sout[i] != p * (p - 1) / 2 + p * (i + (int)(o->seed % 7));
    if (bad)
        fail(k, s,
             "the point-to-point ring or the Iallreduce on the duplicate that overlapped "
             "the collective went wrong");
}

/* Completes a started collective, with overlapping work for every nonblocking one and at the
 * second start of a persistent one; the order of completion varies with the seed. */
static void complete(const case_t *k, int s, MPI_Request *req)
{
    if (k->form == F_NB || s == 1) {
        overlap_t o;
        unsigned seed = k->seed + (unsigned)s;
        overlap_start(k, &o, seed);
        int flag = 0;
        MPI_OK(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
        switch (seed / 8 % 3) {
        case 0: /* the collective first */
            MPI_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Waitall(o.nr, o.r, MPI_STATUSES_IGNORE));
            break;
        case 1: /* the overlapping work first */
            MPI_OK(MPI_Waitall(o.nr, o.r, MPI_STATUSES_IGNORE));
            MPI_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
            break;
        default: { /* all together */
            MPI_Request all[4];
            for (int i = 0; i < o.nr; i++)
                all[i] = o.r[i];
            all[o.nr] = *req;
            MPI_OK(MPI_Waitall(o.nr + 1, all, MPI_STATUSES_IGNORE));
            for (int i = 0; i < o.nr; i++)
                o.r[i] = all[i];
            *req = all[o.nr];
        }
        }
        overlap_check(k, s, &o);
    } else {
        MPI_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
    }
    if (k->form == F_NB && *req != MPI_REQUEST_NULL)
        fail(k, s, "the nonblocking collective's request is not MPI_REQUEST_NULL after its wait");
    if (k->form == F_PERSIST && *req == MPI_REQUEST_NULL)
        fail(k, s, "the persistent collective's request was freed by its wait");
}

/* Runs the case's form: the blocking call, the nonblocking one, or the persistent init (at
 * the first start) and MPI_Start; then completes it. */
#define GO(k, s, req, blocking, nonblocking, init)                                                 \
    do {                                                                                           \
        if ((k)->form == F_BLOCK) {                                                                \
            MPI_OK(blocking);                                                                      \
        } else {                                                                                   \
            if ((k)->form == F_NB) {                                                               \
                MPI_OK(nonblocking);                                                               \
            } else {                                                                               \
                if ((s) == 0)                                                                      \
                    MPI_OK(init);                                                                  \
                MPI_OK(MPI_Start(req));                                                            \
            }                                                                                      \
            complete((k), (s), (req));                                                             \
        }                                                                                          \
    } while (0)

static void release(const case_t *k, MPI_Request *req)
{
    if (k->form != F_PERSIST || *req == MPI_REQUEST_NULL)
        return;
    /* Known deviation, MPICH 4.0: freeing a persistent Allgather on a derived datatype fails an
     * assertion on the type's reference count; its requests are left allocated. */
    if (mt_is_mpich40())
        return;
    MPI_OK(MPI_Request_free(req));
}

/* ---- layouts ---- */

/* v-form counts: uneven, zero for every fourth rank from rank 2 on (and when n is 0). */
static int vcnt(int n, int r)
{
    return n == 0 || r % 4 == 2 ? 0 : n + (r * 5) % 3;
}

/* Alltoallv/w count from rank i to rank j; symmetric for MPI_IN_PLACE. */
static int a2a_cnt(int n, int i, int j, int sym)
{
    if (n == 0)
        return 0;
    if (sym)
        return (i + j) % 5 == 3 ? 0 : n + (i + j) % 3;
    return (i + 2 * j) % 5 == 3 ? 0 : n + (2 * i + j) % 3;
}

/* The k-th block in memory: style 0 places the odd ranks from the top down, then the even ranks
 * upwards; style 1 from the last rank down. Neither is monotone in the rank. */
static int order(int p, int style, int k)
{
    if (style == 1)
        return p - 1 - k;
    int nodd = p / 2;
    return k < nodd ? 2 * (nodd - 1 - k) + 1 : 2 * (k - nodd);
}

/* Displacements (in elements) for blocks of cnt[] elements, one element of gap after each;
 * returns the total in elements. */
static long place(int p, const int *cnt, int style, int *dsp)
{
    long at = 0;
    for (int k = 0; k < p; k++) {
        int r = order(p, style, k);
        dsp[r] = (int)at;
        at += cnt[r] + 1;
    }
    return at;
}

typedef struct {
    cm_blocks_t b;
    MPI_Aint *off, *len;
} blocks_t;

static void blocks_init(blocks_t *bk, int p, const char *who)
{
    bk->off = mt_malloc(sizeof(MPI_Aint) * (size_t)p);
    bk->len = mt_malloc(sizeof(MPI_Aint) * (size_t)p);
    bk->b = (cm_blocks_t){p, bk->off, bk->len, who};
}

static void blocks_elems(blocks_t *bk, const int *cnt, const int *dsp, MPI_Aint ext)
{
    for (int r = 0; r < bk->b.n; r++) {
        bk->off[r] = dsp[r] * ext;
        bk->len[r] = cnt[r] * ext;
    }
}

static void blocks_free(blocks_t *bk)
{
    free(bk->off);
    free(bk->len);
}

/* Fills a send buffer: sentinel bytes (the holes), then rank src's block blk. */
static void fill_send(const case_t *k, char *b, size_t bytes, unsigned seed, int src, int blk,
                      long count)
{
    cm_sentinel(b, bytes, seed ^ 0x5a5a);
    cm_put(k->t, k->op, seed, src, blk, 0, count, b, NULL);
}

/* ---- the collectives ---- */

static void do_bcast(const case_t *k)
{
    const cm_type_t *t = k->t;
    comm_t *cm = k->cm;
    size_t bytes = (size_t)k->n * (size_t)t->ext + GUARD;
    char *buf = mt_malloc(bytes), *exp = mt_malloc(bytes);
    MPI_Request req = MPI_REQUEST_NULL;
    for (int s = 0; s < k->starts; s++) {
        unsigned seed = k->seed + (unsigned)s;
        cm_sentinel(buf, bytes, seed);
        if (cm->rank == k->root)
            cm_put(t, OP_NONE, seed, k->root, 0, 0, k->n, buf, NULL);
        GO(k, s, &req, MPI_Bcast(buf, k->n, t->type, k->root, cm->c),
           MPI_Ibcast(buf, k->n, t->type, k->root, cm->c, &req),
           MPI_Bcast_init(buf, k->n, t->type, k->root, cm->c, MPI_INFO_NULL, &req));
        cm_sentinel(exp, bytes, seed);
        cm_put(t, OP_NONE, seed, k->root, 0, 0, k->n, exp, buf);
        check(k, s, "buffer", t, exp, buf, bytes, NULL);
    }
    release(k, &req);
    free(buf);
    free(exp);
}

/* Counts and displacements (elements) of the gathers and scatters; returns the total. */
static long gather_layout(const case_t *k, int v, int *cnt, int *dsp)
{
    int p = k->cm->size;
    for (int r = 0; r < p; r++) {
        cnt[r] = v ? vcnt(k->n, r) : k->n;
        dsp[r] = r * k->n;
    }
    return v ? place(p, cnt, 0, dsp) : (long)p * k->n;
}

/* Gather(v) and Allgather(v). */
static void do_gather(const case_t *k, int v, int all)
{
    const cm_type_t *t = k->t;
    comm_t *cm = k->cm;
    int p = cm->size, me = cm->rank, root = k->root;
    int *cnt = mt_malloc(sizeof(int) * (size_t)p), *dsp = mt_malloc(sizeof(int) * (size_t)p);
    long total = gather_layout(k, v, cnt, dsp);
    int mine = cnt[me], recv = all || me == root, ip = k->inplace && recv;
    size_t sbytes = (size_t)mine * (size_t)t->ext + GUARD,
           rbytes = (size_t)total * (size_t)t->ext + GUARD;
    char *sb = mt_malloc(sbytes), *sref = mt_malloc(sbytes);
    char *rb = recv ? mt_malloc(rbytes) : NULL, *exp = recv ? mt_malloc(rbytes) : NULL;
    blocks_t bk;
    blocks_init(&bk, p, "from rank");
    blocks_elems(&bk, cnt, dsp, t->ext);
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm c = cm->c;
    for (int s = 0; s < k->starts; s++) {
        unsigned seed = k->seed + (unsigned)s;
        fill_send(k, sb, sbytes, seed, me, 0, mine);
        memcpy(sref, sb, sbytes);
        if (recv) {
            cm_sentinel(rb, rbytes, seed);
            if (ip) /* this process's block is already in place */
                cm_put(t, OP_NONE, seed, me, 0, 0, mine, rb + dsp[me] * t->ext, NULL);
        }
        const void *sa = ip ? MPI_IN_PLACE : sb;
        /* In place, the send count and type of the all-forms are ignored. */
        int sn = ip && all ? 0 : mine;
        MPI_Datatype st = ip && all ? MPI_DATATYPE_NULL : t->type;
        if (all && v)
            GO(k, s, &req, MPI_Allgatherv(sa, sn, st, rb, cnt, dsp, t->type, c),
               MPI_Iallgatherv(sa, sn, st, rb, cnt, dsp, t->type, c, &req),
               MPI_Allgatherv_init(sa, sn, st, rb, cnt, dsp, t->type, c, MPI_INFO_NULL, &req));
        else if (all)
            GO(k, s, &req, MPI_Allgather(sa, sn, st, rb, k->n, t->type, c),
               MPI_Iallgather(sa, sn, st, rb, k->n, t->type, c, &req),
               MPI_Allgather_init(sa, sn, st, rb, k->n, t->type, c, MPI_INFO_NULL, &req));
        else if (v)
            GO(k, s, &req, MPI_Gatherv(sa, mine, t->type, rb, cnt, dsp, t->type, root, c),
               MPI_Igatherv(sa, mine, t->type, rb, cnt, dsp, t->type, root, c, &req),
               MPI_Gatherv_init(sa, mine, t->type, rb, cnt, dsp, t->type, root, c, MPI_INFO_NULL,
                                &req));
        else
            GO(k, s, &req, MPI_Gather(sa, k->n, t->type, rb, k->n, t->type, root, c),
               MPI_Igather(sa, k->n, t->type, rb, k->n, t->type, root, c, &req),
               MPI_Gather_init(sa, k->n, t->type, rb, k->n, t->type, root, c, MPI_INFO_NULL, &req));
        check(k, s, "send buffer (must not change)", t, sref, sb, sbytes, NULL);
        if (recv) {
            cm_sentinel(exp, rbytes, seed);
            for (int r = 0; r < p; r++)
                cm_put(t, OP_NONE, seed, r, 0, 0, cnt[r], exp + dsp[r] * t->ext,
                       rb + dsp[r] * t->ext);
            check(k, s, "receive buffer", t, exp, rb, rbytes, &bk.b);
        }
    }
    release(k, &req);
    blocks_free(&bk);
    free(cnt);
    free(dsp);
    free(sb);
    free(sref);
    free(rb);
    free(exp);
}

static void do_scatter(const case_t *k, int v)
{
    const cm_type_t *t = k->t;
    comm_t *cm = k->cm;
    int p = cm->size, me = cm->rank, root = k->root;
    int *cnt = mt_malloc(sizeof(int) * (size_t)p), *dsp = mt_malloc(sizeof(int) * (size_t)p);
    long total = gather_layout(k, v, cnt, dsp);
    int mine = cnt[me], ip = k->inplace && me == root;
    size_t sbytes = (size_t)total * (size_t)t->ext + GUARD,
           rbytes = (size_t)mine * (size_t)t->ext + GUARD;
    char *sb = me == root ? mt_malloc(sbytes) : NULL, *sref = me == root ? mt_malloc(sbytes) : NULL;
    char *rb = mt_malloc(rbytes), *exp = mt_malloc(rbytes);
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm c = cm->c;
    for (int s = 0; s < k->starts; s++) {
        unsigned seed = k->seed + (unsigned)s;
        if (sb) {
            cm_sentinel(sb, sbytes, seed ^ 0x5a5a);
            for (int r = 0; r < p; r++)
                cm_put(t, OP_NONE, seed, root, r, 0, cnt[r], sb + dsp[r] * t->ext, NULL);
            memcpy(sref, sb, sbytes);
        }
        cm_sentinel(rb, rbytes, seed);
        void *ra = ip ? MPI_IN_PLACE : rb;
        if (v)
            GO(k, s, &req, MPI_Scatterv(sb, cnt, dsp, t->type, ra, mine, t->type, root, c),
               MPI_Iscatterv(sb, cnt, dsp, t->type, ra, mine, t->type, root, c, &req),
               MPI_Scatterv_init(sb, cnt, dsp, t->type, ra, mine, t->type, root, c, MPI_INFO_NULL,
                                 &req));
        else
            GO(k, s, &req, MPI_Scatter(sb, k->n, t->type, ra, k->n, t->type, root, c),
               MPI_Iscatter(sb, k->n, t->type, ra, k->n, t->type, root, c, &req),
               MPI_Scatter_init(sb, k->n, t->type, ra, k->n, t->type, root, c, MPI_INFO_NULL,
                                &req));
        if (sb)
            check(k, s, "root's send buffer (must not change)", t, sref, sb, sbytes, NULL);
        cm_sentinel(exp, rbytes, seed);
        if (!ip)
            cm_put(t, OP_NONE, seed, root, me, 0, mine, exp, rb);
        check(k, s, "receive buffer", t, exp, rb, rbytes, NULL);
    }
    release(k, &req);
    free(cnt);
    free(dsp);
    free(sb);
    free(sref);
    free(rb);
    free(exp);
}

/* Alltoall and Alltoallv. */
static void do_alltoall(const case_t *k, int v)
{
    const cm_type_t *t = k->t;
    comm_t *cm = k->cm;
    int p = cm->size, me = cm->rank, ip = k->inplace;
    int *sc = mt_malloc(sizeof(int) * (size_t)p), *sd = mt_malloc(sizeof(int) * (size_t)p),
        *rc = mt_malloc(sizeof(int) * (size_t)p), *rd = mt_malloc(sizeof(int) * (size_t)p);
    long stot = (long)p * k->n, rtot = stot;
    for (int j = 0; j < p; j++) {
        sc[j] = v ? a2a_cnt(k->n, me, j, ip) : k->n;
        rc[j] = v ? a2a_cnt(k->n, j, me, ip) : k->n;
        sd[j] = rd[j] = j * k->n;
    }
    if (v) {
        stot = place(p, sc, 1, sd);
        rtot = place(p, rc, 0, rd);
    }
    size_t sbytes = (size_t)stot * (size_t)t->ext + GUARD,
           rbytes = (size_t)rtot * (size_t)t->ext + GUARD;
    char *sb = mt_malloc(sbytes), *sref = mt_malloc(sbytes), *rb = mt_malloc(rbytes),
         *exp = mt_malloc(rbytes);
    blocks_t bk;
    blocks_init(&bk, p, "from rank");
    blocks_elems(&bk, rc, rd, t->ext);
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm c = cm->c;
    for (int s = 0; s < k->starts; s++) {
        unsigned seed = k->seed + (unsigned)s;
        cm_sentinel(sb, sbytes, seed ^ 0x5a5a);
        cm_sentinel(rb, rbytes, seed);
        for (int j = 0; j < p; j++) {
            cm_put(t, OP_NONE, seed, me, j, 0, sc[j], sb + sd[j] * t->ext, NULL);
            if (ip) /* the blocks to send are in the receive buffer */
                cm_put(t, OP_NONE, seed, me, j, 0, rc[j], rb + rd[j] * t->ext, NULL);
        }
        memcpy(sref, sb, sbytes);
        const void *sa = ip ? MPI_IN_PLACE : sb;
        int sn = ip ? 0 : k->n;
        MPI_Datatype st = ip ? MPI_DATATYPE_NULL : t->type;
        if (v)
            GO(k, s, &req, MPI_Alltoallv(sa, sc, sd, t->type, rb, rc, rd, t->type, c),
               MPI_Ialltoallv(sa, sc, sd, t->type, rb, rc, rd, t->type, c, &req),
               MPI_Alltoallv_init(sa, sc, sd, t->type, rb, rc, rd, t->type, c, MPI_INFO_NULL,
                                  &req));
        else
            GO(k, s, &req, MPI_Alltoall(sa, sn, st, rb, k->n, t->type, c),
               MPI_Ialltoall(sa, sn, st, rb, k->n, t->type, c, &req),
               MPI_Alltoall_init(sa, sn, st, rb, k->n, t->type, c, MPI_INFO_NULL, &req));
        if (!ip)
            check(k, s, "send buffer (must not change)", t, sref, sb, sbytes, NULL);
        cm_sentinel(exp, rbytes, seed);
        for (int j = 0; j < p; j++)
            cm_put(t, OP_NONE, seed, j, me, 0, rc[j], exp + rd[j] * t->ext, rb + rd[j] * t->ext);
        check(k, s, "receive buffer", t, exp, rb, rbytes, &bk.b);
    }
    release(k, &req);
    blocks_free(&bk);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sb);
    free(sref);
    free(rb);
    free(exp);
}

/* Alltoallw: the block from rank i to rank j travels in the case's type, or arrives in the
 * same type resized wider (more holes), or leaves in the wider one; a vector arrives as 3 ints
 * per element instead of the wider type. In place, a block travels in the same type both
 * ways: plain or wide by the parity of i + j. Byte displacements not monotone in the rank,
 * 8 bytes of gap after each block. */
enum { W_PLAIN, W_WIDE, W_INTS };

static void w_kinds(const case_t *k, int i, int j, int *skind, int *rkind)
{
    if (k->inplace) {
        *skind = *rkind = (i + j) % 2 ? W_WIDE : W_PLAIN;
        return;
    }
    int v = (2 * i + j) % 3;
    *skind = v == 2 ? W_WIDE : W_PLAIN;
    *rkind = v == 1 ? (k->t == &cm_types[T_VEC] ? W_INTS : W_WIDE) : W_PLAIN;
}

static const cm_type_t *w_type(const case_t *k, int kind)
{
    return kind == W_PLAIN ? k->t : kind == W_WIDE ? &cm_wide[k->t - cm_types] : &cm_types[T_INT];
}

static void do_alltoallw(const case_t *k)
{
    comm_t *cm = k->cm;
    int p = cm->size, me = cm->rank, ip = k->inplace;
    int *sc = mt_malloc(sizeof(int) * (size_t)p), *sd = mt_malloc(sizeof(int) * (size_t)p),
        *rc = mt_malloc(sizeof(int) * (size_t)p), *rd = mt_malloc(sizeof(int) * (size_t)p);
    MPI_Datatype *stt = mt_malloc(sizeof(MPI_Datatype) * (size_t)p),
                 *rtt = mt_malloc(sizeof(MPI_Datatype) * (size_t)p);
    const cm_type_t **sty = mt_malloc(sizeof(cm_type_t *) * (size_t)p),
                    **rty = mt_malloc(sizeof(cm_type_t *) * (size_t)p);
    blocks_t bk;
    blocks_init(&bk, p, "from rank");
    for (int j = 0; j < p; j++) {
        int sk, rk, dummy;
        w_kinds(k, me, j, &sk, &dummy);
        w_kinds(k, j, me, &dummy, &rk);
        sty[j] = w_type(k, sk);
        rty[j] = w_type(k, rk);
        stt[j] = sty[j]->type;
        rtt[j] = rty[j]->type;
        sc[j] = a2a_cnt(k->n, me, j, ip);
        rc[j] = a2a_cnt(k->n, j, me, ip) * (rk == W_INTS ? 3 : 1);
    }
    size_t sbytes = 0, rbytes = 0;
    for (int q = 0; q < p; q++) {
        int j = order(p, 1, q);
        sd[j] = (int)sbytes;
        sbytes += (size_t)sc[j] * (size_t)sty[j]->ext + 8;
        j = order(p, 0, q);
        rd[j] = (int)rbytes;
        bk.off[j] = rd[j];
        bk.len[j] = rc[j] * rty[j]->ext;
        rbytes += (size_t)rc[j] * (size_t)rty[j]->ext + 8;
    }
    sbytes += GUARD;
    rbytes += GUARD;
    char *sb = mt_malloc(sbytes), *sref = mt_malloc(sbytes), *rb = mt_malloc(rbytes),
         *exp = mt_malloc(rbytes);
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm c = cm->c;
    for (int s = 0; s < k->starts; s++) {
        unsigned seed = k->seed + (unsigned)s;
        cm_sentinel(sb, sbytes, seed ^ 0x5a5a);
        cm_sentinel(rb, rbytes, seed);
        for (int j = 0; j < p; j++) {
            cm_put(sty[j], OP_NONE, seed, me, j, 0, sc[j], sb + sd[j], NULL);
            if (ip)
                cm_put(rty[j], OP_NONE, seed, me, j, 0, rc[j], rb + rd[j], NULL);
        }
        memcpy(sref, sb, sbytes);
        const void *sa = ip ? MPI_IN_PLACE : sb;
        GO(k, s, &req, MPI_Alltoallw(sa, sc, sd, stt, rb, rc, rd, rtt, c),
           MPI_Ialltoallw(sa, sc, sd, stt, rb, rc, rd, rtt, c, &req),
           MPI_Alltoallw_init(sa, sc, sd, stt, rb, rc, rd, rtt, c, MPI_INFO_NULL, &req));
        if (!ip)
            check(k, s, "send buffer (must not change)", k->t, sref, sb, sbytes, NULL);
        cm_sentinel(exp, rbytes, seed);
        for (int j = 0; j < p; j++)
            cm_put(rty[j], OP_NONE, seed, j, me, 0, rc[j], exp + rd[j], rb + rd[j]);
        check(k, s, "receive buffer", k->t, exp, rb, rbytes, &bk.b);
    }
    release(k, &req);
    blocks_free(&bk);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(stt);
    free(rtt);
    free(sty);
    free(rty);
    free(sb);
    free(sref);
    free(rb);
    free(exp);
}

/* Reduce and Allreduce. */
static void do_reduce(const case_t *k, int all)
{
    const cm_type_t *t = k->t;
    comm_t *cm = k->cm;
    int p = cm->size, me = cm->rank, root = k->root, recv = all || me == root;
    int ip = k->inplace && recv;
    MPI_Op op = cm_mpi_op(k->op, t);
    size_t bytes = (size_t)k->n * (size_t)t->ext + GUARD;
    char *sb = mt_malloc(bytes), *sref = mt_malloc(bytes);
    char *rb = recv ? mt_malloc(bytes) : NULL, *exp = recv ? mt_malloc(bytes) : NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm c = cm->c;
    for (int s = 0; s < k->starts; s++) {
        unsigned seed = k->seed + (unsigned)s;
        fill_send(k, sb, bytes, seed, me, 0, k->n);
        memcpy(sref, sb, bytes);
        if (recv) {
            cm_sentinel(rb, bytes, seed);
            if (ip)
                cm_put(t, k->op, seed, me, 0, 0, k->n, rb, NULL);
        }
        const void *sa = ip ? MPI_IN_PLACE : sb;
        if (all)
            GO(k, s, &req, MPI_Allreduce(sa, rb, k->n, t->type, op, c),
               MPI_Iallreduce(sa, rb, k->n, t->type, op, c, &req),
               MPI_Allreduce_init(sa, rb, k->n, t->type, op, c, MPI_INFO_NULL, &req));
        else
            GO(k, s, &req, MPI_Reduce(sa, rb, k->n, t->type, op, root, c),
               MPI_Ireduce(sa, rb, k->n, t->type, op, root, c, &req),
               MPI_Reduce_init(sa, rb, k->n, t->type, op, root, c, MPI_INFO_NULL, &req));
        check(k, s, "send buffer (must not change)", t, sref, sb, bytes, NULL);
        if (recv) {
            cm_sentinel(exp, bytes, seed);
            cm_fold(t, k->op, seed, 0, p - 1, 0, k->n, exp, rb);
            check(k, s, "receive buffer", t, exp, rb, bytes, NULL);
        }
    }
    release(k, &req);
    free(sb);
    free(sref);
    free(rb);
    free(exp);
}

/* Reduce_scatter (uneven counts, zeros among them) and Reduce_scatter_block. */
static void do_reduce_scatter(const case_t *k, int block)
{
    const cm_type_t *t = k->t;
    comm_t *cm = k->cm;
    int p = cm->size, me = cm->rank, ip = k->inplace;
    MPI_Op op = cm_mpi_op(k->op, t);
    int *cnt = mt_malloc(sizeof(int) * (size_t)p);
    long total = 0, first = 0;
    for (int r = 0; r < p; r++) {
        cnt[r] = block ? k->n : vcnt(k->n, r);
        if (r < me)
            first += cnt[r];
        total += cnt[r];
    }
    size_t sbytes = (size_t)total * (size_t)t->ext + GUARD,
           rbytes = (size_t)(ip ? total : cnt[me]) * (size_t)t->ext + GUARD,
           own = (size_t)cnt[me] * (size_t)t->ext;
    char *sb = mt_malloc(sbytes), *sref = mt_malloc(sbytes), *rb = mt_malloc(rbytes),
         *exp = mt_malloc(rbytes);
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm c = cm->c;
    for (int s = 0; s < k->starts; s++) {
        unsigned seed = k->seed + (unsigned)s;
        fill_send(k, sb, sbytes, seed, me, 0, total);
        memcpy(sref, sb, sbytes);
        cm_sentinel(rb, rbytes, seed);
        if (ip)
            cm_put(t, k->op, seed, me, 0, 0, total, rb, NULL);
        const void *sa = ip ? MPI_IN_PLACE : sb;
        if (block)
            GO(k, s, &req, MPI_Reduce_scatter_block(sa, rb, k->n, t->type, op, c),
               MPI_Ireduce_scatter_block(sa, rb, k->n, t->type, op, c, &req),
               MPI_Reduce_scatter_block_init(sa, rb, k->n, t->type, op, c, MPI_INFO_NULL, &req));
        else
            GO(k, s, &req, MPI_Reduce_scatter(sa, rb, cnt, t->type, op, c),
               MPI_Ireduce_scatter(sa, rb, cnt, t->type, op, c, &req),
               MPI_Reduce_scatter_init(sa, rb, cnt, t->type, op, c, MPI_INFO_NULL, &req));
        if (!ip)
            check(k, s, "send buffer (must not change)", t, sref, sb, sbytes, NULL);
        cm_sentinel(exp, rbytes, seed);
        cm_fold(t, k->op, seed, 0, p - 1, first, cnt[me], exp, rb);
        if (ip) /* beyond this process's block the buffer's contents are undefined */
            memcpy(exp + own, rb + own, rbytes - GUARD - own);
        check(k, s, "receive buffer", t, exp, rb, rbytes, NULL);
    }
    release(k, &req);
    free(cnt);
    free(sb);
    free(sref);
    free(rb);
    free(exp);
}

/* Scan and Exscan (rank 0's Exscan result is undefined: only its guard is checked). */
static void do_scan(const case_t *k, int excl)
{
    const cm_type_t *t = k->t;
    comm_t *cm = k->cm;
    int me = cm->rank, ip = k->inplace;
    MPI_Op op = cm_mpi_op(k->op, t);
    size_t bytes = (size_t)k->n * (size_t)t->ext + GUARD, data = bytes - GUARD;
    char *sb = mt_malloc(bytes), *sref = mt_malloc(bytes), *rb = mt_malloc(bytes),
         *exp = mt_malloc(bytes);
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm c = cm->c;
    for (int s = 0; s < k->starts; s++) {
        unsigned seed = k->seed + (unsigned)s;
        fill_send(k, sb, bytes, seed, me, 0, k->n);
        memcpy(sref, sb, bytes);
        cm_sentinel(rb, bytes, seed);
        if (ip)
            cm_put(t, k->op, seed, me, 0, 0, k->n, rb, NULL);
        const void *sa = ip ? MPI_IN_PLACE : sb;
        if (excl)
            GO(k, s, &req, MPI_Exscan(sa, rb, k->n, t->type, op, c),
               MPI_Iexscan(sa, rb, k->n, t->type, op, c, &req),
               MPI_Exscan_init(sa, rb, k->n, t->type, op, c, MPI_INFO_NULL, &req));
        else
            GO(k, s, &req, MPI_Scan(sa, rb, k->n, t->type, op, c),
               MPI_Iscan(sa, rb, k->n, t->type, op, c, &req),
               MPI_Scan_init(sa, rb, k->n, t->type, op, c, MPI_INFO_NULL, &req));
        if (!ip)
            check(k, s, "send buffer (must not change)", t, sref, sb, bytes, NULL);
        cm_sentinel(exp, bytes, seed);
        if (excl && me == 0)
            memcpy(exp, rb, data);
        else
            cm_fold(t, k->op, seed, 0, excl ? me - 1 : me, 0, k->n, exp, rb);
        check(k, s, "receive buffer", t, exp, rb, bytes, NULL);
    }
    release(k, &req);
    free(sb);
    free(sref);
    free(rb);
    free(exp);
}

/* ---- Barrier ---- */

enum { TAG_ENTER = 501, TAG_LEFT = 502 };

/* In each form, and at each start of the persistent one, a different rank L enters late:
 * every other rank tells L it is about to enter, enters, and tells L when it has left. L
 * receives every "entering", then polls a while for a "left" message (which would prove that
 * some rank left before L entered), enters, and finally collects the "left" messages. A
 * barrier that does not wait shows with high likelihood; a correct one never fails this. */
static void barrier_check(comm_t *cm)
{
    int p = cm->size, me = cm->rank, tok = 0;
    for (int form = 0; form < NFORMS; form++) {
        case_t k = {.cm = cm, .coll = -1, .form = form, .t = &cm_types[T_INT]};
        MPI_Request req = MPI_REQUEST_NULL;
        int starts = form == F_PERSIST ? 3 : 1;
        for (int s = 0; s < starts; s++) {
            int late = (int)((cm->rot++ * 7u + (unsigned)s) % (unsigned)p);
            if (me != late)
                MPI_OK(MPI_Send(&tok, 1, MPI_INT, late, TAG_ENTER, cm->side));
            else {
                for (int i = 0; i < p - 1; i++)
                    MPI_OK(MPI_Recv(&tok, 1, MPI_INT, MPI_ANY_SOURCE, TAG_ENTER, cm->side,
                                    MPI_STATUS_IGNORE));
                for (int i = 0; i < 20; i++) {
                    int flag = 0;
                    MPI_Status st;
                    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, TAG_LEFT, cm->side, &flag, &st));
                    if (flag) {
                        mt_errs++;
                        if (cm_printed++ < 25)
                            printf("[rank %d] FAIL Barrier (%s) on %s [size %d, rank %d]: rank "
                                   "%d left the barrier before this rank entered it\n",
                                   mt_rank, form_name[form], cm->name, p, me, st.MPI_SOURCE);
                        break;
                    }
                    usleep(300);
                }
            }
            if (form == F_BLOCK) {
                MPI_OK(MPI_Barrier(cm->c));
            } else {
                if (form == F_NB)
                    MPI_OK(MPI_Ibarrier(cm->c, &req));
                else if (s == 0)
                    MPI_OK(MPI_Barrier_init(cm->c, MPI_INFO_NULL, &req));
                if (form == F_PERSIST)
                    MPI_OK(MPI_Start(&req));
                int flag = 0;
                for (int i = 0; i < 5 && !flag; i++)
                    MPI_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
                MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            }
            if (me != late)
                MPI_OK(MPI_Send(&tok, 1, MPI_INT, late, TAG_LEFT, cm->side));
            else
                for (int i = 0; i < p - 1; i++)
                    MPI_OK(MPI_Recv(&tok, 1, MPI_INT, MPI_ANY_SOURCE, TAG_LEFT, cm->side,
                                    MPI_STATUS_IGNORE));
        }
        k.starts = starts;
        release(&k, &req);
    }
}

/* ---- the matrix ---- */

typedef struct {
    int ti, op;
} combo_t;

/* Every operator on the types it is defined for (the logical ones on integers). */
static const combo_t all_combos[] = {
    {T_INT, OP_SUM},     {T_INT, OP_PROD},      {T_INT, OP_MAX},     {T_INT, OP_MIN},
    {T_INT, OP_BAND},    {T_INT, OP_BOR},       {T_INT, OP_BXOR},    {T_INT, OP_LAND},
    {T_INT, OP_LOR},     {T_INT, OP_LXOR},      {T_DOUBLE, OP_SUM},  {T_DOUBLE, OP_PROD},
    {T_DOUBLE, OP_MAX},  {T_DOUBLE, OP_MIN},    {T_UCHAR, OP_BAND},  {T_UCHAR, OP_BOR},
    {T_UCHAR, OP_BXOR},  {T_UCHAR, OP_MAX},     {T_UCHAR, OP_LOR},   {T_LL, OP_SUM},
    {T_LL, OP_PROD},     {T_LL, OP_MIN},        {T_LL, OP_MAX},      {T_LL, OP_BAND},
    {T_LL, OP_BOR},      {T_LL, OP_BXOR},       {T_LL, OP_LAND},     {T_LL, OP_LXOR},
    {T_2INT, OP_MINLOC}, {T_2INT, OP_MAXLOC},   {T_DINT, OP_MINLOC}, {T_DINT, OP_MAXLOC},
    {T_VEC, OP_USER_C},  {T_STRUCT, OP_USER_C}, {T_MAT, OP_USER_NC}};
static const int all_moves[] = {T_INT, T_DOUBLE, T_CHAR, T_LL, T_VEC, T_STRUCT, T_DINT};

static const combo_t some_combos[] = {
    {T_INT, OP_SUM},    {T_DOUBLE, OP_MAX},    {T_UCHAR, OP_BAND},
    {T_LL, OP_BXOR},    {T_2INT, OP_MINLOC},   {T_DINT, OP_MAXLOC},
    {T_VEC, OP_USER_C}, {T_STRUCT, OP_USER_C}, {T_MAT, OP_USER_NC}};
static const int some_moves[] = {T_INT, T_VEC, T_STRUCT, T_DINT};

static const combo_t few_combos[] = {{T_INT, OP_SUM}, {T_DINT, OP_MINLOC}, {T_MAT, OP_USER_NC}};
static const int few_moves[] = {T_INT, T_STRUCT};

static const combo_t large_combos[] = {
    {T_DOUBLE, OP_SUM}, {T_2INT, OP_MAXLOC}, {T_MAT, OP_USER_NC}};
static const int large_moves[] = {T_DOUBLE, T_VEC};

/* A large count: blocks of many fragments, past the eager limit of the FERRY_EAGER_MAX=64 line
 * of the testlist (the default limit, up to 256 KiB, sends them eager), but small enough for
 * the oversubscribed runs. */
enum { LARGE = -1, LARGE_BYTES = 80000 };

typedef struct {
    const int *moves;
    int nmoves;
    const combo_t *combos;
    int ncombos;
    const int *counts;
    int ncounts;
    int all_roots;
} plan_t;

#define PLAN(m, c, n, roots)                                                                       \
    {                                                                                              \
        m, sizeof m / sizeof *m, c, sizeof c / sizeof *c, n, sizeof n / sizeof *n, roots           \
    }

static void run_case(comm_t *cm, int coll, int form, int ti, int op, int n, int root, int inplace)
{
    case_t k = {.cm = cm,
                .coll = coll,
                .form = form,
                .op = op,
                .root = root,
                .inplace = inplace,
                .t = &cm_types[ti]};
    k.n = n == LARGE ? (int)(LARGE_BYTES / k.t->ext) : n;
    k.seed = ++g_case * 8u;
    k.starts = form == F_PERSIST ? 3 : 1;
    int mpich = mt_is_mpich40();
    /* Known deviation, MPICH 4.0: a persistent Gather, Scatter or Allgather (not the v forms)
     * started again delivers the first start's data or fails with "Invalid communicator":
     * those are started once there. */
    if (mpich && form == F_PERSIST &&
        (coll == C_GATHER || coll == C_SCATTER || coll == C_ALLGATHER))
        k.starts = 1;
    /* Known deviation, MPICH 4.0: MPI_Reduce with MPI_IN_PLACE at a root other than 0 crashes
     * for a few thousand elements. */
    if (mpich && coll == C_REDUCE && inplace && root != 0 && k.n > 1000)
        return;
    /* Known deviation, MPICH 4.0: Alltoallw with MPI_IN_PLACE (every form) copies with wrong
     * counts when the types differ between blocks ("Message truncated", then memory
     * corruption). */
    if (mpich && coll == C_ALLTOALLW && inplace && cm->size > 1)
        return;
    /* Known deviation, MPICH 4.0: MPI_MAX and MPI_MIN on MPI_UNSIGNED_CHAR compare the values
     * as signed chars (MAX(227, 97) gives 97). */
    if (mpich && ti == T_UCHAR && (op == OP_MAX || op == OP_MIN))
        return;
    /* Known deviation, MPICH 4.0: with 1000 or more elements of a struct of mixed basic types
     * (size 14, extent 24), Gather, Scatter(v) from a root other than 0 and Alltoall(v) in
     * place fail with "Message truncated" (and then corrupt memory), a nonblocking Gather or
     * Scatter delivers wrong bytes. */
    if (mpich && ti == T_STRUCT && k.n >= 1000)
        return;
    double t0 = MPI_Wtime();
    switch (coll) {
    case C_BCAST: do_bcast(&k); break;
    case C_GATHER:
    case C_GATHERV: do_gather(&k, coll == C_GATHERV, 0); break;
    case C_ALLGATHER:
    case C_ALLGATHERV: do_gather(&k, coll == C_ALLGATHERV, 1); break;
    case C_SCATTER:
    case C_SCATTERV: do_scatter(&k, coll == C_SCATTERV); break;
    case C_ALLTOALL:
    case C_ALLTOALLV: do_alltoall(&k, coll == C_ALLTOALLV); break;
    case C_ALLTOALLW: do_alltoallw(&k); break;
    case C_REDUCE:
    case C_ALLREDUCE: do_reduce(&k, coll == C_ALLREDUCE); break;
    case C_REDUCE_SCATTER:
    case C_REDUCE_SCATTER_BLOCK: do_reduce_scatter(&k, coll == C_REDUCE_SCATTER_BLOCK); break;
    case C_SCAN:
    case C_EXSCAN: do_scan(&k, coll == C_EXSCAN); break;
    }
    g_time[coll][form][n == LARGE] += MPI_Wtime() - t0;
}

/* Every collective in every form, in place and not, for the plan's types, operators and
 * counts; rooted collectives at a root that turns from case to case, or at every root.
 * Sparse (on MPICH with more than 2 processes) each case runs in one of the three forms,
 * turning from case to case so that every collective still meets every form, type, operator
 * and count, and the large count takes one type or operator per collective, in turn. */
static void sweep(comm_t *cm, const plan_t *pl)
{
    /* MPICH polls without yielding, so it is slow oversubscribed: from 3 processes on, one
     * form per case there. */
    int p = cm->size, dense = g_level == 2 || !mt_is_mpich40() || mt_size <= 2;
    int nforms = dense ? NFORMS : 1;
    for (int coll = 0; coll < NCOLLS; coll++) {
        int red = reduction(coll), nitems = red ? pl->ncombos : pl->nmoves;
        for (int it = 0; it < nitems; it++) {
            if (!dense && pl->counts[0] == LARGE && it != (int)(cm->irot % (unsigned)nitems))
                continue;
            int ti = red ? pl->combos[it].ti : pl->moves[it];
            int op = red ? pl->combos[it].op : OP_NONE;
            for (int ci = 0; ci < pl->ncounts; ci++) {
                for (int inplace = 0; inplace <= (coll != C_BCAST); inplace++) {
                    int f0 = dense ? 0 : (int)(cm->frot++ % NFORMS);
                    for (int fi = 0; fi < nforms; fi++) {
                        int form = (f0 + fi) % NFORMS;
                        int all = pl->all_roots || g_level == 2;
                        int r0 = all || !rooted(coll) ? 0 : (int)(cm->rot++ % (unsigned)p);
                        int r1 = all && rooted(coll) ? p : r0 + 1;
                        for (int root = r0; root < r1; root++)
                            run_case(cm, coll, form, ti, op, pl->counts[ci], root, inplace);
                    }
                }
            }
        }
        cm->irot++;
    }
}

/* The communicators: world, world reversed, a duplicate, and halves of world. */
static void comm_make(comm_t *cm, MPI_Comm c, const char *name)
{
    cm->c = c;
    cm->name = name;
    cm->rot = cm->frot = cm->irot = 0;
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c, &cm->rank);
    MPI_Comm_size(c, &cm->size);
    MPI_OK(MPI_Comm_dup(c, &cm->side));
}

static void comm_free(comm_t *cm)
{
    MPI_OK(MPI_Comm_free(&cm->side));
    if (cm->c != MPI_COMM_WORLD)
        MPI_OK(MPI_Comm_free(&cm->c));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    const char *lv = getenv("FY_TEST_MATRIX");
    if (lv && strcmp(lv, "quick") == 0)
        g_level = 0;
    else if (lv && strcmp(lv, "full") == 0)
        g_level = 2;
    cm_setup();

    comm_t world, rev, dup, half;
    MPI_Comm c;
    comm_make(&world, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - mt_rank, &c));
    comm_make(&rev, c, "world reversed (split)");
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    comm_make(&dup, c, "duplicate of world");
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, -mt_rank, &c));
    comm_make(&half, c,
              mt_rank % 2 ? "odd half of world, reversed" : "even half of world, reversed");

    static const int c_small[] = {0, 1, 7, 33}, c_quick[] = {1, 33}, c_mid[] = {1, 7, 33},
                     c_seven[] = {7}, c_few[] = {0, 7}, c_large[] = {LARGE};
    /* MPICH polls without yielding, so it is slow oversubscribed: fewer counts there. */
    int slow = mt_is_mpich40() && mt_size > 2;
    const plan_t world_small = slow ? (plan_t)PLAN(all_moves, all_combos, c_quick, 0)
                                    : (plan_t)PLAN(all_moves, all_combos, c_small, 0),
                 world_quick = PLAN(some_moves, some_combos, c_quick, 0),
                 roots = PLAN(few_moves, few_combos, c_seven, 1),
                 rev_small = PLAN(some_moves, some_combos, c_mid, 0),
                 other_small = PLAN(few_moves, few_combos, c_few, 0),
                 large = PLAN(large_moves, large_combos, c_large, 0),
                 large_few = PLAN(few_moves, few_combos, c_large, 0);

    comm_t *comms[] = {&world, &rev, &dup, &half};
    for (int i = 0; i < 4; i++)
        barrier_check(comms[i]);
    if (g_level == 2) {
        for (int i = 0; i < 4; i++) {
            sweep(comms[i], &world_small);
            sweep(comms[i], &large);
        }
    } else {
        sweep(&world, g_level ? &world_small : &world_quick);
        sweep(&world, &roots);
        sweep(&world, g_level ? &large : &large_few);
        sweep(&rev, g_level ? &rev_small : &other_small);
        sweep(&rev, &roots);
        if (g_level && mt_size <= 4) /* (the large count costs most at 8-9 processes) */
            sweep(&rev, &large_few);
        sweep(&dup, &other_small);
        sweep(&half, &other_small);
    }

    for (int i = 3; i >= 0; i--)
        comm_free(comms[i]);
    cm_teardown();
    if (mt_rank == 0)
        printf("coll_matrix: %u cases\n", g_case);
    if (mt_rank == 0 && getenv("FY_TEST_MATRIX_PROFILE"))
        for (int i = 0; i < NCOLLS; i++)
            printf("%-22s seconds (blocking, nonblocking, persistent) small %.2f %.2f %.2f, "
                   "large %.2f %.2f %.2f\n",
                   coll_name[i], g_time[i][0][0], g_time[i][1][0], g_time[i][2][0], g_time[i][0][1],
                   g_time[i][1][1], g_time[i][2][1]);
    return mt_finish();
}
