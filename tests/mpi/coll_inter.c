/* Collectives on intercommunicators (MPI 4.1 6.2.2 and the intercommunicator paragraphs of each
 * collective): Barrier, Bcast, Gather(v), Scatter(v), Allgather(v), Alltoall(v/w), Reduce,
 * Allreduce, Reduce_scatter(_block), each blocking, nonblocking and persistent (started three
 * times with new data), on two intercommunicators: the low third of world against the rest,
 * and the last rank alone against the rest (at 2 ranks both are groups of 1 and 1).
 *
 * Every process computes what every other contributes from a formula, so each result is
 * checked exactly: rooted collectives from every root of each group (MPI_ROOT at the root,
 * MPI_PROC_NULL at the rest of its group, whose buffers must stay untouched, the root's rank in
 * the other group), counts 0, 1, 7 and large, a vector type with holes (which must stay
 * untouched), v-forms with uneven counts (zeros among them), reversed blocks and gaps,
 * Alltoallw with a different type per block, a non-commutative user operator (which must be
 * applied in the other group's rank order), and a few _c forms. Then: several nonblocking
 * collectives outstanding at once on the intercommunicator, on a duplicate and on the local
 * groups, completed in reverse, with a blocking one in between; MPI_Comm_idup of the
 * intercommunicator among nonblocking collectives; and the errors: MPI_IN_PLACE
 * (MPI_ERR_BUFFER), Scan and Exscan (MPI_ERR_COMM), a bad root (MPI_ERR_ROOT), each in the three
 * forms. FY_TEST_THREAD_LEVEL=multiple runs it all under MPI_THREAD_MULTIPLE.
 * FY_TEST_INTER_SPLITS=all runs every collective in the three forms on every split of world
 * into a low group of a ranks and a high group of b (a + b = size, a = 1 .. size-1: 1+7, 2+6,
 * ..., 7+1 at 8 ranks), the leaders the groups' last members; then on even against odd world
 * ranks, and on intercommunicators made by MPI_Comm_split of one (colors that give groups of
 * different sizes, keys that reverse the order). */
#include "mpitest.h"
#include "coll_ops.h"

enum { MB, MNB, MP, NMODES };
static const char *mode_name[NMODES] = {"blocking", "nonblocking", "persistent"};
static int reps(int m)
{
    return m == MP ? 3 : 1;
}

/* Runs a collective in mode m (k-th time; persistent requests are made at k == 0, started,
 * completed, and freed by DONE). */
#define RUN(m, k, req, B, I, P, ...)                                                               \
    do {                                                                                           \
        if ((m) == MB) {                                                                           \
            MPI_OK(B(__VA_ARGS__));                                                                \
        } else {                                                                                   \
            if ((m) == MNB)                                                                        \
                MPI_OK(I(__VA_ARGS__, &(req)));                                                    \
            else if ((k) == 0)                                                                     \
                MPI_OK(P(__VA_ARGS__, MPI_INFO_NULL, &(req)));                                     \
            if ((m) == MP)                                                                         \
                MPI_OK(MPI_Start(&(req)));                                                         \
            MPI_OK(MPI_Wait(&(req), MPI_STATUS_IGNORE));                                           \
        }                                                                                          \
    } while (0)
#define DONE(m, req)                                                                               \
    do {                                                                                           \
        if ((m) == MP)                                                                             \
            MPI_OK(MPI_Request_free(&(req)));                                                      \
    } while (0)

/* ---- Intercommunicators under test ---- */
typedef struct {
    MPI_Comm ic;
    const char *name;
    int g;          /* this process's group: 0 or 1 */
    int rank, size; /* in the local group */
    int rsize;      /* of the remote group */
} ictx_t;

static ictx_t X; /* the one under test */
static char what[256];

/* ---- Layouts: MPI_INT, or a vector of 2 ints with stride 3 (holes between) ---- */
enum { T_INT, T_VEC, NLAY };
typedef struct {
    MPI_Datatype t;
    int per;    /* ints of data per element */
    int stride; /* extent in ints */
    int pos[2]; /* where the data ints sit */
    const char *name;
} lay_t;
static lay_t lays[NLAY];
#define HOLE (-7777777)

/* The value of int number i of the stream that process `who` of group g sends (seed: the run). */
static int val(int g, int who, int seed, long i)
{
    unsigned h = (unsigned)g * 7919u + (unsigned)who * 104729u + (unsigned)seed * 1299709u +
                 (unsigned)i * 2654435761u;
    return (int)((h >> 9) & 0xffff);
}

static int *ialloc(size_t n)
{
    int *p = mt_malloc(sizeof(int) * (n ? n : 1));
    for (size_t i = 0; i < n; i++)
        p[i] = HOLE;
    return p;
}

/* count elements of layout L at element offset `at` of buf: stream of (g, who, seed). */
static void put(int *buf, const lay_t *L, long at, long count, int g, int who, int seed)
{
    for (long e = 0; e < count; e++)
        for (int j = 0; j < L->per; j++)
            buf[(at + e) * L->stride + L->pos[j]] = val(g, who, seed, e * L->per + j);
}

static void cmp(const int *got, const int *exp, size_t n, const char *w)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != exp[i]) {
            CHECK(0, "%s on %s, %s: int %zu of %zu is %d, expected %d", w, X.name, what, i, n,
                  got[i], exp[i]);
            return;
        }
}

/* Who is the root, from this process's side: the argument it passes. */
static int root_arg(int rg, int rr)
{
    if (X.g == rg)
        return X.rank == rr ? MPI_ROOT : MPI_PROC_NULL;
    return rr;
}

/* v-form counts of the remote group's blocks (some zero) and reversed displacements with a
 * one-element gap after each block; returns the elements the buffer spans. */
static long vlayout(int q, int n, int vform, int *cnt, int *dsp)
{
    long at = 0;
    for (int j = q - 1; j >= 0; j--) {
        cnt[j] = !vform ? n : (n == 0 || j % 3 == 1) ? 0 : n + j;
        if (!vform) {
            dsp[j] = j * n;
            continue;
        }
        dsp[j] = (int)at;
        at += cnt[j] + 1;
    }
    return vform ? at : (long)q * n;
}

