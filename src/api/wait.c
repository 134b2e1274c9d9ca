/* Completion: the Wait and Test families, freeing and cancelling requests, and what a status
 * says about the message. */
#include "fy_p2p.h"
#include "p2p_start.h"

/* The standard's empty status (MPI-4.1, 3.7.3), for null and inactive requests: its MPI_ERROR
 * is MPI_SUCCESS, even from the single-completion calls that otherwise leave that field alone. */
static void status_empty(MPI_Status *s)
{
    if (s != MPI_STATUS_IGNORE)
        fy_status_set(s, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
}

static MPI_Comm req_comm(const fy_req_t *r)
{
    return r->comm ? r->comm->handle : MPI_COMM_SELF;
}

/* NULL for null handles and inactive persistent requests; -1 (as pointer) for invalid. */
static fy_req_t *lookup(const char *fn, MPI_Request h, int *rc)
{
    *rc = MPI_SUCCESS;
    if (h == MPI_REQUEST_NULL)
        return NULL;
    fy_req_t *r;
    if ((*rc = fy_api_request(fn, h, &r)) != MPI_SUCCESS)
        return NULL;
    if (r->persistent && !r->active)
        return NULL;
    return r;
}

/* Completes a done request: status out, retire. Returns its error (a code): for a generalized
 * request, that of its query function, else that of its free function. */
static int harvest(fy_req_t *r, MPI_Request *h, MPI_Status *status, MPI_Comm *comm_p)
{
    int err = fy_api_status_out(r, status);
    *comm_p = req_comm(r);
    int ferr = fy_api_request_retire(r, h);
    return err != MPI_SUCCESS ? err : ferr;
}

/* Wait (block != 0) or Test one request; *flag may be NULL for Wait. */
static int complete_one(const char *fn, MPI_Request *request, int block, int *flag,
                        MPI_Status *status)
{
    int rc;
    fy_lock();
    fy_req_t *r = lookup(fn, *request, &rc);
    if (!r) {
        fy_unlock();
        if (rc != MPI_SUCCESS)
            return fy_err_raise_comm(MPI_COMM_SELF, rc);
        if (flag)
            *flag = 1;
        status_empty(status);
        return MPI_SUCCESS;
    }
    if (block)
        fy_wait_req(r);
    else if (!fy_req_is_done(r))
        fy_progress();
    int done = fy_req_is_done(r);
    if (flag)
        *flag = done;
    MPI_Comm comm = MPI_COMM_SELF;
    rc = done ? harvest(r, request, status, &comm) : MPI_SUCCESS;
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    return complete_one("MPI_Wait", request, 1, NULL, status);
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    return complete_one("MPI_Test", request, 0, flag, status);
}

/* Shared by the multiple-completion calls: validates the array once. */
static int check_array(const char *fn, int count, const MPI_Request reqs[])
{
    int rc = fy_api_count(fn, count);
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++)
        lookup(fn, reqs[i], &rc);
    return rc;
}

typedef struct {
    int count;
    const MPI_Request *reqs;
    int first_pending; /* all_done: every request before this one is done */
} array_t;

/* Requests mostly complete in the order they were started, so the scan resumes where it
 * stopped: a Waitall over n requests costs O(n) in all, not O(n) per poll. */
static bool all_done(void *arg)
{
    array_t *a = arg;
    int rc;
    for (; a->first_pending < a->count; a->first_pending++) {
        fy_req_t *r = lookup("", a->reqs[a->first_pending], &rc);
        if (r && !fy_req_is_done(r))
            return false;
    }
    return true;
}

static bool any_done(void *arg)
{
    array_t *a = arg;
    int rc, live = 0;
    for (int i = 0; i < a->count; i++) {
        fy_req_t *r = lookup("", a->reqs[i], &rc);
        if (r) {
            live++;
            if (fy_req_is_done(r))
                return true;
        }
    }
    return live == 0;
}

/* Harvests every done request of the array; with `errors` statuses get MPI_ERROR. Returns
 * MPI_ERR_IN_STATUS if any failed. `outcount`/`indices` for the *some forms. */
