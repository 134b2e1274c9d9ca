/* Probes and matched probes. A matched message is an unexpected-queue entry taken out of the
 * queue; its request handle is the MPI_Message. */
#include "fy_p2p.h"
#include "p2p_start.h"

typedef struct {
    uint32_t ctx;
    int src, tag;
    bool take;
    fy_req_t *found;
} probe_t;

static bool probe_found(void *arg)
{
    probe_t *p = arg;
    p->found = fy_p2p_probe(p->ctx, p->src, p->tag, p->take);
    return p->found != NULL;
}

static int probe_args(const char *fn, int source, int tag, MPI_Comm comm, probe_t *p)
{
    fy_comm_t *c;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS)
        rc = fy_api_rank(fn, c, source, "source", 1, 1);
    if (rc == MPI_SUCCESS)
        rc = fy_api_tag(fn, tag, 1);
    *p = (probe_t){.ctx = FY_CTX_P2P(c), .src = source, .tag = tag};
    return rc;
}

static void status_of(const fy_req_t *u, MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE)
        fy_status_set(status, u->hdr.src, u->hdr.tag, (size_t)u->hdr.len, status->MPI_ERROR);
}

static void status_null(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE)
        fy_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0, status->MPI_ERROR);
}

/* Blocking (wait != 0) or not; take != 0 for the matched forms. */
static int probe(const char *fn, int source, int tag, MPI_Comm comm, int wait, int take, int *flag,
                 MPI_Message *message, MPI_Status *status)
{
    probe_t p;
    int rc = probe_args(fn, source, tag, comm, &p);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    if (source == MPI_PROC_NULL) {
        status_null(status);
        if (flag)
            *flag = 1;
        if (message)
            *message = MPI_MESSAGE_NO_PROC;
        return MPI_SUCCESS;
    }
    p.take = take;
    fy_lock();
    if (wait) {
        fy_wait_until(probe_found, &p);
    } else if (!probe_found(&p)) {
        fy_progress();
        probe_found(&p);
    }
    fy_unlock();
    if (flag)
        *flag = p.found != NULL;
    if (p.found) {
        status_of(p.found, status);
        if (message)
            *message = p.found->handle;
    } else if (message) {
        *message = MPI_MESSAGE_NULL;
    }
    return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe("MPI_Probe", source, tag, comm, 1, 0, NULL, NULL, status);
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return probe("MPI_Iprobe", source, tag, comm, 0, 0, flag, NULL, status);
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return probe("MPI_Mprobe", source, tag, comm, 1, 1, NULL, message, status);
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    return probe("MPI_Improbe", source, tag, comm, 0, 1, flag, message, status);
}

/* Starts the receive of a matched message; NULL request for MPI_MESSAGE_NO_PROC. */
static int mrecv_start(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Message *message, fy_req_t **r_p)
{
    const fy_dtype_t *d;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype(fn, datatype, &d);
    if (rc == MPI_SUCCESS)
        rc = fy_api_count(fn, count);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Peer, tag and context come from the matched message. */
    fy_req_t *r =
        fy_req_new_p2p(FY_REQ_RECV, buf, count, d, MPI_PROC_NULL, 0, NULL, 0, FY_MODE_STANDARD);
    if (!r)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    r->bytes = fy_dtype_bytes(d, count);
    if (*message == MPI_MESSAGE_NO_PROC) {
        fy_p2p_irecv(r);
    } else {
        fy_req_t *u = fy_req_get(*message);
        if (!u || u->kind != FY_REQ_UNEXP) {
            fy_req_free(r);
            return fy_err_set(MPI_ERR_REQUEST, "%s: invalid message 0x%x", fn, (unsigned)*message);
        }
        r->peer = u->hdr.src;
        r->tag = u->hdr.tag;
        r->ctx = u->hdr.ctx;
        fy_p2p_mrecv(r, u);
    }
    *message = MPI_MESSAGE_NULL;
    *r_p = r;
    return MPI_SUCCESS;
}

static int mrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Message *message, MPI_Status *status)
{
    fy_req_t *r;
    fy_lock();
    int rc = mrecv_start(fn, buf, count, datatype, message, &r);
    if (rc == MPI_SUCCESS)
        rc = fy_api_finish_blocking(r, status);
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

static int imrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Message *message, MPI_Request *request)
{
    fy_req_t *r;
    fy_lock();
    int rc = mrecv_start(fn, buf, count, datatype, message, &r);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *request = r->handle;
    return MPI_SUCCESS;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    return mrecv("MPI_Mrecv", buf, count, datatype, message, status);
}

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status)
{
    return mrecv("MPI_Mrecv_c", buf, count, datatype, message, status);
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    return imrecv("MPI_Imrecv", buf, count, datatype, message, request);
}

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request)
{
    return imrecv("MPI_Imrecv_c", buf, count, datatype, message, request);
}
