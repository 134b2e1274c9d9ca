/* Keyvals and attributes on communicators (predefined attributes: misc.c). */
#include "fy_api.h"
#include "fy_attr.h"

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state)
{
    int rc = fy_api_check_init("MPI_Comm_create_keyval");
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_keyval_create(comm_copy_attr_fn, comm_delete_attr_fn, extra_state, comm_keyval);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    fy_lock();
    int rc = fy_keyval_free(*comm_keyval);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_set_attr", comm, &c);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_attr_set(c, comm_keyval, attribute_val);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_delete_attr", comm, &c);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_attr_delete(c, comm_keyval);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

/* Keyvals and attributes on datatypes: copied by MPI_Type_dup, deleted by MPI_Type_free. */
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    int rc = fy_api_check_init("MPI_Type_create_keyval");
    if (rc == MPI_SUCCESS && !type_keyval)
        rc = fy_err_set(MPI_ERR_ARG, "MPI_Type_create_keyval: type_keyval is NULL");
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_keyval_create_kind(FY_ATTR_TYPE, (MPI_Comm_copy_attr_function *)type_copy_attr_fn,
                                   (MPI_Comm_delete_attr_function *)type_delete_attr_fn,
                                   extra_state, type_keyval);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Type_free_keyval(int *type_keyval)
{
    if (!type_keyval)
        return fy_err_raise_comm(
            MPI_COMM_SELF, fy_err_set(MPI_ERR_ARG, "MPI_Type_free_keyval: type_keyval is NULL"));
    fy_lock();
    int rc = fy_keyval_free(*type_keyval);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *type_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static int type_attr(const char *fn, MPI_Datatype datatype, fy_dtype_t **d_p)
{
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype_any(fn, datatype, d_p);
    return rc;
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    const char *fn = "MPI_Type_set_attr";
    fy_dtype_t *d;
    int rc = type_attr(fn, datatype, &d);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_attrs_set(fn, FY_ATTR_TYPE, &d->attrs, datatype, type_keyval, attribute_val);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    const char *fn = "MPI_Type_get_attr";
    fy_dtype_t *d;
    int rc = type_attr(fn, datatype, &d);
    if (rc == MPI_SUCCESS && (!attribute_val || !flag))
        rc = fy_err_set(MPI_ERR_ARG, "%s: attribute_val or flag is NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_attrs_get(fn, FY_ATTR_TYPE, &d->attrs, type_keyval, (void **)attribute_val, flag);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    const char *fn = "MPI_Type_delete_attr";
    fy_dtype_t *d;
    int rc = type_attr(fn, datatype, &d);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_attrs_delete(fn, FY_ATTR_TYPE, &d->attrs, datatype, type_keyval);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

/* The MPI-1 names (removed from the standard, still in the ABI): the callbacks have the same
 * shape as the communicator ones. */
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return PMPI_Comm_create_keyval((MPI_Comm_copy_attr_function *)copy_fn,
                                   (MPI_Comm_delete_attr_function *)delete_fn, keyval, extra_state);
}

int PMPI_Keyval_free(int *keyval)
{
    return PMPI_Comm_free_keyval(keyval);
}

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return PMPI_Comm_delete_attr(comm, keyval);
}
