/* Neighbourhood collectives (MPI 4.1 section 8.6): MPI_Neighbor_allgather, _allgatherv,
 * _alltoall, _alltoallv and _alltoallw, each blocking, nonblocking (MPI_Ineighbor_...) and
 * persistent (..._init, started three times with new data in between), each also in its
 * large-count (_c) form, on
 *   - a periodic 2-D Cartesian grid (MPI_Dims_create: 1x1, 2x1, 3x1, 2x2, 3x2, 4x2 - so
 *     dimensions of 1 and 2 processes, where both neighbours are the same process and block s
 *     of the sender must land in block s^1 of the receiver);
 *   - a non-periodic grid (MPI_PROC_NULL neighbours: their receive blocks stay untouched);
 *   - a graph (ring plus star: self loops and repeated edges on 1 and 2 processes);
 *   - distributed graphs made by MPI_Dist_graph_create_adjacent with repeated neighbours and a
 *     self edge (weighted and MPI_UNWEIGHTED), and by MPI_Dist_graph_create with weights, the
 *     edges given by other processes than their ends.
 * Every process gathers every process's neighbour lists (from MPI_Cart_shift,
 * MPI_Graph_neighbors, MPI_Dist_graph_neighbors) and computes from them which block of which
 * sender each of its receive blocks must hold (a neighbour listed k times: the k-th message
 * matches the k-th block). Receive buffers are filled with a sentinel first and compared whole
 * against the expected buffer, so holes of derived types, gaps between blocks and the blocks of
 * MPI_PROC_NULL neighbours must be left alone. The v and w forms use uneven counts (0
 * included), displacements out of order, and a vector type with holes on one side against
 * plain ints (or pairs) on the other. Alltoall also runs past the eager limit. Also: three of
 * them outstanding at once (persistent, nonblocking, blocking in between); MPI_ERR_TOPOLOGY on
 * a communicator without a topology; on Ferry, argument errors (MPI_IN_PLACE, negative counts,
 * a null type, a NULL request) that leave the communicator usable. */
#include "mpitest.h"

enum { MAXD = 8, REC = 2 + 2 * MAXD, SENT = -7 };
enum { AG, AGV, A2A, A2AV, A2AW };
enum { BLOCKING, NONBLOCKING, PERSISTENT };
enum { K_INT, K_VEC, K_PAIR }; /* block types: int; 2 ints at 0 and 2 (extent 3); 2 ints */

static const char *kind_name[] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
static const char *mode_name[] = {"blocking", "nonblocking", "persistent"};
static MPI_Datatype vec_t, pair_t;

static int ints_per(int k)
{
    return k == K_INT ? 1 : 2;
}
static int ext_ints(int k)
{
    return k == K_INT ? 1 : k == K_VEC ? 3 : 2;
}
static MPI_Datatype dtype(int k)
{
    return k == K_INT ? MPI_INT : k == K_VEC ? vec_t : pair_t;
}
/* Where data int d of a block lies, in ints from the block's start. */
static int pos(int k, int d)
{
    return k == K_VEC ? d / 2 * 3 + d % 2 * 2 : d;
}
static int span(int k, int count)
{
    return count == 0 ? 0 : k == K_VEC ? 3 * count - 1 : ints_per(k) * count;
}

/* The value of data int d of block j sent by rank q, in round `it`. */
static int val(int q, int j, int d, int it)
{
    return ((q * 32 + j) * 65536 + d) * 4 + it % 4;
}

/* ---- topologies and who sends what to whom ---- */

typedef struct {
    MPI_Comm comm;
    const char *name;
    int cart, rank, size;
    int indeg, outdeg, in[MAXD], out[MAXD];
    int repeated; /* some process is listed twice as a source */
    int *all;     /* every rank's record: indeg, outdeg, in[MAXD], out[MAXD] */
} topo_t;

