/* Persistent requests: the arguments are checked and bound once; each MPI_Start runs the
 * same operation again on the same request. */
#include "fy_coll.h"
#include "fy_p2p.h"
#include "fy_part.h"
#include "p2p_start.h"

static int send_init(const char *fn, const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                     int tag, MPI_Comm comm, fy_mode_t mode, MPI_Request *request)
{
    fy_req_t *r;
    fy_lock();
    int rc = fy_api_send_start(fn, buf, count, dt, dest, tag, comm, mode, 0, &r);
    if (rc == MPI_SUCCESS) {
        r->persistent = true;
        fy_req_complete(r); /* inactive: Wait and Test return at once */
    }
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *request = r->handle;
    return MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return send_init("MPI_Send_init", buf, count, datatype, dest, tag, comm, FY_MODE_STANDARD,
                     request);
}

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return send_init("MPI_Bsend_init", buf, count, datatype, dest, tag, comm, FY_MODE_BUFFERED,
                     request);
}

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return send_init("MPI_Ssend_init", buf, count, datatype, dest, tag, comm, FY_MODE_SYNC,
                     request);
}

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return send_init("MPI_Rsend_init", buf, count, datatype, dest, tag, comm, FY_MODE_READY,
                     request);
}

static int recv_init(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype, int source,
                     int tag, MPI_Comm comm, MPI_Request *request)
{
    fy_req_t *r;
    fy_lock();
    int rc = fy_api_recv_start(fn, buf, count, datatype, source, tag, comm, 0, &r);
    if (rc == MPI_SUCCESS) {
        r->persistent = true;
        fy_req_complete(r);
    }
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *request = r->handle;
    return MPI_SUCCESS;
}

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return recv_init("MPI_Recv_init", buf, count, datatype, source, tag, comm, request);
}

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return recv_init("MPI_Recv_init_c", buf, count, datatype, source, tag, comm, request);
}

static int start_one(const char *fn, MPI_Request h)
{
    fy_req_t *r;
    int rc = fy_api_request(fn, h, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!r->persistent)
        return fy_err_set(MPI_ERR_REQUEST, "%s: request 0x%x is not persistent", fn, (unsigned)h);
    if (r->active)
        return fy_err_set(MPI_ERR_REQUEST, "%s: request 0x%x is already active", fn, (unsigned)h);
    if (r->kind == FY_REQ_COLL)
        return fy_sched_restart(r);
    if (r->kind == FY_REQ_PART)
        return fy_part_start(r);
    return fy_api_start(r);
}

int PMPI_Start(MPI_Request *request)
{
    fy_lock();
    int rc = start_one("MPI_Start", *request);
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    int rc = fy_api_count("MPI_Startall", count);
    fy_lock();
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++)
        rc = start_one("MPI_Startall", array_of_requests[i]);
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return send_init("MPI_Send_init_c", buf, count, datatype, dest, tag, comm, FY_MODE_STANDARD,
                     request);
}

int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return send_init("MPI_Bsend_init_c", buf, count, datatype, dest, tag, comm, FY_MODE_BUFFERED,
                     request);
}

int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return send_init("MPI_Ssend_init_c", buf, count, datatype, dest, tag, comm, FY_MODE_SYNC,
                     request);
}

int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return send_init("MPI_Rsend_init_c", buf, count, datatype, dest, tag, comm, FY_MODE_READY,
                     request);
}
