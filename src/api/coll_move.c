/* The data-movement collectives and reduce-scatter: argument checks and count conversion here,
 * algorithms in src/coll. The int forms widen their count arrays to MPI_Aint; the MPI-4 large
 * count (_c) forms pass theirs straight through (MPI_Count and MPI_Aint are one type here). */
#include <stdlib.h>

#include "fy_coll.h"
#include "fy_op.h"
#include "p2p_start.h"

typedef struct {
    fy_comm_t *c;
    const fy_dtype_t *sdt, *rdt;
} coll_args_t;

/* Checks the communicator, the datatypes that matter on this rank, and a root if any. */
static int check(const char *fn, MPI_Comm comm, const void *sbuf, MPI_Datatype stype,
                 int send_matters, MPI_Datatype rtype, int recv_matters, int root, coll_args_t *a)
{
    int rc = fy_api_comm(fn, comm, &a->c);
    if (rc == MPI_SUCCESS && root != MPI_UNDEFINED)
        rc = fy_api_rank(fn, a->c, root, "root", 0, 0);
    a->sdt = a->rdt = NULL;
    if (rc == MPI_SUCCESS && send_matters && sbuf != MPI_IN_PLACE)
        rc = fy_api_dtype(fn, stype, &a->sdt);
    if (rc == MPI_SUCCESS && recv_matters)
        rc = fy_api_dtype(fn, rtype, &a->rdt);
    return rc;
}

static int counts_ok(const char *fn, const MPI_Aint *counts, int n)
{
    for (int i = 0; counts && i < n; i++)
        if (counts[i] < 0)
            return fy_err_set(MPI_ERR_COUNT, "%s: invalid count %ld for rank %d", fn,
                              (long)counts[i], i);
    return MPI_SUCCESS;
}

/* int[] -> MPI_Aint[] for the int forms; *out stays NULL for a NULL input. */
static int widen(const char *fn, const int *in, int n, MPI_Aint **out)
{
    *out = NULL;
    if (!in)
        return MPI_SUCCESS;
    MPI_Aint *w = malloc(sizeof *w * (size_t)(n > 0 ? n : 1));
    if (!w)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int i = 0; i < n; i++)
        w[i] = in[i];
    *out = w;
    return MPI_SUCCESS;
}

