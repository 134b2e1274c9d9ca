/* The four send modes, blocking and nonblocking. A ready send is a standard send: this
 * library gains nothing from knowing that the receive is posted. */
#include "fy_p2p.h"
#include "p2p_start.h"

static int send_blocking(const char *fn, const void *buf, MPI_Count count, MPI_Datatype dt,
                         int dest, int tag, MPI_Comm comm, fy_mode_t mode)
{
    fy_req_t *r;
    fy_lock();
    fy_comm_t *c;
    const fy_dtype_t *d;
    int rc = fy_api_p2p_args(fn, buf, count, dt, dest, tag, comm, 0, &c, &d);
    /* A small contiguous standard send that can go at once needs no request. */
    if (rc == MPI_SUCCESS && (mode == FY_MODE_STANDARD || mode == FY_MODE_READY) && d->contig &&
        dest >= 0 &&
        fy_p2p_send_now(c, (const char *)buf + d->lb, fy_dtype_bytes(d, count), dest, tag) == 0) {
        fy_unlock();
        return MPI_SUCCESS;
    }
    if (rc == MPI_SUCCESS)
        rc = fy_api_send_begin(fn, buf, count, d, dest, tag, c, mode, 1, &r);
    if (rc == MPI_SUCCESS)
        rc = fy_api_finish_blocking(r, MPI_STATUS_IGNORE);
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

static int send_nonblocking(const char *fn, const void *buf, MPI_Count count, MPI_Datatype dt,
                            int dest, int tag, MPI_Comm comm, fy_mode_t mode, MPI_Request *request)
{
    fy_req_t *r;
    fy_lock();
    int rc = fy_api_send_start(fn, buf, count, dt, dest, tag, comm, mode, 1, &r);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *request = r->handle;
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Send", buf, count, datatype, dest, tag, comm, FY_MODE_STANDARD);
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Bsend", buf, count, datatype, dest, tag, comm, FY_MODE_BUFFERED);
}

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Ssend", buf, count, datatype, dest, tag, comm, FY_MODE_SYNC);
}

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Rsend", buf, count, datatype, dest, tag, comm, FY_MODE_READY);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return send_nonblocking("MPI_Isend", buf, count, datatype, dest, tag, comm, FY_MODE_STANDARD,
                            request);
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return send_nonblocking("MPI_Ibsend", buf, count, datatype, dest, tag, comm, FY_MODE_BUFFERED,
                            request);
}

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return send_nonblocking("MPI_Issend", buf, count, datatype, dest, tag, comm, FY_MODE_SYNC,
                            request);
}

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return send_nonblocking("MPI_Irsend", buf, count, datatype, dest, tag, comm, FY_MODE_READY,
                            request);
}

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    return send_blocking("MPI_Send_c", buf, count, datatype, dest, tag, comm, FY_MODE_STANDARD);
}

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return send_blocking("MPI_Bsend_c", buf, count, datatype, dest, tag, comm, FY_MODE_BUFFERED);
}

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return send_blocking("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, FY_MODE_SYNC);
}

int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return send_blocking("MPI_Rsend_c", buf, count, datatype, dest, tag, comm, FY_MODE_READY);
}

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Isend_c", buf, count, datatype, dest, tag, comm, FY_MODE_STANDARD,
                            request);
}

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm, FY_MODE_BUFFERED,
                            request);
}

int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Issend_c", buf, count, datatype, dest, tag, comm, FY_MODE_SYNC,
                            request);
}

int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Irsend_c", buf, count, datatype, dest, tag, comm, FY_MODE_READY,
                            request);
}
