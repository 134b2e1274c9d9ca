/* Cases shared by coll_nb.c and coll_persist.c: every collective run in a given mode
 * (nonblocking MPI_I..., or persistent ..._init started several times) on one copy of its
 * buffers, and as the blocking collective on an identical copy; the two results must be equal
 * byte for byte (holes of derived types included: both start from the same contents).
 *
 * Datatypes: MPI_INT, MPI_DOUBLE (small integer values, so sums are exact in any order), a
 * derived vector with holes (2 ints, stride 3, reduced by a commutative user sum), and a pair of
 * unsigned ints combined by a user operator that is not commutative (composition of affine maps x
 * -> m x + c, modulo 2^32), so a wrong order of combination shows. Counts 0, 1, odd and large (past
 * the eager limit); MPI_IN_PLACE wherever the standard allows it; v-forms with uneven counts and
 * gaps; Alltoallw with a different (signature-compatible) type per block. */
#ifndef COLL_CASES_H
#define COLL_CASES_H

#include "mpitest.h"
#include "coll_ops.h"

enum { M_NB, M_PERSIST };
static int cc_mode;   /* M_NB or M_PERSIST */
static int cc_starts; /* how often a persistent request is started (new data each time) */
static MPI_Comm cc_comm;
static int cc_rank, cc_size;

typedef struct {
    const char *name;
    MPI_Datatype type;
    int is_double;  /* the buffer holds doubles, else 4-byte ints */
    MPI_Aint ext;   /* extent in bytes */
    int int_family; /* made of ints (signature-compatible with MPI_INT) */
    MPI_Op op;      /* for the reductions */
} ty_t;

enum { T_INT, T_DOUBLE, T_VEC, T_AFFINE, NTYPES };
static ty_t cc_types[NTYPES];
static MPI_Datatype cc_vec;

