/* Blocking sends and receives for collective algorithms. */
#include "fy_coll.h"
#include "fy_p2p.h"
#include "fy_request.h"

static void fill(fy_req_t *r, const void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer,
                 int tag, fy_comm_t *c)
{
    r->buf = (void *)buf;
    r->count = count;
    r->dt = dt;
    r->peer = peer;
    r->tag = tag;
    r->comm = c;
    r->ctx = FY_CTX_COLL(c);
    r->mode = FY_MODE_STANDARD;
}

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
    fy_req_t *r = fy_req_alloc(FY_REQ_SEND);
    if (!r)
        return MPI_ERR_NO_MEM;
    fill(r, buf, count, dt, peer, tag, c);
    int rc = fy_p2p_isend(r);
    if (rc != MPI_SUCCESS) {
        fy_req_free(r);
        return rc;
    }
    return finish(r);
}

int fy_coll_recv(void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer, int tag, fy_comm_t *c)
{
    fy_req_t *r = fy_req_alloc(FY_REQ_RECV);
    if (!r)
        return MPI_ERR_NO_MEM;
    fill(r, buf, count, dt, peer, tag, c);
    fy_p2p_irecv(r);
    return finish(r);
}

int fy_coll_sendrecv(const void *sbuf, MPI_Aint scount, int dst, void *rbuf, MPI_Aint rcount,
                     int src, const fy_dtype_t *dt, int tag, fy_comm_t *c)
{
    fy_req_t *rr = fy_req_alloc(FY_REQ_RECV);
    fy_req_t *sr = fy_req_alloc(FY_REQ_SEND);
    if (!rr || !sr)
        return MPI_ERR_NO_MEM;
    fill(rr, rbuf, rcount, dt, src, tag, c);
    fill(sr, sbuf, scount, dt, dst, tag, c);
    fy_p2p_irecv(rr);
    int rc = fy_p2p_isend(sr);
    if (rc != MPI_SUCCESS)
        return rc;
    int a = finish(sr);
    int b = finish(rr);
    return a != MPI_SUCCESS ? a : b;
}
