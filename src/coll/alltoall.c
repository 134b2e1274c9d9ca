/* Alltoall(v) by pairwise exchange: in step k rank r sends its block for r+k and receives
 * the block from r-k. p-1 steps, one message in and one out per step, every block moved once;
 * the collectives issue adds Bruck for short blocks. MPI_IN_PLACE works from a copy of the
 * buffer, since each block must be sent before the one received over it. */
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_select.h"

int fy_alltoallv_pairwise(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                          const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf,
                          MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                          const fy_dtype_t *rdt, fy_comm_t *c)
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
    int rc = fy_coll_copy(s + fy_coll_displ(scount, sdispls, me) * sdt->extent,
                          fy_coll_count(scount, scounts, me), sdt,
                          r + fy_coll_displ(rcount, rdispls, me) * rdt->extent,
                          fy_coll_count(rcount, rcounts, me), rdt);
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int to = (me + k) % p, from = (me - k + p) % p;
        rc = fy_coll_sendrecv(s + fy_coll_displ(scount, sdispls, to) * sdt->extent,
                              fy_coll_count(scount, scounts, to), sdt, to,
                              r + fy_coll_displ(rcount, rdispls, from) * rdt->extent,
                              fy_coll_count(rcount, rcounts, from), rdt, from, FY_TAG_ALLTOALL, c);
    }
    free(copy);
    return rc;
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
static void alltoall_sched(fy_sched_t *s, const side_t *snd, const side_t *rcv, bool in_place)
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
        fy_sched_round(s);
    }
}

void fy_alltoallv_pairwise_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                                 const MPI_Aint *scounts, const MPI_Aint *sdispls,
                                 const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                                 const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                                 const fy_dtype_t *rdt)
{
    if (!rcounts && rcount == 0)
        return; /* every block is empty, on every rank */
    side_t snd = {(char *)sbuf, scount, scounts, sdispls, sdt, NULL};
    side_t rcv = {rbuf, rcount, rcounts, rdispls, rdt, NULL};
    alltoall_sched(s, &snd, &rcv, sbuf == MPI_IN_PLACE);
}

void fy_alltoallw_sched(fy_sched_t *s, const void *sbuf, const MPI_Aint *scounts,
                        const MPI_Aint *sdispls, const fy_dtype_t *const *sdts, void *rbuf,
                        const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                        const fy_dtype_t *const *rdts)
{
    side_t snd = {(char *)sbuf, 0, scounts, sdispls, NULL, sdts};
    side_t rcv = {rbuf, 0, rcounts, rdispls, NULL, rdts};
    alltoall_sched(s, &snd, &rcv, sbuf == MPI_IN_PLACE);
}
