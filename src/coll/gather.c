/* Gather(v), linear: the root posts one receive per rank and waits for all of them; every
 * other rank sends once. p-1 messages converge on the root, each a single hop; on shared
 * memory that beats a tree (which copies blocks again at every level) until the root's
 * bandwidth saturates. A binomial tree for many small blocks is not offered: the non-roots of
 * Gatherv know neither the other counts nor that the call is a v-form, so they could not take it
 * alike. */
#include <stdlib.h>

#include "fy_err.h"
#include "fy_select.h"

int fy_gatherv_linear(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                      MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                      const fy_dtype_t *rdt, int root, fy_comm_t *c)
{
    if (c->rank != root)
        return fy_coll_send(sbuf, scount, sdt, root, FY_TAG_GATHER, c);
    struct fy_req **reqs = calloc((size_t)c->size, sizeof *reqs);
    if (!reqs)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Gather: out of memory");
    int rc = MPI_SUCCESS;
    for (int i = 0; i < c->size; i++) {
        char *at = (char *)rbuf + fy_coll_displ(rcount, displs, i) * rdt->extent;
        MPI_Aint n = fy_coll_count(rcount, rcounts, i);
        if (i == root) {
            if (sbuf != MPI_IN_PLACE)
                rc = fy_coll_copy(sbuf, scount, sdt, at, n, rdt);
        } else if (!(reqs[i] = fy_coll_irecv(at, n, rdt, i, FY_TAG_GATHER, c))) {
            rc = fy_err_set(MPI_ERR_NO_MEM, "MPI_Gather: out of memory");
        }
    }
    int w = fy_coll_waitall(reqs, c->size);
    free(reqs);
    return rc != MPI_SUCCESS ? rc : w;
}

void fy_gatherv_linear_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                             const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                             const MPI_Aint *rcounts, const MPI_Aint *displs, const fy_dtype_t *rdt,
                             int root)
{
    fy_comm_t *c = fy_sched_comm(s);
    if (c->rank != root) {
        fy_sched_send(s, sbuf, scount, sdt, root);
        return;
    }
    for (int i = 0; i < c->size; i++) {
        char *at = (char *)rbuf + fy_coll_displ(rcount, displs, i) * rdt->extent;
        MPI_Aint n = fy_coll_count(rcount, rcounts, i);
        if (i != root)
            fy_sched_recv(s, at, n, rdt, i);
        else if (sbuf != MPI_IN_PLACE)
            fy_sched_copy(s, sbuf, scount, sdt, at, n, rdt);
    }
}
