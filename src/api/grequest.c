/* Generalized requests (MPI-4.1, 13.2): a request whose operation the user runs and declares
 * finished with MPI_Grequest_complete. The library only keeps the request and calls the user's
 * three callbacks at the moments the standard names:
 *  - query_fn fills the status, each time a completing call or MPI_Request_get_status looks at
 *    a completed request;
 *  - free_fn runs once, when the request is released: by the wait or test that completes it
 *    (after query_fn), or by MPI_Request_free, or, when the user freed it before it completed,
 *    by MPI_Grequest_complete;
 *  - cancel_fn runs on MPI_Cancel, told whether MPI_Grequest_complete was called already.
 * Each callback's error code reaches the user unchanged: as the return value of the call, or in
 * MPI_ERROR with MPI_ERR_IN_STATUS from the calls that complete several requests.
 *
 * The request is an ordinary pool request of kind FY_REQ_GREQ, so every wait and test function
 * takes it beside point-to-point and collective requests. Completion from another thread under
 * MPI_THREAD_MULTIPLE goes through fy_req_complete, which wakes threads sleeping in a wait. */
#include <stdlib.h>

#include "fy_api.h"

struct fy_greq {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
};

/* A callback's code goes back to the user as it is: no stored message may be attached to it
 * on the way out (fy_err_raise_comm attaches the pending one to a bare class). */
static int callback_result(int code)
{
    if (code != MPI_SUCCESS)
        fy_err_set(code, "%s", "");
    return code;
}

/* The query function sees an empty status (what a request with nothing to report would give);
 * it may set source, tag, count and the cancelled flag. MPI_ERROR is not its to set (13.2):
 * the caller's field is kept, and the completing call stores the returned code there when the
 * context calls for it. */
int fy_api_greq_query(fy_req_t *r, MPI_Status *status)
{
    MPI_Status s;
    fy_status_set(&s, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    int err = r->greq->query_fn ? r->greq->query_fn(r->greq->extra_state, &s) : MPI_SUCCESS;
    if (status != MPI_STATUS_IGNORE) {
        int keep = status->MPI_ERROR;
        *status = s;
        status->MPI_ERROR = keep;
    }
    return callback_result(err);
}

/* Runs free_fn and drops the callbacks; the caller returns the request to the pool. */
int fy_api_greq_free(fy_req_t *r)
{
    struct fy_greq *g = r->greq;
    r->greq = NULL;
    if (!g)
        return MPI_SUCCESS;
    int err = g->free_fn ? g->free_fn(g->extra_state) : MPI_SUCCESS;
    free(g);
    return callback_result(err);
}

int fy_api_greq_cancel(fy_req_t *r)
{
    struct fy_greq *g = r->greq;
    int err = g->cancel_fn ? g->cancel_fn(g->extra_state, fy_req_is_done(r)) : MPI_SUCCESS;
    return callback_result(err);
}

/* A NULL callback is taken as one that does nothing and returns MPI_SUCCESS (C has no null
 * constant for these callbacks; a program that has nothing to do in one may pass NULL). */
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    const char *fn = "MPI_Grequest_start";
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && !request)
        rc = fy_err_set(MPI_ERR_ARG, "%s: request is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    struct fy_greq *g = malloc(sizeof *g);
    if (!g)
        return fy_err_raise_comm(MPI_COMM_SELF, fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn));
    *g = (struct fy_greq){query_fn, free_fn, cancel_fn, extra_state};
    fy_lock();
    fy_req_t *r = fy_req_alloc(FY_REQ_GREQ);
    if (r) {
        r->greq = g;
        *request = r->handle;
    }
    fy_unlock();
    if (!r) {
        free(g);
        return fy_err_raise_comm(MPI_COMM_SELF,
                                 fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for a request", fn));
    }
    return MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request request)
{
    const char *fn = "MPI_Grequest_complete";
    fy_req_t *r;
    fy_lock();
    int rc = fy_api_request(fn, request, &r);
    if (rc == MPI_SUCCESS && r->kind != FY_REQ_GREQ)
        rc = fy_err_set(MPI_ERR_REQUEST,
                        "%s: request 0x%x is not a generalized request (MPI_Grequest_start)", fn,
                        (unsigned)request);
    else if (rc == MPI_SUCCESS && fy_req_is_done(r))
        rc = fy_err_set(MPI_ERR_REQUEST, "%s: generalized request 0x%x is already complete", fn,
                        (unsigned)request);
    else if (rc == MPI_SUCCESS && r->user_freed)
        rc = fy_api_request_free(r); /* MPI_Request_free came first: release it now */
    else if (rc == MPI_SUCCESS)
        fy_req_complete(r);
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}
