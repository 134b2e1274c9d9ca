/* Every collective algorithm against a model computed locally. Run once per algorithm set
 * (testlist lines force them with FERRY_COLL_<NAME>=<algorithm>), at sizes 1-9: the result of
 * every collective of the tables (Barrier, Bcast, Reduce, Allreduce, Allgather(v), Alltoall(v),
 * Reduce_scatter(_block), Gather(v), Scatter(v)) in the blocking, nonblocking and persistent
 * forms (the persistent request started twice with new data), for
 *   - MPI_INT under MPI_SUM,
 *   - a vector with holes (2 ints, stride 3) under a commutative user sum; the holes of every
 *     receive buffer must stay untouched,
 *   - a pair of unsigned ints under a non-commutative user operator (composition of affine maps
 *     modulo 2^32, odd factors), so a combination out of rank order shows,
 * counts 0, 1, 3, 17 (fewer and more than p chunks), 130 and a long one (in the range of the
 * long-message algorithms), MPI_IN_PLACE wherever allowed, every root of
 * the rooted ones at small counts, uneven v-counts with gaps, on MPI_COMM_WORLD and on a
 * communicator in reversed rank order. */
#include "mpitest.h"
#include "coll_ops.h"
#include "coll_modes.h"

enum { T_INT, T_VEC, T_AFF, NT };
static const char *mode_name[] = {"blocking", "nonblocking", "persistent"};

typedef struct {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
    int w;      /* ints per element (extent / 4) */
    int pos[2]; /* where the payload ints sit in an element */
    int np;     /* payload ints per element */
} ty_t;

static ty_t types[NT];
static MPI_Comm comm;
static int me, p;
static const int HOLE = -7, FRESH = -3;

/* Payload j of element `key` contributed by rank r in repetition `seed`. Affine factors are odd
 * so products never collapse to 0 and every order of combination gives a different answer. */
static int val(const ty_t *t, int r, long key, int j, int seed)
{
    int v = (int)((r * 131L + key * 7 + j * 3 + seed * 17) % 1000);
    return t == &types[T_AFF] && j == 0 ? 2 * v + 1 : v;
}

/* The reduction over ranks 0..p-1 in rank order. */
static int reduced(const ty_t *t, long key, int j, int seed)
{
    if (t != &types[T_AFF]) {
        int s = 0;
        for (int r = 0; r < p; r++)
            s += val(t, r, key, j, seed);
        return s;
    }
    unsigned m = (unsigned)val(t, 0, key, 0, seed), c = (unsigned)val(t, 0, key, 1, seed);
    for (int r = 1; r < p; r++) {
        unsigned m2 = (unsigned)val(t, r, key, 0, seed), c2 = (unsigned)val(t, r, key, 1, seed);
        m = m2 * m;
        c = m2 * c + c2;
    }
    return (int)(j == 0 ? m : c);
}

static int *ints(long nelem, const ty_t *t)
{
    int *b = mt_malloc(sizeof(int) * (size_t)(nelem * t->w + 1));
    for (long i = 0; i < nelem * t->w + 1; i++)
        b[i] = HOLE;
    return b;
}

/* Elements [at, at+n) of buf: rank r's contribution for keys key0.. (payload), holes left. */
static void put(const ty_t *t, int *buf, long at, long n, int r, long key0, int seed)
{
    for (long k = 0; k < n; k++)
        for (int j = 0; j < t->np; j++)
            buf[(at + k) * t->w + t->pos[j]] = val(t, r, key0 + k, j, seed);
}

/* Payload to FRESH, holes to HOLE: what a receive buffer holds before the call. */
static void clear(const ty_t *t, int *buf, long nelem)
{
    for (long i = 0; i < nelem * t->w + 1; i++)
        buf[i] = HOLE;
    for (long k = 0; k < nelem; k++)
        for (int j = 0; j < t->np; j++)
            buf[k * t->w + t->pos[j]] = FRESH;
}

