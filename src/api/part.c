/* Partitioned communication (MPI-4.1 chapter 4): the entry points. The work is in
 * p2p/p2p_part.c; MPI_Start, the Wait/Test family and MPI_Request_free handle these requests
 * beside the others (kind FY_REQ_PART). Errors go to the communicator's handler; Pready and
 * Parrived, which name no communicator, use the request's. */
#include "fy_api.h"
#include "fy_info.h"
#include "fy_part.h"

static int part_init(const char *fn, bool send, const void *buf, int partitions,
                     MPI_Count count, MPI_Datatype datatype, int peer, int tag, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request)
{
    fy_comm_t *c = NULL;
    const fy_dtype_t *d = NULL;
    fy_req_t *r = NULL;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS && partitions < 1)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid partitions %d (must be at least 1)", fn,
                        partitions);
    if (rc == MPI_SUCCESS)
        rc = fy_api_count(fn, count);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype(fn, datatype, &d);
    /* No wildcards: partitioned operations match at init, one to one. */
    if (rc == MPI_SUCCESS)
        rc = fy_api_rank(fn, c, peer, send ? "dest" : "source", 0, 1);
    if (rc == MPI_SUCCESS)
        rc = fy_api_tag(fn, tag, 0);
    if (rc == MPI_SUCCESS)
        rc = fy_api_buf(fn, buf, count * partitions, d);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL && !fy_info_get(info))
        rc = fy_err_set(MPI_ERR_INFO, "%s: invalid info 0x%x", fn, (unsigned)info);
    if (rc == MPI_SUCCESS && !request)
        rc = fy_err_set(MPI_ERR_ARG, "%s: request is NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_part_init(fn, send, (void *)buf, partitions, count, d, peer, tag, c, &r);
        fy_unlock();
    }
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *request = r->handle;
    return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Psend_init", true, buf, partitions, count, datatype, dest, tag, comm,
                     info, request);
}

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Precv_init", false, buf, partitions, count, datatype, source, tag, comm,
                     info, request);
}

/* A live partitioned request (lock held). */
static int part_arg(const char *fn, MPI_Request h, fy_req_t **r_p)
{
    int rc = fy_api_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    fy_req_t *r = fy_req_get(h);
    if (!r || r->kind != FY_REQ_PART)
        return fy_err_set(MPI_ERR_REQUEST, "%s: invalid request 0x%x (not a partitioned one)", fn,
                          (unsigned)h);
    *r_p = r;
    return MPI_SUCCESS;
}

static int raise(fy_req_t *r, int rc)
{
    if (rc == MPI_SUCCESS)
        return rc;
    return fy_err_raise_comm(r && r->comm ? r->comm->handle : MPI_COMM_SELF, rc);
}

static int ready(const char *fn, MPI_Request request, int lo, int hi, const int *list, int n)
{
    fy_req_t *r = NULL;
    fy_lock();
    int rc = part_arg(fn, request, &r);
    if (rc == MPI_SUCCESS && list == NULL && lo > hi)
        rc = fy_err_set(MPI_ERR_ARG, "%s: partition_low %d is above partition_high %d", fn, lo,
                        hi);
    if (rc == MPI_SUCCESS && list == NULL && n < 0)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid length %d", fn, n);
    if (rc == MPI_SUCCESS)
        rc = fy_part_ready(fn, r, lo, hi, list, n);
    fy_unlock();
    return raise(r, rc);
}

int PMPI_Pready(int partition, MPI_Request request)
{
    return ready("MPI_Pready", request, partition, partition, NULL, 0);
}

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    return ready("MPI_Pready_range", request, partition_low, partition_high, NULL, 0);
}

int PMPI_Pready_list(int length, int array_of_partitions[], MPI_Request request)
{
    const char *fn = "MPI_Pready_list";
    if (length < 0 || (length > 0 && !array_of_partitions)) {
        fy_err_set(MPI_ERR_ARG, "%s: invalid length %d or array_of_partitions NULL", fn, length);
        return fy_err_raise_comm(MPI_COMM_SELF, MPI_ERR_ARG);
    }
    static const int none[1] = {0};
    return ready(fn, request, 0, -1, length ? array_of_partitions : none, length);
}

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    const char *fn = "MPI_Parrived";
    fy_req_t *r = NULL;
    fy_lock();
    int rc = part_arg(fn, request, &r);
    if (rc == MPI_SUCCESS && !flag)
        rc = fy_err_set(MPI_ERR_ARG, "%s: flag is NULL", fn);
    if (rc == MPI_SUCCESS)
        rc = fy_part_arrived(fn, r, partition, flag);
    fy_unlock();
    return raise(r, rc);
}
