/* Reduce_scatter(_block) by pairwise exchange: in step k every rank sends the part of its
 * input that rank r+k owns and adds in what rank r-k sends for its own part. p-1 steps, each
 * rank sends and receives (p-1)/p of the vector once: bandwidth-optimal for any p. The
 * predefined operators are commutative, so the order of the contributions does not matter
 * for the result's meaning; each block is reduced on one rank only, so the result is
 * deterministic. */
#include <stdlib.h>
#include <string.h>

#include "fy_coll.h"
#include "fy_err.h"
#include "fy_op.h"

int fy_reduce_scatter(const void *sbuf, void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                      const fy_dtype_t *dt, MPI_Op op, fy_comm_t *c)
{
    int p = c->size, me = c->rank;
    /* The blocks lie packed one after the other in the input vector. */
    MPI_Aint *displs = malloc(sizeof *displs * (size_t)p), total = 0, biggest = 0;
    if (!displs)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Reduce_scatter: out of memory");
    for (int i = 0; i < p; i++) {
        displs[i] = total;
        total += fy_coll_count(rcount, rcounts, i);
        if (fy_coll_count(rcount, rcounts, i) > biggest)
            biggest = fy_coll_count(rcount, rcounts, i);
    }
    if (total == 0) { /* nothing anywhere: buffers may legally be NULL */
        free(displs);
        return MPI_SUCCESS;
    }
    /* With MPI_IN_PLACE the input vector is in the receive buffer: keep a copy of it, since
     * our own block is overwritten with the result. */
    const char *in = sbuf;
    char *copy = NULL, *tmp = fy_coll_scratch(0, (size_t)(biggest * dt->extent) + 1);
    if (sbuf == MPI_IN_PLACE && tmp) {
        copy = fy_coll_scratch(1, (size_t)(total * dt->extent) + 1);
        if (copy)
            memcpy(copy, rbuf, (size_t)(total * dt->extent));
        in = copy;
    }
    int rc =
        tmp && in ? MPI_SUCCESS : fy_err_set(MPI_ERR_NO_MEM, "MPI_Reduce_scatter: out of memory");
    MPI_Aint mine = fy_coll_count(rcount, rcounts, me);
    if (rc == MPI_SUCCESS && mine > 0)
        memmove(rbuf, in + displs[me] * dt->extent, (size_t)(mine * dt->extent));
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int to = (me + k) % p, from = (me - k + p) % p;
        rc = fy_coll_sendrecv(in + displs[to] * dt->extent, fy_coll_count(rcount, rcounts, to), dt,
                              to, tmp, mine, dt, from, FY_TAG_REDUCE_SCATTER, c);
        if (rc == MPI_SUCCESS)
            fy_op_apply(op, dt, tmp, rbuf, mine);
    }
    free(displs);
    return rc;
}
