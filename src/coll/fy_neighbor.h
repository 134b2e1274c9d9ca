/* Neighbourhood collectives (neighbor.c): the neighbours of a communicator with a process
 * topology, in the order the standard gives their buffer blocks, and one schedule builder that
 * serves all five collectives (Neighbor_allgather(v), Neighbor_alltoall(v/w)) in their
 * blocking, nonblocking and persistent forms. */
#ifndef FY_NEIGHBOR_H
#define FY_NEIGHBOR_H

#include <stdbool.h>

#include "fy_comm.h"
#include "fy_dtype.h"
#include "fy_sched.h"
#include "mpi.h"

/* A communicator's in-neighbours (whose data land in the receive blocks, block i from
 * sources[i]) and out-neighbours (block j of the send buffer goes to destinations[j]), in the
 * order of MPI 4.1 section 8.6:
 *   - Cartesian: for each dimension d, the source then the destination of
 *     MPI_Cart_shift(d, 1), both lists alike; MPI_PROC_NULL past a non-periodic edge (the
 *     block is still counted; nothing moves);
 *   - graph: MPI_Graph_neighbors of this process, both lists alike;
 *   - distributed graph: the sources and the destinations in the order the graph was created
 *     with (MPI_Dist_graph_neighbors). A neighbour may appear several times.
 * `cart` marks a Cartesian topology, where a periodic dimension of 1 or 2 processes makes the
 * source and the destination the same process (the builder then orders its sends, see
 * neighbor.c). */
typedef struct fy_neighbors {
    int indegree, outdegree;
    int *sources, *destinations; /* one allocation, owned */
    bool cart;
} fy_neighbors_t;

/* Fills *nb for c; MPI_ERR_TOPOLOGY (message naming fn and c) when c has no topology,
 * MPI_ERR_NO_MEM when out of memory. *nb is set only on success; free it with
 * fy_neighbors_free (which also takes a zeroed, never filled one). */
int fy_neighbors_get(const char *fn, const fy_comm_t *c, fy_neighbors_t *nb);
void fy_neighbors_free(fy_neighbors_t *nb);

/* One side (send or receive) of a neighbourhood collective: where block i (the block of
 * neighbour i in that side's list) is, how many elements and of which type.
 *   count/counts: block i holds counts[i] elements, or `count` when counts is NULL;
 *   displs: block i starts displs[i] extents of its type from buf (bytes when
 *     displs_in_bytes: the w forms), or, when displs is NULL, the blocks follow one another
 *     (block i at i * count extents; counts must then be NULL);
 *   one_block: every block is the one at buf (the send side of the allgathers);
 *   dt/dts: the type of every block, or of block i when dts is not NULL. */
typedef struct fy_nbr_side {
    const void *buf;
    MPI_Aint count;
    const MPI_Aint *counts;
    const MPI_Aint *displs;
    bool displs_in_bytes;
    bool one_block;
    const fy_dtype_t *dt;
    const fy_dtype_t *const *dts;
} fy_nbr_side_t;

/* Adds the collective to s as one round: a receive for every in-neighbour, then a send to
 * every out-neighbour (none for MPI_PROC_NULL). The arrays of snd and rcv are read here, never
 * kept; the buffers are used when the schedule runs. */
void fy_neighbor_sched(fy_sched_t *s, const fy_neighbors_t *nb, const fy_nbr_side_t *snd,
                       const fy_nbr_side_t *rcv);

#endif
