/* Allreduce, three algorithms (p ranks, n bytes; alpha a message, beta a byte moved, gamma a
 * byte reduced):
 *   recursive_doubling  log2 p exchanges of the whole vector:  (log2 p) (alpha + n beta + n gamma)
 *   rabenseifner        reduce-scatter by recursive halving, allgather by recursive doubling:
 *                       2 log2 p alpha + 2 n (p-1)/p beta + n (p-1)/p gamma
 *   ring                ring reduce-scatter and ring allgather: 2 (p-1) alpha + 2 n (p-1)/p beta
 *                       + n (p-1)/p gamma, every message between neighbours; commutative only
 * With p not a power of two, the first two use a fold: the first 2r ranks (r = p - 2^k) pair up
 * and fold into r ranks before, and get the result back after (2 more whole-vector steps).
 *
 * Recursive doubling: every rank's vector covers a run of consecutive ranks (the fold joins
 * ranks 2i and 2i+1, and the new numbering keeps rank order), and each exchange joins two
 * neighbouring runs, so a non-commutative operator is applied in rank order by putting the
 * lower run on the left. Rabenseifner keeps the same property (below). */
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

/* The fold of a non-power-of-two p shared by recursive halving: ranks below 2r (r = p - 2^k)
 * pair up, the even one hands its vector to the odd one above and waits for the result. The
 * remaining 2^k ranks are numbered in rank order ("virtual" ranks); virtual rank v < r stands
 * for ranks 2v and 2v+1. */
static int real_rank(int v, int rem)
{
    return v < rem ? v * 2 + 1 : v + rem;
}

/* Rabenseifner: reduce-scatter by recursive halving, then allgather by recursive doubling,
 * over 2^k near-equal chunks of the vector. In step j of the halving every rank sends half of
 * what it still holds to the partner across bit j and reduces the other half with what the
 * partner sends; the distances grow (1, 2, 4 ...), so a partial result always covers an
 * aligned run of virtual ranks, which is a run of consecutive real ranks, and a
 * non-commutative operator is applied in rank order by putting the lower run on the left. The
 * allgather retraces the halving backwards. Cost: 2 log2 p steps moving 2 n (p-1)/p in all,
 * n (p-1)/p of local reduction (+ the fold: 2 whole-vector steps). */
static void rabenseifner(fy_emit_t *e, const void *sbuf, void *rbuf, MPI_Aint count,
                         const fy_dtype_t *dt, MPI_Op op)
{
    int p = e->c->size, me = e->c->rank;
    bool commute = fy_op_commutes(op);
    MPI_Aint ext = dt->extent;
    char *acc = rbuf;
    fy_emit_copy_same(e, dt, sbuf, rbuf, count);
    if (p == 1 || count == 0)
        return;
    char *tmp = fy_emit_scratch_typed(e, 0, dt, count, 1, NULL);
    if (!tmp)
        return;
    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    int rem = p - pof2, v = -1;
    if (me < 2 * rem && me % 2 == 0) {
        fy_emit_send(e, acc, count, dt, me + 1);
        fy_emit_wait(e);
    } else if (me < 2 * rem) {
        fy_emit_recv(e, tmp, count, dt, me - 1);
        fy_emit_wait(e);
        fy_emit_reduce(e, op, dt, tmp, acc, count); /* the lower rank's on the left */
        v = me / 2;
    } else {
        v = me - rem;
    }
    if (v >= 0) {
        int lo = 0, hi = pof2; /* the chunks this rank still reduces */
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int pv = v ^ mask, partner = real_rank(pv, rem), mid = (lo + hi) / 2;
            int klo = v & mask ? mid : lo, khi = v & mask ? hi : mid; /* kept */
            int slo = v & mask ? lo : mid, shi = v & mask ? mid : hi; /* given away */
            MPI_Aint k0 = fy_emit_cut(count, pof2, klo), kn = fy_emit_cut(count, pof2, khi) - k0;
            MPI_Aint s0 = fy_emit_cut(count, pof2, slo), sn = fy_emit_cut(count, pof2, shi) - s0;
            fy_emit_sendrecv(e, acc + s0 * ext, sn, dt, partner, tmp + k0 * ext, kn, dt, partner);
            if (commute || pv < v) {
                fy_emit_reduce(e, op, dt, tmp + k0 * ext, acc + k0 * ext, kn);
            } else { /* ours is the lower run: acc o theirs, then back into acc */
                fy_emit_reduce(e, op, dt, acc + k0 * ext, tmp + k0 * ext, kn);
                fy_emit_copy_same(e, dt, tmp + k0 * ext, acc + k0 * ext, kn);
            }
            lo = klo;
            hi = khi;
        }
        for (int mask = pof2 / 2; mask >= 1; mask >>= 1) {
            int partner = real_rank(v ^ mask, rem), w = hi - lo;
            int olo = v & mask ? lo - w : hi, ohi = olo + w; /* the partner's chunks */
            MPI_Aint m0 = fy_emit_cut(count, pof2, lo), mn = fy_emit_cut(count, pof2, hi) - m0;
            MPI_Aint o0 = fy_emit_cut(count, pof2, olo), on = fy_emit_cut(count, pof2, ohi) - o0;
            fy_emit_sendrecv(e, acc + m0 * ext, mn, dt, partner, acc + o0 * ext, on, dt, partner);
            lo = lo < olo ? lo : olo;
            hi = hi > ohi ? hi : ohi;
        }
    }
    if (me < 2 * rem) {
        if (me % 2)
            fy_emit_send(e, acc, count, dt, me - 1);
        else
            fy_emit_recv(e, acc, count, dt, me + 1);
    }
}