static int is_payload(const ty_t *t, long i)
{
    int o = (int)(i % t->w);
    return o == t->pos[0] || (t->np > 1 && o == t->pos[1]);
}

/* Checks elements [at, at+n) against rank r's contribution (r < 0: the reduction). */
static int expect(const ty_t *t, const int *buf, long at, long n, int r, long key0, int seed,
                  const char *what)
{
    for (long k = 0; k < n; k++)
        for (int j = 0; j < t->np; j++) {
            int want = r < 0 ? reduced(t, key0 + k, j, seed) : val(t, r, key0 + k, j, seed);
            int got = buf[(at + k) * t->w + t->pos[j]];
            if (got != want) {
                CHECK(0, "%s: %s element %ld payload %d: %d, expected %d", what, t->name, at + k, j,
                      got, want);
                return 0;
            }
        }
    return 1;
}

/* Holes of elements [0, nelem) and the int past the end untouched. */
static void holes(const ty_t *t, const int *buf, long nelem, const char *what)
{
    for (long i = 0; i < nelem * t->w + 1; i++)
        if ((i == nelem * t->w || !is_payload(t, i)) && buf[i] != HOLE) {
            CHECK(0, "%s: %s: int %ld outside the data changed to %d", what, t->name, i, buf[i]);
            return;
        }
}

/* Known deviation, MPICH 4.0: freeing a persistent collective on a derived datatype fails an
 * assertion on the type's reference count (as in coll_cases.h); there the requests are left. */
#define FREE(mode, req)                                                                            \
    do {                                                                                           \
        if ((mode) == PERSIST && !mt_is_mpich40())                                                 \
            MPI_OK(MPI_Request_free(&(req)));                                                      \
    } while (0)

/* Known deviation, MPICH 4.0: a persistent Gather, Scatter or Allgather (not the v forms)
 * started again delivers the data of the first start or fails (as in coll_cases.h). */
static int mpich_persist_bug(int mode, int v)
{
    return mode == PERSIST && !v && mt_is_mpich40();
}

static char what[200];
#define WHAT(...) snprintf(what, sizeof what, __VA_ARGS__)

static void t_allreduce(const ty_t *t, long n, int inplace, int mode)
{
    int *sb = ints(n, t), *rb = ints(n, t);
    MPI_Request req = MPI_REQUEST_NULL;
    const void *s = inplace ? MPI_IN_PLACE : sb;
    WHAT("Allreduce %s n=%ld%s", mode_name[mode], n, inplace ? " in place" : "");
    for (int rep = 0; rep < REPS(mode); rep++) {
        clear(t, rb, n);
        put(t, inplace ? rb : sb, 0, n, me, 0, rep);
        RUN(mode, rep, req, MPI_Allreduce(s, rb, (int)n, t->type, t->op, comm),
            MPI_Iallreduce(s, rb, (int)n, t->type, t->op, comm, &req),
            MPI_Allreduce_init(s, rb, (int)n, t->type, t->op, comm, MPI_INFO_NULL, &req));
        expect(t, rb, 0, n, -1, 0, rep, what);
        holes(t, rb, n, what);
    }
    FREE(mode, req);
    free(sb);
    free(rb);
}