static void topo_setup(topo_t *t, MPI_Comm comm, const char *name)
{
    int kind, w;
    t->comm = comm;
    t->name = name;
    MPI_Comm_rank(comm, &t->rank);
    MPI_Comm_size(comm, &t->size);
    MPI_OK(MPI_Topo_test(comm, &kind));
    t->cart = kind == MPI_CART;
    if (kind == MPI_CART) {
        int nd = 0;
        MPI_OK(MPI_Cartdim_get(comm, &nd));
        t->indeg = t->outdeg = 2 * nd;
        for (int d = 0; d < nd; d++)
            MPI_OK(MPI_Cart_shift(comm, d, 1, &t->in[2 * d], &t->in[2 * d + 1]));
        memcpy(t->out, t->in, sizeof t->in);
    } else if (kind == MPI_GRAPH) {
        MPI_OK(MPI_Graph_neighbors_count(comm, t->rank, &t->indeg));
        t->outdeg = t->indeg;
        MPI_OK(MPI_Graph_neighbors(comm, t->rank, MAXD, t->in));
        memcpy(t->out, t->in, sizeof t->in);
    } else {
        MPI_OK(MPI_Dist_graph_neighbors_count(comm, &t->indeg, &t->outdeg, &w));
        int sw[MAXD], dw[MAXD]; /* weights play no part in the collectives */
        MPI_OK(MPI_Dist_graph_neighbors(comm, MAXD, t->in, sw, MAXD, t->out, dw));
    }
    CHECK(t->indeg <= MAXD && t->outdeg <= MAXD, "%s: degrees %d/%d beyond the test's %d", name,
          t->indeg, t->outdeg, MAXD);
    t->repeated = 0;
    for (int i = 0; i < t->indeg; i++)
        for (int l = 0; l < i; l++)
            t->repeated |= t->in[i] != MPI_PROC_NULL && t->in[i] == t->in[l];
    int rec[REC] = {t->indeg, t->outdeg};
    memcpy(rec + 2, t->in, sizeof t->in);
    memcpy(rec + 2 + MAXD, t->out, sizeof t->out);
    t->all = mt_malloc(sizeof(int) * REC * (size_t)t->size);
    MPI_OK(MPI_Allgather(rec, REC, MPI_INT, t->all, REC, MPI_INT, comm));
}

/* The block of in-neighbour i's send buffer that receive block i must hold: -1 for
 * MPI_PROC_NULL. Cartesian: the opposite direction (i ^ 1). Otherwise: the k-th time this
 * process lists q as a source, it gets q's block for the k-th time q lists it as a
 * destination. */
static int src_block(const topo_t *t, int i)
{
    int q = t->in[i], k = 0;
    if (q == MPI_PROC_NULL)
        return -1;
    if (t->cart)
        return i ^ 1;
    for (int l = 0; l < i; l++)
        k += t->in[l] == q;
    const int *rq = t->all + (size_t)q * REC;
    for (int j = 0; j < rq[1]; j++)
        if (rq[2 + MAXD + j] == t->rank && k-- == 0)
            return j;
    CHECK(0, "%s: rank %d lists %d as a source more often than %d lists it as a destination",
          t->name, t->rank, q, q);
    return -1;
}

/* ---- one collective with its buffers and arguments ---- */

typedef struct {
    int base, kind, count; /* start (ints), block type, count of that type */
} blk_t;

typedef struct {
    int kind, nsend, nrecv;
    blk_t sblk[MAXD], rblk[MAXD];
    int *sbuf, *rbuf, *exp;
    size_t sints, rints;
    int scount, rcount; /* allgather(v), alltoall */
    MPI_Datatype stype, rtype;
    int sc[MAXD], rc[MAXD], sd[MAXD], rd[MAXD]; /* int forms */
    MPI_Count scc[MAXD], rcc[MAXD];             /* _c forms */
    MPI_Aint sda[MAXD], rda[MAXD];              /* _c v forms (extents), w forms (bytes) */
    MPI_Datatype sts[MAXD], rts[MAXD];          /* w forms */
} xcase_t;

/* Blocks in reverse order with a gap of one int before each, each aligned to its extent;
 * returns the buffer's length in ints. */
static size_t layout(blk_t *b, int n)
{
    int off = 1;
    for (int i = n - 1; i >= 0; i--) {
        int e = ext_ints(b[i].kind);
        off = (off + e - 1) / e * e;
        b[i].base = off;
        off += span(b[i].kind, b[i].count) + 1;
    }
    return (size_t)off + 1;
}