/* ---- Barrier ---- */
static void t_barrier(int m)
{
    MPI_Request req = MPI_REQUEST_NULL;
    for (int k = 0; k < reps(m); k++) {
        if (m == MB)
            MPI_OK(MPI_Barrier(X.ic));
        else if (m == MNB)
            MPI_OK(MPI_Ibarrier(X.ic, &req));
        else if (k == 0)
            MPI_OK(MPI_Barrier_init(X.ic, MPI_INFO_NULL, &req));
        if (m == MP)
            MPI_OK(MPI_Start(&req));
        if (m != MB)
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    DONE(m, req);
}

/* ---- Bcast ---- */
static void t_bcast(int m, int ly, int n, int rg, int rr)
{
    /* Known deviation, MPICH 4.0: MPI_Ibcast and MPI_Bcast_init on an intercommunicator deliver
     * garbage for a non-contiguous datatype when the root is not rank 0 of its group. */
    if (m != MB && ly == T_VEC && rr != 0 && mt_is_mpich40())
        return;
    const lay_t *L = &lays[ly];
    size_t ni = (size_t)n * L->stride;
    int *buf = ialloc(ni), *exp = ialloc(ni);
    int root = root_arg(rg, rr);
    MPI_Request req = MPI_REQUEST_NULL;
    snprintf(what, sizeof what, "%s %s n=%d root %d of group %d", mode_name[m], L->name, n, rr, rg);
    for (int k = 0; k < reps(m); k++) {
        int seed = 10 + k;
        for (size_t i = 0; i < ni; i++)
            buf[i] = exp[i] = HOLE;
        if (root != MPI_PROC_NULL)
            put(exp, L, 0, n, rg, rr, seed);
        if (root == MPI_ROOT)
            put(buf, L, 0, n, rg, rr, seed);
        RUN(m, k, req, MPI_Bcast, MPI_Ibcast, MPI_Bcast_init, buf, n, L->t, root, X.ic);
        cmp(buf, exp, ni, "Bcast");
    }
    DONE(m, req);
    free(buf);
    free(exp);
}

/* ---- Gather(v): the root gets block j from remote rank j ---- */
/* Known deviation, MPICH 4.0: a restarted MPI_Gather_init, MPI_Scatter_init or
 * MPI_Allgather_init (not the v-forms) delivers the first start's data or fails with "Invalid
 * communicator" (as on intracommunicators, coll_cases.h). */
static int mpich_persist_bug(int m, int vform)
{
    return m == MP && !vform && mt_is_mpich40();
}

static void t_gather(int m, int ly, int n, int vform, int rg, int rr)
{
    if (mpich_persist_bug(m, vform))
        return;
    const lay_t *L = &lays[ly];
    int root = root_arg(rg, rr), q = X.rsize;
    int *cnt = mt_malloc(sizeof(int) * (size_t)q), *dsp = mt_malloc(sizeof(int) * (size_t)q);
    long span = vlayout(q, n, vform, cnt, dsp);
    size_t ni = (size_t)span * L->stride;
    int *rbuf = ialloc(ni), *exp = ialloc(ni);
    /* this process's contribution when it sends: its count in the root's layout */
    int myn = 0;
    if (root >= 0) {
        int c2[64], d2[64];
        vlayout(X.size, n, vform, c2, d2);
        myn = c2[X.rank];
    }
    int *sbuf = ialloc((size_t)myn * L->stride);
    MPI_Request req = MPI_REQUEST_NULL;
    snprintf(what, sizeof what, "%s %s n=%d%s root %d of group %d", mode_name[m], L->name, n,
             vform ? " (v)" : "", rr, rg);
    for (int k = 0; k < reps(m); k++) {
        int seed = 20 + k;
        for (size_t i = 0; i < ni; i++)
            rbuf[i] = exp[i] = HOLE;
        if (root >= 0)
            put(sbuf, L, 0, myn, X.g, X.rank, seed);
        if (root == MPI_ROOT)
            for (int j = 0; j < q; j++)
                put(exp, L, dsp[j], cnt[j], 1 - X.g, j, seed);
        if (vform)
            RUN(m, k, req, MPI_Gatherv, MPI_Igatherv, MPI_Gatherv_init, sbuf, myn, L->t, rbuf, cnt,
                dsp, L->t, root, X.ic);
        else
            RUN(m, k, req, MPI_Gather, MPI_Igather, MPI_Gather_init, sbuf, myn, L->t, rbuf, n, L->t,
                root, X.ic);
        cmp(rbuf, exp, ni, vform ? "Gatherv" : "Gather");
    }
    DONE(m, req);
    free(cnt);
    free(dsp);
    free(rbuf);
    free(exp);
    free(sbuf);
}

/* ---- Scatter(v): remote rank j gets block j of the root ---- */
static void t_scatter(int m, int ly, int n, int vform, int rg, int rr)
{
    if (mpich_persist_bug(m, vform))
        return;
    const lay_t *L = &lays[ly];
    int root = root_arg(rg, rr), q = X.rsize;
    int *cnt = mt_malloc(sizeof(int) * (size_t)q), *dsp = mt_malloc(sizeof(int) * (size_t)q);
    long span = vlayout(q, n, vform, cnt, dsp);
    size_t ni = (size_t)span * L->stride;
    int *sbuf = ialloc(ni);
    int myn = 0;
    if (root >= 0) {
        int c2[64], d2[64];
        vlayout(X.size, n, vform, c2, d2);
        myn = c2[X.rank];
    }
    size_t rni = (size_t)myn * L->stride;
    int *rbuf = ialloc(rni), *exp = ialloc(rni);
    MPI_Request req = MPI_REQUEST_NULL;
    snprintf(what, sizeof what, "%s %s n=%d%s root %d of group %d", mode_name[m], L->name, n,
             vform ? " (v)" : "", rr, rg);
    for (int k = 0; k < reps(m); k++) {
        int seed = 30 + k;
        for (size_t i = 0; i < rni; i++)
            rbuf[i] = exp[i] = HOLE;
        /* block j of the root's stream is the stream of (root group, 100 + j) */
        if (root == MPI_ROOT)
            for (int j = 0; j < q; j++)
                put(sbuf, L, dsp[j], cnt[j], X.g, 100 + j, seed);
        if (root >= 0)
            put(exp, L, 0, myn, 1 - X.g, 100 + X.rank, seed);
        if (vform)
            RUN(m, k, req, MPI_Scatterv, MPI_Iscatterv, MPI_Scatterv_init, sbuf, cnt, dsp, L->t,
                rbuf, myn, L->t, root, X.ic);
        else
            RUN(m, k, req, MPI_Scatter, MPI_Iscatter, MPI_Scatter_init, sbuf, n, L->t, rbuf, myn,
                L->t, root, X.ic);
        cmp(rbuf, exp, rni, vform ? "Scatterv" : "Scatter");
    }
    DONE(m, req);
    free(cnt);
    free(dsp);
    free(rbuf);
    free(exp);
    free(sbuf);
}

/* ---- Allgather(v): every process gets the other group's blocks ---- */
static void t_allgather(int m, int ly, int n, int vform)
{
    if (mpich_persist_bug(m, vform))
        return;
    const lay_t *L = &lays[ly];
    int q = X.rsize;
    int *cnt = mt_malloc(sizeof(int) * (size_t)q), *dsp = mt_malloc(sizeof(int) * (size_t)q);
    long span = vlayout(q, n, vform, cnt, dsp);
    size_t ni = (size_t)span * L->stride;
    int c2[64], d2[64];
    vlayout(X.size, n, vform, c2, d2);
    int myn = c2[X.rank];
    int *rbuf = ialloc(ni), *exp = ialloc(ni), *sbuf = ialloc((size_t)myn * L->stride);
    MPI_Request req = MPI_REQUEST_NULL;
    snprintf(what, sizeof what, "%s %s n=%d%s", mode_name[m], L->name, n, vform ? " (v)" : "");
    for (int k = 0; k < reps(m); k++) {
        int seed = 40 + k;
        for (size_t i = 0; i < ni; i++)
            rbuf[i] = exp[i] = HOLE;
        put(sbuf, L, 0, myn, X.g, X.rank, seed);
        for (int j = 0; j < q; j++)
            put(exp, L, dsp[j], cnt[j], 1 - X.g, j, seed);
        if (vform)
            RUN(m, k, req, MPI_Allgatherv, MPI_Iallgatherv, MPI_Allgatherv_init, sbuf, myn, L->t,
                rbuf, cnt, dsp, L->t, X.ic);
        else
            RUN(m, k, req, MPI_Allgather, MPI_Iallgather, MPI_Allgather_init, sbuf, myn, L->t, rbuf,
                n, L->t, X.ic);
        cmp(rbuf, exp, ni, vform ? "Allgatherv" : "Allgather");
    }
    DONE(m, req);
    free(cnt);
    free(dsp);
    free(rbuf);
    free(exp);
    free(sbuf);
}

/* ---- Alltoall(v): block j of process i goes to remote rank j, as stream (g, 64 i + j) ---- */
static int a2a_count(int from, int to, int n, int vform)
{
    return !vform ? n : n == 0 ? 0 : (from + 2 * to) % 3 * n;
}

static void t_alltoall(int m, int ly, int n, int vform)
{
    const lay_t *L = &lays[ly];
    int q = X.rsize;
    int *sc = mt_malloc(sizeof(int) * (size_t)q), *sd = mt_malloc(sizeof(int) * (size_t)q);
    int *rc = mt_malloc(sizeof(int) * (size_t)q), *rd = mt_malloc(sizeof(int) * (size_t)q);
    long sspan = 0, rspan = 0;
    for (int j = q - 1; j >= 0; j--) { /* reversed, with gaps in the v-form */
        sc[j] = a2a_count(X.rank, j, n, vform);
        rc[j] = a2a_count(j, X.rank, n, vform);
        sd[j] = vform ? (int)sspan : j * n;
        rd[j] = vform ? (int)rspan : j * n;
        sspan += sc[j] + vform;
        rspan += rc[j] + vform;
    }
    size_t sni = (size_t)sspan * L->stride, rni = (size_t)rspan * L->stride;
    int *sbuf = ialloc(sni), *rbuf = ialloc(rni), *exp = ialloc(rni);
    MPI_Request req = MPI_REQUEST_NULL;
    snprintf(what, sizeof what, "%s %s n=%d%s", mode_name[m], L->name, n, vform ? " (v)" : "");
    for (int k = 0; k < reps(m); k++) {
        int seed = 50 + k;
        for (size_t i = 0; i < rni; i++)
            rbuf[i] = exp[i] = HOLE;
        for (int j = 0; j < q; j++) {
            put(sbuf, L, sd[j], sc[j], X.g, 64 * X.rank + j, seed);
            put(exp, L, rd[j], rc[j], 1 - X.g, 64 * j + X.rank, seed);
        }
        if (vform)
            RUN(m, k, req, MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init, sbuf, sc, sd, L->t,
                rbuf, rc, rd, L->t, X.ic);
        else
            RUN(m, k, req, MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init, sbuf, n, L->t, rbuf, n,
                L->t, X.ic);
        cmp(rbuf, exp, rni, vform ? "Alltoallv" : "Alltoall");
    }
    DONE(m, req);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* ---- Alltoallw: block (i -> j) has (i + j) % 3 * n pairs of ints; the sender uses the vector
 * type when i + j is even, 2 ints per element otherwise, the receiver the opposite; byte
 * displacements, blocks reversed with gaps ---- */
static void t_alltoallw(int m, int n, int large_c)
{
    int q = X.rsize;
    int *sc = mt_malloc(sizeof(int) * (size_t)q), *sd = mt_malloc(sizeof(int) * (size_t)q);
    int *rc = mt_malloc(sizeof(int) * (size_t)q), *rd = mt_malloc(sizeof(int) * (size_t)q);
    MPI_Datatype *st = mt_malloc(sizeof(MPI_Datatype) * (size_t)q);
    MPI_Datatype *rt = mt_malloc(sizeof(MPI_Datatype) * (size_t)q);
    int *sel = mt_malloc(sizeof(int) * (size_t)q), *rel = mt_malloc(sizeof(int) * (size_t)q);
    long sints = 0, rints = 0;
    for (int j = q - 1; j >= 0; j--) {
        int pairs_s = (X.rank + j) % 3 * n, pairs_r = (j + X.rank) % 3 * n;
        int svec = (X.rank + j) % 2 == 0, rvec = !svec;
        sel[j] = svec ? T_VEC : T_INT;
        rel[j] = rvec ? T_VEC : T_INT;
        sc[j] = svec ? pairs_s : 2 * pairs_s;
        rc[j] = rvec ? pairs_r : 2 * pairs_r;
        st[j] = lays[sel[j]].t;
        rt[j] = lays[rel[j]].t;
        sd[j] = (int)(sints * 4);
        rd[j] = (int)(rints * 4);
        sints += (long)sc[j] * lays[sel[j]].stride + 1;
        rints += (long)rc[j] * lays[rel[j]].stride + 1;
    }
    int *sbuf = ialloc((size_t)sints), *rbuf = ialloc((size_t)rints), *exp = ialloc((size_t)rints);
    MPI_Request req = MPI_REQUEST_NULL;
    snprintf(what, sizeof what, "%s n=%d%s", mode_name[m], n, large_c ? " (_c)" : "");
    for (int k = 0; k < reps(m); k++) {
        int seed = 60 + k;
        for (long i = 0; i < rints; i++)
            rbuf[i] = exp[i] = HOLE;
        for (int j = 0; j < q; j++) {
            put(sbuf + sd[j] / 4, &lays[sel[j]], 0, sc[j], X.g, 64 * X.rank + j, seed);
            put(exp + rd[j] / 4, &lays[rel[j]], 0, rc[j], 1 - X.g, 64 * j + X.rank, seed);
        }
        if (large_c) {
            MPI_Count *c4 = mt_malloc(sizeof(MPI_Count) * 2 * (size_t)q);
            MPI_Aint *a4 = mt_malloc(sizeof(MPI_Aint) * 2 * (size_t)q);
            for (int j = 0; j < q; j++) {
                c4[j] = sc[j];
                c4[q + j] = rc[j];
                a4[j] = sd[j];
                a4[q + j] = rd[j];
            }
            MPI_OK(MPI_Alltoallw_c(sbuf, c4, a4, st, rbuf, c4 + q, a4 + q, rt, X.ic));
            free(c4);
            free(a4);
        } else {
            RUN(m, k, req, MPI_Alltoallw, MPI_Ialltoallw, MPI_Alltoallw_init, sbuf, sc, sd, st,
                rbuf, rc, rd, rt, X.ic);
        }
        cmp(rbuf, exp, (size_t)rints, "Alltoallw");
    }
    DONE(m, req);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(st);
    free(rt);
    free(sel);
    free(rel);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* ---- Reductions: ints with MPI_SUM, the vector type with a commutative user sum, and pairs
 * (m, c) of unsigned ints under composition of x -> m x + c, which does not commute ---- */
enum { R_INT, R_VEC, R_AFF, NRED };
static const char *red_name[NRED] = {"int+sum", "vector+usersum", "affine (non-commutative)"};
static MPI_Datatype aff_t;
static MPI_Op vsum_op, aff_op;

typedef struct {
    MPI_Datatype t;
    MPI_Op op;
    int stride; /* ints per element (extent) */
} red_t;

static red_t red(int r)
{
    if (r == R_INT)
        return (red_t){MPI_INT, MPI_SUM, 1};
    if (r == R_VEC)
        return (red_t){lays[T_VEC].t, vsum_op, 4};
    return (red_t){aff_t, aff_op, 2};
}

/* The input of process `who` of group g: count elements at buf. */
static void red_in(int r, int *buf, long count, int g, int who, int seed)
{
    for (long e = 0; e < count; e++) {
        int a = val(g, who, seed, 2 * e), b = val(g, who, seed, 2 * e + 1);
        if (r == R_INT)
            buf[e] = a;
        else if (r == R_VEC)
            buf[4 * e] = a, buf[4 * e + 3] = b;
        else
            buf[2 * e] = a | 1, buf[2 * e + 1] = b;
    }
}

/* The reduction over processes 0..np-1 of group g, in rank order, of elements [lo, lo+count). */
static void red_expect(int r, int *out, long lo, long count, int g, int np, int seed)
{
    for (long e = lo; e < lo + count; e++) {
        long o = e - lo;
        unsigned s0 = 0, s1 = 0, mm = 1, cc = 0;
        for (int who = 0; who < np; who++) {
            unsigned a = (unsigned)val(g, who, seed, 2 * e),
                     b = (unsigned)val(g, who, seed, 2 * e + 1);
            s0 += a;
            s1 += b;
            a |= 1;
            cc = a * cc + b; /* apply this one after those before */
            mm = a * mm;
        }
        if (r == R_INT)
            out[o] = (int)s0;
        else if (r == R_VEC)
            out[4 * o] = (int)s0, out[4 * o + 3] = (int)s1;
        else
            out[2 * o] = (int)mm, out[2 * o + 1] = (int)cc;
    }
}

static void t_reduce(int m, int r, int n, int rg, int rr)
{
    red_t R = red(r);
    int root = root_arg(rg, rr);
    size_t ni = (size_t)n * R.stride;
    int *sbuf = ialloc(ni), *rbuf = ialloc(ni), *exp = ialloc(ni);
    MPI_Request req = MPI_REQUEST_NULL;
    snprintf(what, sizeof what, "%s %s n=%d root %d of group %d", mode_name[m], red_name[r], n, rr,
             rg);
    for (int k = 0; k < reps(m); k++) {
        int seed = 70 + k;
        for (size_t i = 0; i < ni; i++)
            rbuf[i] = exp[i] = HOLE;
        if (root >= 0)
            red_in(r, sbuf, n, X.g, X.rank, seed);
        if (root == MPI_ROOT)
            red_expect(r, exp, 0, n, 1 - X.g, X.rsize, seed);
        RUN(m, k, req, MPI_Reduce, MPI_Ireduce, MPI_Reduce_init, sbuf, rbuf, n, R.t, R.op, root,
            X.ic);
        cmp(rbuf, exp, ni, "Reduce");
    }
    DONE(m, req);
    free(sbuf);
    free(rbuf);
    free(exp);
}

static void t_allreduce(int m, int r, int n)
{
    red_t R = red(r);
    size_t ni = (size_t)n * R.stride;
    int *sbuf = ialloc(ni), *rbuf = ialloc(ni), *exp = ialloc(ni);
    MPI_Request req = MPI_REQUEST_NULL;
    snprintf(what, sizeof what, "%s %s n=%d", mode_name[m], red_name[r], n);
    for (int k = 0; k < reps(m); k++) {
        int seed = 80 + k;
        for (size_t i = 0; i < ni; i++)
            rbuf[i] = exp[i] = HOLE;
        red_in(r, sbuf, n, X.g, X.rank, seed);
        red_expect(r, exp, 0, n, 1 - X.g, X.rsize, seed);
        RUN(m, k, req, MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, sbuf, rbuf, n, R.t, R.op,
            X.ic);
        cmp(rbuf, exp, ni, "Allreduce");
    }
    DONE(m, req);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* Reduce_scatter: each group's counts (its own size) add up to the same total T in both groups;
 * block: process i of the local group gets elements [off_i, off_i + cnt_i) of the reduction
 * of the other group's vectors. */
static void rs_counts(int p, int T, int *cnt)
{
    int left = T;
    for (int i = 0; i < p - 1; i++) {
        cnt[i] = i % 3 < left ? i % 3 : left;
        left -= cnt[i];
    }
    cnt[p - 1] = left;
}

static void t_reduce_scatter(int m, int r, int T, int block_form)
{
    /* Known deviation, MPICH 4.0: a restarted MPI_Reduce_scatter_block_init on an
     * intercommunicator leaves the receive buffers of local ranks other than 0 untouched. */
    if (m == MP && block_form && mt_is_mpich40())
        return;
    red_t R = red(r);
    int p = X.size, cnt[64] = {0}, off = 0, rcount = 0;
    if (block_form) { /* n_A * rcount_A = n_B * rcount_B: rcount = remote size * T */
        rcount = X.rsize * T;
        for (int i = 0; i < p; i++)
            cnt[i] = rcount;
    } else {
        rs_counts(p, T, cnt);
    }
    long total = 0;
    for (int i = 0; i < p; i++) {
        if (i < X.rank)
            off += cnt[i];
        total += cnt[i];
    }
    size_t sni = (size_t)total * R.stride, rni = (size_t)cnt[X.rank] * R.stride;
    int *sbuf = ialloc(sni), *rbuf = ialloc(rni), *exp = ialloc(rni);
    MPI_Request req = MPI_REQUEST_NULL;
    snprintf(what, sizeof what, "%s %s T=%d%s", mode_name[m], red_name[r], T,
             block_form ? " (block)" : "");
    for (int k = 0; k < reps(m); k++) {
        int seed = 90 + k;
        for (size_t i = 0; i < rni; i++)
            rbuf[i] = exp[i] = HOLE;
        red_in(r, sbuf, total, X.g, X.rank, seed);
        red_expect(r, exp, off, cnt[X.rank], 1 - X.g, X.rsize, seed);
        if (block_form)
            RUN(m, k, req, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block,
                MPI_Reduce_scatter_block_init, sbuf, rbuf, rcount, R.t, R.op, X.ic);
        else
            RUN(m, k, req, MPI_Reduce_scatter, MPI_Ireduce_scatter, MPI_Reduce_scatter_init, sbuf,
                rbuf, cnt, R.t, R.op, X.ic);
        cmp(rbuf, exp, rni, block_form ? "Reduce_scatter_block" : "Reduce_scatter");
    }
    DONE(m, req);
    free(sbuf);
    free(rbuf);
    free(exp);
}

/* ---- Every collective in mode m ---- */
static void all_collectives(int m)
{
    static const int counts[] = {0, 1, 7};
    const int big = 12000; /* past the eager limit */
    for (int rg = 0; rg < 2; rg++) {
        int gsize = X.g == rg ? X.size : X.rsize;
        for (int rr = 0; rr < gsize; rr++) { /* every root of each group */
            t_bcast(m, T_INT, 7, rg, rr);
            t_gather(m, T_INT, 3, rr % 2, rg, rr);
            t_scatter(m, T_INT, 3, rr % 2 == 0, rg, rr);
            t_reduce(m, R_AFF, 5, rg, rr);
        }
        int rr = gsize - 1; /* the last rank of each group as root for the rest */
        for (int c = 0; c < 3; c++) {
            t_bcast(m, T_VEC, counts[c], rg, rr);
            t_gather(m, T_VEC, counts[c], 1, rg, rr);
            t_scatter(m, T_VEC, counts[c], 1, rg, rr);
            t_reduce(m, R_VEC, counts[c], rg, rr);
            t_reduce(m, R_INT, counts[c], rg, rr);
        }
        t_bcast(m, T_INT, big, rg, 0);
        t_gather(m, T_INT, big / 8, 0, rg, 0);
        t_scatter(m, T_INT, big / 8, 0, rg, 0);
        t_reduce(m, R_INT, big, rg, 0);
    }
    for (int c = 0; c < 3; c++)
        for (int ly = 0; ly < NLAY; ly++)
            for (int v = 0; v < 2; v++) {
                t_allgather(m, ly, counts[c], v);
                t_alltoall(m, ly, counts[c], v);
            }
    t_allgather(m, T_INT, big / 4, 0);
    t_alltoall(m, T_INT, big / 4, 1);
    t_alltoallw(m, 0, 0);
    t_alltoallw(m, 1, 0);
    t_alltoallw(m, 5, 0);
    for (int r = 0; r < NRED; r++) {
        for (int c = 0; c < 3; c++) {
            t_allreduce(m, r, counts[c]);
            t_reduce_scatter(m, r, 2 * counts[c], 0);
            t_reduce_scatter(m, r, counts[c], 1);
        }
    }
    t_allreduce(m, R_INT, big);
    t_reduce_scatter(m, R_INT, big, 0);
    t_barrier(m);
}

/* ---- A few large-count (_c) entry points ---- */
static void large_count_forms(void)
{
    int q = X.rsize, n = 4;
    snprintf(what, sizeof what, "_c forms");
    /* Bcast_c from local rank 0 of group 0 */
    int buf[4], exp[4];
    int root = root_arg(0, 0);
    for (int i = 0; i < n; i++) {
        buf[i] = root == MPI_ROOT ? val(0, 0, 5, i) : HOLE;
        exp[i] = root == MPI_PROC_NULL ? HOLE : val(0, 0, 5, i);
    }
    MPI_OK(MPI_Bcast_c(buf, n, MPI_INT, root, X.ic));
    cmp(buf, exp, 4, "MPI_Bcast_c");
    /* Allgatherv_c with uneven counts */
    MPI_Count *cnt = mt_malloc(sizeof(MPI_Count) * (size_t)q);
    MPI_Aint *dsp = mt_malloc(sizeof(MPI_Aint) * (size_t)q);
    int ic[64], id[64];
    long span = vlayout(q, 2, 1, ic, id);
    for (int j = 0; j < q; j++)
        cnt[j] = ic[j], dsp[j] = id[j];
    int c2[64], d2[64];
    vlayout(X.size, 2, 1, c2, d2);
    int *sb = ialloc((size_t)c2[X.rank]), *rb = ialloc((size_t)span), *ex = ialloc((size_t)span);
    put(sb, &lays[T_INT], 0, c2[X.rank], X.g, X.rank, 6);
    for (int j = 0; j < q; j++)
        put(ex, &lays[T_INT], id[j], ic[j], 1 - X.g, j, 6);
    MPI_OK(MPI_Allgatherv_c(sb, c2[X.rank], MPI_INT, rb, cnt, dsp, MPI_INT, X.ic));
    cmp(rb, ex, (size_t)span, "MPI_Allgatherv_c");
    /* Iallreduce_c, Reduce_init_c */
    int in[3], out[3], ex3[3];
    red_in(R_INT, in, 3, X.g, X.rank, 7);
    red_expect(R_INT, ex3, 0, 3, 1 - X.g, X.rsize, 7);
    MPI_Request req;
    MPI_OK(MPI_Iallreduce_c(in, out, 3, MPI_INT, MPI_SUM, X.ic, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    cmp(out, ex3, 3, "MPI_Iallreduce_c");
    root = root_arg(1, 0);
    for (int i = 0; i < 3; i++)
        out[i] = ex3[i] = HOLE;
    if (root == MPI_ROOT)
        red_expect(R_INT, ex3, 0, 3, 1 - X.g, X.rsize, 7);
    MPI_OK(MPI_Reduce_init_c(in, out, 3, MPI_INT, MPI_SUM, root, X.ic, MPI_INFO_NULL, &req));
    MPI_OK(MPI_Start(&req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Request_free(&req));
    cmp(out, ex3, 3, "MPI_Reduce_init_c");
    t_alltoallw(MB, 2, 1);
    free(cnt);
    free(dsp);
    free(sb);
    free(rb);
    free(ex);
}

/* ---- Outstanding at once: on the intercommunicator, a duplicate of it and the local groups,
 * completed in reverse, with a blocking collective on the intercommunicator in between ---- */
static void overlap(MPI_Comm local)
{
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(X.ic, &dup));
    enum { N = 6 };
    MPI_Request reqs[N];
    int a[4], b[4], c[4], d[4], e = 0, lsum = 0, bl[64];
    int ea[4], eb[4], ec[4], ed[4];
    snprintf(what, sizeof what, "outstanding at once");
    int in[4];
    red_in(R_INT, in, 4, X.g, X.rank, 3);
    int root = root_arg(1, X.g == 1 ? X.size - 1 : X.rsize - 1);
    for (int i = 0; i < 4; i++) {
        b[i] = root == MPI_ROOT ? val(1, 9, 4, i) : HOLE;
        eb[i] = root == MPI_PROC_NULL ? HOLE : val(1, 9, 4, i);
    }
    MPI_OK(MPI_Iallreduce(in, a, 4, MPI_INT, MPI_SUM, X.ic, &reqs[0]));
    MPI_OK(MPI_Ibcast(b, 4, MPI_INT, root, X.ic, &reqs[1]));
    MPI_OK(MPI_Iallreduce(in, c, 4, MPI_INT, MPI_MAX, dup, &reqs[2]));
    MPI_OK(MPI_Iallreduce(&X.rank, &lsum, 1, MPI_INT, MPI_SUM, local, &reqs[3]));
    MPI_OK(MPI_Ibarrier(X.ic, &reqs[4]));
    MPI_OK(MPI_Iallreduce(in, d, 4, MPI_INT, MPI_MIN, X.ic, &reqs[5]));
    /* a blocking one meanwhile, on both communicators */
    int one = 1;
    MPI_OK(MPI_Allreduce(&one, &e, 1, MPI_INT, MPI_SUM, X.ic));
    MPI_OK(MPI_Allgather(&X.g, 1, MPI_INT, bl, 1, MPI_INT, dup));
    for (int i = N - 1; i >= 0; i--)
        MPI_OK(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
    red_expect(R_INT, ea, 0, 4, 1 - X.g, X.rsize, 3);
    for (int i = 0; i < 4; i++) {
        int mx = -1, mn = 1 << 30;
        for (int w = 0; w < X.rsize; w++) {
            int v = val(1 - X.g, w, 3, 2 * i);
            mx = v > mx ? v : mx;
            mn = v < mn ? v : mn;
        }
        ec[i] = mx;
        ed[i] = mn;
    }
    cmp(a, ea, 4, "Iallreduce(SUM)");
    cmp(b, eb, 4, "Ibcast");
    cmp(c, ec, 4, "Iallreduce(MAX) on a duplicate");
    cmp(d, ed, 4, "Iallreduce(MIN)");
    CHECK(lsum == X.size * (X.size - 1) / 2, "Iallreduce on the local group: %d", lsum);
    CHECK(e == X.rsize, "blocking Allreduce in between: %d, expected %d", e, X.rsize);
    CHECK(bl[0] == 1 - X.g && (X.rsize < 2 || bl[1] == 1 - X.g),
          "blocking Allgather on the duplicate: %d", bl[0]);
    MPI_OK(MPI_Comm_free(&dup));
}

/* ---- MPI_Comm_idup of an intercommunicator, between nonblocking collectives on it; twice at
 * once, completed in reverse; the copies work for collectives and point-to-point ---- */
static void idup(void)
{
    MPI_Comm d[2];
    MPI_Request r[4];
    int in = X.rank + 1, s1 = 0, s2 = 0, flag = 0, rs = 0, rk = -1, sz = 0;
    snprintf(what, sizeof what, "MPI_Comm_idup");
    MPI_OK(MPI_Iallreduce(&in, &s1, 1, MPI_INT, MPI_SUM, X.ic, &r[0]));
    MPI_OK(MPI_Comm_idup(X.ic, &d[0], &r[1]));
    MPI_OK(MPI_Comm_idup_with_info(X.ic, MPI_INFO_NULL, &d[1], &r[2]));
    MPI_OK(MPI_Iallreduce(&in, &s2, 1, MPI_INT, MPI_SUM, X.ic, &r[3]));
    for (int i = 3; i >= 0; i--)
        MPI_OK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
    int expect = X.rsize * (X.rsize + 1) / 2;
    CHECK(s1 == expect && s2 == expect, "Iallreduce around MPI_Comm_idup: %d %d, expected %d", s1,
          s2, expect);
    for (int i = 0; i < 2; i++) {
        MPI_OK(MPI_Comm_test_inter(d[i], &flag));
        MPI_OK(MPI_Comm_remote_size(d[i], &rs));
        MPI_OK(MPI_Comm_rank(d[i], &rk));
        MPI_OK(MPI_Comm_size(d[i], &sz));
        CHECK(flag && rs == X.rsize && rk == X.rank && sz == X.size,
              "idup %d: inter %d remote size %d rank %d size %d", i, flag, rs, rk, sz);
        int sum = 0, got = -1;
        MPI_OK(MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, d[i]));
        CHECK(sum == expect, "Allreduce on idup %d: %d, expected %d", i, sum, expect);
        /* point-to-point with the counterpart of the same local rank, if the other group has it */
        if (X.rank < X.rsize) {
            MPI_OK(MPI_Sendrecv(&X.g, 1, MPI_INT, X.rank, 3, &got, 1, MPI_INT, X.rank, 3, d[i],
                                MPI_STATUS_IGNORE));
            CHECK(got == 1 - X.g, "Sendrecv on idup %d: %d", i, got);
        }
        /* what the other group's surplus members send is received by local rank 0 */
        if (X.rank == 0)
            for (int j = X.size; j < X.rsize; j++) {
                MPI_OK(MPI_Recv(&got, 1, MPI_INT, j, 4, d[i], MPI_STATUS_IGNORE));
                CHECK(got == 1 - X.g, "Recv on idup %d from %d: %d", i, j, got);
            }
        if (X.rank >= X.rsize)
            MPI_OK(MPI_Send(&X.g, 1, MPI_INT, 0, 4, d[i]));
        MPI_OK(MPI_Comm_free(&d[i]));
    }
}

/* ---- Errors: every process of both groups makes the same erroneous call, so none waits ---- */
static void errors(void)
{
    int sb[8] = {0}, rb[64] = {0}, cnt[64], dsp[64];
    MPI_Request req = MPI_REQUEST_NULL;
    int q = X.rsize;
    for (int j = 0; j < 64; j++)
        cnt[j] = 1, dsp[j] = j;
    snprintf(what, sizeof what, "errors");
    /* MPI_IN_PLACE */
    CHECK_CLASS(MPI_Allreduce(MPI_IN_PLACE, rb, 1, MPI_INT, MPI_SUM, X.ic), MPI_ERR_BUFFER,
                "MPI_Allreduce(MPI_IN_PLACE) on an intercommunicator");
    CHECK_CLASS(MPI_Iallreduce(MPI_IN_PLACE, rb, 1, MPI_INT, MPI_SUM, X.ic, &req), MPI_ERR_BUFFER,
                "MPI_Iallreduce(MPI_IN_PLACE) on an intercommunicator");
    CHECK_CLASS(
        MPI_Allreduce_init(MPI_IN_PLACE, rb, 1, MPI_INT, MPI_SUM, X.ic, MPI_INFO_NULL, &req),
        MPI_ERR_BUFFER, "MPI_Allreduce_init(MPI_IN_PLACE) on an intercommunicator");
    /* Known deviation, MPICH 4.0: MPI_Allgather with MPI_IN_PLACE on an intercommunicator
     * returns MPI_SUCCESS; MPI_Iallgatherv and MPI_Alltoall with it crash. */
    if (!mt_is_mpich40()) {
        CHECK_CLASS(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, rb, 1, MPI_INT, X.ic), MPI_ERR_BUFFER,
                    "MPI_Allgather(MPI_IN_PLACE) on an intercommunicator");
        CHECK_CLASS(MPI_Iallgatherv(MPI_IN_PLACE, 1, MPI_INT, rb, cnt, dsp, MPI_INT, X.ic, &req),
                    MPI_ERR_BUFFER, "MPI_Iallgatherv(MPI_IN_PLACE) on an intercommunicator");
        CHECK_CLASS(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, rb, 1, MPI_INT, X.ic), MPI_ERR_BUFFER,
                    "MPI_Alltoall(MPI_IN_PLACE) on an intercommunicator");
    }
    CHECK_CLASS(MPI_Reduce_scatter_block(MPI_IN_PLACE, rb, 1, MPI_INT, MPI_SUM, X.ic),
                MPI_ERR_BUFFER, "MPI_Reduce_scatter_block(MPI_IN_PLACE) on an intercommunicator");
    /* rooted: the other group passes MPI_IN_PLACE; the root's group all pass MPI_PROC_NULL
     * (so nobody waits for the erroneous ones) */
    if (X.g == 0) {
        MPI_OK(MPI_Gather(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_PROC_NULL, X.ic));
        MPI_OK(MPI_Reduce(sb, rb, 1, MPI_INT, MPI_SUM, MPI_PROC_NULL, X.ic));
        MPI_OK(MPI_Scatter(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_PROC_NULL, X.ic));
    } else {
        CHECK_CLASS(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, rb, 1, MPI_INT, 0, X.ic), MPI_ERR_BUFFER,
                    "MPI_Gather(MPI_IN_PLACE) in the sending group");
        CHECK_CLASS(MPI_Reduce(MPI_IN_PLACE, rb, 1, MPI_INT, MPI_SUM, 0, X.ic), MPI_ERR_BUFFER,
                    "MPI_Reduce(MPI_IN_PLACE) in the sending group");
        CHECK_CLASS(MPI_Scatter(sb, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, X.ic), MPI_ERR_BUFFER,
                    "MPI_Scatter(recvbuf MPI_IN_PLACE) in the receiving group");
    }
    /* Scan and Exscan are not defined on intercommunicators */
    CHECK_CLASS(MPI_Scan(sb, rb, 1, MPI_INT, MPI_SUM, X.ic), MPI_ERR_COMM,
                "MPI_Scan on an intercommunicator");
    CHECK_CLASS(MPI_Exscan(sb, rb, 1, MPI_INT, MPI_SUM, X.ic), MPI_ERR_COMM,
                "MPI_Exscan on an intercommunicator");
    CHECK_CLASS(MPI_Iscan(sb, rb, 1, MPI_INT, MPI_SUM, X.ic, &req), MPI_ERR_COMM,
                "MPI_Iscan on an intercommunicator");
    CHECK_CLASS(MPI_Iexscan(sb, rb, 1, MPI_INT, MPI_SUM, X.ic, &req), MPI_ERR_COMM,
                "MPI_Iexscan on an intercommunicator");
    /* Known deviation, MPICH 4.0: MPI_Scan_init and MPI_Exscan_init on an intercommunicator
     * abort with an internal error. */
    if (!mt_is_mpich40()) {
        CHECK_CLASS(MPI_Scan_init(sb, rb, 1, MPI_INT, MPI_SUM, X.ic, MPI_INFO_NULL, &req),
                    MPI_ERR_COMM, "MPI_Scan_init on an intercommunicator");
        CHECK_CLASS(MPI_Exscan_init(sb, rb, 1, MPI_INT, MPI_SUM, X.ic, MPI_INFO_NULL, &req),
                    MPI_ERR_COMM, "MPI_Exscan_init on an intercommunicator");
    }
    /* a root that is no rank of the remote group, nor MPI_ROOT or MPI_PROC_NULL */
    CHECK_CLASS(MPI_Bcast(sb, 1, MPI_INT, q, X.ic), MPI_ERR_ROOT,
                "MPI_Bcast with root = remote size");
    CHECK_CLASS(MPI_Ireduce(sb, rb, 1, MPI_INT, MPI_SUM, -7, X.ic, &req), MPI_ERR_ROOT,
                "MPI_Ireduce with root -7");
    CHECK_CLASS(MPI_Gather_init(sb, 1, MPI_INT, rb, 1, MPI_INT, q + 3, X.ic, MPI_INFO_NULL, &req),
                MPI_ERR_ROOT, "MPI_Gather_init with root beyond the remote group");
    /* still usable afterwards */
    int one = 1, sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, X.ic));
    CHECK(sum == q, "Allreduce after the errors: %d, expected %d", sum, q);
}

/* The intercommunicator between this process's group g (split from world) and the other. */
static void make(int g, const char *name, int remote_leader_world, MPI_Comm *local)
{
    X.g = g;
    X.name = name;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, g, mt_rank, local));
    MPI_Comm_rank(*local, &X.rank);
    MPI_Comm_size(*local, &X.size);
    /* the local leader is the group's last member: collectives must not depend on it */
    MPI_OK(
        MPI_Intercomm_create(*local, X.size - 1, MPI_COMM_WORLD, remote_leader_world, 77, &X.ic));
    MPI_OK(MPI_Comm_set_errhandler(X.ic, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_remote_size(X.ic, &X.rsize));
}

