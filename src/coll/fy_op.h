/* Predefined reduction operators applied to predefined datatypes. */
#ifndef FY_OP_H
#define FY_OP_H

#include "fy_dtype.h"
#include "mpi.h"

/* inout[i] = in[i] op inout[i]. Returns MPI_SUCCESS, or MPI_ERR_OP when the operator is not
 * defined on the type (no message: callers check with fy_op_check first). */
int fy_op_apply(MPI_Op op, const fy_dtype_t *dt, const void *in, void *inout, MPI_Aint count);
/* MPI_ERR_OP with a message when op is not a valid operator for dt; MPI_SUCCESS otherwise. */
int fy_op_check(const char *fn, MPI_Op op, const fy_dtype_t *dt);

#endif