int fy_allreduce_rabenseifner(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                              MPI_Op op, fy_comm_t *c)
{
    fy_emit_t e = fy_emit_blocking(c, FY_TAG_ALLREDUCE);
    rabenseifner(&e, sbuf, rbuf, count, dt, op);
    return e.rc;
}

void fy_allreduce_rabenseifner_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                                     const fy_dtype_t *dt, MPI_Op op)
{
    fy_emit_t e = fy_emit_sched(s);
    if (count > 0)
        rabenseifner(&e, sbuf, rbuf, count, dt, op);
}

/* Ring: the vector in p near-equal chunks; a ring reduce-scatter (in step k every rank sends
 * the chunk it reduced last to its right neighbour and adds the one from its left into its
 * copy) leaves chunk (r+1) mod p complete on rank r, a ring allgather passes the chunks on.
 * 2 (p-1) steps between neighbours moving 2 n (p-1)/p: bandwidth-optimal for any p, but each
 * chunk is combined in ring order, so commutative operators only. */
static void ring(fy_emit_t *e, const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                 MPI_Op op)
{
    int p = e->c->size, me = e->c->rank, right = (me + 1) % p, left = (me - 1 + p) % p;
    MPI_Aint ext = dt->extent;
    char *acc = rbuf;
    fy_emit_copy_same(e, dt, sbuf, rbuf, count);
    if (p == 1 || count == 0)
        return;
    char *tmp = fy_emit_scratch_typed(e, 0, dt, count / p + 1, 1, NULL);
    if (!tmp)
        return;
#define AT(i) fy_emit_cut(count, p, (i))
#define LEN(i) (AT((i) + 1) - AT(i))
    for (int k = 0; k < p - 1; k++) {
        int out = (me - k + p) % p, in = (me - k - 1 + p) % p;
        fy_emit_sendrecv(e, acc + AT(out) * ext, LEN(out), dt, right, tmp, LEN(in), dt, left);
        fy_emit_reduce(e, op, dt, tmp, acc + AT(in) * ext, LEN(in));
    }
    for (int k = 0; k < p - 1; k++) {
        int out = (me + 1 - k + p) % p, in = (me - k + p) % p;
        fy_emit_sendrecv(e, acc + AT(out) * ext, LEN(out), dt, right, acc + AT(in) * ext, LEN(in),
                         dt, left);
    }
#undef AT
#undef LEN
}

int fy_allreduce_ring(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                      fy_comm_t *c)
{
    fy_emit_t e = fy_emit_blocking(c, FY_TAG_ALLREDUCE);
    ring(&e, sbuf, rbuf, count, dt, op);
    return e.rc;
}

void fy_allreduce_ring_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                             const fy_dtype_t *dt, MPI_Op op)
{
    fy_emit_t e = fy_emit_sched(s);
    if (count > 0)
        ring(&e, sbuf, rbuf, count, dt, op);
}