int main(int argc, char **argv)
{
    /* FY_TEST_THREAD_LEVEL=multiple: the same under MPI_THREAD_MULTIPLE (the library lock, and
     * per-call scratch in the collectives). */
    const char *level = getenv("FY_TEST_THREAD_LEVEL");
    int want = level && strcmp(level, "multiple") == 0 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
    int provided;
    MPI_Init_thread(&argc, &argv, want, &provided);
    mt_setup();
    if (mt_size < 2) {
        printf("No Errors\n"); /* needs two groups */
        MPI_Finalize();
        return 0;
    }
    MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &lays[T_VEC].t));
    MPI_OK(MPI_Type_commit(&lays[T_VEC].t));
    lays[T_VEC] = (lay_t){lays[T_VEC].t, 2, 4, {0, 3}, "vector(2,1,3)"};
    lays[T_INT] = (lay_t){MPI_INT, 1, 1, {0, 0}, "int"};
    MPI_OK(MPI_Type_contiguous(2, MPI_UNSIGNED, &aff_t));
    MPI_OK(MPI_Type_commit(&aff_t));
    MPI_OK(MPI_Op_create(vsum_fn, 1, &vsum_op));
    MPI_OK(MPI_Op_create(affine_fn, 0, &aff_op));

    const char *splits = getenv("FY_TEST_INTER_SPLITS");
    /* Known deviation, MPICH 4.0: at splits other than 1 + n and n + 1, nonblocking Bcast from a
     * root other than rank 0 of its group delivers nothing (2 + 3, n = 7 ints), and a later
     * nonblocking collective fails an assertion (mpir_localproc.c: r < remote_size); there the
     * every-split mode runs the blocking forms only. */
    int split_modes = mt_is_mpich40() ? 1 : NMODES;
    if (splits && strcmp(splits, "all") == 0) {
        for (int low = 1; low < mt_size; low++) {
            MPI_Comm local;
            char name[64];
            snprintf(name, sizeof name, "%d + %d", low, mt_size - low);
            int g = mt_rank < low ? 0 : 1;
            make(g, name, g == 0 ? mt_size - 1 : low - 1, &local);
            for (int m = 0; m < split_modes; m++)
                all_collectives(m);
            MPI_OK(MPI_Comm_free(&X.ic));
            MPI_OK(MPI_Comm_free(&local));
        }
        if (mt_size > 2) { /* even against odd world ranks */
            MPI_Comm local;
            /* the remote leader: the other group's last member */
            int last_even = (mt_size - 1) % 2 == 0 ? mt_size - 1 : mt_size - 2;
            int last_odd = (mt_size - 1) % 2 == 1 ? mt_size - 1 : mt_size - 2;
            make(mt_rank % 2, "even vs odd", mt_rank % 2 == 0 ? last_odd : last_even, &local);
            for (int m = 0; m < split_modes; m++)
                all_collectives(m);
            MPI_OK(MPI_Comm_free(&X.ic));
            MPI_OK(MPI_Comm_free(&local));
        }
        for (int low = 1; low < mt_size; low++) { /* splits of an intercommunicator */
            MPI_Comm local, parent;
            int g = mt_rank < low ? 0 : 1;
            make(g, "parent", g == 0 ? mt_size - 1 : low - 1, &local);
            parent = X.ic;
            /* two colors: local ranks 0..1 and the rest (each kept only where the other group
             * has it too), keys reversing the order */
            int color = X.rank < 2 ? 0 : 1, both = color == 0 || X.rsize > 2;
            MPI_OK(MPI_Comm_split(parent, color, -X.rank, &X.ic));
            CHECK((X.ic != MPI_COMM_NULL) == both, "split of %d + %d: got %s for color %d", low,
                  mt_size - low, X.ic == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator",
                  color);
            if (X.ic != MPI_COMM_NULL) {
                char name[64];
                snprintf(name, sizeof name, "split of %d + %d, color %d", low, mt_size - low,
                         color);
                X.name = name;
                MPI_Comm_rank(X.ic, &X.rank);
                MPI_Comm_size(X.ic, &X.size);
                MPI_Comm_remote_size(X.ic, &X.rsize);
                MPI_OK(MPI_Comm_set_errhandler(X.ic, MPI_ERRORS_RETURN));
                for (int m = 0; m < split_modes; m++)
                    all_collectives(m);
                MPI_OK(MPI_Comm_free(&X.ic));
            }
            MPI_OK(MPI_Comm_free(&parent));
            MPI_OK(MPI_Comm_free(&local));
        }
    }
    for (int config = 0; config < 2 && !splits; config++) {
        MPI_Comm local;
        if (config == 0) { /* the low third (at least one) against the rest */
            int low = mt_size / 3 > 0 ? mt_size / 3 : 1;
            int g = mt_rank < low ? 0 : 1;
            /* the remote leader (the other group's last member) by world rank */
            make(g, "low third vs rest", g == 0 ? mt_size - 1 : low - 1, &local);
        } else { /* the last rank alone against the rest */
            int g = mt_rank == mt_size - 1 ? 0 : 1;
            make(g, "last rank vs rest", g == 0 ? mt_size - 2 : mt_size - 1, &local);
        }
        for (int m = 0; m < NMODES; m++)
            all_collectives(m);
        large_count_forms();
        overlap(local);
        idup();
        errors();
        MPI_OK(MPI_Comm_free(&X.ic));
        MPI_OK(MPI_Comm_free(&local));
    }
    MPI_OK(MPI_Type_free(&lays[T_VEC].t));
    MPI_OK(MPI_Type_free(&aff_t));
    MPI_OK(MPI_Op_free(&vsum_op));
    MPI_OK(MPI_Op_free(&aff_op));
    return mt_finish();
}
