/* Blocking sends and receives for collective algorithms. */
#include "fy_coll.h"
#include "fy_p2p.h"
#include "fy_request.h"

static int finish(fy_req_t *r)
{
    fy_wait_req(r);
    int err = r->error;
    fy_req_free(r);
    return err == MPI_SUCCESS ? MPI_SUCCESS : (err & 0xff);
}

int fy_coll_send(const void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer, int tag,
                 fy_comm_t *c)
{
    fy_req_t *r =
        fy_req_new_p2p(FY_REQ_SEND, buf, count, dt, peer, tag, c, FY_CTX_COLL(c), FY_MODE_STANDARD);
    if (!r)
        return MPI_ERR_NO_MEM;
    int rc = fy_p2p_isend(r);
    if (rc != MPI_SUCCESS) {
        fy_req_free(r);
        return rc;
    }
    return finish(r);
}

int fy_coll_recv(void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer, int tag, fy_comm_t *c)
{
    fy_req_t *r =
        fy_req_new_p2p(FY_REQ_RECV, buf, count, dt, peer, tag, c, FY_CTX_COLL(c), FY_MODE_STANDARD);
    if (!r)
        return MPI_ERR_NO_MEM;
    fy_p2p_irecv(r);
    return finish(r);
}

int fy_coll_sendrecv(const void *sbuf, MPI_Aint scount, int dst, void *rbuf, MPI_Aint rcount,
                     int src, const fy_dtype_t *dt, int tag, fy_comm_t *c)
{
    fy_req_t *rr = fy_req_new_p2p(FY_REQ_RECV, rbuf, rcount, dt, src, tag, c, FY_CTX_COLL(c),
                                  FY_MODE_STANDARD);
    fy_req_t *sr = fy_req_new_p2p(FY_REQ_SEND, sbuf, scount, dt, dst, tag, c, FY_CTX_COLL(c),
                                  FY_MODE_STANDARD);
    if (!rr || !sr)
        return MPI_ERR_NO_MEM;
    fy_p2p_irecv(rr);
    int rc = fy_p2p_isend(sr);
    if (rc != MPI_SUCCESS)
        return rc;
    int a = finish(sr);
    int b = finish(rr);
    return a != MPI_SUCCESS ? a : b;
}