static void t_reduce(const ty_t *t, long n, int root, int inplace, int mode)
{
    /* Known deviation, MPICH 4.0: MPI_Reduce with MPI_IN_PLACE at a root other than 0 crashes
     * from about 3 KB (as in coll_inplace.c and coll_cases.h). */
    if (inplace && root != 0 && n * t->w * 4 > 2000 && mt_is_mpich40())
        return;
    int *sb = ints(n, t), *rb = ints(n, t);
    MPI_Request req = MPI_REQUEST_NULL;
    const void *s = inplace && me == root ? MPI_IN_PLACE : sb;
    WHAT("Reduce %s n=%ld root=%d%s", mode_name[mode], n, root, inplace ? " in place" : "");
    for (int rep = 0; rep < REPS(mode); rep++) {
        clear(t, rb, n);
        put(t, s == MPI_IN_PLACE ? rb : sb, 0, n, me, 0, rep);
        RUN(mode, rep, req, MPI_Reduce(s, rb, (int)n, t->type, t->op, root, comm),
            MPI_Ireduce(s, rb, (int)n, t->type, t->op, root, comm, &req),
            MPI_Reduce_init(s, rb, (int)n, t->type, t->op, root, comm, MPI_INFO_NULL, &req));
        if (me == root) {
            expect(t, rb, 0, n, -1, 0, rep, what);
            holes(t, rb, n, what);
        }
    }
    FREE(mode, req);
    free(sb);
    free(rb);
}

static void t_bcast(const ty_t *t, long n, int root, int mode)
{
    int *b = ints(n, t);
    MPI_Request req = MPI_REQUEST_NULL;
    WHAT("Bcast %s n=%ld root=%d", mode_name[mode], n, root);
    for (int rep = 0; rep < REPS(mode); rep++) {
        clear(t, b, n);
        if (me == root)
            put(t, b, 0, n, root, 0, rep);
        RUN(mode, rep, req, MPI_Bcast(b, (int)n, t->type, root, comm),
            MPI_Ibcast(b, (int)n, t->type, root, comm, &req),
            MPI_Bcast_init(b, (int)n, t->type, root, comm, MPI_INFO_NULL, &req));
        expect(t, b, 0, n, root, 0, rep, what);
        holes(t, b, n, what);
    }
    FREE(mode, req);
    free(b);
}

/* v-form layout: rank r's block has cnt(r) elements at displacement dsp(r) (gaps between). */
static int vcnt(long n, int r)
{
    return (int)(n == 0 ? 0 : n + (r % 3) - 1 + (r == 1 ? 5 : 0));
}
static void vlayout(long n, int *cnt, int *dsp, long *total)
{
    long at = 0;
    for (int r = 0; r < p; r++) {
        cnt[r] = vcnt(n, r);
        dsp[r] = (int)at;
        at += cnt[r] + 1 + r % 2;
    }
    *total = at;
}

static void t_allgather(const ty_t *t, long n, int v, int inplace, int mode)
{
    if (mpich_persist_bug(mode, v))
        return;
    int cnt[16], dsp[16];
    long total = p * n;
    if (v)
        vlayout(n, cnt, dsp, &total);
    for (int r = 0; r < p && !v; r++)
        cnt[r] = (int)n, dsp[r] = (int)(r * n);
    int *sb = ints(cnt[me], t), *rb = ints(total, t);
    MPI_Request req = MPI_REQUEST_NULL;
    const void *s = inplace ? MPI_IN_PLACE : sb;
    WHAT("Allgather%s %s n=%ld%s", v ? "v" : "", mode_name[mode], n, inplace ? " in place" : "");
    for (int rep = 0; rep < REPS(mode); rep++) {
        clear(t, rb, total);
        put(t, inplace ? rb : sb, inplace ? dsp[me] : 0, cnt[me], me, 0, rep);
        if (v)
            RUN(mode, rep, req, MPI_Allgatherv(s, cnt[me], t->type, rb, cnt, dsp, t->type, comm),
                MPI_Iallgatherv(s, cnt[me], t->type, rb, cnt, dsp, t->type, comm, &req),
                MPI_Allgatherv_init(s, cnt[me], t->type, rb, cnt, dsp, t->type, comm, MPI_INFO_NULL,
                                    &req));
        else
            RUN(mode, rep, req, MPI_Allgather(s, (int)n, t->type, rb, (int)n, t->type, comm),
                MPI_Iallgather(s, (int)n, t->type, rb, (int)n, t->type, comm, &req),
                MPI_Allgather_init(s, (int)n, t->type, rb, (int)n, t->type, comm, MPI_INFO_NULL,
                                   &req));
        for (int r = 0; r < p; r++)
            if (!expect(t, rb, dsp[r], cnt[r], r, 0, rep, what))
                break;
        if (!v)
            holes(t, rb, total, what);
    }
    FREE(mode, req);
    free(sb);
    free(rb);
}

