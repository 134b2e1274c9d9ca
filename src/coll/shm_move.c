/* Allgather(v) and Alltoall in a shared-memory slot (fy_shmcoll.h), one phase each, for data
 * that fits one area per member. Costs, p members, b bytes a block:
 *   allgather      each member packs its block into its area (b), publishes, and unpacks all
 *                  p blocks from the p areas ((p-1) b read from other members' areas)
 *   alltoall       each member packs its p outgoing blocks into its area (p b), publishes, and
 *                  unpacks block `me` of every member's area ((p-1) b)
 * Against messages, the gain is one round of wake-ups instead of p-1 (ring, pairwise) or
 * log2 p (Bruck) rounds: what matters most when ranks outnumber cores. The pack engine moves
 * the data in and out, so any datatypes whose signatures match work on either side. */
#include "fy_coll.h"
#include "fy_shmcoll.h"
#include "shm_slot.h"

bool fy_shm_sel_allgather_ok(const fy_sel_t *s)
{
    /* Every block is at most the total, which every member knows alike. */
    return fy_shmcoll_usable(s->comm) &&
           (s->vector ? s->total : s->bytes) <= fy_shmcoll_area_bytes();
}

bool fy_shm_sel_alltoall_ok(const fy_sel_t *s)
{
    return fy_shmcoll_usable(s->comm) && !s->vector &&
           s->bytes * (size_t)s->p <= fy_shmcoll_area_bytes();
}

static int allgather(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                     MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                     const fy_dtype_t *rdt, fy_comm_t *c)
{
    int rc;
    fy_shmc_t *st = fy_shmc_get(c, &rc);
    if (!st)
        return rc != MPI_SUCCESS ? rc : FY_SHM_DECLINED;
    int p = c->size, me = c->rank;
    size_t most = 0;
    for (int j = 0; j < p; j++) {
        size_t bj = fy_dtype_bytes(rdt, fy_coll_count(rcount, rcounts, j));
        most = bj > most ? bj : most;
    }
    uint64_t first;
    int b = fy_shmc_begin(st, most ? most : 1, &first);
    fy_shmc_guard(st, c, b);
    char *mine = (char *)rbuf + fy_coll_displ(rcount, displs, me) * rdt->extent;
    MPI_Aint mycount = fy_coll_count(rcount, rcounts, me);
    if (sbuf == MPI_IN_PLACE)
        fy_dtype_pack_range(rdt, mine, mycount, 0, fy_shmc_area(st, b, me),
                            fy_dtype_bytes(rdt, mycount));
    else
        fy_dtype_pack_range(sdt, sbuf, scount, 0, fy_shmc_area(st, b, me),
                            fy_dtype_bytes(sdt, scount));
    fy_shmc_publish(st, c);
    fy_shmc_wait(st, 0, p, first);
    for (int j = 0; j < p; j++) {
        if (j == me && sbuf == MPI_IN_PLACE)
            continue;
        MPI_Aint n = fy_coll_count(rcount, rcounts, j);
        fy_dtype_unpack_range(rdt, (char *)rbuf + fy_coll_displ(rcount, displs, j) * rdt->extent, n,
                              0, fy_shmc_area(st, b, j), fy_dtype_bytes(rdt, n));
    }
    return MPI_SUCCESS;
}

int fy_allgatherv_shm(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                      MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                      const fy_dtype_t *rdt, fy_comm_t *c)
{
    int rc = allgather(sbuf, scount, sdt, rbuf, rcount, rcounts, displs, rdt, c);
    return rc == FY_SHM_DECLINED
               ? fy_allgatherv(sbuf, scount, sdt, rbuf, rcount, rcounts, displs, rdt, c)
               : rc;
}

static int alltoall(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                    MPI_Aint rcount, const fy_dtype_t *rdt, fy_comm_t *c)
{
    int rc;
    fy_shmc_t *st = fy_shmc_get(c, &rc);
    if (!st)
        return rc != MPI_SUCCESS ? rc : FY_SHM_DECLINED;
    int p = c->size, me = c->rank;
    if (sbuf == MPI_IN_PLACE) { /* our blocks are packed before anyone writes into rbuf */
        sbuf = rbuf;
        scount = rcount;
        sdt = rdt;
    }
    size_t blk = fy_dtype_bytes(rdt, rcount);
    uint64_t first;
    int b = fy_shmc_begin(st, blk * (size_t)p > 0 ? blk * (size_t)p : 1, &first);
    fy_shmc_guard(st, c, b);
    unsigned char *out = fy_shmc_area(st, b, me);
    for (int j = 0; j < p; j++)
        fy_dtype_pack_range(sdt, (const char *)sbuf + (MPI_Aint)j * scount * sdt->extent, scount, 0,
                            out + (size_t)j * blk, blk);
    fy_shmc_publish(st, c);
    fy_shmc_wait(st, 0, p, first);
    for (int j = 0; j < p; j++)
        fy_dtype_unpack_range(rdt, (char *)rbuf + (MPI_Aint)j * rcount * rdt->extent, rcount, 0,
                              fy_shmc_area(st, b, j) + (size_t)me * blk, blk);
    return MPI_SUCCESS;
}

int fy_alltoallv_shm(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                     const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                     const MPI_Aint *rcounts, const MPI_Aint *rdispls, const fy_dtype_t *rdt,
                     fy_comm_t *c)
{
    /* The row is taken for the plain Alltoall only (fy_shm_sel_alltoall_ok). */
    int rc =
        scounts || rcounts ? FY_SHM_DECLINED : alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, c);
    return rc == FY_SHM_DECLINED ? fy_alltoallv(sbuf, scount, scounts, sdispls, sdt, rbuf, rcount,
                                                rcounts, rdispls, rdt, c)
                                 : rc;
}