static void arrays(int n, const blk_t *b, int bytes, int *c, int *d, MPI_Count *cc, MPI_Aint *da,
                   MPI_Datatype *ts)
{
    for (int i = 0; i < n; i++) {
        c[i] = b[i].count;
        cc[i] = b[i].count;
        d[i] = b[i].base / ext_ints(b[i].kind);
        da[i] = bytes ? (MPI_Aint)b[i].base * (MPI_Aint)sizeof(int) : d[i];
        ts[i] = dtype(b[i].kind);
    }
}

/* Counts per kind: uniform ones use `count` ints. */
static int agv_count(int q)
{
    return q % 3; /* vectors sent by rank q in allgatherv (0, 1 or 2) */
}
static int a2av_count(int q, int j)
{
    return (q + 2 * j + 1) % 4; /* vectors received from block j of rank q in alltoallv */
}
static int a2aw_ints(int q, int j)
{
    return (q + j) % 3 * 2; /* ints in block j of rank q in alltoallw */
}

static void xcase_init(xcase_t *x, const topo_t *t, int kind, int count)
{
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->nsend = t->outdeg;
    x->nrecv = t->indeg;
    x->stype = x->rtype = MPI_INT;
    /* The allgathers send one block (read even without neighbours: keep it valid). */
    int nsblk = kind == AG || kind == AGV ? 1 : x->nsend;
    for (int j = 0; j < nsblk; j++) {
        blk_t *b = &x->sblk[j];
        switch (kind) {
        case AG: *b = (blk_t){0, K_INT, count}; break;
        case AGV: *b = (blk_t){0, K_VEC, agv_count(t->rank)}; break;
        case A2A: *b = (blk_t){j * count, K_INT, count}; break;
        case A2AV: *b = (blk_t){0, K_INT, 2 * a2av_count(t->rank, j)}; break;
        default: {
            int n = a2aw_ints(t->rank, j);
            *b = j % 2 ? (blk_t){0, K_PAIR, n / 2} : (blk_t){0, K_INT, n};
        }
        }
    }
    for (int i = 0; i < x->nrecv; i++) {
        blk_t *b = &x->rblk[i];
        int q = t->in[i], j = src_block(t, i), null = j < 0;
        switch (kind) {
        case AG:
        case A2A: *b = (blk_t){i * count, K_INT, count}; break;
        case AGV: *b = (blk_t){0, K_INT, null ? 2 : 2 * agv_count(q)}; break;
        case A2AV: *b = (blk_t){0, K_VEC, null ? 1 : a2av_count(q, j)}; break;
        default: {
            int n = null ? 2 : a2aw_ints(q, j);
            *b = i % 2 ? (blk_t){0, K_INT, n} : (blk_t){0, K_VEC, n / 2};
        }
        }
    }
    if (kind == AG || kind == A2A) {
        x->sints = (size_t)count * (kind == AG ? 1 : (size_t)x->nsend);
        x->rints = (size_t)count * (size_t)x->nrecv;
        x->scount = x->rcount = count;
    } else {
        int w = kind == A2AW;
        x->sints = kind == AGV ? (size_t)span(K_VEC, x->sblk[0].count) : layout(x->sblk, x->nsend);
        x->rints = layout(x->rblk, x->nrecv);
        arrays(x->nsend, x->sblk, w, x->sc, x->sd, x->scc, x->sda, x->sts);
        arrays(x->nrecv, x->rblk, w, x->rc, x->rd, x->rcc, x->rda, x->rts);
        if (kind == AGV) {
            x->stype = vec_t;
            x->scount = agv_count(t->rank);
        } else if (kind == A2AV) {
            x->rtype = vec_t;
        }
    }
    x->sbuf = mt_malloc(sizeof(int) * (x->sints + 1));
    x->rbuf = mt_malloc(sizeof(int) * (x->rints + 1));
    x->exp = mt_malloc(sizeof(int) * (x->rints + 1));
}

static void xcase_free(xcase_t *x)
{
    free(x->sbuf);
    free(x->rbuf);
    free(x->exp);
}

