/* Barrier, Bcast and the reductions (Reduce, Allreduce, Scan, Exscan); argument checks here,
 * algorithms in src/coll. */
#include "fy_coll.h"
#include "fy_op.h"
#include "p2p_start.h"

int PMPI_Barrier(MPI_Comm comm)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Barrier", comm, &c);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_barrier(c);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

static int coll_args(const char *fn, const void *buf, MPI_Count count, MPI_Datatype dt,
                     MPI_Comm comm, fy_comm_t **c, const fy_dtype_t **d)
{
    int rc = fy_api_comm(fn, comm, c);
    if (rc == MPI_SUCCESS)
        rc = fy_api_count(fn, count);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype(fn, dt, d);
    if (rc == MPI_SUCCESS && buf != MPI_IN_PLACE)
        rc = fy_api_buf(fn, buf, count, *d);
    return rc;
}

static int bcast(const char *fn, void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                 MPI_Comm comm)
{
    fy_comm_t *c;
    const fy_dtype_t *d;
    int rc = coll_args(fn, buffer, count, datatype, comm, &c, &d);
    if (rc == MPI_SUCCESS)
        rc = fy_api_rank(fn, c, root, "root", 0, 0);
    /* Nothing to move: collectives other than Barrier need not synchronize. */
    if (rc == MPI_SUCCESS && (count == 0 || d->size == 0))
        return MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_bcast(buffer, count, d, root, c);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

static int reduce(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    fy_comm_t *c;
    const fy_dtype_t *d;
    int rc = coll_args(fn, sendbuf, count, datatype, comm, &c, &d);
    if (rc == MPI_SUCCESS)
        rc = fy_api_rank(fn, c, root, "root", 0, 0);
    if (rc == MPI_SUCCESS)
        rc = fy_op_check(fn, op, d);
    if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && c->rank != root)
        rc = fy_err_set(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is only valid at the root", fn);
    if (rc == MPI_SUCCESS && count == 0)
        return MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_reduce(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count, d, op, root, c);
        fy_coll_scratch_done();
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

static int allreduce(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    fy_comm_t *c;
    const fy_dtype_t *d;
    int rc = coll_args(fn, sendbuf, count, datatype, comm, &c, &d);
    if (rc == MPI_SUCCESS)
        rc = fy_api_buf(fn, recvbuf, count, d);
    if (rc == MPI_SUCCESS)
        rc = fy_op_check(fn, op, d);
    if (rc == MPI_SUCCESS && count == 0)
        return MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_allreduce(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count, d, op, c);
        fy_coll_scratch_done();
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

static int scan(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, bool exclusive)
{
    fy_comm_t *c;
    const fy_dtype_t *d;
    int rc = coll_args(fn, sendbuf, count, datatype, comm, &c, &d);
    if (rc == MPI_SUCCESS && (!exclusive || c->rank > 0))
        rc = fy_api_buf(fn, recvbuf, count, d);
    if (rc == MPI_SUCCESS)
        rc = fy_op_check(fn, op, d);
    if (rc == MPI_SUCCESS && count == 0)
        return MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_scan(sendbuf, recvbuf, count, d, op, exclusive, c);
        fy_coll_scratch_done();
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast("MPI_Bcast", buffer, count, datatype, root, comm);
}

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast("MPI_Bcast_c", buffer, count, datatype, root, comm);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    return reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm);
}

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    return reduce("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op, root, comm);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    return allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm);
}

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm)
{
    return allreduce("MPI_Allreduce_c", sendbuf, recvbuf, count, datatype, op, comm);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    return scan("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, false);
}

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm)
{
    return scan("MPI_Scan_c", sendbuf, recvbuf, count, datatype, op, comm, false);
}

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    return scan("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, true);
}

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    return scan("MPI_Exscan_c", sendbuf, recvbuf, count, datatype, op, comm, true);
}
