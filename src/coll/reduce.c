/* Reduce along a binomial tree: ceil(log2 p) steps, each a whole-vector message and one local
 * reduction.
 *   commutative operators: the tree is rooted at `root` (ranks relative to it), so partial
 *     results combine in tree order, which they may;
 *   other operators: the tree is rooted at rank 0 over the natural rank order, so every partial
 *     result covers a run of consecutive ranks and is combined with its neighbour run in rank
 *     order; rank 0 then sends the result to the root (one more message when root != 0).
 * Temporary vectors have the datatype's own layout (its true extent), so derived types work. */
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_op.h"
#include "fy_select.h"

static int reduce_tree(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                       MPI_Op op, int root, fy_comm_t *c)
{
    int p = c->size, rel = (c->rank - root + p) % p;
    const char *cur = sbuf; /* this rank's partial result */
    char *acc = NULL, *tmp = NULL;
    int rc = MPI_SUCCESS;
    for (int mask = 1; mask < p; mask <<= 1) {
        if (rel & mask) { /* a leaf sends its input as it is */
            rc = fy_coll_send(cur, count, dt, (rel - mask + root) % p, FY_TAG_REDUCE, c);
            break;
        }
        if (rel + mask >= p)
            continue;
        if (!tmp) {
            tmp = fy_coll_scratch_typed(0, dt, count, 1, NULL);
            acc = rel == 0 ? rbuf : fy_coll_scratch_typed(1, dt, count, 1, NULL);
            if (!tmp || !acc)
                return MPI_ERR_NO_MEM;
            fy_op_copy(dt, sbuf, acc, count);
            cur = acc;
        }
        rc = fy_coll_recv(tmp, count, dt, (rel + mask + root) % p, FY_TAG_REDUCE, c);
        if (rc != MPI_SUCCESS)
            break;
        fy_op_apply(op, dt, tmp, acc, count);
    }
    if (rc == MPI_SUCCESS && rel == 0)
        fy_op_copy(dt, cur, rbuf, count); /* p == 1: the input is the result */
    return rc;
}

static int reduce_ordered(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                          MPI_Op op, int root, fy_comm_t *c)
{
    int p = c->size, me = c->rank;
    const char *cur = sbuf; /* the result over ranks me .. me + (run length) - 1 */
    char *acc = NULL, *tmp = NULL;
    int rc = MPI_SUCCESS;
    for (int mask = 1; mask < p; mask <<= 1) {
        if (me & mask) {
            rc = fy_coll_send(cur, count, dt, me - mask, FY_TAG_REDUCE, c);
            break;
        }
        if (me + mask >= p)
            continue;
        if (!tmp) {
            tmp = fy_coll_scratch_typed(0, dt, count, 1, NULL);
            acc = fy_coll_scratch_typed(1, dt, count, 1, NULL);
            if (!tmp || !acc)
                return MPI_ERR_NO_MEM;
            fy_op_copy(dt, sbuf, acc, count);
            cur = acc;
        }
        rc = fy_coll_recv(tmp, count, dt, me + mask, FY_TAG_REDUCE, c);
        if (rc != MPI_SUCCESS)
            break;
        /* ours covers the lower ranks: tmp = acc o tmp, which becomes the accumulator */
        fy_op_apply(op, dt, acc, tmp, count);
        char *t = acc;
        acc = tmp;
        tmp = t;
        cur = acc;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    if (me == 0 && root != 0)
        return fy_coll_send(cur, count, dt, root, FY_TAG_REDUCE, c);
    if (me == root && root != 0)
        return fy_coll_recv(rbuf, count, dt, 0, FY_TAG_REDUCE, c);
    if (me == root)
        fy_op_copy(dt, cur, rbuf, count);
    return MPI_SUCCESS;
}

int fy_reduce_binomial(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                       MPI_Op op, int root, fy_comm_t *c)
{
    if (fy_op_commutes(op))
        return reduce_tree(sbuf, rbuf, count, dt, op, root, c);
    return reduce_ordered(sbuf, rbuf, count, dt, op, root, c);
}

/* The schedules: the same trees, with every child's vector received at once into a buffer of
 * its own, then combined in the order the blocking forms use (so the results are the same). */
void fy_reduce_binomial_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                              const fy_dtype_t *dt, MPI_Op op, int root)
{
    fy_comm_t *c = fy_sched_comm(s);
    int p = c->size;
    bool commute = fy_op_commutes(op);
    if (count == 0)
        return;
    /* commutative: the tree rooted at root; otherwise at rank 0 over the rank order */
    int rel = commute ? (c->rank - root + p) % p : c->rank, base = commute ? root : 0;
    int nchild = 0, parent = -1;
    for (int mask = 1; mask < p; mask <<= 1) {
        if (rel & mask) {
            parent = (rel - mask + base) % p;
            break;
        }
        if (rel + mask < p)
            nchild++;
    }
    const char *cur = sbuf; /* this rank's partial result */
    if (nchild > 0) {
        size_t stride;
        char *tmp = fy_sched_scratch_typed(s, dt, count, nchild, &stride);
        char *acc = commute && rel == 0 ? rbuf : fy_sched_scratch_typed(s, dt, count, 1, NULL);
        if (!tmp || !acc)
            return;
        for (int mask = 1, i = 0; mask < p && !(rel & mask); mask <<= 1)
            if (rel + mask < p)
                fy_sched_recv(s, tmp + (size_t)i++ * stride, count, dt, (rel + mask + base) % p);
        fy_sched_copy_same(s, dt, sbuf, acc, count);
        fy_sched_round(s);
        for (int i = 0; i < nchild; i++) {
            char *t = tmp + (size_t)i * stride;
            if (commute) {
                fy_sched_reduce(s, op, dt, t, acc, count);
            } else { /* ours covers the lower ranks: t = acc o t becomes the accumulator */
                fy_sched_reduce(s, op, dt, acc, t, count);
                acc = t;
            }
        }
        cur = acc;
    }
    if (parent >= 0) {
        fy_sched_send(s, cur, count, dt, parent);
    } else if (commute || root == 0) { /* the tree's root is the root */
        fy_sched_copy_same(s, dt, cur, rbuf, count);
    } else {
        fy_sched_send(s, cur, count, dt, root); /* rank 0 hands the result to the root */
    }
    if (!commute && root != 0 && c->rank == root) {
        fy_sched_round(s);
        fy_sched_recv(s, rbuf, count, dt, 0);
    }
}
