/* Barrier, Bcast and the reductions (Reduce, Allreduce, Scan, Exscan): argument checks here,
 * shared by the blocking, nonblocking and persistent forms (coll_api.h); algorithms in
 * src/coll. */
#include "coll_api.h"
#include "fy_inter.h"
#include "fy_op.h"
#include "p2p_start.h"

static const char *cname(const fy_comm_t *c)
{
    return c->name[0] ? c->name : "the communicator";
}

int fy_api_root(const char *fn, const fy_comm_t *c, int root)
{
    if (!c->inter)
        return fy_api_rank(fn, c, root, "root", 0, 0);
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->peer_size))
        return MPI_SUCCESS;
    return fy_err_set(MPI_ERR_ROOT,
                      "%s: invalid root %d on intercommunicator %s (the root passes MPI_ROOT, "
                      "the rest of its group MPI_PROC_NULL, the other group the root's rank in "
                      "it: 0..%d)",
                      fn, root, cname(c), c->peer_size - 1);
}

int fy_api_inter_in_place(const char *fn, const fy_comm_t *c, const char *arg)
{
    return fy_err_set(MPI_ERR_BUFFER,
                      "%s: %s is MPI_IN_PLACE, which is not allowed on an intercommunicator (%s)",
                      fn, arg, cname(c));
}

fy_sched_t *fy_api_sched_new(const char *fn, fy_comm_t *c, int *rc_p)
{
    fy_sched_t *s = fy_sched_new(c, fn);
    *rc_p = s ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    return s;
}

int fy_api_sched_go(fy_sched_t *s, fy_coll_mode_t mode, MPI_Request *request)
{
    fy_req_t *r;
    int rc = fy_sched_start(s, mode == FY_COLL_PERSISTENT, &r);
    if (rc == MPI_SUCCESS)
        *request = r->handle;
    return rc;
}

