/* Error classes, codes and strings (predefined and user-defined), and error handlers on
 * communicators, with the deprecated MPI-1 names of the handler calls. */
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
    /* A user code's string may be replaced by MPI_Add_error_string meanwhile. */
    fy_lock();
    const char *m = fy_err_code_message(errorcode);
    int n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", m ? m : "");
    fy_unlock();
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

int PMPI_Add_error_class(int *errorclass)
{
    int rc = fy_api_check_init("MPI_Add_error_class");
    if (rc == MPI_SUCCESS && !errorclass)
        rc = fy_err_set(MPI_ERR_ARG, "MPI_Add_error_class: errorclass is NULL");
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_err_add_class(errorclass);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    int rc = fy_api_check_init("MPI_Add_error_code");
    if (rc == MPI_SUCCESS && !errorcode)
        rc = fy_err_set(MPI_ERR_ARG, "MPI_Add_error_code: errorcode is NULL");
    if (rc == MPI_SUCCESS && !fy_err_is_class(errorclass))
        rc = fy_err_set(MPI_ERR_ARG,
                        "MPI_Add_error_code: %d is not an error class (the predefined classes, "
                        "other than MPI_SUCCESS, or one made by MPI_Add_error_class)",
                        errorclass);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_err_add_code(errorclass, errorcode);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Add_error_string(int errorcode, const char *string)
{
    int rc = fy_api_check_init("MPI_Add_error_string");
    size_t len = string ? strlen(string) : 0;
    if (rc != MPI_SUCCESS)
        goto out;
    if (!string)
        rc = fy_err_set(MPI_ERR_ARG, "MPI_Add_error_string: string is NULL");
    else if (len >= MPI_MAX_ERROR_STRING)
        rc = fy_err_set(MPI_ERR_ARG,
                        "MPI_Add_error_string: the string has %zu characters, more than "
                        "MPI_MAX_ERROR_STRING - 1 (%d)",
                        len, MPI_MAX_ERROR_STRING - 1);
    else if (errorcode >= 0 && errorcode <= MPI_ERR_LASTCODE)
        rc = fy_err_set(MPI_ERR_ARG,
                        "MPI_Add_error_string: %d is a predefined error class or code, whose "
                        "string cannot be changed (only those of MPI_Add_error_class/code can)",
                        errorcode);
    if (rc != MPI_SUCCESS)
        goto out;
    fy_lock();
    rc = fy_err_add_string(errorcode, string);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        fy_err_set(rc,
                   "MPI_Add_error_string: %d is not an error class or code made by "
                   "MPI_Add_error_class or MPI_Add_error_code",
                   errorcode);
out:
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

/* MPI-4.1: removal, in the reverse order of creation (string, then code, then class). */
enum { REMOVE_CODE, REMOVE_CLASS, REMOVE_STRING };

static int remove_entry(const char *fn, int value, int what)
{
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = what == REMOVE_STRING ? fy_err_remove_string(fn, value)
                                   : fy_err_remove(fn, value, what == REMOVE_CLASS);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Remove_error_class(int errorclass)
{
    return remove_entry("MPI_Remove_error_class", errorclass, REMOVE_CLASS);
}

int PMPI_Remove_error_code(int errorcode)
{
    return remove_entry("MPI_Remove_error_code", errorcode, REMOVE_CODE);
}

int PMPI_Remove_error_string(int errorcode)
{
    return remove_entry("MPI_Remove_error_string", errorcode, REMOVE_STRING);
}

/* ---- Error handlers on communicators ---------------------------------------------------- */

static int create_errhandler(const char *fn, MPI_Comm_errhandler_function *f,
                             MPI_Errhandler *errhandler)
{
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && !f)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid function NULL", fn);
    if (rc == MPI_SUCCESS && !errhandler)
        rc = fy_err_set(MPI_ERR_ARG, "%s: errhandler is NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_errhandler_create(f, errhandler);
        fy_unlock();
        if (rc != MPI_SUCCESS)
            fy_err_set(rc, "%s: out of memory", fn);
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

static int set_errhandler(const char *fn, MPI_Comm comm, MPI_Errhandler errhandler)
{
    fy_comm_t *c;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    if (!fy_errhandler_fits(errhandler, FY_EH_COMM)) {
        fy_err_set(MPI_ERR_ARG, "%s: invalid errhandler 0x%x (not a communicator's)", fn,
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

static int get_errhandler(const char *fn, MPI_Comm comm, MPI_Errhandler *errhandler)
{
    fy_comm_t *c;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS && !errhandler)
        rc = fy_err_set(MPI_ERR_ARG, "%s: errhandler is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    fy_lock();
    fy_errhandler_ref(c->errhandler); /* the user now holds a reference to free */
    *errhandler = c->errhandler;
    fy_unlock();
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return create_errhandler("MPI_Comm_create_errhandler", fn, errhandler);
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return set_errhandler("MPI_Comm_set_errhandler", comm, errhandler);
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return get_errhandler("MPI_Comm_get_errhandler", comm, errhandler);
}

/* The MPI-1 names (deprecated in MPI-2, removed in MPI-3, still in the ABI). */
int PMPI_Errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return create_errhandler("MPI_Errhandler_create", fn, errhandler);
}

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return set_errhandler("MPI_Errhandler_set", comm, errhandler);
}

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return get_errhandler("MPI_Errhandler_get", comm, errhandler);
}

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    if (!errhandler || !fy_errhandler_get(*errhandler)) {
        fy_err_set(MPI_ERR_ARG, "MPI_Errhandler_free: invalid errhandler 0x%x",
                   errhandler ? (unsigned)*errhandler : 0u);
        return fy_err_raise_comm(MPI_COMM_SELF, MPI_ERR_ARG);
    }
    fy_lock();
    fy_errhandler_unref(*errhandler);
    fy_unlock();
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

/* Runs comm's handler with the code exactly as given (a user code reaches a user handler
 * unchanged). The call itself succeeds once the handler has run and returned. */
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_call_errhandler", comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    fy_err_invoke_comm(c->handle, errorcode);
    return MPI_SUCCESS;
}
