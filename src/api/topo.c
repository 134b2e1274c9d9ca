/* Process topologies: MPI_Cart_*, MPI_Dims_create, MPI_Graph_*, MPI_Dist_graph_* and
 * MPI_Topo_test. The topology itself and its arithmetic live in core/fy_topo.c; this file checks
 * arguments and makes the communicators.
 *
 * Constructors are collective over comm_old: every member takes part in agreeing the new context
 * id (fy_api_agree_cid, as MPI_Comm_split does), also those that end up with MPI_COMM_NULL.
 * Reordering is the identity (reorder is accepted and ignored), so a process keeps its rank.
 * MPI_Dist_graph_create first tells every process its own edges: an alltoall of counts, then an
 * alltoallv of (direction, peer, weight) records over comm_old, so each process lists its in-edges
 * and out-edges in the order of the supplying ranks, and within one supplier in the order given. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fy_api.h"
#include "fy_coll.h"
#include "fy_topo.h"

/* ---- helpers ---- */

static const char *label(const fy_comm_t *c, char *buf, size_t n)
{
    if (c->name[0])
        return c->name;
    snprintf(buf, n, "0x%x", (unsigned)c->handle);
    return buf;
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case MPI_CART: return "a Cartesian";
    case MPI_GRAPH: return "a graph";
    default: return "a distributed graph";
    }
}

static int nonnull(const char *fn, const void *p, const char *what)
{
    return p ? MPI_SUCCESS : fy_err_set(MPI_ERR_ARG, "%s: %s is NULL", fn, what);
}

/* An intracommunicator, for the constructors and the *_map calls. */
static int intra(const char *fn, MPI_Comm h, fy_comm_t **c_p)
{
    int rc = fy_api_comm(fn, h, c_p);
    if (rc == MPI_SUCCESS && (*c_p)->inter) {
        char b[32];
        rc = fy_err_set(MPI_ERR_COMM,
                        "%s: communicator %s is an intercommunicator (topologies need an "
                        "intracommunicator)",
                        fn, label(*c_p, b, sizeof b));
    }
    return rc;
}

