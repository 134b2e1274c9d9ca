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
