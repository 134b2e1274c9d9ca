/* Alltoall(v) by pairwise exchange: in step k rank r sends its block for r+k and receives
 * the block from r-k. p-1 steps, one message in and one out per step, every block moved once;
 * the collectives issue adds Bruck for short blocks. MPI_IN_PLACE works from a copy of the
 * buffer, since each block must be sent before the one received over it. */
#include <stdlib.h>
#include <string.h>

#include "fy_coll.h"
#include "fy_err.h"

int fy_alltoallv(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                 const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                 const MPI_Aint *rcounts, const MPI_Aint *rdispls, const fy_dtype_t *rdt,
                 fy_comm_t *c)
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
