/* MPI_Isendrecv and MPI_Isendrecv_replace (and _c): the user's request is an FY_REQ_PAIR
 * parent of an internal receive and send (fy_request.h), started receive first so that an
 * exchange with oneself matches. The parent completes with the later of the two and reports
 * the receive's status. The replace form sends from a packed copy the parent owns, so the
 * receive may overwrite the buffer while the send is still in flight. */
#include <stdlib.h>

#include "fy_api.h"
#include "fy_p2p.h"
#include "p2p_start.h"

static int isendrecv(const char *fn, const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, MPI_Request *request, void *owned)
{
    fy_req_t *s = NULL, *r = NULL, *p = NULL;
    fy_lock();
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && !request)
        rc = fy_err_set(MPI_ERR_REQUEST, "%s: request is NULL", fn);
    if (rc == MPI_SUCCESS)
        rc = fy_api_send_start(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm,
                               FY_MODE_STANDARD, 0, &s);
    if (rc == MPI_SUCCESS)
        rc = fy_api_recv_start(fn, recvbuf, recvcount, recvtype, source, recvtag, comm, 0, &r);
    if (rc == MPI_SUCCESS && !(p = fy_req_alloc(FY_REQ_PAIR)))
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    if (rc != MPI_SUCCESS)
        goto err;
    p->comm = r->comm;
    p->pstate = 2;
    p->packed = owned;
    fy_status_set(&p->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    r->parent = s->parent = p;
    if ((rc = fy_api_start(r)) != MPI_SUCCESS) {
        r->parent = s->parent = NULL;
        p->packed = NULL;
        fy_req_free(p);
        goto err;
    }
    if ((rc = fy_api_start(s)) != MPI_SUCCESS) {
        /* The receive is posted: withdraw it if it can be, and let the parent go with it. */
        fy_req_free(s);
        p->user_freed = true;
        p->error = rc;
        fy_p2p_cancel_recv(r);
        if (--p->pstate == 0) {
            free(p->packed);
            fy_req_free(p);
        }
        fy_unlock();
        return fy_err_raise_comm(comm, rc);
    }
    *request = p->handle;
    fy_unlock();
    return MPI_SUCCESS;
err:
    if (r)
        fy_req_free(r);
    if (s)
        fy_req_free(s);
    fy_unlock();
    free(owned);
    return fy_err_raise_comm(comm, rc);
}

static int isendrecv_replace(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                             int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    const fy_dtype_t *d;
    fy_lock();
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype(fn, datatype, &d);
    if (rc == MPI_SUCCESS)
        rc = fy_api_count(fn, count);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    /* Nothing leaves for MPI_PROC_NULL: no copy is needed. */
    size_t bytes = dest == MPI_PROC_NULL ? 0 : fy_dtype_bytes(d, count);
    void *tmp = NULL;
    if (bytes) {
        if (!(tmp = malloc(bytes))) {
            fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for a copy of %zu bytes", fn, bytes);
            return fy_err_raise_comm(comm, MPI_ERR_NO_MEM);
        }
        fy_dtype_pack(d, buf, count, tmp);
    }
    return isendrecv(fn, tmp, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, buf, count, datatype,
                     source, recvtag, comm, request, tmp);
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                   int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return isendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                     recvcount, recvtype, source, recvtag, comm, request, NULL);
}

int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return isendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                     recvcount, recvtype, source, recvtag, comm, request, NULL);
}

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return isendrecv_replace("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, source,
                             recvtag, comm, request);
}

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    return isendrecv_replace("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag,
                             source, recvtag, comm, request);
}