/* Send data for round `it`, a sentinel in the receive buffer, and what it must hold after. */
static void xcase_fill(xcase_t *x, const topo_t *t, int it)
{
    for (size_t k = 0; k < x->sints; k++)
        x->sbuf[k] = -1000 - (int)k; /* holes and gaps: must not travel */
    int nblocks = x->kind == AG || x->kind == AGV ? 1 : x->nsend;
    for (int j = 0; j < nblocks; j++) {
        const blk_t *b = &x->sblk[j];
        for (int d = 0; d < b->count * ints_per(b->kind); d++)
            x->sbuf[b->base + pos(b->kind, d)] = val(t->rank, j, d, it);
    }
    for (size_t k = 0; k < x->rints; k++)
        x->rbuf[k] = x->exp[k] = SENT;
    int one = x->kind == AG || x->kind == AGV;
    for (int i = 0; i < x->nrecv; i++) {
        const blk_t *b = &x->rblk[i];
        int j = src_block(t, i);
        if (j < 0)
            continue; /* MPI_PROC_NULL: untouched */
        for (int d = 0; d < b->count * ints_per(b->kind); d++)
            x->exp[b->base + pos(b->kind, d)] = val(t->in[i], one ? 0 : j, d, it);
    }
}

static int xcase_check(const xcase_t *x, const topo_t *t, const char *what)
{
    for (size_t k = 0; k < x->rints; k++)
        if (x->rbuf[k] != x->exp[k]) {
            CHECK(0, "%s: %s: receive buffer int %zu is %d, expected %d", t->name, what, k,
                  x->rbuf[k], x->exp[k]);
            return 0;
        }
    return 1;
}

