#include "p2p_start.h"
#include "fy_p2p.h"

int fy_api_send_start(const char *fn, const void *buf, MPI_Aint count, MPI_Datatype dt, int dest,
                      int tag, MPI_Comm comm, fy_mode_t mode, int start, fy_req_t **r_p)
{
    fy_comm_t *c;
    const fy_dtype_t *d;
    int rc = fy_api_p2p_args(fn, buf, count, dt, dest, tag, comm, 0, &c, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    return fy_api_send_begin(fn, buf, count, d, dest, tag, c, mode, start, r_p);
}

int fy_api_send_begin(const char *fn, const void *buf, MPI_Aint count, const fy_dtype_t *d,
                      int dest, int tag, fy_comm_t *c, fy_mode_t mode, int start, fy_req_t **r_p)
{
    int rc;
    fy_req_t *r = fy_req_new_p2p(FY_REQ_SEND, buf, count, d, dest, tag, c, FY_CTX_P2P(c), mode);
    if (!r)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    if (start && (rc = fy_api_start(r)) != MPI_SUCCESS) {
        fy_req_free(r);
        return rc;
    }
    *r_p = r;
    return MPI_SUCCESS;
}

int fy_api_recv_start(const char *fn, void *buf, MPI_Aint count, MPI_Datatype dt, int source,
                      int tag, MPI_Comm comm, int start, fy_req_t **r_p)
{
    fy_comm_t *c;
    const fy_dtype_t *d;
    int rc = fy_api_p2p_args(fn, buf, count, dt, source, tag, comm, 1, &c, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    return fy_api_recv_begin(fn, buf, count, d, source, tag, c, start, r_p);
}

int fy_api_recv_begin(const char *fn, void *buf, MPI_Aint count, const fy_dtype_t *d, int source,
                      int tag, fy_comm_t *c, int start, fy_req_t **r_p)
{
    int rc;
    fy_req_t *r =
        fy_req_new_p2p(FY_REQ_RECV, buf, count, d, source, tag, c, FY_CTX_P2P(c), FY_MODE_STANDARD);
    if (!r)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    if (start && (rc = fy_api_start(r)) != MPI_SUCCESS) {
        fy_req_free(r);
        return rc;
    }
    *r_p = r;
    return MPI_SUCCESS;
}

int fy_api_start(fy_req_t *r)
{
    atomic_store_explicit(&r->done, false, memory_order_relaxed);
    r->error = MPI_SUCCESS;
    r->cancelled = false;
    r->streamed = 0;
    r->pstate = 0;
    fy_status_set(&r->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    if (r->persistent)
        r->active = true;
    if (r->kind == FY_REQ_RECV)
        return fy_p2p_irecv(r);
    if (r->mode == FY_MODE_BUFFERED && r->peer != MPI_PROC_NULL)
        return fy_bsend_start(r);
    return fy_p2p_isend(r);
}

int fy_api_finish_blocking(fy_req_t *r, MPI_Status *status)
{
    fy_wait_req(r);
    int err = fy_api_status_out(r, status);
    fy_req_free(r);
    return err;
}