/* Alltoall(v): the block from r to q holds keys q * 100000 + k. v-counts: cnt(r + q). */
static void t_alltoall(const ty_t *t, long n, int v, int inplace, int mode)
{
    int sc[16], sd[16], rc[16], rd[16];
    long st = 0, rt = 0;
    for (int q = 0; q < p; q++) {
        sc[q] = v ? vcnt(n, me + q) : (int)n;
        rc[q] = v ? vcnt(n, me + q) : (int)n;
        sd[q] = (int)st;
        rd[q] = (int)rt;
        st += sc[q] + (v ? q % 2 : 0);
        rt += rc[q] + (v ? 1 : 0);
    }
    int *sb = ints(st, t), *rb = ints(rt, t);
    MPI_Request req = MPI_REQUEST_NULL;
    const void *s = inplace ? MPI_IN_PLACE : sb;
    WHAT("Alltoall%s %s n=%ld%s", v ? "v" : "", mode_name[mode], n, inplace ? " in place" : "");
    for (int rep = 0; rep < REPS(mode); rep++) {
        clear(t, rb, rt);
        for (int q = 0; q < p; q++)
            put(t, inplace ? rb : sb, inplace ? rd[q] : sd[q], inplace ? rc[q] : sc[q], me,
                q * 100000L, rep);
        if (v)
            RUN(mode, rep, req, MPI_Alltoallv(s, sc, sd, t->type, rb, rc, rd, t->type, comm),
                MPI_Ialltoallv(s, sc, sd, t->type, rb, rc, rd, t->type, comm, &req),
                MPI_Alltoallv_init(s, sc, sd, t->type, rb, rc, rd, t->type, comm, MPI_INFO_NULL,
                                   &req));
        else
            RUN(mode, rep, req, MPI_Alltoall(s, (int)n, t->type, rb, (int)n, t->type, comm),
                MPI_Ialltoall(s, (int)n, t->type, rb, (int)n, t->type, comm, &req),
                MPI_Alltoall_init(s, (int)n, t->type, rb, (int)n, t->type, comm, MPI_INFO_NULL,
                                  &req));
        for (int r = 0; r < p; r++)
            if (!expect(t, rb, rd[r], rc[r], r, me * 100000L, rep, what))
                break;
        if (!v)
            holes(t, rb, rt, what);
    }
    FREE(mode, req);
    free(sb);
    free(rb);
}

static void t_reduce_scatter(const ty_t *t, long n, int v, int inplace, int mode)
{
    int cnt[16];
    long total = 0, mine = 0;
    for (int r = 0; r < p; r++) {
        cnt[r] = v ? vcnt(n, r) : (int)n;
        if (r == me)
            mine = total;
        total += cnt[r];
    }
    int *sb = ints(total, t), *rb = ints(total, t);
    MPI_Request req = MPI_REQUEST_NULL;
    const void *s = inplace ? MPI_IN_PLACE : sb;
    WHAT("Reduce_scatter%s %s n=%ld%s", v ? "" : "_block", mode_name[mode], n,
         inplace ? " in place" : "");
    for (int rep = 0; rep < REPS(mode); rep++) {
        clear(t, rb, total);
        put(t, inplace ? rb : sb, 0, total, me, 0, rep);
        if (v)
            RUN(mode, rep, req, MPI_Reduce_scatter(s, rb, cnt, t->type, t->op, comm),
                MPI_Ireduce_scatter(s, rb, cnt, t->type, t->op, comm, &req),
                MPI_Reduce_scatter_init(s, rb, cnt, t->type, t->op, comm, MPI_INFO_NULL, &req));
        else
            RUN(mode, rep, req, MPI_Reduce_scatter_block(s, rb, (int)n, t->type, t->op, comm),
                MPI_Ireduce_scatter_block(s, rb, (int)n, t->type, t->op, comm, &req),
                MPI_Reduce_scatter_block_init(s, rb, (int)n, t->type, t->op, comm, MPI_INFO_NULL,
                                              &req));
        expect(t, rb, 0, cnt[me], -1, mine, rep, what);
    }
    FREE(mode, req);
    free(sb);
    free(rb);
}