/* The call itself: every form of every collective. */
static int post(xcase_t *x, int mode, int c, MPI_Comm comm, MPI_Request *req)
{
    const void *s = x->sbuf;
    void *r = x->rbuf;
    MPI_Info inf = MPI_INFO_NULL;
    switch (x->kind * 6 + mode * 2 + c) {
    case AG * 6 + 0:
        return MPI_Neighbor_allgather(s, x->scount, x->stype, r, x->rcount, x->rtype, comm);
    case AG * 6 + 1:
        return MPI_Neighbor_allgather_c(s, x->scount, x->stype, r, x->rcount, x->rtype, comm);
    case AG * 6 + 2:
        return MPI_Ineighbor_allgather(s, x->scount, x->stype, r, x->rcount, x->rtype, comm, req);
    case AG * 6 + 3:
        return MPI_Ineighbor_allgather_c(s, x->scount, x->stype, r, x->rcount, x->rtype, comm, req);
    case AG * 6 + 4:
        return MPI_Neighbor_allgather_init(s, x->scount, x->stype, r, x->rcount, x->rtype, comm,
                                           inf, req);
    case AG * 6 + 5:
        return MPI_Neighbor_allgather_init_c(s, x->scount, x->stype, r, x->rcount, x->rtype, comm,
                                             inf, req);
    case AGV * 6 + 0:
        return MPI_Neighbor_allgatherv(s, x->scount, x->stype, r, x->rc, x->rd, x->rtype, comm);
    case AGV * 6 + 1:
        return MPI_Neighbor_allgatherv_c(s, x->scount, x->stype, r, x->rcc, x->rda, x->rtype, comm);
    case AGV * 6 + 2:
        return MPI_Ineighbor_allgatherv(s, x->scount, x->stype, r, x->rc, x->rd, x->rtype, comm,
                                        req);
    case AGV * 6 + 3:
        return MPI_Ineighbor_allgatherv_c(s, x->scount, x->stype, r, x->rcc, x->rda, x->rtype, comm,
                                          req);
    case AGV * 6 + 4:
        return MPI_Neighbor_allgatherv_init(s, x->scount, x->stype, r, x->rc, x->rd, x->rtype, comm,
                                            inf, req);
    case AGV * 6 + 5:
        return MPI_Neighbor_allgatherv_init_c(s, x->scount, x->stype, r, x->rcc, x->rda, x->rtype,
                                              comm, inf, req);
    case A2A * 6 + 0:
        return MPI_Neighbor_alltoall(s, x->scount, x->stype, r, x->rcount, x->rtype, comm);
    case A2A * 6 + 1:
        return MPI_Neighbor_alltoall_c(s, x->scount, x->stype, r, x->rcount, x->rtype, comm);
    case A2A * 6 + 2:
        return MPI_Ineighbor_alltoall(s, x->scount, x->stype, r, x->rcount, x->rtype, comm, req);
    case A2A * 6 + 3:
        return MPI_Ineighbor_alltoall_c(s, x->scount, x->stype, r, x->rcount, x->rtype, comm, req);
    case A2A * 6 + 4:
        return MPI_Neighbor_alltoall_init(s, x->scount, x->stype, r, x->rcount, x->rtype, comm, inf,
                                          req);
    case A2A * 6 + 5:
        return MPI_Neighbor_alltoall_init_c(s, x->scount, x->stype, r, x->rcount, x->rtype, comm,
                                            inf, req);
    case A2AV * 6 + 0:
        return MPI_Neighbor_alltoallv(s, x->sc, x->sd, x->stype, r, x->rc, x->rd, x->rtype, comm);
    case A2AV * 6 + 1:
        return MPI_Neighbor_alltoallv_c(s, x->scc, x->sda, x->stype, r, x->rcc, x->rda, x->rtype,
                                        comm);
    case A2AV * 6 + 2:
        return MPI_Ineighbor_alltoallv(s, x->sc, x->sd, x->stype, r, x->rc, x->rd, x->rtype, comm,
                                       req);
    case A2AV * 6 + 3:
        return MPI_Ineighbor_alltoallv_c(s, x->scc, x->sda, x->stype, r, x->rcc, x->rda, x->rtype,
                                         comm, req);
    case A2AV * 6 + 4:
        return MPI_Neighbor_alltoallv_init(s, x->sc, x->sd, x->stype, r, x->rc, x->rd, x->rtype,
                                           comm, inf, req);
    case A2AV * 6 + 5:
        return MPI_Neighbor_alltoallv_init_c(s, x->scc, x->sda, x->stype, r, x->rcc, x->rda,
                                             x->rtype, comm, inf, req);
    case A2AW * 6 + 0:
        return MPI_Neighbor_alltoallw(s, x->sc, x->sda, x->sts, r, x->rc, x->rda, x->rts, comm);
    case A2AW * 6 + 1:
        return MPI_Neighbor_alltoallw_c(s, x->scc, x->sda, x->sts, r, x->rcc, x->rda, x->rts, comm);
    case A2AW * 6 + 2:
        return MPI_Ineighbor_alltoallw(s, x->sc, x->sda, x->sts, r, x->rc, x->rda, x->rts, comm,
                                       req);
    case A2AW * 6 + 3:
        return MPI_Ineighbor_alltoallw_c(s, x->scc, x->sda, x->sts, r, x->rcc, x->rda, x->rts, comm,
                                         req);
    case A2AW * 6 + 4:
        return MPI_Neighbor_alltoallw_init(s, x->sc, x->sda, x->sts, r, x->rc, x->rda, x->rts, comm,
                                           inf, req);
    default:
        return MPI_Neighbor_alltoallw_init_c(s, x->scc, x->sda, x->sts, r, x->rcc, x->rda, x->rts,
                                             comm, inf, req);
    }
}

static void label(char *buf, size_t n, const xcase_t *x, int mode, int c, int it)
{
    snprintf(buf, n, "%s%s%s%s (%s, round %d)",
             mode == NONBLOCKING ? "MPI_Ineighbor_" : "MPI_Neighbor_", kind_name[x->kind],
             mode == PERSISTENT ? "_init" : "", c ? "_c" : "", mode_name[mode], it);
}

/* One form: once, or (persistent) started three times with new data. */
static void run(xcase_t *x, const topo_t *t, int mode, int c)
{
    MPI_Request req = MPI_REQUEST_NULL;
    char what[160];
    int rounds = mode == PERSISTENT ? 3 : 1;
    for (int it = 0; it < rounds; it++) {
        int v = mode == PERSISTENT ? it + 1 : mode;
        label(what, sizeof what, x, mode, c, it);
        xcase_fill(x, t, v);
        if (mode != PERSISTENT || it == 0)
            if (MPI_OK(post(x, mode, c, t->comm, &req)) != MPI_SUCCESS)
                return;
        if (mode == PERSISTENT)
            MPI_OK(MPI_Start(&req));
        if (mode != BLOCKING)
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (!xcase_check(x, t, what))
            break;
    }
    if (mode == PERSISTENT && req != MPI_REQUEST_NULL)
        MPI_OK(MPI_Request_free(&req));
}

