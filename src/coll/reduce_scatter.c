/* Reduce_scatter(_block): the whole vector is reduced to rank 0 (binomial, reduce.c), which
 * then scatters the blocks (scatter.c). 2 log p + (p-1) steps and the full vector at the root:
 * correct for any operator order the predefined operators allow, not bandwidth-optimal; the
 * collectives issue replaces it with the pairwise and ring algorithms. */
#include <stdlib.h>

#include "fy_coll.h"
#include "fy_err.h"

int fy_reduce_scatter(const void *sbuf, void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                      const fy_dtype_t *dt, MPI_Op op, fy_comm_t *c)
{
    /* The blocks lie packed one after the other in the reduced vector. */
    MPI_Aint total = 0, *displs = malloc(sizeof *displs * (size_t)c->size);
    if (!displs)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Reduce_scatter: out of memory");
    for (int i = 0; i < c->size; i++) {
        displs[i] = total;
        total += fy_coll_count(rcount, rcounts, i);
    }
    /* With MPI_IN_PLACE the input vector is in the receive buffer. */
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    void *full = NULL;
    if (c->rank == 0 && !(full = malloc((size_t)(total * dt->extent) + 1))) {
        free(displs);
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Reduce_scatter: out of memory");
    }
    int rc = fy_reduce(in, full, total, dt, op, 0, c);
    if (rc == MPI_SUCCESS)
        rc = fy_scatterv(full, rcount, rcounts, displs, dt, rbuf,
                         fy_coll_count(rcount, rcounts, c->rank), dt, 0, c);
    free(full);
    free(displs);
    return rc;
}
