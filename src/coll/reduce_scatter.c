/* Reduce_scatter(_block), two algorithms (p ranks, n bytes in the whole vector):
 *   pairwise   in step k every rank sends the part of its input that rank r+k owns and
 *              receives what rank r-k holds for its own part: (p-1) alpha + n (p-1)/p beta,
 *              bandwidth-optimal for any p;
 *                commutative operators: each contribution is added in as it arrives;
 *                other operators: the p contributions to a block are kept and combined in rank
 *                order afterwards (p vectors of the block's size in scratch).
 *              Each block is reduced on one rank only, so the result is deterministic.
 *   allreduce  the whole vector reduced everywhere by recursive doubling (allreduce.c, rank
 *              order kept), each rank keeping its block: ceil(log2 p) (alpha + n beta); fewer
 *              rounds for short vectors, where a round costs more than the extra bytes. */
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_op.h"
#include "fy_select.h"

int fy_reduce_scatter_pairwise(const void *sbuf, void *rbuf, MPI_Aint rcount,
                               const MPI_Aint *rcounts, const fy_dtype_t *dt, MPI_Op op,
                               fy_comm_t *c)
{
    int p = c->size, me = c->rank;
    bool commute = fy_op_commutes(op);
    /* The blocks lie one after the other in the input vector. */
    MPI_Aint *displs = malloc(sizeof *displs * (size_t)p), total = 0;
    if (!displs)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Reduce_scatter: out of memory");
    for (int i = 0; i < p; i++) {
        displs[i] = total;
        total += fy_coll_count(rcount, rcounts, i);
    }
    if (total == 0) { /* nothing anywhere: buffers may legally be NULL */
        free(displs);
        return MPI_SUCCESS;
    }
    MPI_Aint mine = fy_coll_count(rcount, rcounts, me), ext = dt->extent;
    /* With MPI_IN_PLACE the input vector is in the receive buffer: keep a copy of it, since
     * our own block is overwritten with the result. */
    const char *in = sbuf;
    size_t stride = 0;
    char *copy = NULL, *tmp = fy_coll_scratch_typed(0, dt, mine, commute ? 1 : p, &stride);
    if (sbuf == MPI_IN_PLACE && tmp) {
        copy = fy_coll_scratch_typed(1, dt, total, 1, NULL);
        if (copy)
            fy_op_copy(dt, rbuf, copy, total);
        in = copy;
    }
    int rc =
        tmp && in ? MPI_SUCCESS : fy_err_set(MPI_ERR_NO_MEM, "MPI_Reduce_scatter: out of memory");
    if (rc == MPI_SUCCESS && commute && mine > 0)
        fy_op_copy(dt, in + displs[me] * ext, rbuf, mine);
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int to = (me + k) % p, from = (me - k + p) % p;
        char *into = commute ? tmp : tmp + (size_t)from * stride;
        rc = fy_coll_sendrecv(in + displs[to] * ext, fy_coll_count(rcount, rcounts, to), dt, to,
                              into, mine, dt, from, FY_TAG_REDUCE_SCATTER, c);
        if (rc == MPI_SUCCESS && commute)
            fy_op_apply(op, dt, tmp, rbuf, mine);
    }
    if (rc == MPI_SUCCESS && !commute && mine > 0) {
        /* x0 o (x1 o (... o x(p-1))): fold from the highest rank down */
        const char *own = in + displs[me] * ext;
#define CONTRIB(i) ((i) == me ? own : tmp + (size_t)(i)*stride)
        fy_op_copy(dt, CONTRIB(p - 1), rbuf, mine);
        for (int i = p - 2; i >= 0; i--)
            fy_op_apply(op, dt, CONTRIB(i), rbuf, mine);
#undef CONTRIB
    }
    free(displs);
    return rc;
}

