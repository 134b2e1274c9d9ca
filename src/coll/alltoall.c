/* Alltoall(v), three algorithms (p ranks, blocks of b bytes):
 *   pairwise  in step k rank r sends its block for r+k and receives the block from r-k:
 *             (p-1) (alpha + b beta), one message in and one out at a time, every block moved
 *             once
 *   linear    every receive and every send posted at once, then one wait: the same messages as
 *             pairwise, (p-1) alpha + (p-1) b beta, without a step waiting for the slowest pair
 *             (what matters when ranks outnumber cores and a step costs a context switch)
 *   bruck     Alltoall only (equal blocks): rotate, then ceil(log2 p) steps in which every rank
 *             sends the blocks whose rotated index has bit k set to rank + 2^k, then rotate back:
 *             ceil(log2 p) alpha + (p/2) b ceil(log2 p) beta + local copies of p b per step;
 *             fewer messages for more bytes, so for short blocks
 * MPI_IN_PLACE: pairwise and linear send from a snapshot of the buffer, since each block must
 * be sent before the one received over it; Bruck starts from a packed copy anyway. */
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_select.h"

static int exchange(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                    const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                    const MPI_Aint *rcounts, const MPI_Aint *rdispls, const fy_dtype_t *rdt,
                    fy_comm_t *c, bool linear)
{
    int p = c->size, me = c->rank;
    void *copy = NULL;
    if (sbuf == MPI_IN_PLACE) { /* send from a snapshot of the receive buffer */
        MPI_Aint span = 0;
        for (int i = 0; i < p; i++) {
            MPI_Aint end = fy_coll_displ(rcount, rdispls, i) + fy_coll_count(rcount, rcounts, i);
            if (end > span)
                span = end;
        }
        copy = malloc((size_t)(span * rdt->extent) + 1);
        if (!copy)
            return fy_err_set(MPI_ERR_NO_MEM, "MPI_Alltoall: out of memory");
        memcpy(copy, rbuf, (size_t)(span * rdt->extent));
        sbuf = copy;
        scount = rcount;
        scounts = rcounts;
        sdispls = rdispls;
        sdt = rdt;
    }
    const char *s = sbuf;
    char *r = rbuf;
    int rc = MPI_SUCCESS;
#define SBLK(i) (s + fy_coll_displ(scount, sdispls, i) * sdt->extent)
#define RBLK(i) (r + fy_coll_displ(rcount, rdispls, i) * rdt->extent)
    /* Our own block is copied once the first messages are posted, so that the peers read or
     * receive ours while we copy (IS at 2 ranks moves 2 MiB blocks: the copy first held the
     * peer's single copy back by as long). */
#define OWN_COPY()                                                                                 \
    fy_coll_copy(SBLK(me), fy_coll_count(scount, scounts, me), sdt, RBLK(me),                      \
                 fy_coll_count(rcount, rcounts, me), rdt)
    if (p == 1)
        rc = OWN_COPY();
    if (linear && p > 1) {
        struct fy_req **reqs = calloc((size_t)(2 * p), sizeof *reqs);
        if (!reqs)
            rc = fy_err_set(MPI_ERR_NO_MEM, "MPI_Alltoall: out of memory");
        for (int k = 1; k < p && reqs; k++) {
            int from = (me - k + p) % p;
            reqs[k] = fy_coll_irecv(RBLK(from), fy_coll_count(rcount, rcounts, from), rdt, from,
                                    FY_TAG_ALLTOALL, c);
            if (!reqs[k])
                rc = MPI_ERR_NO_MEM;
        }
        for (int k = 1; k < p && reqs; k++) {
            int to = (me + k) % p;
            reqs[p + k] = fy_coll_isend(SBLK(to), fy_coll_count(scount, scounts, to), sdt, to,
                                        FY_TAG_ALLTOALL, c);
            if (!reqs[p + k])
                rc = MPI_ERR_NO_MEM;
        }
        if (rc == MPI_SUCCESS)
            rc = OWN_COPY();
        if (reqs) {
            int w = fy_coll_waitall(reqs, 2 * p);
            rc = rc != MPI_SUCCESS ? rc : w;
        }
        free(reqs);
    }
    for (int k = 1; !linear && k < p && rc == MPI_SUCCESS; k++) {
        int to = (me + k) % p, from = (me - k + p) % p;
        struct fy_req *both[2];
        both[0] = fy_coll_irecv(RBLK(from), fy_coll_count(rcount, rcounts, from), rdt, from,
                                FY_TAG_ALLTOALL, c);
        both[1] = both[0] ? fy_coll_isend(SBLK(to), fy_coll_count(scount, scounts, to), sdt, to,
                                          FY_TAG_ALLTOALL, c)
                          : NULL;
        if (k == 1)
            rc = OWN_COPY();
        int w = fy_coll_waitall(both, 2);
        if (!both[0] || !both[1])
            w = fy_err_set(MPI_ERR_NO_MEM, "MPI_Alltoall: out of memory");
        rc = rc != MPI_SUCCESS ? rc : w;
    }
#undef OWN_COPY
#undef SBLK
#undef RBLK
    free(copy);
    return rc;
}