/* Gather(v) to root, then Scatter(v) of the same layout back. */
static void t_gather_scatter(const ty_t *t, long n, int v, int root, int inplace, int mode)
{
    if (mpich_persist_bug(mode, v))
        return;
    int cnt[16], dsp[16];
    long total = p * n;
    if (v)
        vlayout(n, cnt, dsp, &total);
    for (int r = 0; r < p && !v; r++)
        cnt[r] = (int)n, dsp[r] = (int)(r * n);
    int *sb = ints(cnt[me], t), *rb = ints(total, t);
    MPI_Request req = MPI_REQUEST_NULL;
    int ip = inplace && me == root;
    WHAT("Gather%s %s n=%ld root=%d%s", v ? "v" : "", mode_name[mode], n, root,
         inplace ? " in place" : "");
    for (int rep = 0; rep < REPS(mode); rep++) {
        clear(t, rb, total);
        put(t, ip ? rb : sb, ip ? dsp[me] : 0, cnt[me], me, 0, rep);
        const void *s = ip ? MPI_IN_PLACE : sb;
        if (v)
            RUN(mode, rep, req, MPI_Gatherv(s, cnt[me], t->type, rb, cnt, dsp, t->type, root, comm),
                MPI_Igatherv(s, cnt[me], t->type, rb, cnt, dsp, t->type, root, comm, &req),
                MPI_Gatherv_init(s, cnt[me], t->type, rb, cnt, dsp, t->type, root, comm,
                                 MPI_INFO_NULL, &req));
        else
            RUN(mode, rep, req, MPI_Gather(s, (int)n, t->type, rb, (int)n, t->type, root, comm),
                MPI_Igather(s, (int)n, t->type, rb, (int)n, t->type, root, comm, &req),
                MPI_Gather_init(s, (int)n, t->type, rb, (int)n, t->type, root, comm, MPI_INFO_NULL,
                                &req));
        if (me == root)
            for (int r = 0; r < p; r++)
                if (!expect(t, rb, dsp[r], cnt[r], r, 0, rep, what))
                    break;
    }
    FREE(mode, req);
    WHAT("Scatter%s %s n=%ld root=%d%s", v ? "v" : "", mode_name[mode], n, root,
         inplace ? " in place" : "");
    for (int rep = 0; rep < REPS(mode); rep++) {
        clear(t, sb, cnt[me]);
        if (me == root)
            for (int r = 0; r < p; r++)
                put(t, rb, dsp[r], cnt[r], r, 7, rep);
        void *r_ = ip ? MPI_IN_PLACE : sb;
        if (v)
            RUN(mode, rep, req,
                MPI_Scatterv(rb, cnt, dsp, t->type, r_, cnt[me], t->type, root, comm),
                MPI_Iscatterv(rb, cnt, dsp, t->type, r_, cnt[me], t->type, root, comm, &req),
                MPI_Scatterv_init(rb, cnt, dsp, t->type, r_, cnt[me], t->type, root, comm,
                                  MPI_INFO_NULL, &req));
        else
            RUN(mode, rep, req, MPI_Scatter(rb, (int)n, t->type, r_, (int)n, t->type, root, comm),
                MPI_Iscatter(rb, (int)n, t->type, r_, (int)n, t->type, root, comm, &req),
                MPI_Scatter_init(rb, (int)n, t->type, r_, (int)n, t->type, root, comm,
                                 MPI_INFO_NULL, &req));
        if (!ip)
            expect(t, sb, 0, cnt[me], me, 7, rep, what);
    }
    FREE(mode, req);
    free(sb);
    free(rb);
}