void fy_reduce_scatter_pairwise_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint rcount,
                                      const MPI_Aint *rcounts, const fy_dtype_t *dt, MPI_Op op)
{
    fy_comm_t *c = fy_sched_comm(s);
    int p = c->size, me = c->rank;
    bool commute = fy_op_commutes(op);
    MPI_Aint *displs = fy_sched_scratch(s, sizeof *displs * (size_t)p), total = 0;
    if (!displs)
        return;
    for (int i = 0; i < p; i++) {
        displs[i] = total;
        total += fy_coll_count(rcount, rcounts, i);
    }
    if (total == 0)
        return; /* nothing anywhere: buffers may legally be NULL */
    MPI_Aint mine = fy_coll_count(rcount, rcounts, me), ext = dt->extent;
    const char *in = sbuf;
    if (sbuf == MPI_IN_PLACE) { /* our block of rbuf is overwritten: work from a copy */
        char *copy = fy_sched_scratch_typed(s, dt, total, 1, NULL);
        if (!copy)
            return;
        fy_sched_copy_same(s, dt, rbuf, copy, total);
        in = copy;
    }
    size_t stride = 0;
    char *tmp = fy_sched_scratch_typed(s, dt, mine, commute ? 1 : p, &stride);
    if (!tmp)
        return;
    if (commute && mine > 0)
        fy_sched_copy_same(s, dt, in + displs[me] * ext, rbuf, mine);
    for (int k = 1; k < p; k++) {
        int to = (me + k) % p, from = (me - k + p) % p;
        char *into = commute ? tmp : tmp + (size_t)from * stride;
        fy_sched_recv(s, into, mine, dt, from);
        fy_sched_send(s, in + displs[to] * ext, fy_coll_count(rcount, rcounts, to), dt, to);
        fy_sched_round(s);
        if (commute)
            fy_sched_reduce(s, op, dt, tmp, rbuf, mine);
    }
    if (!commute && mine > 0) {
        /* x0 o (x1 o (... o x(p-1))): fold from the highest rank down */
        const char *own = in + displs[me] * ext;
#define CONTRIB(i) ((i) == me ? own : tmp + (size_t)(i)*stride)
        fy_sched_copy_same(s, dt, CONTRIB(p - 1), rbuf, mine);
        for (int i = p - 2; i >= 0; i--)
            fy_sched_reduce(s, op, dt, CONTRIB(i), rbuf, mine);
#undef CONTRIB
    }
}

/* The vector's length and where our block starts in it. */
static MPI_Aint layout(MPI_Aint rcount, const MPI_Aint *rcounts, int p, int me, MPI_Aint *mine_p)
{
    MPI_Aint total = 0;
    for (int i = 0; i < p; i++) {
        if (i == me)
            *mine_p = total;
        total += fy_coll_count(rcount, rcounts, i);
    }
    return total;
}

int fy_reduce_scatter_allreduce(const void *sbuf, void *rbuf, MPI_Aint rcount,
                                const MPI_Aint *rcounts, const fy_dtype_t *dt, MPI_Op op,
                                fy_comm_t *c)
{
    MPI_Aint at = 0, total = layout(rcount, rcounts, c->size, c->rank, &at);
    if (total == 0)
        return MPI_SUCCESS;
    char *all = fy_coll_scratch_typed(1, dt, total, 1, NULL); /* slot 0 is the allreduce's */
    if (!all)
        return MPI_ERR_NO_MEM;
    int rc =
        fy_allreduce_recursive_doubling(sbuf == MPI_IN_PLACE ? rbuf : sbuf, all, total, dt, op, c);
    if (rc == MPI_SUCCESS)
        fy_op_copy(dt, all + at * dt->extent, rbuf, fy_coll_count(rcount, rcounts, c->rank));
    return rc;
}

void fy_reduce_scatter_allreduce_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint rcount,
                                       const MPI_Aint *rcounts, const fy_dtype_t *dt, MPI_Op op)
{
    fy_comm_t *c = fy_sched_comm(s);
    MPI_Aint at = 0, total = layout(rcount, rcounts, c->size, c->rank, &at);
    if (total == 0)
        return;
    char *all = fy_sched_scratch_typed(s, dt, total, 1, NULL);
    if (!all)
        return;
    fy_allreduce_recursive_doubling_sched(s, sbuf == MPI_IN_PLACE ? rbuf : sbuf, all, total, dt,
                                          op);
    fy_sched_round(s);
    fy_sched_copy_same(s, dt, all + at * dt->extent, rbuf, fy_coll_count(rcount, rcounts, c->rank));
}
