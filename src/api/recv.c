/* Receives, and the combined send-receive calls. */
#include <stdlib.h>
#include <string.h>

#include "fy_p2p.h"
#include "p2p_start.h"

static int recv_blocking(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                         int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    fy_req_t *r;
    fy_lock();
    fy_comm_t *c;
    const fy_dtype_t *d;
    int rc = fy_api_p2p_args(fn, buf, count, datatype, source, tag, comm, 1, &c, &d);
    /* A small message from one source into a contiguous buffer may be taken at once. */
    if (rc == MPI_SUCCESS && d->contig && source >= 0 &&
        fy_p2p_recv_now(c, (char *)buf + d->lb, fy_dtype_bytes(d, count), source, tag, status) ==
            0) {
        fy_unlock();
        return MPI_SUCCESS;
    }
    if (rc == MPI_SUCCESS)
        rc = fy_api_recv_begin(fn, buf, count, d, source, tag, c, 1, &r);
    if (rc == MPI_SUCCESS)
        rc = fy_api_finish_blocking(r, status);
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

static int recv_nonblocking(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                            int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    fy_req_t *r;
    fy_lock();
    int rc = fy_api_recv_start(fn, buf, count, datatype, source, tag, comm, 1, &r);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *request = r->handle;
    return MPI_SUCCESS;
}

/* Both operations are started before either is waited for, so that two ranks exchanging
 * large messages with each other cannot deadlock. */
static int sendrecv(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                    int dest, int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                    int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    fy_req_t *rr, *sr;
    int rc = fy_api_recv_start(fn, rbuf, rcount, rtype, source, rtag, comm, 1, &rr);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = fy_api_send_start(fn, sbuf, scount, stype, dest, stag, comm, FY_MODE_STANDARD, 1, &sr);
    if (rc != MPI_SUCCESS) {
        fy_p2p_cancel_recv(rr);
        fy_req_free(rr);
        return rc;
    }
    int a = fy_api_finish_blocking(sr, MPI_STATUS_IGNORE);
    int b = fy_api_finish_blocking(rr, status);
    return b != MPI_SUCCESS ? b : a;
}

static int sendrecv_api(const char *fn, const void *sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                        MPI_Comm comm, MPI_Status *status)
{
    fy_lock();
    int rc = sendrecv(fn, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                      source, recvtag, comm, status);
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

static int sendrecv_replace(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                            int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status)
{
    const fy_dtype_t *d;
    int rc = fy_api_dtype(fn, datatype, &d);
    if (rc == MPI_SUCCESS)
        rc = fy_api_count(fn, count);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    /* The outgoing copy is packed, so the send reads it while the receive fills buf. */
    size_t bytes = fy_dtype_bytes(d, count);
    void *tmp = malloc(bytes ? bytes : 1);
    if (!tmp) {
        fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for %zu bytes", fn, bytes);
        return fy_err_raise_comm(comm, MPI_ERR_NO_MEM);
    }
    fy_dtype_pack(d, buf, count, tmp);
    fy_lock();
    rc = sendrecv(fn, tmp, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, buf, count, datatype, source,
                  recvtag, comm, status);
    fy_unlock();
    free(tmp);
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    return recv_blocking("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status *status)
{
    return recv_blocking("MPI_Recv_c", buf, count, datatype, source, tag, comm, status);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return recv_nonblocking("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return recv_nonblocking("MPI_Irecv_c", buf, count, datatype, source, tag, comm, request);
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_api("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                        recvcount, recvtype, source, recvtag, comm, status);
}

int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_api("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                        recvcount, recvtype, source, recvtag, comm, status);
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_replace("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, source,
                            recvtag, comm, status);
}

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag, source,
                            recvtag, comm, status);
}