/* Known deviation, MPICH 4.0: the alltoalls post their receives in reverse order, so when a
 * process is a neighbour twice (a periodic dimension of 1 or 2 processes, repeated graph
 * edges) the blocks land in the wrong places (against MPI 4.1 section 8.6: s -> s^1 on a
 * grid, the k-th edge to the k-th edge otherwise); with uneven counts the messages do not even
 * fit. The allgathers send the same block along every edge and are not affected. */
static int skip_alltoalls(const topo_t *t)
{
    return mt_is_mpich40() && t->repeated;
}

static void all_forms(const topo_t *t)
{
    for (int kind = AG; kind <= A2AW; kind++) {
        xcase_t x;
        if (kind != AG && kind != AGV && skip_alltoalls(t))
            continue;
        xcase_init(&x, t, kind, 3);
        for (int mode = BLOCKING; mode <= PERSISTENT; mode++)
            for (int c = 0; c < 2; c++)
                run(&x, t, mode, c);
        xcase_free(&x);
    }
    /* Past the eager limit (80 KB blocks): rendezvous messages inside the schedule. */
    xcase_t big;
    if (skip_alltoalls(t))
        return;
    xcase_init(&big, t, A2A, 20000);
    run(&big, t, BLOCKING, 0);
    run(&big, t, NONBLOCKING, 1);
    xcase_free(&big);
}

/* Three at once: a persistent allgather started, a nonblocking alltoallv posted, a blocking
 * alltoallw run while both are outstanding; then completed in reverse order. */
static void outstanding(const topo_t *t)
{
    xcase_t a, b, w;
    MPI_Request ra, rb;
    xcase_init(&a, t, AG, 5);
    xcase_init(&b, t, skip_alltoalls(t) ? AGV : A2AV, 0);
    xcase_init(&w, t, skip_alltoalls(t) ? AG : A2AW, 2);
    xcase_fill(&a, t, 1);
    xcase_fill(&b, t, 2);
    xcase_fill(&w, t, 3);
    if (MPI_OK(post(&a, PERSISTENT, 0, t->comm, &ra)) == MPI_SUCCESS) {
        MPI_OK(MPI_Start(&ra));
        MPI_OK(post(&b, NONBLOCKING, 0, t->comm, &rb));
        MPI_OK(post(&w, BLOCKING, 0, t->comm, NULL));
        MPI_OK(MPI_Wait(&rb, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&ra, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&ra));
        xcase_check(&a, t, "outstanding: persistent allgather");
        xcase_check(&b, t, "outstanding: nonblocking alltoallv");
        xcase_check(&w, t, "outstanding: blocking alltoallw");
    }
    xcase_free(&a);
    xcase_free(&b);
    xcase_free(&w);
}

static void test_topo(MPI_Comm comm, const char *name)
{
    topo_t t;
    topo_setup(&t, comm, name);
    all_forms(&t);
    outstanding(&t);
    free(t.all);
}

/* ---- the topologies ---- */

static void cart(int periodic)
{
    int dims[2] = {0, 0}, periods[2] = {periodic, periodic};
    MPI_Comm g;
    MPI_OK(MPI_Dims_create(mt_size, 2, dims));
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &g));
    test_topo(g, periodic ? "periodic Cartesian grid" : "non-periodic Cartesian grid");
    MPI_OK(MPI_Comm_free(&g));
}

/* Ring plus star: node 0 is linked to every node; with 1 node, two self loops; with 2, the
 * edge twice. Neighbour lists are not sorted. */
static void graph(void)
{
    int n = mt_size, k = 0;
    int *index = mt_malloc(sizeof(int) * (size_t)n),
        *edges = mt_malloc(sizeof(int) * 4 * (size_t)n);
    for (int i = 0; i < n; i++) {
        edges[k++] = (i + 1) % n;
        edges[k++] = (i + n - 1) % n;
        if (i == 0)
            for (int j = n - 2; j > 1; j--) /* 1 and n-1 are ring neighbours already */
                edges[k++] = j;
        else if (i > 1 && i < n - 1)
            edges[k++] = 0;
        index[i] = k;
    }
    MPI_Comm g;
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g));
    test_topo(g, "graph");
    MPI_OK(MPI_Comm_free(&g));
    free(index);
    free(edges);
}

