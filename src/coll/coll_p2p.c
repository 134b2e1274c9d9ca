/* Blocking sends and receives for collective algorithms. */
#include <stdlib.h>
#include <string.h>

#include "fy_coll.h"
#include "fy_err.h"
#include "fy_op.h"
#include "fy_p2p.h"
#include "fy_request.h"
#include "fy_runtime.h"

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

int fy_coll_sendrecv(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, int dst, void *rbuf,
                     MPI_Aint rcount, const fy_dtype_t *rdt, int src, int tag, fy_comm_t *c)
{
    fy_req_t *rr = fy_coll_irecv(rbuf, rcount, rdt, src, tag, c);
    fy_req_t *sr = rr ? fy_coll_isend(sbuf, scount, sdt, dst, tag, c) : NULL;
    fy_req_t *both[2] = {sr, rr};
    int rc = fy_coll_waitall(both, 2);
    return (rr && sr) ? rc : MPI_ERR_NO_MEM;
}

fy_req_t *fy_coll_isend(const void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer, int tag,
                        fy_comm_t *c)
{
    fy_req_t *r =
        fy_req_new_p2p(FY_REQ_SEND, buf, count, dt, peer, tag, c, FY_CTX_COLL(c), FY_MODE_STANDARD);
    if (r && fy_p2p_isend(r) != MPI_SUCCESS) {
        fy_req_free(r);
        r = NULL;
    }
    return r;
}

fy_req_t *fy_coll_irecv(void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer, int tag,
                        fy_comm_t *c)
{
    fy_req_t *r =
        fy_req_new_p2p(FY_REQ_RECV, buf, count, dt, peer, tag, c, FY_CTX_COLL(c), FY_MODE_STANDARD);
    if (r)
        fy_p2p_irecv(r);
    return r;
}

int fy_coll_waitall(fy_req_t **reqs, int n)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n; i++)
        if (reqs[i]) {
            int e = finish(reqs[i]);
            if (rc == MPI_SUCCESS)
                rc = e;
        }
    return rc;
}

int fy_coll_copy(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                 MPI_Aint rcount, const fy_dtype_t *rdt)
{
    size_t bytes = fy_dtype_bytes(sdt, scount);
    if (bytes > fy_dtype_bytes(rdt, rcount))
        return fy_err_set(MPI_ERR_TRUNCATE, "collective: %zu bytes do not fit a receive of %zu",
                          bytes, fy_dtype_bytes(rdt, rcount));
    if (bytes == 0)
        return MPI_SUCCESS;
    if (sdt->contig && rdt->contig) {
        memmove((char *)rbuf + rdt->lb, (const char *)sbuf + sdt->lb, bytes);
        return MPI_SUCCESS;
    }
    void *tmp = malloc(bytes);
    if (!tmp)
        return fy_err_set(MPI_ERR_NO_MEM, "collective: out of memory for %zu bytes", bytes);
    fy_dtype_pack(sdt, sbuf, scount, tmp);
    fy_dtype_unpack(rdt, tmp, bytes, rbuf);
    free(tmp);
    return MPI_SUCCESS;
}

/* Scratch buffers kept between calls: a large malloc is a fresh mmap whose every page faults
 * on first touch. Under MPI_THREAD_MULTIPLE two threads may be inside collectives at once (the
 * wait loop drops the lock), so there each call gets its own buffers, released by
 * fy_coll_scratch_done. */
static void *scratch[2];
static size_t scratch_cap[2];
static FY_TLS_HOT void *own[2];

void *fy_coll_scratch(int slot, size_t bytes)
{
    if (fy_rt.locking) {
        free(own[slot]);
        own[slot] = malloc(bytes);
        if (!own[slot])
            fy_err_set(MPI_ERR_NO_MEM, "collective: out of memory for %zu bytes of scratch", bytes);
        return own[slot];
    }
    if (bytes > scratch_cap[slot]) {
        free(scratch[slot]);
        scratch[slot] = malloc(bytes);
        scratch_cap[slot] = scratch[slot] ? bytes : 0;
        if (!scratch[slot])
            fy_err_set(MPI_ERR_NO_MEM, "collective: out of memory for %zu bytes of scratch", bytes);
    }
    return scratch[slot];
}

char *fy_coll_scratch_typed(int slot, const fy_dtype_t *dt, MPI_Aint count, int n, size_t *stride_p)
{
    size_t origin, span = fy_op_span(dt, count, &origin);
    span = (span + 63) & ~(size_t)63; /* keep each vector as aligned as the first */
    char *p = fy_coll_scratch(slot, span * (size_t)n);
    if (stride_p)
        *stride_p = span;
    return p ? p + origin : NULL;
}

void fy_coll_scratch_done(void)
{
    for (int i = 0; i < 2; i++) {
        free(own[i]);
        own[i] = NULL;
    }
}

void fy_coll_fini(void)
{
    fy_coll_scratch_done();
    for (int i = 0; i < 2; i++) {
        free(scratch[i]);
        scratch[i] = NULL;
        scratch_cap[i] = 0;
    }
}