/* ---- Gather -------------------------------------------------------------------------- */
static int gather(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                  void *rbuf, MPI_Count rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                  MPI_Datatype rtype, int root, MPI_Comm comm)
{
    coll_args_t a;
    int rc = check(fn, comm, sbuf, stype, 1, rtype, 0, root, &a);
    if (rc == MPI_SUCCESS && a.c->rank == root) {
        rc = fy_api_dtype(fn, rtype, &a.rdt);
        if (rc == MPI_SUCCESS)
            rc = counts_ok(fn, rcounts, a.c->size);
    } else if (rc == MPI_SUCCESS && sbuf == MPI_IN_PLACE) {
        rc = fy_err_set(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is only valid at the root", fn);
    }
    if (rc == MPI_SUCCESS && (scount < 0 || rcount < 0))
        rc = fy_err_set(MPI_ERR_COUNT, "%s: invalid count %ld", fn,
                        (long)(scount < 0 ? scount : rcount));
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_gatherv(sbuf, scount, a.sdt, rbuf, rcount, rcounts, displs, a.rdt, root, a.c);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                  recvtype, root, comm);
}

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                  recvtype, root, comm);
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    MPI_Aint *rc_w = NULL, *d_w = NULL;
    fy_comm_t *c = fy_comm_get(comm);
    int n = c ? c->size : 0, rc = MPI_SUCCESS;
    if (c && c->rank == root &&
        ((rc = widen("MPI_Gatherv", recvcounts, n, &rc_w)) != MPI_SUCCESS ||
         (rc = widen("MPI_Gatherv", displs, n, &d_w)) != MPI_SUCCESS))
        return fy_err_raise_comm(comm, rc);
    rc = gather("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, 0, rc_w, d_w, recvtype, root,
                comm);
    free(rc_w);
    free(d_w);
    return rc;
}

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm)
{
    return gather("MPI_Gatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                  recvtype, root, comm);
}

/* ---- Scatter ------------------------------------------------------------------------- */
static int scatter(const char *fn, const void *sbuf, MPI_Count scount, const MPI_Aint *scounts,
                   const MPI_Aint *displs, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                   MPI_Datatype rtype, int root, MPI_Comm comm)
{
    coll_args_t a;
    int rc = check(fn, comm, NULL, stype, 0, rtype, 0, root, &a);
    int at_root = rc == MPI_SUCCESS && a.c->rank == root;
    if (rc == MPI_SUCCESS && at_root)
        rc = fy_api_dtype(fn, stype, &a.sdt);
    if (rc == MPI_SUCCESS && at_root)
        rc = counts_ok(fn, scounts, a.c->size);
    if (rc == MPI_SUCCESS && !(at_root && rbuf == MPI_IN_PLACE))
        rc = fy_api_dtype(fn, rtype, &a.rdt);
    if (rc == MPI_SUCCESS && rbuf == MPI_IN_PLACE && !at_root)
        rc = fy_err_set(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is only valid at the root", fn);
    if (rc == MPI_SUCCESS && (scount < 0 || rcount < 0))
        rc = fy_err_set(MPI_ERR_COUNT, "%s: invalid count %ld", fn,
                        (long)(scount < 0 ? scount : rcount));
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_scatterv(sbuf, scount, scounts, displs, a.sdt, rbuf, rcount, a.rdt, root, a.c);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter("MPI_Scatter", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount,
                   recvtype, root, comm);
}

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter("MPI_Scatter_c", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount,
                   recvtype, root, comm);
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    MPI_Aint *sc_w = NULL, *d_w = NULL;
    fy_comm_t *c = fy_comm_get(comm);
    int n = c ? c->size : 0, rc = MPI_SUCCESS;
    if (c && c->rank == root &&
        ((rc = widen("MPI_Scatterv", sendcounts, n, &sc_w)) != MPI_SUCCESS ||
         (rc = widen("MPI_Scatterv", displs, n, &d_w)) != MPI_SUCCESS))
        return fy_err_raise_comm(comm, rc);
    rc = scatter("MPI_Scatterv", sendbuf, 0, sc_w, d_w, sendtype, recvbuf, recvcount, recvtype,
                 root, comm);
    free(sc_w);
    free(d_w);
    return rc;
}

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter("MPI_Scatterv_c", sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount,
                   recvtype, root, comm);
}

/* ---- Allgather ----------------------------------------------------------------------- */
static int allgather(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                     void *rbuf, MPI_Count rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                     MPI_Datatype rtype, MPI_Comm comm)
{
    coll_args_t a;
    int rc = check(fn, comm, sbuf, stype, 1, rtype, 1, MPI_UNDEFINED, &a);
    if (rc == MPI_SUCCESS)
        rc = counts_ok(fn, rcounts, a.c->size);
    if (rc == MPI_SUCCESS && (scount < 0 || rcount < 0))
        rc = fy_err_set(MPI_ERR_COUNT, "%s: invalid count %ld", fn,
                        (long)(scount < 0 ? scount : rcount));
    if (rc == MPI_SUCCESS && !rcounts && rcount == 0)
        return MPI_SUCCESS; /* every block is empty: nothing to move */
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_allgatherv(sbuf, scount, a.sdt, rbuf, rcount, rcounts, displs, a.rdt, a.c);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                     recvtype, comm);
}

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                     NULL, recvtype, comm);
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    MPI_Aint *rc_w = NULL, *d_w = NULL;
    fy_comm_t *c = fy_comm_get(comm);
    int n = c ? c->size : 0, rc;
    if ((rc = widen("MPI_Allgatherv", recvcounts, n, &rc_w)) != MPI_SUCCESS ||
        (rc = widen("MPI_Allgatherv", displs, n, &d_w)) != MPI_SUCCESS) {
        free(rc_w);
        return fy_err_raise_comm(comm, rc);
    }
    rc = allgather("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, 0, rc_w, d_w, recvtype,
                   comm);
    free(rc_w);
    free(d_w);
    return rc;
}

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                     displs, recvtype, comm);
}