/* The communicator's topology, which must be of `kind`. */
static int topo_of(const char *fn, MPI_Comm h, int kind, fy_comm_t **c_p, const fy_topo_t **t_p)
{
    fy_comm_t *c;
    int rc = fy_api_comm(fn, h, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    const fy_topo_t *t = c->topo;
    char b[32];
    if (!t)
        return fy_err_set(MPI_ERR_TOPOLOGY,
                          "%s: communicator %s has no topology (%s one is needed)", fn,
                          label(c, b, sizeof b), kind_name(kind));
    if (t->kind != kind)
        return fy_err_set(MPI_ERR_TOPOLOGY, "%s: communicator %s has %s topology, not %s one", fn,
                          label(c, b, sizeof b), kind_name(t->kind), kind_name(kind));
    *c_p = c;
    *t_p = t;
    return MPI_SUCCESS;
}

/* The new communicator of n members, ranks members[0..n-1] of c in their new order (NULL: ranks
 * 0..n-1), this process being member `me`, with topology t (taken over; NULL means it could
 * not be allocated). */
static int attach(const char *fn, fy_comm_t *c, int n, const int *members, int me,
                  const uint64_t *agreed, fy_topo_t *t, MPI_Comm *out)
{
    int *world_of = t ? malloc(sizeof(int) * (size_t)(n ? n : 1)) : NULL;
    if (!world_of) {
        fy_topo_free(t);
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    for (int i = 0; i < n; i++)
        world_of[i] = fy_comm_world_rank(c, members ? members[i] : i);
    fy_comm_t *nc;
    int rc = fy_comm_create(c, n, me, world_of, agreed, &nc);
    if (rc != MPI_SUCCESS) {
        fy_topo_free(t);
        return rc;
    }
    nc->topo = t;
    *out = nc->handle;
    return MPI_SUCCESS;
}

/* A grid for Cart_create / Cart_map: sizes positive, the whole fitting into c. *n_p: its size. */
static int check_grid(const char *fn, const fy_comm_t *c, int ndims, const int *dims,
                      const int *periods, int *n_p)
{
    if (ndims < 0)
        return fy_err_set(MPI_ERR_DIMS, "%s: ndims %d is negative", fn, ndims);
    int rc = MPI_SUCCESS;
    if (ndims > 0 && (rc = nonnull(fn, dims, "dims")) == MPI_SUCCESS)
        rc = nonnull(fn, periods, "periods");
    if (rc != MPI_SUCCESS)
        return rc;
    long long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return fy_err_set(MPI_ERR_DIMS,
                              "%s: dims[%d] is %d (every dimension needs at least one process)", fn,
                              i, dims[i]);
        if (n <= INT_MAX)
            n *= dims[i];
    }
    if (n > c->size) {
        char shape[128], b[32]; /* at most 8 sizes of 14 characters, then " x ..." */
        size_t len = 0;
        for (int i = 0; i < ndims && i < 8; i++)
            len +=
                (size_t)snprintf(shape + len, sizeof shape - len, "%s%d", i ? " x " : "", dims[i]);
        if (ndims > 8)
            snprintf(shape + len, sizeof shape - len, " x ...");
        return fy_err_set(MPI_ERR_DIMS,
                          "%s: the grid %s needs %s%lld processes, communicator %s has %d", fn,
                          shape, n > INT_MAX ? "more than " : "",
                          n > INT_MAX ? (long long)INT_MAX : n, label(c, b, sizeof b), c->size);
    }
    *n_p = (int)n;
    return MPI_SUCCESS;
}

/* ---- Cartesian ---- */

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    const char *fn = "MPI_Cart_create";
    fy_comm_t *c;
    int n = 0;
    (void)reorder; /* the identity is a valid reordering */
    int rc = intra(fn, comm_old, &c);
    if (rc == MPI_SUCCESS)
        rc = check_grid(fn, c, ndims, dims, periods, &n);
    if (rc == MPI_SUCCESS)
        rc = nonnull(fn, comm_cart, "comm_cart");
    if (rc == MPI_SUCCESS) {
        uint64_t agreed[FY_CID_MASK_WORDS];
        fy_lock();
        rc = fy_api_agree_cid(c, agreed);
        if (rc == MPI_SUCCESS && c->rank < n)
            rc = attach(fn, c, n, NULL, c->rank, agreed, fy_topo_cart_new(ndims, dims, periods),
                        comm_cart);
        else if (rc == MPI_SUCCESS)
            *comm_cart = MPI_COMM_NULL;
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm_old, rc);
}

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    const char *fn = "MPI_Cart_map";
    fy_comm_t *c;
    int n = 0;
    int rc = intra(fn, comm, &c);
    if (rc == MPI_SUCCESS)
        rc = check_grid(fn, c, ndims, dims, periods, &n);
    if (rc == MPI_SUCCESS)
        rc = nonnull(fn, newrank, "newrank");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    const char *fn = "MPI_Cartdim_get";
    fy_comm_t *c;
    const fy_topo_t *t;
    int rc = topo_of(fn, comm, MPI_CART, &c, &t);
    if (rc == MPI_SUCCESS)
        rc = nonnull(fn, ndims, "ndims");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