static void cc_setup(MPI_Comm comm)
{
    cc_comm = comm;
    MPI_Comm_rank(comm, &cc_rank);
    MPI_Comm_size(comm, &cc_size);
    static int done;
    if (done)
        return;
    done = 1;
    MPI_Datatype pair;
    MPI_Op affine, vsum;
    MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &cc_vec));
    MPI_OK(MPI_Type_commit(&cc_vec));
    MPI_OK(MPI_Type_contiguous(2, MPI_UNSIGNED, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    MPI_OK(MPI_Op_create(affine_fn, 0, &affine));
    MPI_OK(MPI_Op_create(vsum_fn, 1, &vsum));
    cc_types[T_INT] = (ty_t){"int", MPI_INT, 0, 4, 1, MPI_SUM};
    cc_types[T_DOUBLE] = (ty_t){"double", MPI_DOUBLE, 1, 8, 0, MPI_SUM};
    cc_types[T_VEC] = (ty_t){"vector", cc_vec, 0, 16, 1, vsum};
    cc_types[T_AFFINE] = (ty_t){"affine", pair, 0, 8, 0, affine};
}

/* ---- buffers: two copies (blocking, other mode) of each, filled alike ---- */
typedef struct {
    char *a, *b;
    size_t bytes;
} pair_t;

static pair_t cc_alloc(const ty_t *t, size_t nelem)
{
    pair_t p;
    p.bytes = nelem * (size_t)t->ext + 16;
    p.a = mt_malloc(p.bytes);
    p.b = mt_malloc(p.bytes);
    return p;
}

static void cc_free(pair_t *p)
{
    free(p->a);
    free(p->b);
}

/* Small values that depend on the rank, the position and the seed. */
static void cc_fill(const ty_t *t, pair_t *p, unsigned seed)
{
    if (t->is_double) {
        double *x = (double *)p->a;
        for (size_t i = 0; i < p->bytes / 8; i++)
            x[i] = (double)((seed * 7 + (unsigned)cc_rank * 13 + i * 3) % 101);
    } else {
        int *x = (int *)p->a;
        for (size_t i = 0; i < p->bytes / 4; i++)
            x[i] = (int)((seed * 7 + (unsigned)cc_rank * 13 + i * 5) % 97);
    }
    memcpy(p->b, p->a, p->bytes);
}

static void cc_same(const pair_t *p, const char *what, const ty_t *t, int n, int inplace, int start)
{
    if (memcmp(p->a, p->b, p->bytes) != 0) {
        size_t i = 0;
        while (p->a[i] == p->b[i])
            i++;
        mt_fail(__FILE__, __LINE__,
                "%s type %s count %d%s start %d (comm size %d): byte %zu of %zu differs from the "
                "blocking result",
                what, t->name, n, inplace ? " in place" : "", start, cc_size, i, p->bytes);
    }
}

/* Starts the mode's form (`go` issues the nonblocking call or, at the first start, the
 * persistent init), then waits. */
#define CC_RUN(k, req, go_nb, go_init)                                                             \
    do {                                                                                           \
        if (cc_mode == M_NB) {                                                                     \
            MPI_OK(go_nb);                                                                         \
        } else {                                                                                   \
            if ((k) == 0)                                                                          \
                MPI_OK(go_init);                                                                   \
            MPI_OK(MPI_Start(&(req)));                                                             \
        }                                                                                          \
        MPI_OK(MPI_Wait(&(req), MPI_STATUS_IGNORE));                                               \
    } while (0)

static void cc_done(MPI_Request *req)
{
    if (cc_mode == M_PERSIST) {
        CHECK(*req != MPI_REQUEST_NULL, "MPI_Wait freed a persistent collective request");
        /* Known deviation, MPICH 4.0: freeing a persistent Allgather on a derived datatype fails
         * an assertion on the type's reference count; the requests are left there. */
        if (!mt_is_mpich40())
            MPI_OK(MPI_Request_free(req));
    } else {
        CHECK(*req == MPI_REQUEST_NULL, "MPI_Wait left a nonblocking collective request");
    }
}

static int cc_rounds(void)
{
    return cc_mode == M_NB ? 1 : cc_starts;
}

/* ---- the cases ---- */
static void cc_bcast(const ty_t *t, int n, int root)
{
    pair_t b = cc_alloc(t, (size_t)n);
    MPI_Request req = MPI_REQUEST_NULL;
    for (int k = 0; k < cc_rounds(); k++) {
        cc_fill(t, &b, 100u + (unsigned)k);
        MPI_OK(MPI_Bcast(b.a, n, t->type, root, cc_comm));
        CC_RUN(k, req, MPI_Ibcast(b.b, n, t->type, root, cc_comm, &req),
               MPI_Bcast_init(b.b, n, t->type, root, cc_comm, MPI_INFO_NULL, &req));
        cc_same(&b, "Bcast", t, n, 0, k);
    }
    cc_done(&req);
    cc_free(&b);
}

static void cc_reduce(const ty_t *t, int n, int root, int inplace)
{
    /* Known deviation, MPICH 4.0: MPI_Reduce with MPI_IN_PLACE at a root other than 0 crashes
     * for a few thousand elements (as in coll_inplace.c). */
    if (inplace && root != 0 && n > 1000 && mt_is_mpich40())
        return;
    pair_t s = cc_alloc(t, (size_t)n), r = cc_alloc(t, (size_t)n);
    MPI_Request req = MPI_REQUEST_NULL;
    int ip = inplace && cc_rank == root;
    for (int k = 0; k < cc_rounds(); k++) {
        cc_fill(t, &s, 200u + (unsigned)k);
        cc_fill(t, &r, 300u + (unsigned)k);
        if (ip) /* the root's input is in the receive buffer */
            cc_fill(t, &r, 200u + (unsigned)k);
        MPI_OK(MPI_Reduce(ip ? MPI_IN_PLACE : s.a, r.a, n, t->type, t->op, root, cc_comm));
        const void *sb = ip ? MPI_IN_PLACE : s.b;
        CC_RUN(k, req, MPI_Ireduce(sb, r.b, n, t->type, t->op, root, cc_comm, &req),
               MPI_Reduce_init(sb, r.b, n, t->type, t->op, root, cc_comm, MPI_INFO_NULL, &req));
        if (cc_rank == root)
            cc_same(&r, "Reduce", t, n, inplace, k);
    }
    cc_done(&req);
    cc_free(&s);
    cc_free(&r);
}

static void cc_allreduce(const ty_t *t, int n, int inplace)
{
    pair_t s = cc_alloc(t, (size_t)n), r = cc_alloc(t, (size_t)n);
    MPI_Request req = MPI_REQUEST_NULL;
    for (int k = 0; k < cc_rounds(); k++) {
        cc_fill(t, &s, 400u + (unsigned)k);
        cc_fill(t, &r, inplace ? 400u + (unsigned)k : 500u);
        MPI_OK(MPI_Allreduce(inplace ? MPI_IN_PLACE : s.a, r.a, n, t->type, t->op, cc_comm));
        const void *sb = inplace ? MPI_IN_PLACE : s.b;
        CC_RUN(k, req, MPI_Iallreduce(sb, r.b, n, t->type, t->op, cc_comm, &req),
               MPI_Allreduce_init(sb, r.b, n, t->type, t->op, cc_comm, MPI_INFO_NULL, &req));
        cc_same(&r, "Allreduce", t, n, inplace, k);
    }
    cc_done(&req);
    cc_free(&s);
    cc_free(&r);
}

static void cc_scan(const ty_t *t, int n, int inplace, int exclusive)
{
    pair_t s = cc_alloc(t, (size_t)n), r = cc_alloc(t, (size_t)n);
    MPI_Request req = MPI_REQUEST_NULL;
    const char *what = exclusive ? "Exscan" : "Scan";
    for (int k = 0; k < cc_rounds(); k++) {
        cc_fill(t, &s, 600u + (unsigned)k);
        cc_fill(t, &r, inplace ? 600u + (unsigned)k : 700u);
        const void *sa = inplace ? MPI_IN_PLACE : s.a, *sb = inplace ? MPI_IN_PLACE : s.b;
        if (exclusive) {
            MPI_OK(MPI_Exscan(sa, r.a, n, t->type, t->op, cc_comm));
            CC_RUN(k, req, MPI_Iexscan(sb, r.b, n, t->type, t->op, cc_comm, &req),
                   MPI_Exscan_init(sb, r.b, n, t->type, t->op, cc_comm, MPI_INFO_NULL, &req));
        } else {
            MPI_OK(MPI_Scan(sa, r.a, n, t->type, t->op, cc_comm));
            CC_RUN(k, req, MPI_Iscan(sb, r.b, n, t->type, t->op, cc_comm, &req),
                   MPI_Scan_init(sb, r.b, n, t->type, t->op, cc_comm, MPI_INFO_NULL, &req));
        }
        if (!exclusive || cc_rank > 0) /* rank 0's Exscan result is undefined */
            cc_same(&r, what, t, n, inplace, k);
    }
    cc_done(&req);
    cc_free(&s);
    cc_free(&r);
}

/* Uneven counts for the v-forms: block i holds vcount(n, i) elements (0 when n is 0). */
static int vcount(int n, int i)
{
    return n ? n + i % 3 : 0;
}

/* Displacements (in elements) with a gap of one element after each block; returns the total. */
static int vdispls(int n, int *counts, int *displs)
{
    int at = 0;
    for (int i = 0; i < cc_size; i++) {
        counts[i] = vcount(n, i);
        displs[i] = at;
        at += counts[i] + 1;
    }
    return at;
}

/* Known deviation, MPICH 4.0: a persistent Gather, Scatter or Allgather (not the v forms)
 * started again delivers the data of the first start (Gather, Allgather at 2 ranks) or fails
 * with "Invalid communicator" (Scatter, 3 ranks). */
static int cc_mpich_persist_bug(int v)
{
    return cc_mode == M_PERSIST && !v && mt_is_mpich40();
}

static void cc_gather(const ty_t *t, int n, int root, int inplace, int v)
{
    if (cc_mpich_persist_bug(v))
        return;
    int p = cc_size, me = cc_rank, *counts = mt_malloc(sizeof(int) * (size_t)p),
        *displs = mt_malloc(sizeof(int) * (size_t)p);
    int total = vdispls(n, counts, displs);
    int mine = v ? counts[me] : n;
    pair_t s = cc_alloc(t, (size_t)mine), r = cc_alloc(t, (size_t)(v ? total : n * p));
    MPI_Request req = MPI_REQUEST_NULL;
    int ip = inplace && me == root;
    const char *what = v ? "Gatherv" : "Gather";
    for (int k = 0; k < cc_rounds(); k++) {
        cc_fill(t, &s, 800u + (unsigned)k);
        cc_fill(t, &r, 900u + (unsigned)k);
        const void *sa = ip ? MPI_IN_PLACE : s.a, *sb = ip ? MPI_IN_PLACE : s.b;
        if (v) {
            MPI_OK(MPI_Gatherv(sa, mine, t->type, r.a, counts, displs, t->type, root, cc_comm));
            CC_RUN(
                k, req,
                MPI_Igatherv(sb, mine, t->type, r.b, counts, displs, t->type, root, cc_comm, &req),
                MPI_Gatherv_init(sb, mine, t->type, r.b, counts, displs, t->type, root, cc_comm,
                                 MPI_INFO_NULL, &req));
        } else {
            MPI_OK(MPI_Gather(sa, n, t->type, r.a, n, t->type, root, cc_comm));
            CC_RUN(k, req, MPI_Igather(sb, n, t->type, r.b, n, t->type, root, cc_comm, &req),
                   MPI_Gather_init(sb, n, t->type, r.b, n, t->type, root, cc_comm, MPI_INFO_NULL,
                                   &req));
        }
        if (me == root)
            cc_same(&r, what, t, n, inplace, k);
    }
    cc_done(&req);
    cc_free(&s);
    cc_free(&r);
    free(counts);
    free(displs);
}

static void cc_scatter(const ty_t *t, int n, int root, int inplace, int v)
{
    if (cc_mpich_persist_bug(v))
        return;
    int p = cc_size, me = cc_rank, *counts = mt_malloc(sizeof(int) * (size_t)p),
        *displs = mt_malloc(sizeof(int) * (size_t)p);
    int total = vdispls(n, counts, displs);
    int mine = v ? counts[me] : n;
    pair_t s = cc_alloc(t, (size_t)(v ? total : n * p)), r = cc_alloc(t, (size_t)mine);
    MPI_Request req = MPI_REQUEST_NULL;
    int ip = inplace && me == root;
    const char *what = v ? "Scatterv" : "Scatter";
    for (int k = 0; k < cc_rounds(); k++) {
        cc_fill(t, &s, 1000u + (unsigned)k);
        cc_fill(t, &r, 1100u + (unsigned)k);
        void *ra = ip ? MPI_IN_PLACE : r.a, *rb = ip ? MPI_IN_PLACE : r.b;
        if (v) {
            MPI_OK(MPI_Scatterv(s.a, counts, displs, t->type, ra, mine, t->type, root, cc_comm));
            CC_RUN(
                k, req,
                MPI_Iscatterv(s.b, counts, displs, t->type, rb, mine, t->type, root, cc_comm, &req),
                MPI_Scatterv_init(s.b, counts, displs, t->type, rb, mine, t->type, root, cc_comm,
                                  MPI_INFO_NULL, &req));
        } else {
            MPI_OK(MPI_Scatter(s.a, n, t->type, ra, n, t->type, root, cc_comm));
            CC_RUN(k, req, MPI_Iscatter(s.b, n, t->type, rb, n, t->type, root, cc_comm, &req),
                   MPI_Scatter_init(s.b, n, t->type, rb, n, t->type, root, cc_comm, MPI_INFO_NULL,
                                    &req));
        }
        cc_same(&r, what, t, n, inplace, k);
        cc_same(&s, what, t, n, inplace, k); /* the root's send buffer is left alone */
    }
    cc_done(&req);
    cc_free(&s);
    cc_free(&r);
    free(counts);
    free(displs);
}

static void cc_allgather(const ty_t *t, int n, int inplace, int v)
{
    if (cc_mpich_persist_bug(v))
        return;
    int p = cc_size, me = cc_rank, *counts = mt_malloc(sizeof(int) * (size_t)p),
        *displs = mt_malloc(sizeof(int) * (size_t)p);
    int total = vdispls(n, counts, displs);
    int mine = v ? counts[me] : n;
    pair_t s = cc_alloc(t, (size_t)mine), r = cc_alloc(t, (size_t)(v ? total : n * p));
    MPI_Request req = MPI_REQUEST_NULL;
    const char *what = v ? "Allgatherv" : "Allgather";
    for (int k = 0; k < cc_rounds(); k++) {
        cc_fill(t, &s, 1200u + (unsigned)k);
        cc_fill(t, &r, 1300u + (unsigned)k);
        const void *sa = inplace ? MPI_IN_PLACE : s.a, *sb = inplace ? MPI_IN_PLACE : s.b;
        if (v) {
            MPI_OK(MPI_Allgatherv(sa, mine, t->type, r.a, counts, displs, t->type, cc_comm));
            CC_RUN(k, req,
                   MPI_Iallgatherv(sb, mine, t->type, r.b, counts, displs, t->type, cc_comm, &req),
                   MPI_Allgatherv_init(sb, mine, t->type, r.b, counts, displs, t->type, cc_comm,
                                       MPI_INFO_NULL, &req));
        } else {
            MPI_OK(MPI_Allgather(sa, n, t->type, r.a, n, t->type, cc_comm));
            CC_RUN(
                k, req, MPI_Iallgather(sb, n, t->type, r.b, n, t->type, cc_comm, &req),
                MPI_Allgather_init(sb, n, t->type, r.b, n, t->type, cc_comm, MPI_INFO_NULL, &req));
        }
        cc_same(&r, what, t, n, inplace, k);
    }
    cc_done(&req);
    cc_free(&s);
    cc_free(&r);
    free(counts);
    free(displs);
}

/* Alltoallv counts: block from rank i to rank j; symmetric in place (each block goes back over
 * the one that came in). */
static int a2a_count(int n, int i, int j, int inplace)
{
    return n ? n + (inplace ? i + j : i + 2 * j) % 3 : 0;
}

static void cc_alltoall(const ty_t *t, int n, int inplace, int v)
{
    int p = cc_size, me = cc_rank;
    int *sc = mt_malloc(sizeof(int) * (size_t)p), *sd = mt_malloc(sizeof(int) * (size_t)p),
        *rc = mt_malloc(sizeof(int) * (size_t)p), *rd = mt_malloc(sizeof(int) * (size_t)p);
    int st = 0, rt = 0;
    for (int j = 0; j < p; j++) {
        sc[j] = v ? a2a_count(n, me, j, inplace) : n;
        rc[j] = v ? a2a_count(n, j, me, inplace) : n;
        sd[j] = st;
        rd[j] = rt;
        st += sc[j] + (v ? 1 : 0);
        rt += rc[j] + (v ? 1 : 0);
    }
    pair_t s = cc_alloc(t, (size_t)st), r = cc_alloc(t, (size_t)rt);
    MPI_Request req = MPI_REQUEST_NULL;
    const char *what = v ? "Alltoallv" : "Alltoall";
    for (int k = 0; k < cc_rounds(); k++) {
        cc_fill(t, &s, 1400u + (unsigned)k);
        cc_fill(t, &r, 1500u + (unsigned)k);
        const void *sa = inplace ? MPI_IN_PLACE : s.a, *sb = inplace ? MPI_IN_PLACE : s.b;
        if (v) {
            MPI_OK(MPI_Alltoallv(sa, sc, sd, t->type, r.a, rc, rd, t->type, cc_comm));
            CC_RUN(k, req, MPI_Ialltoallv(sb, sc, sd, t->type, r.b, rc, rd, t->type, cc_comm, &req),
                   MPI_Alltoallv_init(sb, sc, sd, t->type, r.b, rc, rd, t->type, cc_comm,
                                      MPI_INFO_NULL, &req));
        } else {
            MPI_OK(MPI_Alltoall(sa, n, t->type, r.a, n, t->type, cc_comm));
            CC_RUN(
                k, req, MPI_Ialltoall(sb, n, t->type, r.b, n, t->type, cc_comm, &req),
                MPI_Alltoall_init(sb, n, t->type, r.b, n, t->type, cc_comm, MPI_INFO_NULL, &req));
        }
        cc_same(&r, what, t, n, inplace, k);
    }
    cc_done(&req);
    cc_free(&s);
    cc_free(&r);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

/* Alltoallw over the int family: the block between ranks i and j travels as `vector` elements
 * when i + j is even and as twice as many ints otherwise (the same signature); byte
 * displacements with a gap of 16 bytes after each block. */
static void cc_alltoallw(int n, int inplace)
{
    int p = cc_size, me = cc_rank;
    /* Known deviation, MPICH 4.0: Ialltoallw and Alltoallw_init with MPI_IN_PLACE copy the blocks
     * with wrong counts (a truncation error, then memory corruption) when the types differ
     * between blocks. */
    if (inplace && p > 1 && mt_is_mpich40())
        return;
    int *sc = mt_malloc(sizeof(int) * (size_t)p), *sd = mt_malloc(sizeof(int) * (size_t)p),
        *rc = mt_malloc(sizeof(int) * (size_t)p), *rd = mt_malloc(sizeof(int) * (size_t)p);
    MPI_Datatype *stt = mt_malloc(sizeof(MPI_Datatype) * (size_t)p),
                 *rtt = mt_malloc(sizeof(MPI_Datatype) * (size_t)p);
    int sbytes = 0, rbytes = 0;
    for (int j = 0; j < p; j++) {
        int vec = (me + j) % 2 == 0;
        int ns = a2a_count(n, me, j, inplace), nr = a2a_count(n, j, me, inplace);
        stt[j] = rtt[j] = vec ? cc_vec : MPI_INT;
        sc[j] = vec ? ns : 2 * ns;
        rc[j] = vec ? nr : 2 * nr;
        sd[j] = sbytes;
        rd[j] = rbytes;
        sbytes += ns * 16 + 16;
        rbytes += nr * 16 + 16;
    }
    const ty_t *t = &cc_types[T_INT];
    pair_t s = cc_alloc(t, (size_t)sbytes / 4), r = cc_alloc(t, (size_t)rbytes / 4);
    MPI_Request req = MPI_REQUEST_NULL;
    for (int k = 0; k < cc_rounds(); k++) {
        cc_fill(t, &s, 1600u + (unsigned)k);
        cc_fill(t, &r, 1700u + (unsigned)k);
        const void *sa = inplace ? MPI_IN_PLACE : s.a, *sb = inplace ? MPI_IN_PLACE : s.b;
        MPI_OK(MPI_Alltoallw(sa, sc, sd, stt, r.a, rc, rd, rtt, cc_comm));
        CC_RUN(k, req, MPI_Ialltoallw(sb, sc, sd, stt, r.b, rc, rd, rtt, cc_comm, &req),
               MPI_Alltoallw_init(sb, sc, sd, stt, r.b, rc, rd, rtt, cc_comm, MPI_INFO_NULL, &req));
        cc_same(&r, "Alltoallw", t, n, inplace, k);
    }
    cc_done(&req);
    cc_free(&s);
    cc_free(&r);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(stt);
    free(rtt);
}

static void cc_reduce_scatter(const ty_t *t, int n, int inplace, int block)
{
    int p = cc_size, me = cc_rank, *counts = mt_malloc(sizeof(int) * (size_t)p), total = 0;
    for (int i = 0; i < p; i++)
        total += counts[i] = block ? n : vcount(n, i);
    pair_t s = cc_alloc(t, (size_t)total), r = cc_alloc(t, (size_t)(inplace ? total : counts[me]));
    MPI_Request req = MPI_REQUEST_NULL;
    const char *what = block ? "Reduce_scatter_block" : "Reduce_scatter";
    for (int k = 0; k < cc_rounds(); k++) {
        cc_fill(t, &s, 1800u + (unsigned)k);
        cc_fill(t, &r, inplace ? 1800u + (unsigned)k : 1900u);
        const void *sa = inplace ? MPI_IN_PLACE : s.a, *sb = inplace ? MPI_IN_PLACE : s.b;
        if (block) {
            MPI_OK(MPI_Reduce_scatter_block(sa, r.a, n, t->type, t->op, cc_comm));
            CC_RUN(k, req, MPI_Ireduce_scatter_block(sb, r.b, n, t->type, t->op, cc_comm, &req),
                   MPI_Reduce_scatter_block_init(sb, r.b, n, t->type, t->op, cc_comm, MPI_INFO_NULL,
                                                 &req));
        } else {
            MPI_OK(MPI_Reduce_scatter(sa, r.a, counts, t->type, t->op, cc_comm));
            CC_RUN(k, req, MPI_Ireduce_scatter(sb, r.b, counts, t->type, t->op, cc_comm, &req),
                   MPI_Reduce_scatter_init(sb, r.b, counts, t->type, t->op, cc_comm, MPI_INFO_NULL,
                                           &req));
        }
        if (inplace) { /* only our block of the result is defined */
            size_t own = (size_t)counts[me] * (size_t)t->ext;
            CHECK(memcmp(r.a, r.b, own) == 0, "%s type %s count %d in place: result differs", what,
                  t->name, n);
        } else {
            cc_same(&r, what, t, n, inplace, k);
        }
    }
    cc_done(&req);
    cc_free(&s);
    cc_free(&r);
    free(counts);
}

static void cc_barrier(void)
{
    MPI_Request req = MPI_REQUEST_NULL;
    for (int k = 0; k < cc_rounds(); k++)
        CC_RUN(k, req, MPI_Ibarrier(cc_comm, &req), MPI_Barrier_init(cc_comm, MPI_INFO_NULL, &req));
    cc_done(&req);
}

/* Every collective for one datatype and count, both roots at the ends, in place or not. */
static void cc_all(int ti, int n)
{
    const ty_t *t = &cc_types[ti];
    int last = cc_size - 1;
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int root = 0; root <= last; root += last > 0 ? last : 1) {
            if (!inplace)
                cc_bcast(t, n, root);
            cc_reduce(t, n, root, inplace);
            cc_gather(t, n, root, inplace, 0);
            cc_gather(t, n, root, inplace, 1);
            cc_scatter(t, n, root, inplace, 0);
            cc_scatter(t, n, root, inplace, 1);
        }
        cc_allreduce(t, n, inplace);
        cc_scan(t, n, inplace, 0);
        cc_scan(t, n, inplace, 1);
        cc_allgather(t, n, inplace, 0);
        cc_allgather(t, n, inplace, 1);
        cc_alltoall(t, n, inplace, 0);
        cc_alltoall(t, n, inplace, 1);
        if (ti == T_INT)
            cc_alltoallw(n, inplace);
        cc_reduce_scatter(t, n, inplace, 0);
        cc_reduce_scatter(t, n, inplace, 1);
    }
}

#endif
