/* Scan and Exscan by recursive doubling: ceil(log2 p) exchanges of the whole vector. Each rank
 * keeps `partial`, the reduction over the aligned run of 2^k ranks around it, and its result
 * over the ranks of that run up to itself (before it, for Exscan). In step k it swaps partials
 * with rank ^ 2^k: a partner below is added on the left of both, a partner above only on the
 * right of the partial. Runs stay in rank order, so non-commutative operators are fine. With p
 * not a power of two, a partner beyond p is skipped; the partials that then miss ranks are
 * only ever sent to ranks that do not need those ranks (standard argument). */
#include <stdlib.h>
#include <string.h>

#include "fy_coll.h"
#include "fy_err.h"
#include "fy_op.h"

int fy_scan(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
            bool exclusive, fy_comm_t *c)
{
    int p = c->size, me = c->rank;
    bool commute = fy_op_commutes(op), have = !exclusive;
    const char *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (p == 1) {
        if (!exclusive)
            fy_op_copy(dt, in, rbuf, count);
        return MPI_SUCCESS;
    }
    char *partial = fy_coll_scratch_typed(1, dt, count, 1, NULL);
    char *tmp = partial ? fy_coll_scratch_typed(0, dt, count, 1, NULL) : NULL;
    if (!tmp)
        return MPI_ERR_NO_MEM;
    fy_op_copy(dt, in, partial, count);
    if (!exclusive)
        fy_op_copy(dt, in, rbuf, count);
    int rc = MPI_SUCCESS;
    for (int mask = 1; mask < p && rc == MPI_SUCCESS; mask <<= 1) {
        int partner = me ^ mask;
        if (partner >= p)
            continue;
        rc = fy_coll_sendrecv(partial, count, dt, partner, tmp, count, dt, partner, FY_TAG_SCAN, c);
        if (rc != MPI_SUCCESS)
            break;
        if (partner < me) {
            if (have) {
                fy_op_apply(op, dt, tmp, rbuf, count);
            } else {
                fy_op_copy(dt, tmp, rbuf, count);
                have = true;
            }
            fy_op_apply(op, dt, tmp, partial, count);
        } else if (commute) {
            fy_op_apply(op, dt, tmp, partial, count);
        } else { /* tmp = partial o tmp becomes the partial */
            fy_op_apply(op, dt, partial, tmp, count);
            char *t = partial;
            partial = tmp;
            tmp = t;
        }
    }
    return rc;
}

void fy_scan_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                   const fy_dtype_t *dt, MPI_Op op, bool exclusive)
{
    fy_comm_t *c = fy_sched_comm(s);
    int p = c->size, me = c->rank;
    bool commute = fy_op_commutes(op), have = !exclusive;
    const char *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (count == 0)
        return;
    if (p == 1) {
        if (!exclusive)
            fy_sched_copy_same(s, dt, in, rbuf, count);
        return;
    }
    char *partial = fy_sched_scratch_typed(s, dt, count, 1, NULL);
    char *tmp = fy_sched_scratch_typed(s, dt, count, 1, NULL);
    if (!partial || !tmp)
        return;
    fy_sched_copy_same(s, dt, in, partial, count);
    if (!exclusive)
        fy_sched_copy_same(s, dt, in, rbuf, count);
    for (int mask = 1; mask < p; mask <<= 1) {
        int partner = me ^ mask;
        if (partner >= p)
            continue;
        fy_sched_recv(s, tmp, count, dt, partner);
        fy_sched_send(s, partial, count, dt, partner);
        fy_sched_round(s);
        if (partner < me) {
            if (have) {
                fy_sched_reduce(s, op, dt, tmp, rbuf, count);
            } else {
                fy_sched_copy_same(s, dt, tmp, rbuf, count);
                have = true;
            }
            fy_sched_reduce(s, op, dt, tmp, partial, count);
        } else if (commute) {
            fy_sched_reduce(s, op, dt, tmp, partial, count);
        } else { /* tmp = partial o tmp becomes the partial */
            fy_sched_reduce(s, op, dt, partial, tmp, count);
            char *t = partial;
            partial = tmp;
            tmp = t;
        }
    }
}