static int check_maxdims(const char *fn, const fy_topo_t *t, int maxdims)
{
    if (maxdims < t->ndims)
        return fy_err_set(MPI_ERR_ARG, "%s: maxdims %d is less than ndims %d of the topology", fn,
                          maxdims, t->ndims);
    return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    const char *fn = "MPI_Cart_get";
    fy_comm_t *c;
    const fy_topo_t *t;
    int rc = topo_of(fn, comm, MPI_CART, &c, &t);
    if (rc == MPI_SUCCESS)
        rc = check_maxdims(fn, t, maxdims);
    if (rc == MPI_SUCCESS && t->ndims > 0 && (rc = nonnull(fn, dims, "dims")) == MPI_SUCCESS &&
        (rc = nonnull(fn, periods, "periods")) == MPI_SUCCESS)
        rc = nonnull(fn, coords, "coords");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
    }
    if (t->ndims > 0)
        fy_topo_cart_coords(t, c->rank, coords);
    return MPI_SUCCESS;
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    const char *fn = "MPI_Cart_rank";
    fy_comm_t *c;
    const fy_topo_t *t;
    int rc = topo_of(fn, comm, MPI_CART, &c, &t);
    if (rc == MPI_SUCCESS && t->ndims > 0)
        rc = nonnull(fn, coords, "coords");
    if (rc == MPI_SUCCESS)
        rc = nonnull(fn, rank, "rank");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    int bad = 0, r = fy_topo_cart_rank(t, coords, &bad);
    if (r < 0)
        return fy_err_raise_comm(
            comm, fy_err_set(MPI_ERR_ARG,
                             "%s: coords[%d] is %d, outside 0..%d of a non-periodic dimension", fn,
                             bad, coords[bad], t->dims[bad] - 1));
    *rank = r;
    return MPI_SUCCESS;
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    const char *fn = "MPI_Cart_coords";
    fy_comm_t *c;
    const fy_topo_t *t;
    int rc = topo_of(fn, comm, MPI_CART, &c, &t);
    if (rc == MPI_SUCCESS && (rank < 0 || rank >= c->size))
        rc = fy_err_set(MPI_ERR_RANK, "%s: rank %d is outside 0..%d of the grid", fn, rank,
                        c->size - 1);
    if (rc == MPI_SUCCESS)
        rc = check_maxdims(fn, t, maxdims);
    if (rc == MPI_SUCCESS && t->ndims > 0)
        rc = nonnull(fn, coords, "coords");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    fy_topo_cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    const char *fn = "MPI_Cart_shift";
    fy_comm_t *c;
    const fy_topo_t *t;
    int rc = topo_of(fn, comm, MPI_CART, &c, &t);
    if (rc == MPI_SUCCESS && (direction < 0 || direction >= t->ndims))
        rc = t->ndims ? fy_err_set(MPI_ERR_ARG,
                                   "%s: direction %d is outside 0..%d (ndims of the "
                                   "topology is %d)",
                                   fn, direction, t->ndims - 1, t->ndims)
                      : fy_err_set(MPI_ERR_ARG,
                                   "%s: direction %d: the topology has no dimensions to shift "
                                   "along",
                                   fn, direction);
    if (rc == MPI_SUCCESS && (rc = nonnull(fn, rank_source, "rank_source")) == MPI_SUCCESS)
        rc = nonnull(fn, rank_dest, "rank_dest");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    fy_topo_cart_shift(t, c->rank, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

/* Collective over the grid: the processes that share this one's coordinates in the dimensions
 * dropped. Row-major order restricted to the kept dimensions is row-major order of the
 * sub-grid, so the members, taken in rank order, already have their new ranks. */
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    const char *fn = "MPI_Cart_sub";
    fy_comm_t *c;
    const fy_topo_t *t;
    int rc = topo_of(fn, comm, MPI_CART, &c, &t);
    if (rc == MPI_SUCCESS && t->ndims > 0)
        rc = nonnull(fn, remain_dims, "remain_dims");
    if (rc == MPI_SUCCESS)
        rc = nonnull(fn, newcomm, "newcomm");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    int nd = t->ndims, kept = 0, n = 1;
    int *mine = malloc(sizeof(int) * (size_t)(3 * nd + 1));
    int *members = NULL;
    if (mine) {
        int *dims = mine + nd, *periods = dims + nd;
        for (int i = 0; i < nd; i++)
            if (remain_dims[i]) {
                dims[kept] = t->dims[i];
                periods[kept++] = t->periods[i];
                n *= t->dims[i];
            }
        members = malloc(sizeof(int) * (size_t)n);
    }
    if (!mine || !members) {
        free(mine);
        return fy_err_raise_comm(comm, fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn));
    }
    int me = 0, m = 0, *other = malloc(sizeof(int) * (size_t)(nd + 1));
    fy_topo_cart_coords(t, c->rank, mine);
    for (int r = 0; r < c->size && other; r++) {
        fy_topo_cart_coords(t, r, other);
        int same = 1;
        for (int i = 0; i < nd && same; i++)
            same = remain_dims[i] || other[i] == mine[i];
        if (same) {
            if (r == c->rank)
                me = m;
            members[m++] = r;
        }
    }
    uint64_t agreed[FY_CID_MASK_WORDS];
    fy_lock();
    rc = fy_api_agree_cid(c, agreed);
    if (rc == MPI_SUCCESS && !other)
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (rc == MPI_SUCCESS)
        rc = attach(fn, c, n, members, me, agreed, fy_topo_cart_new(kept, mine + nd, mine + 2 * nd),
                    newcomm);
    fy_unlock();
    free(other);
    free(members);
    free(mine);
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    const char *fn = "MPI_Dims_create";
    int rc = MPI_SUCCESS;
    if (nnodes < 1)
        rc = fy_err_set(MPI_ERR_ARG, "%s: nnodes %d is not positive", fn, nnodes);
    else if (ndims < 0)
        rc = fy_err_set(MPI_ERR_DIMS, "%s: ndims %d is negative", fn, ndims);
    else if (ndims > 0)
        rc = nonnull(fn, dims, "dims");
    long long fixed = 1;
    for (int i = 0; i < ndims && rc == MPI_SUCCESS; i++) {
        if (dims[i] < 0)
            rc = fy_err_set(MPI_ERR_DIMS, "%s: dims[%d] is %d (negative)", fn, i, dims[i]);
        else if (dims[i] > 0 && (fixed *= dims[i]) > nnodes)
            fixed = (long long)nnodes + 1; /* stays too large, never overflows */
    }
    if (rc == MPI_SUCCESS && (fixed > nnodes || nnodes % fixed != 0))
        rc = fy_err_set(MPI_ERR_DIMS,
                        "%s: the nonzero entries of dims multiply to %s%lld, which does not "
                        "divide nnodes %d",
                        fn, fixed > nnodes ? "more than " : "", fixed > nnodes ? nnodes : fixed,
                        nnodes);
    if (rc == MPI_SUCCESS) {
        int r = fy_topo_dims_create(nnodes, ndims, dims);
        if (r == -2)
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        else if (r != 0)
            rc = fy_err_set(MPI_ERR_DIMS,
                            "%s: dims has no zero entry and its entries multiply to %lld, not "
                            "nnodes %d",
                            fn, fixed, nnodes);
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

/* ---- graphs ---- */

/* index[] non-decreasing from 0, every edge a node. */
static int check_graph(const char *fn, int nnodes, const int *index, const int *edges)
{
    int rc = MPI_SUCCESS;
    if (nnodes > 0)
        rc = nonnull(fn, index, "index");
    for (int i = 0; i < nnodes && rc == MPI_SUCCESS; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            rc = i ? fy_err_set(MPI_ERR_ARG, "%s: index[%d] = %d is less than index[%d] = %d", fn,
                                i, index[i], i - 1, index[i - 1])
                   : fy_err_set(MPI_ERR_ARG, "%s: index[0] = %d is negative", fn, index[0]);
    int nedges = nnodes > 0 && rc == MPI_SUCCESS ? index[nnodes - 1] : 0;
    if (nedges > 0 && rc == MPI_SUCCESS)
        rc = nonnull(fn, edges, "edges");
    for (int k = 0; k < nedges && rc == MPI_SUCCESS; k++)
        if (edges[k] < 0 || edges[k] >= nnodes)
            rc = fy_err_set(MPI_ERR_ARG, "%s: edges[%d] = %d is not a node (0..%d)", fn, k,
                            edges[k], nnodes - 1);
    return rc;
}

static int check_nnodes(const char *fn, const fy_comm_t *c, int nnodes)
{
    char b[32];
    if (nnodes < 0)
        return fy_err_set(MPI_ERR_ARG, "%s: nnodes %d is negative", fn, nnodes);
    if (nnodes > c->size)
        return fy_err_set(MPI_ERR_ARG, "%s: nnodes %d is more than the size %d of %s", fn, nnodes,
                          c->size, label(c, b, sizeof b));
    return MPI_SUCCESS;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    const char *fn = "MPI_Graph_create";
    fy_comm_t *c;
    (void)reorder;
    int rc = intra(fn, comm_old, &c);
    if (rc == MPI_SUCCESS)
        rc = check_nnodes(fn, c, nnodes);
    if (rc == MPI_SUCCESS)
        rc = check_graph(fn, nnodes, indx, edges);
    if (rc == MPI_SUCCESS)
        rc = nonnull(fn, comm_graph, "comm_graph");
    if (rc == MPI_SUCCESS) {
        uint64_t agreed[FY_CID_MASK_WORDS];
        fy_lock();
        rc = fy_api_agree_cid(c, agreed);
        if (rc == MPI_SUCCESS && c->rank < nnodes)
            rc = attach(fn, c, nnodes, NULL, c->rank, agreed,
                        fy_topo_graph_new(nnodes, indx, edges), comm_graph);
        else if (rc == MPI_SUCCESS)
            *comm_graph = MPI_COMM_NULL;
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm_old, rc);
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int *newrank)
{
    const char *fn = "MPI_Graph_map";
    fy_comm_t *c;
    int rc = intra(fn, comm, &c);
    if (rc == MPI_SUCCESS)
        rc = check_nnodes(fn, c, nnodes);
    if (rc == MPI_SUCCESS)
        rc = check_graph(fn, nnodes, indx, edges);
    if (rc == MPI_SUCCESS)
        rc = nonnull(fn, newrank, "newrank");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    const char *fn = "MPI_Graphdims_get";
    fy_comm_t *c;
    const fy_topo_t *t;
    int rc = topo_of(fn, comm, MPI_GRAPH, &c, &t);
    if (rc == MPI_SUCCESS && (rc = nonnull(fn, nnodes, "nnodes")) == MPI_SUCCESS)
        rc = nonnull(fn, nedges, "nedges");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[])
{
    const char *fn = "MPI_Graph_get";
    fy_comm_t *c;
    const fy_topo_t *t;
    int rc = topo_of(fn, comm, MPI_GRAPH, &c, &t);
    if (rc == MPI_SUCCESS && maxindex < t->nnodes)
        rc = fy_err_set(MPI_ERR_ARG, "%s: maxindex %d is less than nnodes %d of the graph", fn,
                        maxindex, t->nnodes);
    if (rc == MPI_SUCCESS && maxedges < t->nedges)
        rc = fy_err_set(MPI_ERR_ARG, "%s: maxedges %d is less than nedges %d of the graph", fn,
                        maxedges, t->nedges);
    if (rc == MPI_SUCCESS && t->nnodes > 0)
        rc = nonnull(fn, indx, "index");
    if (rc == MPI_SUCCESS && t->nedges > 0)
        rc = nonnull(fn, edges, "edges");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    if (t->nnodes > 0)
        memcpy(indx, t->index, sizeof(int) * (size_t)t->nnodes);
    if (t->nedges > 0)
        memcpy(edges, t->edges, sizeof(int) * (size_t)t->nedges);
    return MPI_SUCCESS;
}

static int check_node(const char *fn, const fy_topo_t *t, int rank)
{
    if (rank < 0 || rank >= t->nnodes)
        return fy_err_set(MPI_ERR_RANK, "%s: rank %d is not a node of the graph (0..%d)", fn, rank,
                          t->nnodes - 1);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    const char *fn = "MPI_Graph_neighbors_count";
    fy_comm_t *c;
    const fy_topo_t *t;
    int rc = topo_of(fn, comm, MPI_GRAPH, &c, &t);
    if (rc == MPI_SUCCESS)
        rc = check_node(fn, t, rank);
    if (rc == MPI_SUCCESS)
        rc = nonnull(fn, nneighbors, "nneighbors");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *nneighbors = fy_topo_graph_degree(t, rank);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    const char *fn = "MPI_Graph_neighbors";
    fy_comm_t *c;
    const fy_topo_t *t;
    int rc = topo_of(fn, comm, MPI_GRAPH, &c, &t);
    if (rc == MPI_SUCCESS)
        rc = check_node(fn, t, rank);
    int n = rc == MPI_SUCCESS ? fy_topo_graph_degree(t, rank) : 0;
    if (rc == MPI_SUCCESS && maxneighbors < n)
        rc = fy_err_set(MPI_ERR_ARG, "%s: maxneighbors %d is less than the degree %d of node %d",
                        fn, maxneighbors, n, rank);
    if (rc == MPI_SUCCESS && n > 0)
        rc = nonnull(fn, neighbors, "neighbors");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    if (n > 0)
        memcpy(neighbors, fy_topo_graph_neighbors(t, rank), sizeof(int) * (size_t)n);
    return MPI_SUCCESS;
}

/* ---- distributed graphs ---- */

/* Ranks of c; `what` names the array. */
static int check_ranks(const char *fn, const fy_comm_t *c, const int *r, int n, const char *what)
{
    char b[32];
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= c->size)
            return fy_err_set(MPI_ERR_RANK, "%s: %s[%d] = %d is not a rank of %s (0..%d)", fn, what,
                              i, r[i], label(c, b, sizeof b), c->size - 1);
    return MPI_SUCCESS;
}

/* Weights of a weighted graph: n of them (none needed when n is 0), none negative. */
static int check_weights(const char *fn, const int *w, int n, const char *what)
{
    if (n == 0)
        return MPI_SUCCESS;
    if (!w || w == MPI_WEIGHTS_EMPTY)
        return fy_err_set(MPI_ERR_ARG, "%s: %s is %s, but this process gives %d weighted edge%s",
                          fn, what, w ? "MPI_WEIGHTS_EMPTY" : "NULL", n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return fy_err_set(MPI_ERR_ARG, "%s: %s[%d] = %d is negative", fn, what, i, w[i]);
    return MPI_SUCCESS;
}

/* Collective over c: whether the graph is weighted is agreed by an allreduce(BAND) of one word,
 * 1 for weights and 2 for MPI_UNWEIGHTED. A result of 0 means some processes gave weights and
 * others MPI_UNWEIGHTED, which the standard makes erroneous: every process sees it and fails
 * alike, before the context id is agreed. */
static int agree_weighted(const char *fn, fy_comm_t *c, bool weighted)
{
    uint64_t mine = weighted ? 1u : 2u, all = 0;
    int rc = fy_allreduce(&mine, &all, 1, fy_dtype_get(MPI_UINT64_T), MPI_BAND, c);
    fy_coll_scratch_done();
    if (rc == MPI_SUCCESS && !all)
        rc = fy_err_set(MPI_ERR_ARG,
                        "%s: some processes passed MPI_UNWEIGHTED and others passed weights (all "
                        "or none must be MPI_UNWEIGHTED)",
                        fn);
    return rc;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    const char *fn = "MPI_Dist_graph_create_adjacent";
    fy_comm_t *c;
    (void)info;
    (void)reorder;
    bool weighted = sourceweights != MPI_UNWEIGHTED;
    int rc = intra(fn, comm_old, &c);
    if (rc == MPI_SUCCESS && (indegree < 0 || outdegree < 0))
        rc = fy_err_set(MPI_ERR_ARG, "%s: %s %d is negative", fn,
                        indegree < 0 ? "indegree" : "outdegree",
                        indegree < 0 ? indegree : outdegree);
    if (rc == MPI_SUCCESS && indegree > 0 && (rc = nonnull(fn, sources, "sources")) == MPI_SUCCESS)
        rc = check_ranks(fn, c, sources, indegree, "sources");
    if (rc == MPI_SUCCESS && outdegree > 0 &&
        (rc = nonnull(fn, destinations, "destinations")) == MPI_SUCCESS)
        rc = check_ranks(fn, c, destinations, outdegree, "destinations");
    if (rc == MPI_SUCCESS && weighted != (destweights != MPI_UNWEIGHTED))
        rc = fy_err_set(MPI_ERR_ARG, "%s: %s is MPI_UNWEIGHTED but %s is not (both or neither)", fn,
                        weighted ? "destweights" : "sourceweights",
                        weighted ? "sourceweights" : "destweights");
    if (rc == MPI_SUCCESS && weighted &&
        (rc = check_weights(fn, sourceweights, indegree, "sourceweights")) == MPI_SUCCESS)
        rc = check_weights(fn, destweights, outdegree, "destweights");
    if (rc == MPI_SUCCESS)
        rc = nonnull(fn, comm_dist_graph, "comm_dist_graph");
    if (rc == MPI_SUCCESS) {
        uint64_t agreed[FY_CID_MASK_WORDS];
        fy_lock();
        rc = agree_weighted(fn, c, weighted);
        if (rc == MPI_SUCCESS)
            rc = fy_api_agree_cid(c, agreed);
        if (rc == MPI_SUCCESS)
            rc = attach(fn, c, c->size, NULL, c->rank, agreed,
                        fy_topo_dist_new(indegree, sources, sourceweights, outdegree, destinations,
                                         destweights, weighted),
                        comm_dist_graph);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm_old, rc);
}

/* One edge as it travels to an endpoint: which end the receiver is, the other end, the
 * weight (0 when unweighted). */
enum { REC_IN = 0, REC_OUT = 1, REC_INTS = 3 };

/* Collective over c: this process's in- and out-edges from what every process supplied, into
 * a new distributed-graph topology (*t_p). */
static int gather_edges(const char *fn, fy_comm_t *c, int n, const int *sources, const int *degrees,
                        const int *destinations, const int *weights, bool weighted, fy_topo_t **t_p)
{
    int p = c->size, rc;
    const fy_dtype_t *ti = fy_dtype_get(MPI_INT), *t64 = fy_dtype_get(MPI_INT64_T);
    int64_t *cnt = calloc((size_t)p * 2, sizeof(int64_t)); /* ints to send, to receive */
    MPI_Aint *v = malloc(sizeof(MPI_Aint) * (size_t)p * 4);
    int *sbuf = NULL, *rbuf = NULL, *lists = NULL;
    if (!cnt || !v) {
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        goto out;
    }
    MPI_Aint *scounts = v, *sdispls = v + p, *rcounts = v + 2 * p, *rdispls = v + 3 * p;
    /* Each edge s -> d goes to s as an out-edge and to d as an in-edge. */
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            cnt[sources[i]] += REC_INTS;
            cnt[destinations[k]] += REC_INTS;
        }
    MPI_Aint stotal = 0;
    for (int r = 0; r < p; r++) {
        scounts[r] = (MPI_Aint)cnt[r];
        sdispls[r] = stotal;
        stotal += scounts[r];
    }
    sbuf = malloc(sizeof(int) * (size_t)(stotal ? stotal : 1));
    if (!sbuf) {
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        goto out;
    }
    for (int r = 0; r < p; r++) /* cnt[r]: fill position, then back to the count */
        cnt[r] = sdispls[r];
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            int s = sources[i], d = destinations[k], w = weighted ? weights[k] : 0;
            int *o = sbuf + cnt[s], *in = sbuf + cnt[d] + (s == d ? REC_INTS : 0);
            o[0] = REC_OUT, o[1] = d, o[2] = w;
            in[0] = REC_IN, in[1] = s, in[2] = w;
            cnt[s] += REC_INTS;
            cnt[d] += REC_INTS;
        }
    for (int r = 0; r < p; r++)
        cnt[r] = scounts[r];
    rc = fy_alltoallv(cnt, 1, NULL, NULL, t64, cnt + p, 1, NULL, NULL, t64, c);
    MPI_Aint rtotal = 0;
    for (int r = 0; r < p && rc == MPI_SUCCESS; r++) {
        rcounts[r] = (MPI_Aint)cnt[p + r];
        rdispls[r] = rtotal;
        rtotal += rcounts[r];
    }
    if (rc == MPI_SUCCESS && !(rbuf = malloc(sizeof(int) * (size_t)(rtotal ? rtotal : 1))))
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (rc == MPI_SUCCESS)
        rc = fy_alltoallv(sbuf, 0, scounts, sdispls, ti, rbuf, 0, rcounts, rdispls, ti, c);
    fy_coll_scratch_done();
    if (rc != MPI_SUCCESS)
        goto out;
    int indeg = 0, outdeg = 0;
    for (MPI_Aint i = 0; i < rtotal; i += REC_INTS)
        if (rbuf[i] == REC_OUT)
            outdeg++;
        else
            indeg++;
    lists = malloc(sizeof(int) * (size_t)(2 * (indeg + outdeg) + 1));
    if (!lists) {
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        goto out;
    }
    int *src = lists, *srcw = src + indeg, *dst = srcw + indeg, *dstw = dst + outdeg;
    int ni = 0, no = 0;
    for (MPI_Aint i = 0; i < rtotal; i += REC_INTS)
        if (rbuf[i] == REC_OUT) {
            dst[no] = rbuf[i + 1];
            dstw[no++] = rbuf[i + 2];
        } else {
            src[ni] = rbuf[i + 1];
            srcw[ni++] = rbuf[i + 2];
        }
    *t_p = fy_topo_dist_new(indeg, src, srcw, outdeg, dst, dstw, weighted);
    if (!*t_p)
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
out:
    free(lists);
    free(rbuf);
    free(sbuf);
    free(v);
    free(cnt);
    return rc;
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    const char *fn = "MPI_Dist_graph_create";
    fy_comm_t *c;
    (void)info;
    (void)reorder;
    bool weighted = weights != MPI_UNWEIGHTED;
    long long total = 0;
    int rc = intra(fn, comm_old, &c);
    if (rc == MPI_SUCCESS && n < 0)
        rc = fy_err_set(MPI_ERR_ARG, "%s: n %d is negative", fn, n);
    if (rc == MPI_SUCCESS && n > 0 && (rc = nonnull(fn, sources, "sources")) == MPI_SUCCESS &&
        (rc = nonnull(fn, degrees, "degrees")) == MPI_SUCCESS)
        rc = check_ranks(fn, c, sources, n, "sources");
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (degrees[i] < 0)
            rc = fy_err_set(MPI_ERR_ARG, "%s: degrees[%d] = %d is negative", fn, i, degrees[i]);
        else if ((total += degrees[i]) > INT_MAX / (2 * REC_INTS))
            rc = fy_err_set(MPI_ERR_ARG, "%s: the degrees add up to more than %d edges", fn,
                            INT_MAX / (2 * REC_INTS));
    }
    if (rc == MPI_SUCCESS && total > 0 &&
        (rc = nonnull(fn, destinations, "destinations")) == MPI_SUCCESS)
        rc = check_ranks(fn, c, destinations, (int)total, "destinations");
    if (rc == MPI_SUCCESS && weighted)
        rc = check_weights(fn, weights, (int)total, "weights");
    if (rc == MPI_SUCCESS)
        rc = nonnull(fn, comm_dist_graph, "comm_dist_graph");
    if (rc == MPI_SUCCESS) {
        uint64_t agreed[FY_CID_MASK_WORDS];
        fy_topo_t *t = NULL;
        fy_lock();
        rc = agree_weighted(fn, c, weighted);
        if (rc == MPI_SUCCESS)
            rc = gather_edges(fn, c, n, sources, degrees, destinations, weights, weighted, &t);
        if (rc == MPI_SUCCESS)
            rc = fy_api_agree_cid(c, agreed);
        if (rc == MPI_SUCCESS) {
            rc = attach(fn, c, c->size, NULL, c->rank, agreed, t, comm_dist_graph);
            t = NULL;
        }
        fy_topo_free(t);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm_old, rc);
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    const char *fn = "MPI_Dist_graph_neighbors_count";
    fy_comm_t *c;
    const fy_topo_t *t;
    int rc = topo_of(fn, comm, MPI_DIST_GRAPH, &c, &t);
    if (rc == MPI_SUCCESS && (rc = nonnull(fn, indegree, "indegree")) == MPI_SUCCESS &&
        (rc = nonnull(fn, outdegree, "outdegree")) == MPI_SUCCESS)
        rc = nonnull(fn, weighted, "weighted");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *indegree = t->indegree;
    *outdegree = t->outdegree;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}