/* Rank q sends to q+1, itself, q+1 again and q+2 (mod size); the sources of r are listed by
 * sender, senders from r downwards, each sender's edges in its order. */
static const int dist_off[4] = {1, 0, 1, 2};

static void dist_adjacent(int weighted)
{
    int n = mt_size, r = mt_rank, nin = 0;
    int dst[4], dw[4], src[MAXD], sw[MAXD];
    for (int j = 0; j < 4; j++) {
        dst[j] = (r + dist_off[j]) % n;
        dw[j] = 10 * j + 1;
    }
    for (int s = 0; s < n; s++) {
        int q = (r - s + n) % n;
        for (int j = 0; j < 4; j++)
            if ((q + dist_off[j]) % n == r && nin < MAXD) {
                sw[nin] = 10 * j + 1;
                src[nin++] = q;
            }
    }
    MPI_Comm g;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, src, weighted ? sw : MPI_UNWEIGHTED,
                                          4, dst, weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                          &g));
    test_topo(g, weighted ? "weighted adjacent distributed graph (repeated neighbours)"
                          : "unweighted adjacent distributed graph (repeated neighbours)");
    MPI_OK(MPI_Comm_free(&g));
}

/* Edges i -> i+1 and i -> i+3 (mod size, each once, self edges included), weighted; the edge
 * a -> b is given by process (a + 2b) mod size, usually neither end. */
static void dist_general(void)
{
    enum { MAXE = 2 * 8 };
    int n = mt_size, ne = 0, srcs[MAXE], dsts[MAXE], ws[MAXE], deg[MAXE], mine = 0;
    int ea[MAXE], eb[MAXE];
    for (int i = 0; i < n; i++)
        for (int o = 1; o <= 3; o += 2) {
            int a = i, b = (i + o) % n, dup = 0;
            for (int e = 0; e < ne; e++)
                dup |= ea[e] == a && eb[e] == b;
            if (!dup && ne < MAXE) {
                ea[ne] = a;
                eb[ne++] = b;
            }
        }
    for (int e = 0; e < ne; e++)
        if ((ea[e] + 2 * eb[e]) % n == mt_rank) {
            deg[mine] = 1; /* one destination per source entry, so sources may repeat */
            srcs[mine] = ea[e];
            dsts[mine] = eb[e];
            ws[mine++] = ea[e] * 100 + eb[e];
        }
    MPI_Comm g;
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, mine, srcs, deg, dsts, ws, MPI_INFO_NULL, 0, &g));
    test_topo(g, "weighted distributed graph (MPI_Dist_graph_create)");
    MPI_OK(MPI_Comm_free(&g));
}

/* ---- errors ---- */

