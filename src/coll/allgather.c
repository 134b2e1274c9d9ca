/* Allgather(v), three algorithms (p ranks, each contributing b bytes, n = p b in all):
 *   ring                p-1 steps between neighbours, each passing on the block received in the
 *                       step before: (p-1) alpha + n (p-1)/p beta; bandwidth-optimal for any p
 *   recursive_doubling  log2 p exchanges of everything gathered so far (1, 2, 4 ... blocks);
 *                       p not a power of two: the first 2r ranks fold in pairs before and the
 *                       odd one of each pair hands the whole result back after:
 *                       (log2 p) alpha + n (p-1)/p beta (+ 2 alpha + (b + n) beta)
 *   bruck               ceil(log2 p) steps for any p: in step k each rank sends everything it
 *                       has (up to 2^k blocks) to rank - 2^k, in an order rotated by its own
 *                       rank, put straight at the end: ceil(log2 p) alpha + n (p-1)/p beta + n
 *                       of local copies
 * The last two work in a packed copy of the result (block i at the sum of the sizes below it,
 * in bytes), so v-counts, displacements and derived types only matter when it is copied out;
 * recursive doubling writes straight into the receive buffer when it is that layout already
 * (a plain Allgather of a contiguous type). */
#include "fy_select.h"

int fy_allgatherv_ring(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                       MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                       const fy_dtype_t *rdt, fy_comm_t *c)
{
    int p = c->size, me = c->rank;
    char *base = rbuf;
    if (sbuf != MPI_IN_PLACE) { /* our own block goes to its place first */
        int rc =
            fy_coll_copy(sbuf, scount, sdt, base + fy_coll_displ(rcount, displs, me) * rdt->extent,
                         fy_coll_count(rcount, rcounts, me), rdt);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    int right = (me + 1) % p, left = (me - 1 + p) % p;
    for (int k = 0; k < p - 1; k++) {
        int out = (me - k + p) % p, in = (me - k - 1 + p) % p;
        int rc =
            fy_coll_sendrecv(base + fy_coll_displ(rcount, displs, out) * rdt->extent,
                             fy_coll_count(rcount, rcounts, out), rdt, right,
                             base + fy_coll_displ(rcount, displs, in) * rdt->extent,
                             fy_coll_count(rcount, rcounts, in), rdt, left, FY_TAG_ALLGATHER, c);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

void fy_allgatherv_ring_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                              const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                              const MPI_Aint *rcounts, const MPI_Aint *displs,
                              const fy_dtype_t *rdt)
{
    fy_comm_t *c = fy_sched_comm(s);
    int p = c->size, me = c->rank;
    char *base = rbuf;
    if (!rcounts && rcount == 0)
        return; /* every block is empty, on every rank */
    if (sbuf != MPI_IN_PLACE)
        fy_sched_copy(s, sbuf, scount, sdt, base + fy_coll_displ(rcount, displs, me) * rdt->extent,
                      fy_coll_count(rcount, rcounts, me), rdt);
    int right = (me + 1) % p, left = (me - 1 + p) % p;
    for (int k = 0; k < p - 1; k++) {
        int out = (me - k + p) % p, in = (me - k - 1 + p) % p;
        fy_sched_recv(s, base + fy_coll_displ(rcount, displs, in) * rdt->extent,
                      fy_coll_count(rcount, rcounts, in), rdt, left);
        fy_sched_send(s, base + fy_coll_displ(rcount, displs, out) * rdt->extent,
                      fy_coll_count(rcount, rcounts, out), rdt, right);
        fy_sched_round(s);
    }
}

/* The receive side as the packed algorithms see it. */
typedef struct {
    char *base;
    MPI_Aint count;
    const MPI_Aint *counts, *displs;
    const fy_dtype_t *dt;
} rside_t;

static char *rblock(const rside_t *r, int i)
{
    return r->base + fy_coll_displ(r->count, r->displs, i) * r->dt->extent;
}

static MPI_Aint rcnt(const rside_t *r, int i)
{
    return fy_coll_count(r->count, r->counts, i);
}

/* Rank v of the 2^k ranks left after the fold stands for real ranks [first(v), first(v+1)). */
static int first(int v, int rem)
{
    return v < rem ? 2 * v : v + rem;
}

static void recursive_doubling(fy_emit_t *e, const void *sbuf, MPI_Aint scount,
                               const fy_dtype_t *sdt, const rside_t *r)
{
    int p = e->c->size, me = e->c->rank;
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    size_t *off = fy_emit_scratch(e, 1, sizeof *off * (size_t)(p + 1));
    if (!off)
        return;
    off[0] = 0;
    for (int i = 0; i < p; i++)
        off[i + 1] = off[i] + fy_dtype_bytes(r->dt, rcnt(r, i));
    bool direct = r->dt->contig && !r->displs && !r->counts;
    char *tmp = direct ? r->base + r->dt->lb : fy_emit_scratch(e, 0, off[p] + 1);
    if (!tmp)
        return;
#define LEN(lo, hi) ((MPI_Aint)(off[hi] - off[lo]))
    if (sbuf != MPI_IN_PLACE)
        fy_emit_copy(e, sbuf, scount, sdt, rblock(r, me), rcnt(r, me), r->dt);
    if (!direct)
        fy_emit_copy(e, rblock(r, me), rcnt(r, me), r->dt, tmp + off[me], LEN(me, me + 1), byte);
    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    int rem = p - pof2, v = -1;
    if (me < 2 * rem && me % 2 == 0) {
        fy_emit_send(e, tmp + off[me], LEN(me, me + 1), byte, me + 1);
        fy_emit_wait(e);
    } else if (me < 2 * rem) {
        fy_emit_recv(e, tmp + off[me - 1], LEN(me - 1, me), byte, me - 1);
        fy_emit_wait(e);
        v = me / 2;
    } else {
        v = me - rem;
    }
    for (int mask = 1; v >= 0 && mask < pof2; mask <<= 1) {
        int g = v & ~(mask - 1), pg = (v ^ mask) & ~(mask - 1);
        int lo = first(g, rem), hi = first(g + mask, rem);
        int plo = first(pg, rem), phi = first(pg + mask, rem);
        int pv = v ^ mask, partner = pv < rem ? 2 * pv + 1 : pv + rem;
        fy_emit_sendrecv(e, tmp + off[lo], LEN(lo, hi), byte, partner, tmp + off[plo],
                         LEN(plo, phi), byte, partner);
    }
    if (me < 2 * rem) { /* the odd rank of a pair hands the whole result to the even one */
        if (me % 2)
            fy_emit_send(e, tmp, LEN(0, p), byte, me - 1);
        else
            fy_emit_recv(e, tmp, LEN(0, p), byte, me + 1);
        fy_emit_wait(e);
    }
    for (int i = 0; i < p && !direct; i++)
        if (i != me)
            fy_emit_copy(e, tmp + off[i], LEN(i, i + 1), byte, rblock(r, i), rcnt(r, i), r->dt);
#undef LEN
}

static void bruck(fy_emit_t *e, const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt,
                  const rside_t *r)
{
    int p = e->c->size, me = e->c->rank;
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    /* Packed in rotated order: position j holds the block of rank (me + j) mod p. */
    size_t *off = fy_emit_scratch(e, 1, sizeof *off * (size_t)(p + 1));
    if (!off)
        return;
    off[0] = 0;
    for (int j = 0; j < p; j++)
        off[j + 1] = off[j] + fy_dtype_bytes(r->dt, rcnt(r, (me + j) % p));
    char *tmp = fy_emit_scratch(e, 0, off[p] + 1);
    if (!tmp)
        return;
    if (sbuf != MPI_IN_PLACE)
        fy_emit_copy(e, sbuf, scount, sdt, rblock(r, me), rcnt(r, me), r->dt);
    fy_emit_copy(e, rblock(r, me), rcnt(r, me), r->dt, tmp, (MPI_Aint)off[1], byte);
    for (int dist = 1; dist < p; dist <<= 1) {
        int n = dist < p - dist ? dist : p - dist;
        fy_emit_sendrecv(e, tmp, (MPI_Aint)off[n], byte, (me - dist + p) % p, tmp + off[dist],
                         (MPI_Aint)(off[dist + n] - off[dist]), byte, (me + dist) % p);
    }
    for (int j = 1; j < p; j++)
        fy_emit_copy(e, tmp + off[j], (MPI_Aint)(off[j + 1] - off[j]), byte,
                     rblock(r, (me + j) % p), rcnt(r, (me + j) % p), r->dt);
}

int fy_allgatherv_recursive_doubling(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt,
                                     void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                                     const MPI_Aint *displs, const fy_dtype_t *rdt, fy_comm_t *c)
{
    fy_emit_t e = fy_emit_blocking(c, FY_TAG_ALLGATHER);
    rside_t r = {rbuf, rcount, rcounts, displs, rdt};
    recursive_doubling(&e, sbuf, scount, sdt, &r);
    fy_coll_scratch_done(); /* the API edge frees scratch after reductions only */
    return e.rc;
}

void fy_allgatherv_recursive_doubling_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                                            const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                                            const MPI_Aint *rcounts, const MPI_Aint *displs,
                                            const fy_dtype_t *rdt)
{
    fy_emit_t e = fy_emit_sched(s);
    rside_t r = {rbuf, rcount, rcounts, displs, rdt};
    if (rcounts || rcount > 0)
        recursive_doubling(&e, sbuf, scount, sdt, &r);
}

int fy_allgatherv_bruck(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                        MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                        const fy_dtype_t *rdt, fy_comm_t *c)
{
    fy_emit_t e = fy_emit_blocking(c, FY_TAG_ALLGATHER);
    rside_t r = {rbuf, rcount, rcounts, displs, rdt};
    bruck(&e, sbuf, scount, sdt, &r);
    fy_coll_scratch_done(); /* the API edge frees scratch after reductions only */
    return e.rc;
}

void fy_allgatherv_bruck_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                               const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                               const MPI_Aint *rcounts, const MPI_Aint *displs,
                               const fy_dtype_t *rdt)
{
    fy_emit_t e = fy_emit_sched(s);
    rside_t r = {rbuf, rcount, rcounts, displs, rdt};
    if (rcounts || rcount > 0)
        bruck(&e, sbuf, scount, sdt, &r);
}