static int harvest_all(int count, MPI_Request reqs[], MPI_Status statuses[], int compact,
                       int *outcount, int indices[], MPI_Comm *comm_p)
{
    int failed = 0, n = 0, rc;
    for (int i = 0; i < count; i++) {
        fy_req_t *r = lookup("", reqs[i], &rc);
        if (!r) {
            if (!compact && statuses != MPI_STATUSES_IGNORE)
                fy_status_set(&statuses[i], MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
            continue;
        }
        if (!fy_req_is_done(r)) {
            if (!compact && statuses != MPI_STATUSES_IGNORE)
                statuses[i].MPI_ERROR = MPI_ERR_PENDING;
            continue;
        }
        MPI_Status *s =
            statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[compact ? n : i];
        int err = harvest(r, &reqs[i], s, comm_p);
        if (s != MPI_STATUS_IGNORE)
            s->MPI_ERROR = err;
        if (err != MPI_SUCCESS)
            failed = 1;
        if (indices)
            indices[n] = i;
        n++;
    }
    if (outcount)
        *outcount = n;
    return failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    fy_lock();
    int rc = check_array("MPI_Waitall", count, array_of_requests);
    MPI_Comm comm = MPI_COMM_SELF;
    if (rc == MPI_SUCCESS) {
        array_t a = {count, array_of_requests, 0};
        fy_wait_until(all_done, &a);
        rc = harvest_all(count, array_of_requests, array_of_statuses, 0, NULL, NULL, &comm);
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[])
{
    fy_lock();
    int rc = check_array("MPI_Testall", count, array_of_requests);
    MPI_Comm comm = MPI_COMM_SELF;
    if (rc == MPI_SUCCESS) {
        array_t a = {count, array_of_requests, 0};
        if (!all_done(&a))
            fy_progress();
        *flag = all_done(&a);
        if (*flag)
            rc = harvest_all(count, array_of_requests, array_of_statuses, 0, NULL, NULL, &comm);
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

static int take_one(int count, MPI_Request reqs[], int *index, MPI_Status *status, MPI_Comm *comm_p)
{
    int rc;
    *index = MPI_UNDEFINED;
    for (int i = 0; i < count; i++) {
        fy_req_t *r = lookup("", reqs[i], &rc);
        if (r && fy_req_is_done(r)) {
            *index = i;
            return harvest(r, &reqs[i], status, comm_p);
        }
    }
    status_empty(status);
    return MPI_SUCCESS;
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    fy_lock();
    int rc = check_array("MPI_Waitany", count, array_of_requests);
    MPI_Comm comm = MPI_COMM_SELF;
    if (rc == MPI_SUCCESS) {
        array_t a = {count, array_of_requests, 0};
        fy_wait_until(any_done, &a);
        rc = take_one(count, array_of_requests, index, status, &comm);
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                 MPI_Status *status)
{
    fy_lock();
    int rc = check_array("MPI_Testany", count, array_of_requests);
    MPI_Comm comm = MPI_COMM_SELF;
    if (rc == MPI_SUCCESS) {
        array_t a = {count, array_of_requests, 0};
        if (!any_done(&a))
            fy_progress();
        *flag = any_done(&a);
        if (*flag)
            rc = take_one(count, array_of_requests, index, status, &comm);
        else
            *index = MPI_UNDEFINED;
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

static int some(const char *fn, int wait, int incount, MPI_Request reqs[], int *outcount,
                int indices[], MPI_Status statuses[])
{
    fy_lock();
    int rc = check_array(fn, incount, reqs);
    MPI_Comm comm = MPI_COMM_SELF;
    if (rc == MPI_SUCCESS) {
        array_t a = {incount, reqs, 0};
        int live = 0;
        for (int i = 0; i < incount; i++)
            live += lookup(fn, reqs[i], &rc) != NULL;
        if (live == 0) {
            *outcount = MPI_UNDEFINED;
        } else {
            if (wait)
                fy_wait_until(any_done, &a);
            else
                fy_progress();
            rc = harvest_all(incount, reqs, statuses, 1, outcount, indices, &comm);
        }
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some("MPI_Waitsome", 1, incount, array_of_requests, outcount, array_of_indices,
                array_of_statuses);
}

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some("MPI_Testsome", 0, incount, array_of_requests, outcount, array_of_indices,
                array_of_statuses);
}

int PMPI_Request_free(MPI_Request *request)
{
    fy_req_t *r;
    fy_lock();
    int rc = fy_api_request("MPI_Request_free", *request, &r);
    if (rc == MPI_SUCCESS) {
        *request = MPI_REQUEST_NULL;
        /* A generalized request's free function runs here, or in MPI_Grequest_complete when
         * that comes later; its error is this call's. A partitioned one frees itself once
         * complete. */
        if (fy_req_is_done(r) || (r->persistent && !r->active) || r->kind == FY_REQ_PART)
            rc = fy_api_request_free(r);
        else
            r->user_freed = true; /* a collective's schedule runs on and frees itself */
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

/* The Request_get_status family looks without touching: no request is freed or deactivated,
 * so a later wait, test or free must still follow. Like the test they mirror, they report the
 * operation's error (a generalized request's query function's): the single forms return it,
 * the array forms put it in MPI_ERROR and return MPI_ERR_IN_STATUS. */
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    int rc;
    MPI_Comm comm = MPI_COMM_SELF;
    fy_lock();
    fy_req_t *r = lookup("MPI_Request_get_status", request, &rc);
    if (r && !fy_req_is_done(r))
        fy_progress();
    if (rc == MPI_SUCCESS) {
        *flag = !r || fy_req_is_done(r);
        if (!r) {
            status_empty(status);
        } else if (*flag) {
            comm = req_comm(r);
            rc = fy_api_status_out(r, status);
        }
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

/* Status of element i for the array forms: MPI_ERROR carries the operation's code. */
static int peek_into(const MPI_Request reqs[], int i, MPI_Status *s)
{
    int rc;
    fy_req_t *r = lookup("", reqs[i], &rc);
    if (!r) {
        if (s != MPI_STATUS_IGNORE)
            fy_status_set(s, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    int err = fy_api_status_out(r, s);
    if (s != MPI_STATUS_IGNORE)
        s->MPI_ERROR = err;
    return err;
}

int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *indx,
                                int *flag, MPI_Status *status)
{
    const char *fn = "MPI_Request_get_status_any";
    fy_lock();
    int rc = check_array(fn, count, array_of_requests);
    if (rc == MPI_SUCCESS && (!indx || !flag))
        rc = fy_err_set(MPI_ERR_ARG, "%s: %s is NULL", fn, !indx ? "index" : "flag");
    MPI_Comm comm = MPI_COMM_SELF;
    if (rc == MPI_SUCCESS) {
        array_t a = {count, array_of_requests, 0};
        if (!any_done(&a))
            fy_progress();
        int live = 0, found = -1;
        for (int i = 0; i < count && found < 0; i++) {
            fy_req_t *r = lookup(fn, array_of_requests[i], &rc);
            live += r != NULL;
            if (r && fy_req_is_done(r))
                found = i;
        }
        *indx = found >= 0 ? found : MPI_UNDEFINED;
        *flag = found >= 0 || live == 0;
        if (found >= 0) {
            fy_req_t *r = lookup(fn, array_of_requests[found], &rc);
            comm = req_comm(r);
            rc = fy_api_status_out(r, status);
        } else if (live == 0) {
            status_empty(status);
        }
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                MPI_Status array_of_statuses[])
{
    const char *fn = "MPI_Request_get_status_all";
    fy_lock();
    int rc = check_array(fn, count, array_of_requests);
    if (rc == MPI_SUCCESS && !flag)
        rc = fy_err_set(MPI_ERR_ARG, "%s: flag is NULL", fn);
    if (rc == MPI_SUCCESS) {
        array_t a = {count, array_of_requests, 0};
        if (!all_done(&a))
            fy_progress();
        a.first_pending = 0;
        *flag = all_done(&a);
        int failed = 0;
        for (int i = 0; *flag && i < count; i++) {
            MPI_Status *s =
                array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[i];
            failed |= peek_into(array_of_requests, i, s) != MPI_SUCCESS;
        }
        rc = failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[],
                                 int *outcount, int array_of_indices[],
                                 MPI_Status array_of_statuses[])
{
    const char *fn = "MPI_Request_get_status_some";
    fy_lock();
    int rc = check_array(fn, incount, array_of_requests);
    if (rc == MPI_SUCCESS && !outcount)
        rc = fy_err_set(MPI_ERR_ARG, "%s: outcount is NULL", fn);
    if (rc == MPI_SUCCESS) {
        array_t a = {incount, array_of_requests, 0};
        if (!any_done(&a))
            fy_progress();
        int live = 0, n = 0, failed = 0;
        for (int i = 0; i < incount; i++) {
            fy_req_t *r = lookup(fn, array_of_requests[i], &rc);
            live += r != NULL;
            if (!r || !fy_req_is_done(r))
                continue;
            MPI_Status *s =
                array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[n];
            failed |= peek_into(array_of_requests, i, s) != MPI_SUCCESS;
            array_of_indices[n++] = i;
        }
        *outcount = live == 0 ? MPI_UNDEFINED : n;
        rc = failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

/* A receive that has not matched is cancelled at once. A send is withdrawn if the receiver
 * has not matched it yet; an eager send has completed already and is not cancelled. An
 * MPI_Isendrecv is left to complete (its send may have been received already). A
 * collective cannot be cancelled (MPI 4.1, 3.8.4): an error. A generalized request calls the
 * user's cancel function. */
int PMPI_Cancel(MPI_Request *request)
{
    fy_req_t *r = NULL;
    fy_lock();
    int rc = fy_api_request("MPI_Cancel", *request, &r);
    if (rc == MPI_SUCCESS && (r->kind == FY_REQ_COLL || r->kind == FY_REQ_PART))
        rc = fy_err_set(MPI_ERR_REQUEST,
                        "MPI_Cancel: request 0x%x is a %s operation, which Ferry cannot cancel",
                        (unsigned)*request, r->kind == FY_REQ_COLL ? "collective" : "partitioned");
    else if (rc == MPI_SUCCESS && r->kind == FY_REQ_GREQ)
        rc = fy_api_greq_cancel(r); /* the user's cancel_fn decides; its code is ours */
    else if (rc == MPI_SUCCESS && r->kind == FY_REQ_RECV)
        fy_p2p_cancel_recv(r);
    else if (rc == MPI_SUCCESS && r->kind == FY_REQ_PAIR)
        ; /* an exchange is not withdrawn: it completes normally, which MPI_Cancel allows */
    else if (rc == MPI_SUCCESS)
        fy_p2p_cancel_send(r);
    MPI_Comm comm = r && r->kind == FY_REQ_COLL ? req_comm(r) : MPI_COMM_SELF;
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    *flag = (status->count_hi_and_cancelled & (int)0x80000000u) != 0;
    return MPI_SUCCESS;
}

static int count_of(const char *fn, const MPI_Status *status, MPI_Datatype datatype, int elements,
                    MPI_Count *out)
{
    const fy_dtype_t *d;
    int rc = fy_api_dtype(fn, datatype, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t bytes = fy_status_bytes(status);
    if (d->size == 0) {
        *out = 0;
        return MPI_SUCCESS;
    }
    if (elements)
        *out = fy_dtype_elements_in(d, bytes);
    else
        *out = bytes % (size_t)d->size ? MPI_UNDEFINED : (MPI_Count)(bytes / (size_t)d->size);
    return MPI_SUCCESS;
}

/* The int forms: a count that does not fit an int is MPI_UNDEFINED. */
static int count_int(const char *fn, const MPI_Status *status, MPI_Datatype datatype, int elements,
                     int *count)
{
    MPI_Count c = 0;
    int rc = count_of(fn, status, datatype, elements, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *count = c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    return count_int("MPI_Get_count", status, datatype, 0, count);
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    return count_int("MPI_Get_elements", status, datatype, 1, count);
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    int rc = count_of("MPI_Get_elements_x", status, datatype, 1, count);
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    fy_status_set_cancelled(status, flag);
    return MPI_SUCCESS;
}

static int set_elements(const char *fn, MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    const fy_dtype_t *d;
    int rc = fy_api_dtype(fn, datatype, &d);
    if (rc == MPI_SUCCESS && (status == NULL || status == MPI_STATUS_IGNORE))
        rc = fy_err_set(MPI_ERR_ARG, "%s: status is %s", fn, status ? "MPI_STATUS_IGNORE" : "NULL");
    if (rc == MPI_SUCCESS && count < 0)
        rc = fy_err_set(MPI_ERR_COUNT, "%s: invalid count %lld (must be non-negative)", fn,
                        (long long)count);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    int cancelled = status->count_hi_and_cancelled & (int)0x80000000u;
    size_t bytes = fy_dtype_bytes_of_elements(d, count);
    status->count_lo = (int)(bytes & 0xffffffffu);
    status->count_hi_and_cancelled = (int)((bytes >> 32) & 0x7fffffff) | cancelled;
    return MPI_SUCCESS;
}

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    int rc = count_of("MPI_Get_count_c", status, datatype, 0, count);
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    int rc = count_of("MPI_Get_elements_c", status, datatype, 1, count);
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}

int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}