static void errors(void)
{
    enum { M = 64 }; /* arrays longer than any communicator here: an MPI may read size entries */
    int x[M] = {0}, y[M] = {0}, c1[M];
    MPI_Count cc[M];
    MPI_Aint dd[M];
    MPI_Datatype t1[M];
    for (int i = 0; i < M; i++) {
        c1[i] = 1;
        cc[i] = 1;
        dd[i] = (MPI_Aint)(i * sizeof(int));
        t1[i] = MPI_INT;
    }
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    int rc = MPI_Neighbor_allgather(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
    CHECK_CLASS(rc, MPI_ERR_TOPOLOGY, "MPI_Neighbor_allgather on MPI_COMM_WORLD");
    if (rc != MPI_SUCCESS && !mt_library_is("MPICH")) { /* Ferry names the call */
        MPI_Error_string(rc, msg, &len);
        CHECK(strstr(msg, "MPI_Neighbor_allgather") != NULL,
              "the message does not name MPI_Neighbor_allgather: %s", msg);
    }
    /* Known deviation, MPICH 4.0: the v and w forms check their count and type arrays over a
     * neighbour count that a communicator without a topology does not have, before the
     * topology itself, and fail with MPI_ERR_COUNT or MPI_ERR_TYPE (varying from run to run). */
    MPI_Request req = MPI_REQUEST_NULL;
    rc = MPI_Ineighbor_alltoallv_c(x, cc, dd, MPI_INT, y, cc, dd, MPI_INT, MPI_COMM_WORLD, &req);
    if (mt_is_mpich40())
        CHECK(rc != MPI_SUCCESS, "MPI_Ineighbor_alltoallv_c on MPI_COMM_WORLD succeeded");
    else
        CHECK_CLASS(rc, MPI_ERR_TOPOLOGY, "MPI_Ineighbor_alltoallv_c on MPI_COMM_WORLD");
    rc = MPI_Neighbor_alltoallw_init(x, c1, dd, t1, y, c1, dd, t1, MPI_COMM_WORLD, MPI_INFO_NULL,
                                     &req);
    if (mt_is_mpich40())
        CHECK(rc != MPI_SUCCESS, "MPI_Neighbor_alltoallw_init on MPI_COMM_WORLD succeeded");
    else
        CHECK_CLASS(rc, MPI_ERR_TOPOLOGY, "MPI_Neighbor_alltoallw_init on MPI_COMM_WORLD");
    CHECK(req == MPI_REQUEST_NULL, "a failed call set the request");

    /* Ferry's own argument checks: the standard leaves erroneous arguments to the
     * implementation (MPICH 4.0 crashes on MPI_IN_PLACE here). */
    if (mt_library_is("MPICH"))
        return;
    MPI_Comm g;
    int dims[1] = {mt_size}, periods[1] = {1};
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &g));
    MPI_OK(MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN));
    rc = MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, g);
    CHECK_CLASS(rc, MPI_ERR_BUFFER, "MPI_Neighbor_alltoall with MPI_IN_PLACE");
    rc = MPI_Ineighbor_allgather(x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, g, &req);
    CHECK_CLASS(rc, MPI_ERR_BUFFER, "MPI_Ineighbor_allgather with MPI_IN_PLACE");
    rc = MPI_Neighbor_allgather_c(x, -1, MPI_INT, y, 1, MPI_INT, g);
    CHECK_CLASS(rc, MPI_ERR_COUNT, "MPI_Neighbor_allgather_c with sendcount -1");
    c1[1] = -2;
    rc = MPI_Neighbor_alltoallv(x, c1, c1, MPI_INT, y, c1, c1, MPI_INT, g);
    CHECK_CLASS(rc, MPI_ERR_COUNT, "MPI_Neighbor_alltoallv with sendcounts[1] = -2");
    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, msg, &len);
        CHECK(strstr(msg, "MPI_Neighbor_alltoallv") && strstr(msg, "sendcounts[1]"),
              "the message does not name the call and the argument: %s", msg);
    }
    c1[1] = 1;
    t1[0] = MPI_DATATYPE_NULL;
    rc = MPI_Neighbor_alltoallw(x, c1, dd, t1, y, c1, dd, t1, g);
    CHECK_CLASS(rc, MPI_ERR_TYPE, "MPI_Neighbor_alltoallw with sendtypes[0] MPI_DATATYPE_NULL");
    rc = MPI_Neighbor_alltoall_init(x, 1, MPI_INT, y, 1, MPI_INT, g, MPI_INFO_NULL, NULL);
    CHECK_CLASS(rc, MPI_ERR_ARG, "MPI_Neighbor_alltoall_init with a NULL request");
    /* Every rank made the same failed calls: the communicator is still usable. */
    x[0] = mt_rank;
    y[0] = y[1] = -1;
    MPI_OK(MPI_Neighbor_allgather(x, 1, MPI_INT, y, 1, MPI_INT, g));
    for (int i = 0; i < 2; i++) {
        int from = (mt_rank + (i ? 1 : mt_size - 1)) % mt_size;
        CHECK(y[i] == from, "after the errors: block %d is %d, expected %d", i, y[i], from);
    }
    MPI_OK(MPI_Comm_free(&g));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec_t));
    MPI_OK(MPI_Type_commit(&vec_t));
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair_t));
    MPI_OK(MPI_Type_commit(&pair_t));
    cart(1);
    cart(0);
    graph();
    dist_adjacent(1);
    dist_adjacent(0);
    dist_general();
    errors();
    MPI_OK(MPI_Type_free(&vec_t));
    MPI_OK(MPI_Type_free(&pair_t));
    return mt_finish();
}
