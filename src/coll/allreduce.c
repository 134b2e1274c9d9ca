/* Allreduce by recursive doubling: log2 p exchanges of the whole vector, each followed by a
 * local reduction. With p not a power of two, the first 2r ranks (r = p - 2^k) pair up and
 * fold into r ranks before the exchanges and get the result back after them. Latency-optimal
 * for short vectors; the collectives issue adds Rabenseifner and ring for long ones.
 *
 * Every rank's vector covers a run of consecutive ranks (the fold joins ranks 2i and 2i+1, and
 * the new numbering keeps rank order), and each exchange joins two neighbouring runs, so a
 * non-commutative operator is applied in rank order by putting the lower run on the left. */
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_op.h"
#include "fy_select.h"

int fy_allreduce_recursive_doubling(const void *sbuf, void *rbuf, MPI_Aint count,
                                    const fy_dtype_t *dt, MPI_Op op, fy_comm_t *c)
{
    int p = c->size, me = c->rank;
    bool commute = fy_op_commutes(op);
    fy_op_copy(dt, sbuf, rbuf, count);
    if (p == 1)
        return MPI_SUCCESS;
    char *acc = rbuf, *tmp = fy_coll_scratch_typed(0, dt, count, 1, NULL);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    int rem = p - pof2, newrank, rc = MPI_SUCCESS;
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            rc = fy_coll_send(rbuf, count, dt, me + 1, FY_TAG_ALLREDUCE, c);
            newrank = -1;
        } else {
            rc = fy_coll_recv(tmp, count, dt, me - 1, FY_TAG_ALLREDUCE, c);
            fy_op_apply(op, dt, tmp, acc, count); /* the lower rank's on the left */
            newrank = me / 2;
        }
    } else {
        newrank = me - rem;
    }
    if (newrank >= 0)
        for (int mask = 1; mask < pof2 && rc == MPI_SUCCESS; mask <<= 1) {
            int pn = newrank ^ mask;
            int partner = pn < rem ? pn * 2 + 1 : pn + rem;
            rc = fy_coll_sendrecv(acc, count, dt, partner, tmp, count, dt, partner,
                                  FY_TAG_ALLREDUCE, c);
            if (rc != MPI_SUCCESS)
                break;
            if (commute || pn < newrank) {
                fy_op_apply(op, dt, tmp, acc, count);
            } else { /* ours is the lower run: tmp = acc o tmp becomes the accumulator */
                fy_op_apply(op, dt, acc, tmp, count);
                char *t = acc;
                acc = tmp;
                tmp = t;
            }
        }
    if (rc == MPI_SUCCESS && me < 2 * rem) {
        if (me % 2)
            rc = fy_coll_send(acc, count, dt, me - 1, FY_TAG_ALLREDUCE, c);
        else
            rc = fy_coll_recv(rbuf, count, dt, me + 1, FY_TAG_ALLREDUCE, c);
    }
    if (rc == MPI_SUCCESS && acc != rbuf && newrank >= 0)
        fy_op_copy(dt, acc, rbuf, count);
    return rc;
}

void fy_allreduce_recursive_doubling_sched(fy_sched_t *s, const void *sbuf, void *rbuf,
                                           MPI_Aint count, const fy_dtype_t *dt, MPI_Op op)
{
    fy_comm_t *c = fy_sched_comm(s);
    int p = c->size, me = c->rank;
    bool commute = fy_op_commutes(op);
    if (count == 0)
        return;
    fy_sched_copy_same(s, dt, sbuf, rbuf, count);
    if (p == 1)
        return;
    char *acc = rbuf, *tmp = fy_sched_scratch_typed(s, dt, count, 1, NULL);
    if (!tmp)
        return;
    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    int rem = p - pof2, newrank;
    if (me < 2 * rem) { /* the fold: even ranks hand their vector to the odd one above */
        if (me % 2 == 0) {
            fy_sched_send(s, rbuf, count, dt, me + 1);
            newrank = -1;
        } else {
            fy_sched_recv(s, tmp, count, dt, me - 1);
            fy_sched_round(s);
            fy_sched_reduce(s, op, dt, tmp, acc, count); /* the lower rank's on the left */
            newrank = me / 2;
        }
    } else {
        newrank = me - rem;
    }
    if (newrank >= 0)
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int pn = newrank ^ mask;
            int partner = pn < rem ? pn * 2 + 1 : pn + rem;
            fy_sched_recv(s, tmp, count, dt, partner);
            fy_sched_send(s, acc, count, dt, partner);
            fy_sched_round(s);
            if (commute || pn < newrank) {
                fy_sched_reduce(s, op, dt, tmp, acc, count);
            } else { /* ours is the lower run: tmp = acc o tmp becomes the accumulator */
                fy_sched_reduce(s, op, dt, acc, tmp, count);
                char *t = acc;
                acc = tmp;
                tmp = t;
            }
        }
    fy_sched_round(s);
    if (me < 2 * rem) {
        if (me % 2)
            fy_sched_send(s, acc, count, dt, me - 1);
        else
            fy_sched_recv(s, rbuf, count, dt, me + 1);
    }
    if (acc != rbuf && newrank >= 0)
        fy_sched_copy_same(s, dt, acc, rbuf, count);
}
