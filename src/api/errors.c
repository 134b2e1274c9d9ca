/* Error classes, strings and error handlers on communicators. */
#include <stdio.h>
#include <string.h>

#include "fy_api.h"
#include "fy_errhandler.h"

int PMPI_Error_class(int errorcode, int *errorclass)
{
    int cls = fy_err_class_of(errorcode);
    if (cls < 0) {
        fy_err_set(MPI_ERR_ARG, "MPI_Error_class: invalid error code %d", errorcode);
        return fy_err_raise_comm(MPI_COMM_SELF, MPI_ERR_ARG);
    }
    *errorclass = cls;
    return MPI_SUCCESS;
}

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    int cls = fy_err_class_of(errorcode);
    if (cls < 0) {
        fy_err_set(MPI_ERR_ARG, "MPI_Error_string: invalid error code %d", errorcode);
        return fy_err_raise_comm(MPI_COMM_SELF, MPI_ERR_ARG);
    }
    const char *m = fy_err_code_message(errorcode);
    *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "%s", m ? m : "unknown error");
    if (*resultlen >= MPI_MAX_ERROR_STRING)
        *resultlen = MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    int rc = fy_api_check_init("MPI_Comm_create_errhandler");
    if (rc == MPI_SUCCESS && !fn)
        rc = fy_err_set(MPI_ERR_ARG, "MPI_Comm_create_errhandler: invalid function NULL");
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_errhandler_create(fn, errhandler);
        fy_unlock();
        if (rc != MPI_SUCCESS)
            fy_err_set(rc, "MPI_Comm_create_errhandler: out of memory");
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_set_errhandler", comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    if (!fy_errhandler_get(errhandler)) {
        fy_err_set(MPI_ERR_ARG, "MPI_Comm_set_errhandler: invalid errhandler 0x%x",
                   (unsigned)errhandler);
        return fy_err_raise_comm(comm, MPI_ERR_ARG);
    }
    fy_lock();
    fy_errhandler_ref(errhandler);
    fy_errhandler_unref(c->errhandler);
    c->errhandler = errhandler;
    fy_unlock();
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_get_errhandler", comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    fy_lock();
    fy_errhandler_ref(c->errhandler); /* the user now holds a reference to free */
    *errhandler = c->errhandler;
    fy_unlock();
    return MPI_SUCCESS;
}

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    if (!fy_errhandler_get(*errhandler)) {
        fy_err_set(MPI_ERR_ARG, "MPI_Errhandler_free: invalid errhandler 0x%x",
                   (unsigned)*errhandler);
        return fy_err_raise_comm(MPI_COMM_SELF, MPI_ERR_ARG);
    }
    fy_lock();
    fy_errhandler_unref(*errhandler);
    fy_unlock();
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_call_errhandler", comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    fy_err_set(errorcode & 0xff, "%s", fy_err_code_message(errorcode));
    fy_err_raise_comm(comm, errorcode & 0xff);
    return MPI_SUCCESS;
}
