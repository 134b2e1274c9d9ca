/* Process topologies: the data a communicator keeps about its virtual layout (Cartesian grid,
 * general graph, distributed graph) and the pure functions over it (coordinates, ranks, shifts,
 * the balanced factorisation behind MPI_Dims_create). Nothing here communicates: the API layer
 * (src/api/topo.c) checks arguments, runs the collectives and attaches a topology to the
 * communicator it creates (fy_comm_t.topo).
 *
 * A topology is one allocation: the struct, then its integer arrays. It never changes after it
 * is built, so readers need no lock; MPI_Comm_dup copies it (fy_topo_copy) and releasing the
 * communicator frees it (fy_topo_free).
 *
 * Ranks follow the standard's row-major numbering: in a grid of dims d[0] x ... x d[n-1], the
 * process with coordinates (c[0], ..., c[n-1]) has rank ((c[0] * d[1] + c[1]) * d[2] + ...) +
 * c[n-1]. Reordering is the identity: the rank in the new communicator is the rank in the old.
 */
#ifndef FY_TOPO_H
#define FY_TOPO_H

#include <stdbool.h>
#include <stddef.h>

#include "mpi.h"

typedef struct fy_topo {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* MPI_CART: ndims may be 0 (one process, no coordinates). periods are 0 or 1. */
    int ndims;
    int *dims, *periods;
    /* MPI_GRAPH: the whole graph as given (index[i] = edges of nodes 0..i). */
    int nnodes, nedges;
    int *index, *edges;
    /* MPI_DIST_GRAPH: this process's own edges, in the order MPI_Dist_graph_neighbors reports
     * them; the weight arrays are NULL when the graph is unweighted. */
    int indegree, outdegree;
    bool weighted;
    int *sources, *sourceweights, *destinations, *destweights;
    size_t bytes; /* of the whole allocation */
} fy_topo_t;

/* Constructors copy their arguments. NULL when out of memory. */
fy_topo_t *fy_topo_cart_new(int ndims, const int *dims, const int *periods);
fy_topo_t *fy_topo_graph_new(int nnodes, const int *index, const int *edges);
/* sourceweights/destweights are read only when `weighted`. */
fy_topo_t *fy_topo_dist_new(int indegree, const int *sources, const int *sourceweights,
                            int outdegree, const int *destinations, const int *destweights,
                            bool weighted);
/* NULL when t is NULL or out of memory (tell them apart by t). */
fy_topo_t *fy_topo_copy(const fy_topo_t *t);
void fy_topo_free(fy_topo_t *t); /* NULL is fine */

/* The number of processes in a grid: the product of dims (1 when ndims is 0), or -1 when a
 * dimension is not positive or the product exceeds INT_MAX. */
int fy_topo_grid_size(int ndims, const int *dims);

/* Cartesian: the coordinates of `rank` (0 <= rank < grid size) into coords[ndims]. */
void fy_topo_cart_coords(const fy_topo_t *t, int rank, int *coords);
/* The rank at coords; a coordinate outside 0..dims[i]-1 wraps in a periodic dimension. -1 when
 * it is outside in a non-periodic one (*bad_dim_p, may be NULL, names the first such). */
int fy_topo_cart_rank(const fy_topo_t *t, const int *coords, int *bad_dim_p);
/* MPI_Cart_shift from `rank` along dimension dir (0 <= dir < ndims) by disp: the source
 * (rank - disp) and destination (rank + disp), MPI_PROC_NULL past a non-periodic edge. */
void fy_topo_cart_shift(const fy_topo_t *t, int rank, int dir, int disp, int *source_p,
                        int *dest_p);

/* Graph: the neighbours of node `rank` (0 <= rank < nnodes). */
static inline int fy_topo_graph_degree(const fy_topo_t *t, int rank)
{
    return t->index[rank] - (rank ? t->index[rank - 1] : 0);
}
static inline const int *fy_topo_graph_neighbors(const fy_topo_t *t, int rank)
{
    return t->edges + (rank ? t->index[rank - 1] : 0);
}

/* MPI_Dims_create: fills the zero entries of dims[ndims] so that the product of all entries is
 * nnodes. The entries it sets are the balanced factorisation of what is left: the largest as
 * small as possible, then the next largest as small as possible, and so on; they are written in
 * non-increasing order into the zero positions, left to right. Nonzero entries are kept.
 * Returns 0; -1 (dims untouched) when nnodes < 1, ndims < 0, an entry is negative, or the
 * nonzero entries do not divide nnodes (with no zero entry: their product is not nnodes); -2
 * when out of memory. */
int fy_topo_dims_create(int nnodes, int ndims, int *dims);

#endif