int fy_alltoallv_pairwise(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                          const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf,
                          MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                          const fy_dtype_t *rdt, fy_comm_t *c)
{
    return exchange(sbuf, scount, scounts, sdispls, sdt, rbuf, rcount, rcounts, rdispls, rdt, c,
                    false);
}

int fy_alltoallv_linear(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                        const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                        const MPI_Aint *rcounts, const MPI_Aint *rdispls, const fy_dtype_t *rdt,
                        fy_comm_t *c)
{
    return exchange(sbuf, scount, scounts, sdispls, sdt, rbuf, rcount, rcounts, rdispls, rdt, c,
                    true);
}

/* One side of an all-to-all as the schedules see it: block i is `count(i)` elements of
 * `type(i)` at `base + displacement(i)` (alltoallw: a type per block, byte displacements). */
typedef struct {
    char *base;
    MPI_Aint count;
    const MPI_Aint *counts, *displs;
    const fy_dtype_t *dt;
    const fy_dtype_t *const *dts;
} side_t;

static char *block(const side_t *sd, int i, MPI_Aint *n_p, const fy_dtype_t **dt_p)
{
    const fy_dtype_t *dt = sd->dts ? sd->dts[i] : sd->dt;
    *n_p = fy_coll_count(sd->count, sd->counts, i);
    *dt_p = dt;
    return sd->base +
           (sd->dts ? sd->displs[i] : fy_coll_displ(sd->count, sd->displs, i) * dt->extent);
}

/* Pairwise exchange as a schedule. In place, every block but our own is first packed into
 * scratch (when the schedule starts, so a persistent one packs afresh each time) and sent from
 * there as bytes. */
static void alltoall_sched(fy_sched_t *s, const side_t *snd, const side_t *rcv, bool in_place,
                           bool linear)
{
    fy_comm_t *c = fy_sched_comm(s);
    int p = c->size, me = c->rank;
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    MPI_Aint n, rn;
    const fy_dtype_t *dt, *rdt;
    char *packed = NULL;
    size_t *off = NULL;
    if (in_place) {
        off = fy_sched_scratch(s, sizeof *off * (size_t)(p + 1));
        if (!off)
            return;
        for (int i = 0; i < p; i++) {
            block(rcv, i, &n, &dt);
            off[i + 1] = off[i] + (i == me ? 0 : fy_dtype_bytes(dt, n));
        }
        packed = fy_sched_scratch(s, off[p]);
        if (!packed)
            return;
        for (int i = 0; i < p; i++)
            if (i != me) {
                char *at = block(rcv, i, &n, &dt);
                fy_sched_copy(s, at, n, dt, packed + off[i], (MPI_Aint)(off[i + 1] - off[i]), byte);
            }
    } else {
        char *sat = block(snd, me, &n, &dt);
        char *rat = block(rcv, me, &rn, &rdt);
        fy_sched_copy(s, sat, n, dt, rat, rn, rdt);
    }
    for (int k = 1; k < p; k++) {
        int to = (me + k) % p, from = (me - k + p) % p;
        char *rat = block(rcv, from, &rn, &rdt);
        fy_sched_recv(s, rat, rn, rdt, from);
        if (in_place) {
            fy_sched_send(s, packed + off[to], (MPI_Aint)(off[to + 1] - off[to]), byte, to);
        } else {
            char *sat = block(snd, to, &n, &dt);
            fy_sched_send(s, sat, n, dt, to);
        }
        if (!linear)
            fy_sched_round(s);
    }
}

static void alltoallv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                            const MPI_Aint *scounts, const MPI_Aint *sdispls, const fy_dtype_t *sdt,
                            void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                            const MPI_Aint *rdispls, const fy_dtype_t *rdt, bool linear)
{
    if (!rcounts && rcount == 0)
        return; /* every block is empty, on every rank */
    side_t snd = {(char *)sbuf, scount, scounts, sdispls, sdt, NULL};
    side_t rcv = {rbuf, rcount, rcounts, rdispls, rdt, NULL};
    alltoall_sched(s, &snd, &rcv, sbuf == MPI_IN_PLACE, linear);
}

