/* Reduction operators: creating and freeing user operators, asking whether one commutes, and
 * applying one locally (MPI_Reduce_local). Errors not tied to a communicator are raised on
 * MPI_COMM_SELF. */
#include "fy_api.h"
#include "fy_op.h"

static int op_create(const char *fn, MPI_User_function *user_fn, MPI_User_function_c *user_fn_c,
                     int commute, MPI_Op *op)
{
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && !user_fn && !user_fn_c)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid user_fn NULL", fn);
    if (rc == MPI_SUCCESS && !op)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid op argument NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_op_create(user_fn, user_fn_c, commute != 0, op);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}

int PMPI_Op_free(MPI_Op *op)
{
    const char *fn = "MPI_Op_free";
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && !op)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid op argument NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        fy_op_t *o = fy_op_get(*op);
        if (!o)
            rc = *op == MPI_OP_NULL
                     ? fy_err_set(MPI_ERR_OP, "%s: invalid operator MPI_OP_NULL", fn)
                     : fy_err_set(MPI_ERR_OP, "%s: invalid operator 0x%x", fn, (unsigned)*op);
        else if (o->predef)
            rc = fy_err_set(MPI_ERR_OP, "%s: %s is predefined and cannot be freed", fn,
                            fy_op_name(*op));
        else {
            fy_op_release(o);
            *op = MPI_OP_NULL;
        }
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    const char *fn = "MPI_Op_commutative";
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && !commute)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid commute argument NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        fy_op_t *o = fy_op_get(op);
        if (o)
            *commute = o->commute;
        else
            rc = op == MPI_OP_NULL
                     ? fy_err_set(MPI_ERR_OP, "%s: invalid operator MPI_OP_NULL", fn)
                     : fy_err_set(MPI_ERR_OP, "%s: invalid operator 0x%x", fn, (unsigned)op);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

static int reduce_local(const char *fn, const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op)
{
    const fy_dtype_t *d = NULL;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = fy_api_count(fn, count);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype(fn, datatype, &d);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_op_check(fn, op, d);
        if (rc == MPI_SUCCESS)
            rc = fy_api_buf(fn, inbuf, count, d);
        if (rc == MPI_SUCCESS)
            rc = fy_api_buf(fn, inoutbuf, count, d);
        if (rc == MPI_SUCCESS && inbuf == MPI_IN_PLACE)
            rc = fy_err_set(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not a valid inbuf", fn);
        if (rc == MPI_SUCCESS && count > 0)
            rc = fy_op_apply(op, d, inbuf, inoutbuf, count);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op)
{
    return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}
