/* Allgather(v) around a ring: in step k every rank passes the block it received in step k-1
 * to its right neighbour. p-1 steps, each rank sends and receives (p-1)/p of the result once:
 * bandwidth-optimal for any p, and every transfer is between neighbours. The collectives
 * issue adds recursive doubling and Bruck for short blocks. */
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