/* Only the first maxindegree / maxoutdegree neighbours are returned when the arrays are
 * shorter, as the standard says; weights are written only for a weighted graph, and only into
 * a real array. */
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    const char *fn = "MPI_Dist_graph_neighbors";
    fy_comm_t *c;
    const fy_topo_t *t;
    int rc = topo_of(fn, comm, MPI_DIST_GRAPH, &c, &t);
    if (rc == MPI_SUCCESS && (maxindegree < 0 || maxoutdegree < 0))
        rc = fy_err_set(MPI_ERR_ARG, "%s: %s %d is negative", fn,
                        maxindegree < 0 ? "maxindegree" : "maxoutdegree",
                        maxindegree < 0 ? maxindegree : maxoutdegree);
    int nin = 0, nout = 0;
    if (rc == MPI_SUCCESS) {
        nin = maxindegree < t->indegree ? maxindegree : t->indegree;
        nout = maxoutdegree < t->outdegree ? maxoutdegree : t->outdegree;
    }
    if (rc == MPI_SUCCESS && nin > 0)
        rc = nonnull(fn, sources, "sources");
    if (rc == MPI_SUCCESS && nout > 0)
        rc = nonnull(fn, destinations, "destinations");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    if (nin > 0)
        memcpy(sources, t->sources, sizeof(int) * (size_t)nin);
    if (nout > 0)
        memcpy(destinations, t->destinations, sizeof(int) * (size_t)nout);
    if (t->weighted && nin > 0 && sourceweights && sourceweights != MPI_UNWEIGHTED &&
        sourceweights != MPI_WEIGHTS_EMPTY)
        memcpy(sourceweights, t->sourceweights, sizeof(int) * (size_t)nin);
    if (t->weighted && nout > 0 && destweights && destweights != MPI_UNWEIGHTED &&
        destweights != MPI_WEIGHTS_EMPTY)
        memcpy(destweights, t->destweights, sizeof(int) * (size_t)nout);
    return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    const char *fn = "MPI_Topo_test";
    fy_comm_t *c;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS)
        rc = nonnull(fn, status, "status");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    const fy_topo_t *t = c->topo;
    *status = t ? t->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
