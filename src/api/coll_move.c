/* The data-movement collectives and reduce-scatter: argument checks and count conversion here,
 * shared by the blocking, nonblocking and persistent forms (coll_api.h); algorithms in
 * src/coll. The int forms widen their count arrays to MPI_Aint; the MPI-4 large count (_c)
 * forms pass theirs straight through (MPI_Count and MPI_Aint are one type here). The schedules
 * read the arrays while they are built, so the widened copies are freed at once. */
#include <stdlib.h>

#include "coll_api.h"
#include "fy_inter.h"
#include "fy_op.h"
#include "p2p_start.h"

typedef struct {
    fy_comm_t *c;
    const fy_dtype_t *sdt, *rdt;
} coll_args_t;

/* Checks the communicator, the datatypes that matter on this rank, and a root if any (which
 * on an intercommunicator may be MPI_ROOT or MPI_PROC_NULL). */
static int check(const char *fn, MPI_Comm comm, const void *sbuf, MPI_Datatype stype,
                 int send_matters, MPI_Datatype rtype, int recv_matters, int root, coll_args_t *a)
{
    int rc = fy_api_comm(fn, comm, &a->c);
    if (rc == MPI_SUCCESS && root != MPI_UNDEFINED)
        rc = fy_api_root(fn, a->c, root);
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

static int count_ok(const char *fn, MPI_Count count)
{
    return count < 0 ? fy_err_set(MPI_ERR_COUNT, "%s: invalid count %ld", fn, (long)count)
                     : MPI_SUCCESS;
}

/* Whether this process is the root of a rooted collective (on an intercommunicator, the one
 * that passed MPI_ROOT). */
static bool is_root(const fy_comm_t *c, int root)
{
    return c->inter ? root == MPI_ROOT : c->rank == root;
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
int fy_api_gather(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                  void *rbuf, MPI_Count rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                  MPI_Datatype rtype, int root, MPI_Comm comm, fy_coll_mode_t mode,
                  MPI_Request *request)
{
    coll_args_t a;
    fy_sched_t *s;
    int rc = check(fn, comm, sbuf, stype, 0, rtype, 0, root, &a);
    bool inter = rc == MPI_SUCCESS && a.c->inter;
    if (rc == MPI_SUCCESS && inter) { /* the root receives, the other group sends */
        if (root == MPI_ROOT) {
            rc = fy_api_dtype(fn, rtype, &a.rdt);
            if (rc == MPI_SUCCESS)
                rc = counts_ok(fn, rcounts, a.c->peer_size);
            if (rc == MPI_SUCCESS)
                rc = count_ok(fn, rcount);
        } else if (root != MPI_PROC_NULL) {
            rc = sbuf == MPI_IN_PLACE ? fy_api_inter_in_place(fn, a.c, "sendbuf")
                                      : fy_api_dtype(fn, stype, &a.sdt);
            if (rc == MPI_SUCCESS)
                rc = count_ok(fn, scount);
        }
    } else if (rc == MPI_SUCCESS) {
        if (sbuf != MPI_IN_PLACE)
            rc = fy_api_dtype(fn, stype, &a.sdt);
        if (rc == MPI_SUCCESS && a.c->rank == root) {
            rc = fy_api_dtype(fn, rtype, &a.rdt);
            if (rc == MPI_SUCCESS)
                rc = counts_ok(fn, rcounts, a.c->size);
        } else if (rc == MPI_SUCCESS && sbuf == MPI_IN_PLACE) {
            rc = fy_err_set(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is only valid at the root", fn);
        }
        /* The send count means nothing with MPI_IN_PLACE, the receive count nothing away from
         * the root (MPI 4.1 sec. 6.5): programs pass -1 there. */
        if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
            rc = count_ok(fn, scount);
        if (rc == MPI_SUCCESS && a.c->rank == root)
            rc = count_ok(fn, rcount);
    }
    if (rc == MPI_SUCCESS) {
        fy_lock();
        if (mode == FY_COLL_BLOCKING) {
            rc = inter ? fy_inter_gatherv(sbuf, scount, a.sdt, rbuf, rcount, rcounts, displs, a.rdt,
                                          root, a.c)
                       : fy_gatherv(sbuf, scount, a.sdt, rbuf, rcount, rcounts, displs, a.rdt, root,
                                    a.c);
        } else if ((s = fy_api_sched_new(fn, a.c, &rc))) {
            if (inter)
                fy_inter_gatherv_sched(s, sbuf, scount, a.sdt, rbuf, rcount, rcounts, displs, a.rdt,
                                       root);
            else
                fy_gatherv_sched(s, sbuf, scount, a.sdt, rbuf, rcount, rcounts, displs, a.rdt,
                                 root);
            rc = fy_api_sched_go(s, mode, request);
        }
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return fy_api_gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                         recvtype, root, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return fy_api_gather("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                         NULL, recvtype, root, comm, FY_COLL_BLOCKING, NULL);
}

int fy_api_gatherv_int(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const int recvcounts[], const int displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm, fy_coll_mode_t mode,
                       MPI_Request *request)
{
    MPI_Aint *rc_w = NULL, *d_w = NULL;
    fy_comm_t *c = fy_comm_get(comm);
    int n = c ? c->peer_size : 0, rc = MPI_SUCCESS;
    if (c && is_root(c, root) &&
        ((rc = widen(fn, recvcounts, n, &rc_w)) != MPI_SUCCESS ||
         (rc = widen(fn, displs, n, &d_w)) != MPI_SUCCESS)) {
        free(rc_w);
        return fy_err_raise_comm(comm, rc);
    }
    rc = fy_api_gather(fn, sendbuf, sendcount, sendtype, recvbuf, 0, rc_w, d_w, recvtype, root,
                       comm, mode, request);
    free(rc_w);
    free(d_w);
    return rc;
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    return fy_api_gatherv_int("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                              displs, recvtype, root, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm)
{
    return fy_api_gather("MPI_Gatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                         displs, recvtype, root, comm, FY_COLL_BLOCKING, NULL);
}

/* ---- Scatter ------------------------------------------------------------------------- */
int fy_api_scatter(const char *fn, const void *sbuf, MPI_Count scount, const MPI_Aint *scounts,
                   const MPI_Aint *displs, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                   MPI_Datatype rtype, int root, MPI_Comm comm, fy_coll_mode_t mode,
                   MPI_Request *request)
{
    coll_args_t a;
    fy_sched_t *s;
    int rc = check(fn, comm, NULL, stype, 0, rtype, 0, root, &a);
    bool inter = rc == MPI_SUCCESS && a.c->inter;
    int at_root = rc == MPI_SUCCESS && is_root(a.c, root);
    /* On an intercommunicator the root sends and the other group receives. */
    bool receives = rc == MPI_SUCCESS && (inter ? root >= 0 : !(at_root && rbuf == MPI_IN_PLACE));
    if (rc == MPI_SUCCESS && at_root)
        rc = fy_api_dtype(fn, stype, &a.sdt);
    if (rc == MPI_SUCCESS && at_root)
        rc = counts_ok(fn, scounts, a.c->peer_size);
    if (rc == MPI_SUCCESS && inter && receives && rbuf == MPI_IN_PLACE)
        rc = fy_api_inter_in_place(fn, a.c, "recvbuf");
    if (rc == MPI_SUCCESS && receives)
        rc = fy_api_dtype(fn, rtype, &a.rdt);
    if (rc == MPI_SUCCESS && !inter && rbuf == MPI_IN_PLACE && !at_root)
        rc = fy_err_set(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is only valid at the root", fn);
    /* Only the root's send arguments count, and no receive arguments at a root that scatters
     * in place (MPI 4.1 sec. 6.6). */
    if (rc == MPI_SUCCESS && at_root)
        rc = count_ok(fn, scount);
    if (rc == MPI_SUCCESS && receives)
        rc = count_ok(fn, rcount);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        if (mode == FY_COLL_BLOCKING) {
            rc = inter ? fy_inter_scatterv(sbuf, scount, scounts, displs, a.sdt, rbuf, rcount,
                                           a.rdt, root, a.c)
                       : fy_scatterv(sbuf, scount, scounts, displs, a.sdt, rbuf, rcount, a.rdt,
                                     root, a.c);
        } else if ((s = fy_api_sched_new(fn, a.c, &rc))) {
            if (inter)
                fy_inter_scatterv_sched(s, sbuf, scount, scounts, displs, a.sdt, rbuf, rcount,
                                        a.rdt, root);
            else
                fy_scatterv_sched(s, sbuf, scount, scounts, displs, a.sdt, rbuf, rcount, a.rdt,
                                  root);
            rc = fy_api_sched_go(s, mode, request);
        }
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return fy_api_scatter("MPI_Scatter", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                          recvcount, recvtype, root, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return fy_api_scatter("MPI_Scatter_c", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                          recvcount, recvtype, root, comm, FY_COLL_BLOCKING, NULL);
}

int fy_api_scatterv_int(const char *fn, const void *sendbuf, const int sendcounts[],
                        const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, fy_coll_mode_t mode,
                        MPI_Request *request)
{
    MPI_Aint *sc_w = NULL, *d_w = NULL;
    fy_comm_t *c = fy_comm_get(comm);
    int n = c ? c->peer_size : 0, rc = MPI_SUCCESS;
    if (c && is_root(c, root) &&
        ((rc = widen(fn, sendcounts, n, &sc_w)) != MPI_SUCCESS ||
         (rc = widen(fn, displs, n, &d_w)) != MPI_SUCCESS)) {
        free(sc_w);
        return fy_err_raise_comm(comm, rc);
    }
    rc = fy_api_scatter(fn, sendbuf, 0, sc_w, d_w, sendtype, recvbuf, recvcount, recvtype, root,
                        comm, mode, request);
    free(sc_w);
    free(d_w);
    return rc;
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    return fy_api_scatterv_int("MPI_Scatterv", sendbuf, sendcounts, displs, sendtype, recvbuf,
                               recvcount, recvtype, root, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return fy_api_scatter("MPI_Scatterv_c", sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                          recvcount, recvtype, root, comm, FY_COLL_BLOCKING, NULL);
}

/* ---- Allgather ----------------------------------------------------------------------- */
int fy_api_allgather(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                     void *rbuf, MPI_Count rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                     MPI_Datatype rtype, MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request)
{
    coll_args_t a;
    fy_sched_t *s;
    int rc = check(fn, comm, sbuf, stype, 1, rtype, 1, MPI_UNDEFINED, &a);
    bool inter = rc == MPI_SUCCESS && a.c->inter;
    if (rc == MPI_SUCCESS && inter && sbuf == MPI_IN_PLACE)
        rc = fy_api_inter_in_place(fn, a.c, "sendbuf");
    if (rc == MPI_SUCCESS)
        rc = counts_ok(fn, rcounts, a.c->peer_size);
    /* With MPI_IN_PLACE the send count and type are ignored (MPI 4.1 sec. 6.7). */
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        rc = count_ok(fn, scount);
    if (rc == MPI_SUCCESS)
        rc = count_ok(fn, rcount);
    /* Every block is empty: nothing to move (on an intercommunicator only this direction). */
    if (rc == MPI_SUCCESS && mode == FY_COLL_BLOCKING && !rcounts && rcount == 0 && !inter)
        return MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        fy_lock();
        if (mode == FY_COLL_BLOCKING) {
            rc = inter ? fy_inter_allgatherv(sbuf, scount, a.sdt, rbuf, rcount, rcounts, displs,
                                             a.rdt, a.c)
                       : fy_allgatherv(sbuf, scount, a.sdt, rbuf, rcount, rcounts, displs, a.rdt,
                                       a.c);
        } else if ((s = fy_api_sched_new(fn, a.c, &rc))) {
            if (inter)
                fy_inter_allgatherv_sched(s, sbuf, scount, a.sdt, rbuf, rcount, rcounts, displs,
                                          a.rdt);
            else
                fy_allgatherv_sched(s, sbuf, scount, a.sdt, rbuf, rcount, rcounts, displs, a.rdt);
            rc = fy_api_sched_go(s, mode, request);
        }
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return fy_api_allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                            NULL, recvtype, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return fy_api_allgather("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            NULL, NULL, recvtype, comm, FY_COLL_BLOCKING, NULL);
}

int fy_api_allgatherv_int(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, fy_coll_mode_t mode,
                          MPI_Request *request)
{
    MPI_Aint *rc_w = NULL, *d_w = NULL;
    fy_comm_t *c = fy_comm_get(comm);
    int n = c ? c->peer_size : 0, rc;
    if ((rc = widen(fn, recvcounts, n, &rc_w)) != MPI_SUCCESS ||
        (rc = widen(fn, displs, n, &d_w)) != MPI_SUCCESS) {
        free(rc_w);
        return fy_err_raise_comm(comm, rc);
    }
    rc = fy_api_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, 0, rc_w, d_w, recvtype, comm,
                          mode, request);
    free(rc_w);
    free(d_w);
    return rc;
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    return fy_api_allgatherv_int("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                                 recvcounts, displs, recvtype, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    return fy_api_allgather("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0,
                            recvcounts, displs, recvtype, comm, FY_COLL_BLOCKING, NULL);
}

/* ---- Alltoall ------------------------------------------------------------------------ */
int fy_api_alltoall(const char *fn, const void *sbuf, MPI_Count scount, const MPI_Aint *scounts,
                    const MPI_Aint *sdispls, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                    const MPI_Aint *rcounts, const MPI_Aint *rdispls, MPI_Datatype rtype,
                    MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request)
{
    coll_args_t a;
    fy_sched_t *s;
    int rc = check(fn, comm, sbuf, stype, 1, rtype, 1, MPI_UNDEFINED, &a);
    bool inter = rc == MPI_SUCCESS && a.c->inter;
    if (rc == MPI_SUCCESS && inter && sbuf == MPI_IN_PLACE)
        rc = fy_api_inter_in_place(fn, a.c, "sendbuf");
    if (rc == MPI_SUCCESS)
        rc = counts_ok(fn, rcounts, a.c->peer_size);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        rc = counts_ok(fn, scounts, a.c->peer_size);
    /* With MPI_IN_PLACE the send count and type are ignored (MPI 4.1 sec. 6.8). */
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        rc = count_ok(fn, scount);
    if (rc == MPI_SUCCESS)
        rc = count_ok(fn, rcount);
    /* Every block is empty: nothing to move (on an intercommunicator only this direction). */
    if (rc == MPI_SUCCESS && mode == FY_COLL_BLOCKING && !rcounts && rcount == 0 && !inter)
        return MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        fy_lock();
        if (mode == FY_COLL_BLOCKING) {
            rc = inter ? fy_inter_alltoallv(sbuf, scount, scounts, sdispls, a.sdt, rbuf, rcount,
                                            rcounts, rdispls, a.rdt, a.c)
                       : fy_alltoallv(sbuf, scount, scounts, sdispls, a.sdt, rbuf, rcount, rcounts,
                                      rdispls, a.rdt, a.c);
        } else if ((s = fy_api_sched_new(fn, a.c, &rc))) {
            if (inter)
                fy_inter_alltoallv_sched(s, sbuf, scount, scounts, sdispls, a.sdt, rbuf, rcount,
                                         rcounts, rdispls, a.rdt);
            else
                fy_alltoallv_sched(s, sbuf, scount, scounts, sdispls, a.sdt, rbuf, rcount, rcounts,
                                   rdispls, a.rdt);
            rc = fy_api_sched_go(s, mode, request);
        }
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return fy_api_alltoall("MPI_Alltoall", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                           recvcount, NULL, NULL, recvtype, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return fy_api_alltoall("MPI_Alltoall_c", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                           recvcount, NULL, NULL, recvtype, comm, FY_COLL_BLOCKING, NULL);
}

int fy_api_alltoallv_int(const char *fn, const void *sendbuf, const int sendcounts[],
                         const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request)
{
    MPI_Aint *w[4] = {NULL, NULL, NULL, NULL};
    const int *in[4] = {sendbuf == MPI_IN_PLACE ? NULL : sendcounts,
                        sendbuf == MPI_IN_PLACE ? NULL : sdispls, recvcounts, rdispls};
    fy_comm_t *c = fy_comm_get(comm);
    int n = c ? c->peer_size : 0, rc = MPI_SUCCESS;
    for (int i = 0; i < 4 && rc == MPI_SUCCESS; i++)
        rc = widen(fn, in[i], n, &w[i]);
    if (rc == MPI_SUCCESS)
        rc = fy_api_alltoall(fn, sendbuf, 0, w[0], w[1], sendtype, recvbuf, 0, w[2], w[3], recvtype,
                             comm, mode, request);
    else
        rc = fy_err_raise_comm(comm, rc);
    for (int i = 0; i < 4; i++)
        free(w[i]);
    return rc;
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return fy_api_alltoallv_int("MPI_Alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                recvcounts, rdispls, recvtype, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return fy_api_alltoall("MPI_Alltoallv_c", sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
                           recvcounts, rdispls, recvtype, comm, FY_COLL_BLOCKING, NULL);
}

/* ---- Alltoallw: a datatype per block, displacements in bytes. Blocking too runs as a
 * schedule (there is no hand-written form). */
/* A block's type; an empty block may name any type (MPI_DATATYPE_NULL included). */
static const fy_dtype_t *wtype(const char *fn, MPI_Datatype h, MPI_Aint count, int *rc)
{
    const fy_dtype_t *d = NULL;
    if (count == 0)
        return fy_dtype_get(MPI_BYTE);
    if (*rc == MPI_SUCCESS)
        *rc = fy_api_dtype(fn, h, &d);
    return d;
}

int fy_api_alltoallw(const char *fn, const void *sbuf, const MPI_Aint scounts[],
                     const MPI_Aint sdispls[], const MPI_Datatype stypes[], void *rbuf,
                     const MPI_Aint rcounts[], const MPI_Aint rdispls[],
                     const MPI_Datatype rtypes[], MPI_Comm comm, fy_coll_mode_t mode,
                     MPI_Request *request)
{
    fy_comm_t *c;
    const fy_dtype_t **dts = NULL;
    bool in_place = sbuf == MPI_IN_PLACE;
    int rc = fy_api_comm(fn, comm, &c), n = 0;
    if (rc == MPI_SUCCESS && c->inter && in_place)
        rc = fy_api_inter_in_place(fn, c, "sendbuf");
    if (rc == MPI_SUCCESS) {
        n = c->peer_size; /* blocks are per remote rank on an intercommunicator */
        if (!(dts = calloc(2 * (size_t)n + 1, sizeof *dts)))
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    if (rc == MPI_SUCCESS)
        rc = counts_ok(fn, rcounts, n);
    if (rc == MPI_SUCCESS && !in_place)
        rc = counts_ok(fn, scounts, n);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        dts[n + i] = wtype(fn, rtypes[i], rcounts[i], &rc);
        if (!in_place)
            dts[i] = wtype(fn, stypes[i], scounts[i], &rc);
    }
    if (rc == MPI_SUCCESS) {
        fy_lock();
        fy_sched_t *s = fy_api_sched_new(fn, c, &rc);
        if (s) {
            if (c->inter)
                fy_inter_alltoallw_sched(s, sbuf, scounts, sdispls, dts, rbuf, rcounts, rdispls,
                                         dts + n);
            else
                fy_alltoallw_sched(s, sbuf, scounts, sdispls, dts, rbuf, rcounts, rdispls, dts + n);
            rc = mode == FY_COLL_BLOCKING ? fy_sched_run(s) : fy_api_sched_go(s, mode, request);
        }
        fy_unlock();
    }
    free(dts);
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int fy_api_alltoallw_int(const char *fn, const void *sendbuf, const int sendcounts[],
                         const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const int recvcounts[], const int rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, fy_coll_mode_t mode,
                         MPI_Request *request)
{
    MPI_Aint *w[4] = {NULL, NULL, NULL, NULL};
    const int *in[4] = {sendbuf == MPI_IN_PLACE ? NULL : sendcounts,
                        sendbuf == MPI_IN_PLACE ? NULL : sdispls, recvcounts, rdispls};
    fy_comm_t *c = fy_comm_get(comm);
    int n = c ? c->peer_size : 0, rc = MPI_SUCCESS;
    for (int i = 0; i < 4 && rc == MPI_SUCCESS; i++)
        rc = widen(fn, in[i], n, &w[i]);
    if (rc == MPI_SUCCESS)
        rc = fy_api_alltoallw(fn, sendbuf, w[0], w[1], sendtypes, recvbuf, w[2], w[3], recvtypes,
                              comm, mode, request);
    else
        rc = fy_err_raise_comm(comm, rc);
    for (int i = 0; i < 4; i++)
        free(w[i]);
    return rc;
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return fy_api_alltoallw_int("MPI_Alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                recvcounts, rdispls, recvtypes, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return fy_api_alltoallw("MPI_Alltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                            recvcounts, rdispls, recvtypes, comm, FY_COLL_BLOCKING, NULL);
}

/* ---- Reduce_scatter ------------------------------------------------------------------ */
int fy_api_reduce_scatter(const char *fn, const void *sbuf, void *rbuf, MPI_Count rcount,
                          const MPI_Aint *rcounts, MPI_Datatype dtype, MPI_Op op, MPI_Comm comm,
                          fy_coll_mode_t mode, MPI_Request *request)
{
    coll_args_t a;
    fy_sched_t *s;
    int rc = check(fn, comm, NULL, dtype, 0, dtype, 1, MPI_UNDEFINED, &a);
    bool inter = rc == MPI_SUCCESS && a.c->inter;
    if (rc == MPI_SUCCESS && inter && sbuf == MPI_IN_PLACE)
        rc = fy_api_inter_in_place(fn, a.c, "sendbuf");
    /* The counts are the local group's, on an intercommunicator too. */
    if (rc == MPI_SUCCESS)
        rc = counts_ok(fn, rcounts, a.c->size);
    if (rc == MPI_SUCCESS && rcount < 0)
        rc = fy_err_set(MPI_ERR_COUNT, "%s: invalid count %ld", fn, (long)rcount);
    if (rc == MPI_SUCCESS)
        rc = fy_op_check(fn, op, a.rdt);
    if (rc == MPI_SUCCESS && mode == FY_COLL_BLOCKING && !rcounts && rcount == 0)
        return MPI_SUCCESS; /* every block is empty: nothing to move */
    if (rc == MPI_SUCCESS) {
        fy_lock();
        if (mode == FY_COLL_BLOCKING) {
            rc = inter ? fy_inter_reduce_scatter(sbuf, rbuf, rcount, rcounts, a.rdt, op, a.c)
                       : fy_reduce_scatter(sbuf, rbuf, rcount, rcounts, a.rdt, op, a.c);
            fy_coll_scratch_done();
        } else if ((s = fy_api_sched_new(fn, a.c, &rc))) {
            if (inter)
                fy_inter_reduce_scatter_sched(s, sbuf, rbuf, rcount, rcounts, a.rdt, op);
            else
                fy_reduce_scatter_sched(s, sbuf, rbuf, rcount, rcounts, a.rdt, op);
            rc = fy_api_sched_go(s, mode, request);
        }
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return fy_api_reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf, recvcount, NULL,
                                 datatype, op, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return fy_api_reduce_scatter("MPI_Reduce_scatter_block_c", sendbuf, recvbuf, recvcount, NULL,
                                 datatype, op, comm, FY_COLL_BLOCKING, NULL);
}

int fy_api_reduce_scatter_int(const char *fn, const void *sendbuf, void *recvbuf,
                              const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request)
{
    MPI_Aint *w = NULL;
    fy_comm_t *c = fy_comm_get(comm);
    int rc = widen(fn, recvcounts, c ? c->size : 0, &w);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    rc = fy_api_reduce_scatter(fn, sendbuf, recvbuf, 0, w, datatype, op, comm, mode, request);
    free(w);
    return rc;
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return fy_api_reduce_scatter_int("MPI_Reduce_scatter", sendbuf, recvbuf, recvcounts, datatype,
                                     op, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return fy_api_reduce_scatter("MPI_Reduce_scatter_c", sendbuf, recvbuf, 0, recvcounts, datatype,
                                 op, comm, FY_COLL_BLOCKING, NULL);
}
