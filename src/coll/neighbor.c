/* Neighbourhood collectives: every process receives one block from each in-neighbour and sends
 * one block to each out-neighbour, all at once. One round of indegree receives and outdegree
 * sends; each block moves once, straight between the users' buffers (derived types are packed
 * on the fly by point-to-point). Cost: max(indegree, outdegree) messages per process, one hop.
 *
 * Matching. All messages of one call carry the schedule's tag, so between two processes they
 * match in the order they were posted. For a distributed graph that is the order of the edges
 * at creation on both ends (MPI_Dist_graph_create hands each edge to both ends in the same
 * order), which is what the standard asks when a neighbour appears several times; for a graph,
 * the order of MPI_Graph_neighbors on both ends.
 *
 * A Cartesian grid needs more: block s of the sender must land in block s^1 of the receiver
 * (what goes to the +1 neighbour arrives as that process's -1 block), and in a periodic
 * dimension of 1 or 2 processes both neighbours are the same process, so only the order decides
 * (MPI 4.1 section 8.6, advice to implementors; an erratum to MPI-3.1). The receives are posted
 * in block order (-1 then +1 in each dimension) and the sends in the swapped order (+1 then -1),
 * so the first message from a peer fills the first block it owes. In a dimension of 1 process a
 * process sends both blocks to itself and gets them swapped, as the rule says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_neighbor.h"
#include "fy_topo.h"

static const char *label(const fy_comm_t *c, char *buf, size_t n)
{
    if (c->name[0])
        return c->name;
    snprintf(buf, n, "0x%x", (unsigned)c->handle);
    return buf;
}

int fy_neighbors_get(const char *fn, const fy_comm_t *c, fy_neighbors_t *nb)
{
    const fy_topo_t *t = c->topo;
    char b[32];
    if (!t)
        return fy_err_set(MPI_ERR_TOPOLOGY,
                          "%s: communicator %s has no process topology (neighbourhood collectives "
                          "need a Cartesian, graph or distributed graph communicator)",
                          fn, label(c, b, sizeof b));
    int nin, nout;
    const int *in = NULL, *out = NULL;
    switch (t->kind) {
    case MPI_CART: nin = nout = 2 * t->ndims; break;
    case MPI_GRAPH:
        nin = nout = fy_topo_graph_degree(t, c->rank);
        in = out = fy_topo_graph_neighbors(t, c->rank);
        break;
    default:
        nin = t->indegree;
        nout = t->outdegree;
        in = t->sources;
        out = t->destinations;
        break;
    }
    int *lists = malloc(sizeof *lists * (size_t)(nin + nout > 0 ? nin + nout : 1));
    if (!lists)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for the neighbour lists", fn);
    if (t->kind == MPI_CART) {
        for (int d = 0; d < t->ndims; d++)
            fy_topo_cart_shift(t, c->rank, d, 1, &lists[2 * d], &lists[2 * d + 1]);
        memcpy(lists + nin, lists, sizeof *lists * (size_t)nin);
    } else {
        if (nin)
            memcpy(lists, in, sizeof *lists * (size_t)nin);
        if (nout)
            memcpy(lists + nin, out, sizeof *lists * (size_t)nout);
    }
    nb->indegree = nin;
    nb->outdegree = nout;
    nb->sources = lists;
    nb->destinations = lists + nin;
    nb->cart = t->kind == MPI_CART;
    return MPI_SUCCESS;
}

void fy_neighbors_free(fy_neighbors_t *nb)
{
    free(nb->sources);
    nb->sources = nb->destinations = NULL;
}

/* Block i of one side: its address, count and type. */
static const char *block(const fy_nbr_side_t *sd, int i, MPI_Aint *count_p, const fy_dtype_t **dt_p)
{
    const fy_dtype_t *dt = sd->dts ? sd->dts[i] : sd->dt;
    MPI_Aint count = sd->counts ? sd->counts[i] : sd->count;
    const char *p = sd->buf;
    if (!sd->one_block && !sd->displs)
        p += (MPI_Aint)i * count * dt->extent;
    else if (!sd->one_block)
        p += sd->displs_in_bytes ? sd->displs[i] : sd->displs[i] * dt->extent;
    *count_p = count;
    *dt_p = dt;
    return p;
}

void fy_neighbor_sched(fy_sched_t *s, const fy_neighbors_t *nb, const fy_nbr_side_t *snd,
                       const fy_nbr_side_t *rcv)
{
    MPI_Aint count;
    const fy_dtype_t *dt;
    for (int i = 0; i < nb->indegree; i++) {
        const char *p = block(rcv, i, &count, &dt);
        if (nb->sources[i] != MPI_PROC_NULL)
            fy_sched_recv(s, (void *)p, count, dt, nb->sources[i]);
    }
    for (int k = 0; k < nb->outdegree; k++) {
        int j = nb->cart ? k ^ 1 : k; /* Cartesian: +1 before -1 (see the top of this file) */
        const char *p = block(snd, j, &count, &dt);
        if (nb->destinations[j] != MPI_PROC_NULL)
            fy_sched_send(s, p, count, dt, nb->destinations[j]);
    }
}
