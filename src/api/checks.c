/* Argument checks for the entry points (see fy_api.h). */
#include "fy_api.h"
#include "fy_coll.h"
#include "fy_handle.h"
#include "fy_p2p.h"
#include "fy_part.h"

#include <string.h>

int fy_api_check_init(const char *fn)
{
    if (__builtin_expect(fy_rt.up, 1))
        return MPI_SUCCESS;
    if (fy_rt.shut)
        return fy_err_set(MPI_ERR_OTHER, "%s: called after MPI_Finalize (and every session's end)",
                          fn);
    return fy_err_set(MPI_ERR_OTHER, "%s: called before MPI_Init or MPI_Session_init", fn);
}

int fy_api_check_world(const char *fn)
{
    if (!fy_rt.initialized)
        return fy_err_set(MPI_ERR_OTHER, "%s: called before MPI_Init", fn);
    if (fy_rt.finalized)
        return fy_err_set(MPI_ERR_OTHER, "%s: called after MPI_Finalize", fn);
    return MPI_SUCCESS;
}

int fy_api_comm(const char *fn, MPI_Comm h, fy_comm_t **c_p)
{
    int rc = fy_api_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    fy_comm_t *c = fy_comm_get(h);
    if (c && c->cid < 2 && (!fy_rt.initialized || fy_rt.finalized))
        return fy_err_set(MPI_ERR_COMM,
                          "%s: %s is usable only between MPI_Init and MPI_Finalize (this "
                          "process %s)",
                          fn, h == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF",
                          fy_rt.finalized ? "called MPI_Finalize" : "uses sessions only");
    if (!c) {
        if (h == MPI_COMM_NULL)
            return fy_err_set(MPI_ERR_COMM, "%s: invalid communicator MPI_COMM_NULL", fn);
        return fy_err_set(MPI_ERR_COMM, "%s: invalid communicator 0x%x", fn, (unsigned)h);
    }
    *c_p = c;
    return MPI_SUCCESS;
}

int fy_api_dtype_any(const char *fn, MPI_Datatype h, fy_dtype_t **d_p)
{
    fy_dtype_t *d = fy_dtype_get(h);
    if (!d) {
        if (h == MPI_DATATYPE_NULL)
            return fy_err_set(MPI_ERR_TYPE, "%s: invalid datatype MPI_DATATYPE_NULL", fn);
        return fy_err_set(MPI_ERR_TYPE, "%s: invalid datatype 0x%x", fn, (unsigned)h);
    }
    *d_p = d;
    return MPI_SUCCESS;
}

int fy_api_dtype(const char *fn, MPI_Datatype h, const fy_dtype_t **d_p)
{
    fy_dtype_t *d;
    int rc = fy_api_dtype_any(fn, h, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!d->committed)
        return d->name[0] ? fy_err_set(MPI_ERR_TYPE,
                                       "%s: datatype %s is not committed (call MPI_Type_commit)",
                                       fn, d->name)
                          : fy_err_set(MPI_ERR_TYPE,
                                       "%s: datatype 0x%x is not committed (call MPI_Type_commit)",
                                       fn, (unsigned)h);
    *d_p = d;
    return MPI_SUCCESS;
}

int fy_api_count(const char *fn, MPI_Aint count)
{
    if (count < 0)
        return fy_err_set(MPI_ERR_COUNT, "%s: invalid count %ld (must be >= 0)", fn, (long)count);
    return MPI_SUCCESS;
}

int fy_api_rank(const char *fn, const fy_comm_t *c, int rank, const char *what, int allow_any,
                int allow_null)
{
    /* Point-to-point ranks on an intercommunicator name the remote group. */
    if (rank >= 0 && rank < c->peer_size)
        return MPI_SUCCESS;
    if (rank == MPI_PROC_NULL && allow_null)
        return MPI_SUCCESS;
    if (rank == MPI_ANY_SOURCE && allow_any)
        return MPI_SUCCESS;
    return fy_err_set(strcmp(what, "root") == 0 ? MPI_ERR_ROOT : MPI_ERR_RANK,
                      "%s: invalid %s rank %d (%s%s has %d rank%s)", fn, what, rank,
                      c->inter ? "the remote group of " : "",
                      c->name[0] ? c->name : "the communicator", c->peer_size,
                      c->peer_size == 1 ? "" : "s");
}

int fy_api_tag(const char *fn, int tag, int allow_any)
{
    if (tag >= 0 || (allow_any && tag == MPI_ANY_TAG))
        return MPI_SUCCESS;
    return fy_err_set(MPI_ERR_TAG, "%s: invalid tag %d (must be 0..%d%s)", fn, tag, FY_TAG_UB,
                      allow_any ? " or MPI_ANY_TAG" : "");
}

int fy_api_buf(const char *fn, const void *buf, MPI_Aint count, const fy_dtype_t *d)
{
    /* A derived type may hold absolute addresses (a buffer of MPI_BOTTOM). */
    if (buf == NULL && count > 0 && d->size > 0 && d->predefined)
        return fy_err_set(MPI_ERR_BUFFER, "%s: invalid buffer NULL for count %ld of %s", fn,
                          (long)count, d->name);
    return MPI_SUCCESS;
}

int fy_api_request(const char *fn, MPI_Request h, fy_req_t **r_p)
{
    fy_req_t *r = fy_req_get(h);
    if (!r || r->kind == FY_REQ_UNEXP)
        return fy_err_set(MPI_ERR_REQUEST, "%s: invalid request 0x%x", fn, (unsigned)h);
    *r_p = r;
    return MPI_SUCCESS;
}

int fy_api_p2p_args_slow(const char *fn, const void *buf, MPI_Aint count, MPI_Datatype dt, int peer,
                         int tag, MPI_Comm comm, int is_recv, fy_comm_t **c_p,
                         const fy_dtype_t **d_p)
{
    int rc;
    if ((rc = fy_api_comm(fn, comm, c_p)) != MPI_SUCCESS ||
        (rc = fy_api_count(fn, count)) != MPI_SUCCESS ||
        (rc = fy_api_dtype(fn, dt, d_p)) != MPI_SUCCESS ||
        (rc = fy_api_rank(fn, *c_p, peer, is_recv ? "source" : "dest", is_recv, 1)) !=
            MPI_SUCCESS ||
        (rc = fy_api_tag(fn, tag, is_recv)) != MPI_SUCCESS ||
        (rc = fy_api_buf(fn, buf, count, *d_p)) != MPI_SUCCESS)
        return rc;
    return MPI_SUCCESS;
}

int fy_api_status_out(fy_req_t *r, MPI_Status *status)
{
    if (r->kind == FY_REQ_GREQ)
        return fy_api_greq_query(r, status);
    if (status != MPI_STATUS_IGNORE) {
        int err = status->MPI_ERROR; /* single-completion calls leave MPI_ERROR alone */
        *status = r->status;
        status->MPI_ERROR = err;
    }
    return r->error;
}

int fy_api_request_retire(fy_req_t *r, MPI_Request *h)
{
    if (r->persistent) {
        r->active = false;
        return MPI_SUCCESS;
    }
    *h = MPI_REQUEST_NULL;
    return fy_api_request_free(r);
}

int fy_api_request_free(fy_req_t *r)
{
    if (r->kind == FY_REQ_PART) {
        fy_part_free(r);
        return MPI_SUCCESS;
    }
    int err = MPI_SUCCESS;
    if (r->kind == FY_REQ_COLL && r->sched)
        fy_sched_free(r->sched);
    else if (r->kind == FY_REQ_GREQ)
        err = fy_api_greq_free(r);
    fy_req_free(r);
    return err;
}