/* ---- Alltoall ------------------------------------------------------------------------ */
static int alltoall(const char *fn, const void *sbuf, MPI_Count scount, const MPI_Aint *scounts,
                    const MPI_Aint *sdispls, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                    const MPI_Aint *rcounts, const MPI_Aint *rdispls, MPI_Datatype rtype,
                    MPI_Comm comm)
{
    coll_args_t a;
    int rc = check(fn, comm, sbuf, stype, 1, rtype, 1, MPI_UNDEFINED, &a);
    if (rc == MPI_SUCCESS)
        rc = counts_ok(fn, rcounts, a.c->size);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        rc = counts_ok(fn, scounts, a.c->size);
    if (rc == MPI_SUCCESS && (scount < 0 || rcount < 0))
        rc = fy_err_set(MPI_ERR_COUNT, "%s: invalid count %ld", fn,
                        (long)(scount < 0 ? scount : rcount));
    if (rc == MPI_SUCCESS && !rcounts && rcount == 0)
        return MPI_SUCCESS; /* every block is empty: nothing to move */
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_alltoallv(sbuf, scount, scounts, sdispls, a.sdt, rbuf, rcount, rcounts, rdispls,
                          a.rdt, a.c);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall("MPI_Alltoall", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount,
                    NULL, NULL, recvtype, comm);
}

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall("MPI_Alltoall_c", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount,
                    NULL, NULL, recvtype, comm);
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_Aint *w[4] = {NULL, NULL, NULL, NULL};
    const int *in[4] = {sendbuf == MPI_IN_PLACE ? NULL : sendcounts,
                        sendbuf == MPI_IN_PLACE ? NULL : sdispls, recvcounts, rdispls};
    fy_comm_t *c = fy_comm_get(comm);
    int n = c ? c->size : 0, rc = MPI_SUCCESS;
    for (int i = 0; i < 4 && rc == MPI_SUCCESS; i++)
        rc = widen("MPI_Alltoallv", in[i], n, &w[i]);
    if (rc == MPI_SUCCESS)
        rc = alltoall("MPI_Alltoallv", sendbuf, 0, w[0], w[1], sendtype, recvbuf, 0, w[2], w[3],
                      recvtype, comm);
    else
        rc = fy_err_raise_comm(comm, rc);
    for (int i = 0; i < 4; i++)
        free(w[i]);
    return rc;
}

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall("MPI_Alltoallv_c", sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
                    recvcounts, rdispls, recvtype, comm);
}

/* ---- Reduce_scatter ------------------------------------------------------------------ */
static int reduce_scatter(const char *fn, const void *sbuf, void *rbuf, MPI_Count rcount,
                          const MPI_Aint *rcounts, MPI_Datatype dtype, MPI_Op op, MPI_Comm comm)
{
    coll_args_t a;
    int rc = check(fn, comm, NULL, dtype, 0, dtype, 1, MPI_UNDEFINED, &a);
    if (rc == MPI_SUCCESS)
        rc = counts_ok(fn, rcounts, a.c->size);
    if (rc == MPI_SUCCESS && rcount < 0)
        rc = fy_err_set(MPI_ERR_COUNT, "%s: invalid count %ld", fn, (long)rcount);
    if (rc == MPI_SUCCESS)
        rc = fy_op_check(fn, op, a.rdt);
    if (rc == MPI_SUCCESS && !rcounts && rcount == 0)
        return MPI_SUCCESS; /* every block is empty: nothing to move */
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_reduce_scatter(sbuf, rbuf, rcount, rcounts, a.rdt, op, a.c);
        fy_coll_scratch_done();
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf, recvcount, NULL, datatype,
                          op, comm);
}

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter("MPI_Reduce_scatter_block_c", sendbuf, recvbuf, recvcount, NULL, datatype,
                          op, comm);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_Aint *w = NULL;
    fy_comm_t *c = fy_comm_get(comm);
    int rc = widen("MPI_Reduce_scatter", recvcounts, c ? c->size : 0, &w);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    rc = reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, 0, w, datatype, op, comm);
    free(w);
    return rc;
}

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter("MPI_Reduce_scatter_c", sendbuf, recvbuf, 0, recvcounts, datatype, op,
                          comm);
}
