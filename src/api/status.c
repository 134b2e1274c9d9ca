/* The MPI-4.1 accessors of a status's public fields (MPI_Status_get/set_source, _tag, _error):
 * for languages and tools that cannot reach the fields directly. They read or write the field
 * and nothing else; the status need not come from a completed operation (a generalized
 * request's query function fills one with the setters). */
#include "fy_api.h"

/* MPI_STATUS_IGNORE is not an object: neither it nor NULL may be read or written. */
static int check(const char *fn, const MPI_Status *status, const void *out)
{
    int rc = MPI_SUCCESS;
    if (status == NULL || status == MPI_STATUS_IGNORE)
        rc = fy_err_set(MPI_ERR_ARG, "%s: status is %s", fn, status ? "MPI_STATUS_IGNORE" : "NULL");
    else if (out == NULL)
        rc = fy_err_set(MPI_ERR_ARG, "%s: the output argument is NULL", fn);
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Status_get_source(MPI_Status *status, int *source)
{
    int rc = check("MPI_Status_get_source", status, source);
    if (rc == MPI_SUCCESS)
        *source = status->MPI_SOURCE;
    return rc;
}

int PMPI_Status_set_source(MPI_Status *status, int source)
{
    int rc = check("MPI_Status_set_source", status, status);
    if (rc == MPI_SUCCESS)
        status->MPI_SOURCE = source;
    return rc;
}

int PMPI_Status_get_tag(MPI_Status *status, int *tag)
{
    int rc = check("MPI_Status_get_tag", status, tag);
    if (rc == MPI_SUCCESS)
        *tag = status->MPI_TAG;
    return rc;
}

int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
    int rc = check("MPI_Status_set_tag", status, status);
    if (rc == MPI_SUCCESS)
        status->MPI_TAG = tag;
    return rc;
}

int PMPI_Status_get_error(MPI_Status *status, int *error)
{
    int rc = check("MPI_Status_get_error", status, error);
    if (rc == MPI_SUCCESS)
        *error = status->MPI_ERROR;
    return rc;
}

int PMPI_Status_set_error(MPI_Status *status, int error)
{
    int rc = check("MPI_Status_set_error", status, status);
    if (rc == MPI_SUCCESS)
        status->MPI_ERROR = error;
    return rc;
}