void fy_alltoallv_pairwise_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                                 const MPI_Aint *scounts, const MPI_Aint *sdispls,
                                 const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                                 const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                                 const fy_dtype_t *rdt)
{
    alltoallv_sched(s, sbuf, scount, scounts, sdispls, sdt, rbuf, rcount, rcounts, rdispls, rdt,
                    false);
}

void fy_alltoallv_linear_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                               const MPI_Aint *scounts, const MPI_Aint *sdispls,
                               const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                               const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                               const fy_dtype_t *rdt)
{
    alltoallv_sched(s, sbuf, scount, scounts, sdispls, sdt, rbuf, rcount, rcounts, rdispls, rdt,
                    true);
}

void fy_alltoallw_sched(fy_sched_t *s, const void *sbuf, const MPI_Aint *scounts,
                        const MPI_Aint *sdispls, const fy_dtype_t *const *sdts, void *rbuf,
                        const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                        const fy_dtype_t *const *rdts)
{
    side_t snd = {(char *)sbuf, 0, scounts, sdispls, NULL, sdts};
    side_t rcv = {rbuf, 0, rcounts, rdispls, NULL, rdts};
    alltoall_sched(s, &snd, &rcv, sbuf == MPI_IN_PLACE, false);
}

/* Bruck, on packed bytes: tmp holds the p blocks in rotated order (position j: the block for
 * rank me + j, later the block from rank me - j), then the blocks of one step are gathered into
 * `out`, received into `in` and put back in their positions. */
static void bruck(fy_emit_t *e, const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt,
                  void *rbuf, MPI_Aint rcount, const fy_dtype_t *rdt)
{
    int p = e->c->size, me = e->c->rank, half = p / 2 + 1;
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    size_t b = fy_dtype_bytes(rdt, rcount);
    char *tmp = fy_emit_scratch(e, 0, b * (size_t)(p + 2 * half) + 1);
    if (!tmp)
        return;
    char *out = tmp + b * (size_t)p, *in = out + b * (size_t)half;
    if (sbuf == MPI_IN_PLACE) {
        sbuf = rbuf;
        scount = rcount;
        sdt = rdt;
    }
    for (int j = 0; j < p; j++)
        fy_emit_copy(e, (const char *)sbuf + (MPI_Aint)((me + j) % p) * scount * sdt->extent,
                     scount, sdt, tmp + (size_t)j * b, (MPI_Aint)b, byte);
    for (int dist = 1; dist < p; dist <<= 1) {
        int n = 0;
        for (int j = 1; j < p; j++)
            if (j & dist)
                fy_emit_copy_same(e, byte, tmp + (size_t)j * b, out + (size_t)n++ * b, (MPI_Aint)b);
        fy_emit_sendrecv(e, out, (MPI_Aint)(b * (size_t)n), byte, (me + dist) % p, in,
                         (MPI_Aint)(b * (size_t)n), byte, (me - dist + p) % p);
        n = 0;
        for (int j = 1; j < p; j++)
            if (j & dist)
                fy_emit_copy_same(e, byte, in + (size_t)n++ * b, tmp + (size_t)j * b, (MPI_Aint)b);
    }
    for (int j = 0; j < p; j++)
        fy_emit_copy(e, tmp + (size_t)j * b, (MPI_Aint)b, byte,
                     (char *)rbuf + (MPI_Aint)((me - j + p) % p) * rcount * rdt->extent, rcount,
                     rdt);
}

int fy_alltoall_bruck(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                      const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                      const MPI_Aint *rcounts, const MPI_Aint *rdispls, const fy_dtype_t *rdt,
                      fy_comm_t *c)
{
    (void)scounts, (void)sdispls, (void)rcounts, (void)rdispls; /* Alltoall only (the table) */
    fy_emit_t e = fy_emit_blocking(c, FY_TAG_ALLTOALL);
    bruck(&e, sbuf, scount, sdt, rbuf, rcount, rdt);
    fy_coll_scratch_done(); /* the API edge frees scratch after reductions only */
    return e.rc;
}

void fy_alltoall_bruck_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                             const MPI_Aint *scounts, const MPI_Aint *sdispls,
                             const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                             const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                             const fy_dtype_t *rdt)
{
    (void)scounts, (void)sdispls, (void)rcounts, (void)rdispls;
    fy_emit_t e = fy_emit_sched(s);
    if (rcount > 0)
        bruck(&e, sbuf, scount, sdt, rbuf, rcount, rdt);
}
