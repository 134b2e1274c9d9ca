/* MPI_Type_get_value_index (MPI-4.1): the predefined (value, index) pair type that
 * MPI_MINLOC and MPI_MAXLOC take, looked up from its two halves. Only the predefined pairs
 * exist; any other combination, derived types included, gives MPI_DATATYPE_NULL (the standard's
 * answer for "no such predefined type", not an error). */
#include "fy_api.h"

static const struct {
    MPI_Datatype value, index, pair;
} pairs[] = {
    {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
    {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
    {MPI_LONG, MPI_INT, MPI_LONG_INT},
    {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
    {MPI_INT, MPI_INT, MPI_2INT},
    {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
    {MPI_REAL, MPI_REAL, MPI_2REAL},
    {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
    {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
};

int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type)
{
    const char *fn = "MPI_Type_get_value_index";
    fy_dtype_t *d;
    int rc = fy_api_dtype_any(fn, value_type, &d);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype_any(fn, index_type, &d);
    if (rc == MPI_SUCCESS && !pair_type)
        rc = fy_err_set(MPI_ERR_ARG, "%s: pair_type is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (pairs[i].value == value_type && pairs[i].index == index_type)
            *pair_type = pairs[i].pair;
    return MPI_SUCCESS;
}