int fy_api_barrier(const char *fn, MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request)
{
    fy_comm_t *c;
    fy_sched_t *s;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        if (mode == FY_COLL_BLOCKING) {
            rc = c->inter ? fy_inter_barrier(c) : fy_barrier(c);
        } else if ((s = fy_api_sched_new(fn, c, &rc))) {
            if (c->inter)
                fy_inter_barrier_sched(s);
            else
                fy_barrier_sched(s);
            rc = fy_api_sched_go(s, mode, request);
        }
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Barrier(MPI_Comm comm)
{
    return fy_api_barrier("MPI_Barrier", comm, FY_COLL_BLOCKING, NULL);
}

/* The buffer, count and datatype of a call, checked where they are significant. */
static int data_args(const char *fn, const void *buf, MPI_Count count, MPI_Datatype dt,
                     const fy_dtype_t **d)
{
    int rc = fy_api_count(fn, count);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype(fn, dt, d);
    if (rc == MPI_SUCCESS && buf != MPI_IN_PLACE)
        rc = fy_api_buf(fn, buf, count, *d);
    return rc;
}

static int coll_args(const char *fn, const void *buf, MPI_Count count, MPI_Datatype dt,
                     MPI_Comm comm, fy_comm_t **c, const fy_dtype_t **d)
{
    int rc = fy_api_comm(fn, comm, c);
    return rc == MPI_SUCCESS ? data_args(fn, buf, count, dt, d) : rc;
}

/* A rooted collective on an intercommunicator: only the root and the other group pass data;
 * the rest of the root's group (MPI_PROC_NULL) passes nothing significant. */
static bool idle(const fy_comm_t *c, int root)
{
    return c->inter && root == MPI_PROC_NULL;
}

int fy_api_bcast(const char *fn, void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                 MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request)
{
    fy_comm_t *c;
    const fy_dtype_t *d = NULL;
    fy_sched_t *s;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS)
        rc = fy_api_root(fn, c, root);
    if (rc == MPI_SUCCESS && !idle(c, root))
        rc = data_args(fn, buffer, count, datatype, &d);
    /* Nothing to move: collectives other than Barrier need not synchronize. */
    if (rc == MPI_SUCCESS && mode == FY_COLL_BLOCKING && (!d || count == 0 || d->size == 0))
        return MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        fy_lock();
        if (mode == FY_COLL_BLOCKING) {
            rc = c->inter ? fy_inter_bcast(buffer, count, d, root, c)
                          : fy_bcast(buffer, count, d, root, c);
        } else if ((s = fy_api_sched_new(fn, c, &rc))) {
            if (c->inter)
                fy_inter_bcast_sched(s, buffer, count, d, root);
            else
                fy_bcast_sched(s, buffer, count, d, root);
            rc = fy_api_sched_go(s, mode, request);
        }
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int fy_api_reduce(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, fy_coll_mode_t mode,
                  MPI_Request *request)
{
    fy_comm_t *c;
    const fy_dtype_t *d = NULL;
    fy_sched_t *s;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS)
        rc = fy_api_root(fn, c, root);
    if (rc == MPI_SUCCESS && c->inter) { /* the root receives, the other group sends */
        if (root == MPI_ROOT)
            rc = data_args(fn, recvbuf, count, datatype, &d);
        else if (root != MPI_PROC_NULL && sendbuf == MPI_IN_PLACE)
            rc = fy_api_inter_in_place(fn, c, "sendbuf");
        else if (root != MPI_PROC_NULL)
            rc = data_args(fn, sendbuf, count, datatype, &d);
    } else if (rc == MPI_SUCCESS) {
        rc = data_args(fn, sendbuf, count, datatype, &d);
        if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && c->rank != root)
            rc = fy_err_set(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is only valid at the root", fn);
    }
    if (rc == MPI_SUCCESS && d)
        rc = fy_op_check(fn, op, d);
    if (rc == MPI_SUCCESS && mode == FY_COLL_BLOCKING && (!d || count == 0))
        return MPI_SUCCESS;
    const void *in = sendbuf == MPI_IN_PLACE && !c->inter ? recvbuf : sendbuf;
    if (rc == MPI_SUCCESS) {
        fy_lock();
        if (mode == FY_COLL_BLOCKING) {
            rc = c->inter ? fy_inter_reduce(in, recvbuf, count, d, op, root, c)
                          : fy_reduce(in, recvbuf, count, d, op, root, c);
            fy_coll_scratch_done();
        } else if ((s = fy_api_sched_new(fn, c, &rc))) {
            if (c->inter)
                fy_inter_reduce_sched(s, in, recvbuf, count, d, op, root);
            else
                fy_reduce_sched(s, in, recvbuf, count, d, op, root);
            rc = fy_api_sched_go(s, mode, request);
        }
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int fy_api_allreduce(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, fy_coll_mode_t mode,
                     MPI_Request *request)
{
    fy_comm_t *c;
    const fy_dtype_t *d;
    fy_sched_t *s;
    int rc = coll_args(fn, sendbuf, count, datatype, comm, &c, &d);
    if (rc == MPI_SUCCESS)
        rc = fy_api_buf(fn, recvbuf, count, d);
    if (rc == MPI_SUCCESS)
        rc = fy_op_check(fn, op, d);
    if (rc == MPI_SUCCESS && c->inter && sendbuf == MPI_IN_PLACE)
        rc = fy_api_inter_in_place(fn, c, "sendbuf");
    if (rc == MPI_SUCCESS && mode == FY_COLL_BLOCKING && count == 0)
        return MPI_SUCCESS;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (rc == MPI_SUCCESS) {
        fy_lock();
        if (mode == FY_COLL_BLOCKING) {
            rc = c->inter ? fy_inter_allreduce(in, recvbuf, count, d, op, c)
                          : fy_allreduce(in, recvbuf, count, d, op, c);
            fy_coll_scratch_done();
        } else if ((s = fy_api_sched_new(fn, c, &rc))) {
            if (c->inter)
                fy_inter_allreduce_sched(s, in, recvbuf, count, d, op);
            else
                fy_allreduce_sched(s, in, recvbuf, count, d, op);
            rc = fy_api_sched_go(s, mode, request);
        }
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int fy_api_scan(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, bool exclusive,
                fy_coll_mode_t mode, MPI_Request *request)
{
    fy_comm_t *c;
    const fy_dtype_t *d;
    fy_sched_t *s;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS && c->inter)
        rc = fy_err_set(MPI_ERR_COMM,
                        "%s: %s is an intercommunicator; MPI defines %s only on intracommunicators",
                        fn, cname(c), exclusive ? "Exscan" : "Scan");
    if (rc == MPI_SUCCESS)
        rc = data_args(fn, sendbuf, count, datatype, &d);
    if (rc == MPI_SUCCESS && (!exclusive || c->rank > 0))
        rc = fy_api_buf(fn, recvbuf, count, d);
    if (rc == MPI_SUCCESS)
        rc = fy_op_check(fn, op, d);
    if (rc == MPI_SUCCESS && mode == FY_COLL_BLOCKING && count == 0)
        return MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        fy_lock();
        if (mode == FY_COLL_BLOCKING) {
            rc = fy_scan(sendbuf, recvbuf, count, d, op, exclusive, c);
            fy_coll_scratch_done();
        } else if ((s = fy_api_sched_new(fn, c, &rc))) {
            fy_scan_sched(s, sendbuf, recvbuf, count, d, op, exclusive);
            rc = fy_api_sched_go(s, mode, request);
        }
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return fy_api_bcast("MPI_Bcast", buffer, count, datatype, root, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return fy_api_bcast("MPI_Bcast_c", buffer, count, datatype, root, comm, FY_COLL_BLOCKING, NULL);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    return fy_api_reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm,
                         FY_COLL_BLOCKING, NULL);
}

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    return fy_api_reduce("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op, root, comm,
                         FY_COLL_BLOCKING, NULL);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    return fy_api_allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm,
                            FY_COLL_BLOCKING, NULL);
}

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm)
{
    return fy_api_allreduce("MPI_Allreduce_c", sendbuf, recvbuf, count, datatype, op, comm,
                            FY_COLL_BLOCKING, NULL);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    return fy_api_scan("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, false,
                       FY_COLL_BLOCKING, NULL);
}

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm)
{
    return fy_api_scan("MPI_Scan_c", sendbuf, recvbuf, count, datatype, op, comm, false,
                       FY_COLL_BLOCKING, NULL);
}

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    return fy_api_scan("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, true,
                       FY_COLL_BLOCKING, NULL);
}

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    return fy_api_scan("MPI_Exscan_c", sendbuf, recvbuf, count, datatype, op, comm, true,
                       FY_COLL_BLOCKING, NULL);
}
