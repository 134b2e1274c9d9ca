/* Scatter(v), linear: the root starts one send per rank and waits for all of them; every
 * other rank receives once (the mirror of gather.c, for the same reasons). */
#include <stdlib.h>

#include "fy_err.h"
#include "fy_select.h"

int fy_scatterv_linear(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                       const MPI_Aint *displs, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                       const fy_dtype_t *rdt, int root, fy_comm_t *c)
{
    if (c->rank != root)
        return fy_coll_recv(rbuf, rcount, rdt, root, FY_TAG_SCATTER, c);
    struct fy_req **reqs = calloc((size_t)c->size, sizeof *reqs);
    if (!reqs)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Scatter: out of memory");
    int rc = MPI_SUCCESS;
    for (int i = 0; i < c->size; i++) {
        const char *at = (const char *)sbuf + fy_coll_displ(scount, displs, i) * sdt->extent;
        MPI_Aint n = fy_coll_count(scount, scounts, i);
        if (i == root) {
            if (rbuf != MPI_IN_PLACE)
                rc = fy_coll_copy(at, n, sdt, rbuf, rcount, rdt);
        } else if (!(reqs[i] = fy_coll_isend(at, n, sdt, i, FY_TAG_SCATTER, c))) {
            rc = fy_err_set(MPI_ERR_NO_MEM, "MPI_Scatter: out of memory");
        }
    }
    int w = fy_coll_waitall(reqs, c->size);
    free(reqs);
    return rc != MPI_SUCCESS ? rc : w;
}

void fy_scatterv_linear_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                              const MPI_Aint *scounts, const MPI_Aint *displs,
                              const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                              const fy_dtype_t *rdt, int root)
{
    fy_comm_t *c = fy_sched_comm(s);
    if (c->rank != root) {
        fy_sched_recv(s, rbuf, rcount, rdt, root);
        return;
    }
    for (int i = 0; i < c->size; i++) {
        const char *at = (const char *)sbuf + fy_coll_displ(scount, displs, i) * sdt->extent;
        MPI_Aint n = fy_coll_count(scount, scounts, i);
        if (i != root)
            fy_sched_send(s, at, n, sdt, i);
        else if (rbuf != MPI_IN_PLACE)
            fy_sched_copy(s, at, n, sdt, rbuf, rcount, rdt);
    }
}