static void t_barrier(int mode)
{
    MPI_Request req = MPI_REQUEST_NULL;
    for (int rep = 0; rep < REPS(mode); rep++)
        RUN(mode, rep, req, MPI_Barrier(comm), MPI_Ibarrier(comm, &req),
            MPI_Barrier_init(comm, MPI_INFO_NULL, &req));
    FREE(mode, req);
}

static void suite(long longn)
{
    const long counts[] = {0, 1, 3, 17, 130, longn};
    const int ncounts = (int)(sizeof counts / sizeof counts[0]);
    for (int mode = 0; mode < NMODES; mode++) {
        t_barrier(mode);
        for (int ti = 0; ti < NT; ti++) {
            const ty_t *t = &types[ti];
            for (int ci = 0; ci < ncounts; ci++) {
                long n = ci == ncounts - 1 && ti != T_INT ? longn / 4 : counts[ci];
                int small = ci < 4;
                for (int ip = 0; ip < 2; ip++) {
                    t_allreduce(t, n, ip, mode);
                    t_reduce_scatter(t, n, 0, ip, mode);
                    t_reduce_scatter(t, n, 1, ip, mode);
                    for (int root = 0; root < p; root += small ? 1 : p - 1 > 0 ? p - 1 : 1)
                        t_reduce(t, n, root, ip, mode);
                    if (ti == T_AFF)
                        continue; /* the movers need no operator */
                    t_allgather(t, n, 0, ip, mode);
                    t_allgather(t, n, 1, ip, mode);
                    t_alltoall(t, n, 0, ip, mode);
                    t_alltoall(t, n, 1, ip, mode);
                    t_gather_scatter(t, n, 0, p / 2, ip, mode);
                    t_gather_scatter(t, n, 1, p - 1, ip, mode);
                }
                if (ti == T_AFF)
                    continue;
                for (int root = 0; root < p; root += small ? 1 : p - 1 > 0 ? p - 1 : 1)
                    t_bcast(t, n, root, mode);
            }
        }
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Datatype vec, pair;
    MPI_Op vsum, affine;
    MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    MPI_OK(MPI_Type_contiguous(2, MPI_UNSIGNED, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    MPI_OK(MPI_Op_create(vsum_fn, 1, &vsum));
    MPI_OK(MPI_Op_create(affine_fn, 0, &affine));
    types[T_INT] = (ty_t){"int", MPI_INT, MPI_SUM, 1, {0, 0}, 1};
    types[T_VEC] = (ty_t){"vector", vec, vsum, 4, {0, 3}, 2};
    types[T_AFF] = (ty_t){"affine", pair, affine, 2, {0, 1}, 2};
    /* The long count: 12000 ints (48 KB; with FERRY_EAGER_MAX=2K past the eager limit even in
     * pieces); FY_TEST_ALGOS_LONG overrides it. */
    long longn = 12000;
    const char *e = getenv("FY_TEST_ALGOS_LONG");
    if (e && *e)
        longn = atol(e);

    comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    if (p > 16) {
        CHECK(0, "at most 16 ranks");
        return mt_finish();
    }
    suite(longn);

    MPI_Comm rev;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, p - me, &rev));
    MPI_OK(MPI_Comm_set_errhandler(rev, MPI_ERRORS_RETURN));
    comm = rev;
    MPI_Comm_rank(comm, &me);
    suite(longn / 8);
    MPI_OK(MPI_Comm_free(&rev));

    MPI_Type_free(&vec);
    MPI_Type_free(&pair);
    MPI_Op_free(&vsum);
    MPI_Op_free(&affine);
    return mt_finish();
}
