/* Reduction operators: the predefined ones (handles 0x58000000 | k, applied by vectorised
 * kernels in op_kernels.c) and the user functions of MPI_Op_create(_c) (op_user.c).
 *
 * Every operator combines two vectors element by element as the user function does:
 *     inout[i] = in[i] o inout[i]
 * where `in` holds the contribution of the LOWER ranks. A reduction over ranks 0..p-1 is
 * x0 o x1 o ... o x(p-1); non-commutative operators must be applied in that order (the
 * collectives ask fy_op_commutes which path to take).
 *
 * MPI_REPLACE and MPI_NO_OP are defined by the standard for accumulate operations only;
 * Ferry also accepts them in reductions with the meaning the formula gives them:
 * REPLACE stores `in` (a o b = a: a reduction yields rank 0's vector), NO_OP leaves `inout`
 * (a o b = b: the last rank's vector). Both are treated as non-commutative. */
#ifndef FY_OP_H
#define FY_OP_H

#include <stdbool.h>
#include <stddef.h>

#include "fy_dtype.h"
#include "mpi.h"

enum {
    FY_OP_MAX = 1,
    FY_OP_MIN,
    FY_OP_SUM,
    FY_OP_PROD,
    FY_OP_LAND,
    FY_OP_BAND,
    FY_OP_LOR,
    FY_OP_BOR,
    FY_OP_LXOR,
    FY_OP_BXOR,
    FY_OP_MINLOC,
    FY_OP_MAXLOC,
    FY_OP_REPLACE,
    FY_OP_NO_OP,
    FY_OP_NPREDEF_ /* one past the last predefined index */
};

typedef struct fy_op {
    MPI_Op handle;
    int predef;       /* FY_OP_x for a predefined operator, 0 for a user function */
    bool commute;     /* as the user declared it; predefined: all but REPLACE and NO_OP */
    bool large_count; /* the function is an MPI_User_function_c (MPI_Count length) */
    MPI_User_function *fn;
    MPI_User_function_c *fn_c;
    int refs; /* the handle, and collectives in flight */
} fy_op_t;

/* --- Handles (op_user.c). NULL when `h` is not a valid operator (MPI_OP_NULL included). */
fy_op_t *fy_op_get(MPI_Op h);
/* "MPI_SUM", or "user operator 0x98000002" (a static buffer per thread for the latter). */
const char *fy_op_name(MPI_Op h);
/* Exactly one of fn, fn_c is non-NULL. Sets *h_p only on success. */
int fy_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, bool commute, MPI_Op *h_p);
/* Drops the handle's reference; the operator is freed when nothing uses it any more. */
void fy_op_release(fy_op_t *op);
void fy_op_ref(fy_op_t *op);
void fy_op_fini(void);

/* --- Applying (op_kernels.c). */
/* MPI_SUCCESS, or MPI_ERR_OP with a message naming `fn`, the operator and the datatype when
 * `op` is not valid or not defined on `dt` (user operators accept every datatype), or
 * MPI_ERR_TYPE when dt is a derived datatype not yet committed. */
int fy_op_check(const char *fn, MPI_Op op, const fy_dtype_t *dt);
/* inout = in o inout over `count` elements of dt, both buffers in dt's layout. Returns
 * MPI_SUCCESS, or MPI_ERR_OP (no message) for a pair fy_op_check rejects. */
int fy_op_apply(MPI_Op op, const fy_dtype_t *dt, const void *in, void *inout, MPI_Count count);
/* False for unknown handles. */
bool fy_op_commutes(MPI_Op op);

/* --- Temporary vectors in a datatype's own layout, for reductions. fy_op_span gives the
 * bytes `count` elements of dt occupy from their lowest to their highest byte and the offset
 * of the buffer origin within them: a block of `bytes` at p holds the elements at p + *origin_p. */
size_t fy_op_span(const fy_dtype_t *dt, MPI_Count count, size_t *origin_p);
/* Copies the data of `count` elements between two buffers of dt (holes left untouched).
 * src == dst does nothing; otherwise they must not overlap. */
void fy_op_copy(const fy_dtype_t *dt, const void *src, void *dst, MPI_Count count);

#endif
